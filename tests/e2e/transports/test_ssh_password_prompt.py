"""The SSH password prompt is the server's, in words a French or Spanish person reads, over the real
OpenSSH client (keyboard-interactive authentication, which OpenSSH prefers to its own
"password:" prompt); a wrong password says so before asking again (a client that names its language in the
request gets the prompt in that language alone).
"""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path
from typing import Any

import asyncssh
import pytest

from server.messages.door import password_prompt, wrong_password
from tests.e2e.people.test_human_play import Screen
from tests.kits.servers import start_server

pexpect = pytest.importorskip("pexpect")

pytestmark = pytest.mark.e2e

PASSWORD = "correct-horse-prompt"
BOTH = "Mot de passe / Clave / Password: "


def test_the_prompt_is_in_three_languages_until_one_is_known() -> None:
    assert password_prompt() == BOTH
    assert password_prompt("fr") == "Mot de passe : "
    assert password_prompt("es-ES") == "Clave: "
    assert password_prompt("xx") == BOTH  # a language donne does not speak: all three
    assert wrong_password().splitlines() == ["Mot de passe incorrect, essayez encore.",
                                             "Clave incorrecta; prueba otra vez.",
                                             "Wrong password; try again."]
    # OpenSSH escapes the bytes of a prompt that are not ASCII unless its locale is UTF-8
    for lang in (None, "fr", "es", "en"):
        assert (password_prompt(lang) + wrong_password(lang)).isascii()


def _login(port: int, screen: Screen) -> Any:
    child = pexpect.spawn(
        "ssh",
        ["-F", "/dev/null", "-tt", "-p", str(port), "-o", "StrictHostKeyChecking=no",
         "-o", "UserKnownHostsFile=/dev/null", "-o", "PubkeyAuthentication=no",  # LogLevel INFO: the default
         "zoe@127.0.0.1"],
        env={"TERM": "xterm", "PATH": "/usr/bin:/bin", "HOME": "/nonexistent"},  # C locale: ASCII prompts
        encoding="utf-8", codec_errors="replace", dimensions=(40, 100), timeout=30,
    )
    child.logfile_read = screen
    child.expect_exact(BOTH)
    child.sendline("not-the-password")
    child.expect_exact("Mot de passe incorrect")  # said before the prompt comes again
    child.expect_exact(BOTH)
    child.sendline(PASSWORD)
    child.expect("zoe")
    child.sendline("quit")
    child.expect(pexpect.EOF)
    return child


@pytest.mark.skipif(shutil.which("ssh") is None, reason="OpenSSH client (ssh) not installed: make tools")
async def test_openssh_asks_for_the_password_in_the_server_s_words_and_again_after_a_wrong_one(
        tmp_path: Path) -> None:
    running = await start_server(tmp_path)
    screen = Screen()
    try:
        await running.store.accounts.register("zoe", PASSWORD)
        child = await asyncio.to_thread(_login, running.ssh_port, screen)
        child.close(force=True)
        assert "assword:" not in screen.text.replace(BOTH, "")  # never the client's English prompt
    finally:
        await running.stop()


class _Asker(asyncssh.SSHClient):
    def __init__(self) -> None:
        self.prompts: list[tuple[str, str]] = []

    def kbdint_auth_requested(self) -> str:
        return ""

    def kbdint_challenge_received(self, name: str, instructions: str, lang: str,
                                  prompts: Any) -> list[str]:
        self.prompts.append((instructions, prompts[0][0] if prompts else ""))
        return ["wrong"] if len(self.prompts) == 1 else [PASSWORD]


async def test_a_wrong_password_is_said_in_the_next_challenge(tmp_path: Path) -> None:
    running = await start_server(tmp_path)
    try:
        await running.store.accounts.register("zoe", PASSWORD)
        asker = _Asker()
        conn, _ = await asyncssh.create_connection(
            lambda: asker, "127.0.0.1", running.ssh_port, username="zoe", known_hosts=None, client_keys=None,
            agent_path=None, preferred_auth="keyboard-interactive", password=None)
        async with conn:
            pass
        assert asker.prompts[0] == ("", BOTH)  # asyncssh names no language either
        assert asker.prompts[1] == (wrong_password(), BOTH)
    finally:
        await running.stop()
