"""A person's seat after ``kill -9``: a guest name typed by someone else gets nothing; the code gives it back.

zoe, a guest, logs in over the real OpenSSH client in French, opens a classic table with two
bots and reads her resume code when she sits down. The server is killed with ``kill -9`` and a
new one starts on the same data folder. Someone else connects over the real telnet client in
Spanish and types zoe's name: they are asked for her code, a wrong one is refused, and they see
no table, no hand. zoe logs in again over SSH, gives her code when asked, and reads that the server
restarted and that her table is back, with her hand. The code never appears in the server's log.
"""

from __future__ import annotations

import asyncio
import re
import shutil
import signal
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.people.test_human_play import Screen
from tests.kits.restart_kit import FAST_TIMERS, ServerProcess

pexpect = pytest.importorskip("pexpect")

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("ssh") is None, reason="OpenSSH client (ssh) not installed: make tools"),
    pytest.mark.skipif(shutil.which("telnet") is None, reason="telnet client not installed: make tools"),
]

CODE = re.compile(r"Votre code de reprise\s*:\s*([A-Z2-9]{4})-\s*([A-Z2-9]{4})")
HAND = re.compile(r"Votre main \((\d+)\)\s*:")


def _ssh(port: int, screen: Screen) -> Any:
    child = pexpect.spawn(
        "ssh",
        ["-F", "/dev/null", "-tt", "-p", str(port), "-o", "StrictHostKeyChecking=no",
         "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR", "-o", "SendEnv=LANG",
         "-o", "BatchMode=yes", "-o", "IdentityFile=/dev/null", "zoe@127.0.0.1"],
        env={"LANG": "fr_FR.UTF-8", "TERM": "xterm", "PATH": "/usr/bin:/bin", "HOME": "/nonexistent"},
        encoding="utf-8", codec_errors="replace", dimensions=(40, 100), timeout=30,
    )
    child.logfile_read = screen
    return child


def zoe_sits_down(port: int, screen: Screen) -> tuple[Any, str, int]:
    child = _ssh(port, screen)
    child.expect("zoe")
    child.sendline("créer président classique 3 bots=2")
    child.expect(CODE)
    code = f"{child.match.group(1)}-{child.match.group(2)}"
    child.expect(HAND)
    return child, code, int(child.match.group(1))


def someone_else_types_her_name(port: int, screen: Screen) -> None:
    child = pexpect.spawn("telnet", ["127.0.0.1", str(port)], env={"TERM": "xterm", "PATH": "/usr/bin:/bin"},
                          encoding="utf-8", codec_errors="replace", dimensions=(40, 100), timeout=30)
    child.logfile_read = screen
    try:
        child.expect("Idioma")
        child.sendline("3")
        child.expect("Nombre")
        child.sendline("zoe")
        child.expect(r"El invitado zoe ocupa un asiento")
        child.expect(r"Código de reanudación \(Intro sola: otro nombre\): ")
        child.sendline("AAAA-AAAA")
        child.expect(r"Ese no es el código de reanudación de zoe")
        child.expect(r"Código de reanudación")
        child.sendline("")
        child.expect("Nombre")  # back to choosing a name, logged in as nobody
    finally:
        child.close(force=True)


def zoe_comes_back(port: int, screen: Screen, code: str) -> int:
    child = _ssh(port, screen)
    try:
        child.expect(r"L’invité zoe occupe une place")
        # over SSH the name is the SSH user name: Enter alone ends the connection, and the prompt says so
        child.expect(r"Code de reprise \(Entrée seule\s*: partir, puis revenir sous un autre nom\)\s*: ")
        child.sendline(code.lower().replace("-", " "))  # as a person may type it
        child.expect(r"Le serveur a redémarré\s*; votre table r1 est de retour")
        child.expect(HAND)
        return int(child.match.group(1))
    finally:
        child.close(force=True)


async def test_after_kill_9_a_typed_guest_name_gets_no_seat_and_the_code_gives_it_back(tmp_path: Path) -> None:
    data = tmp_path / "data"
    config = FAST_TIMERS.replace("grace_seconds = 60", "grace_seconds = 120")
    first = await ServerProcess(data, config).start()
    before, impostor, after = Screen(), Screen(), Screen()
    children: list[Any] = []
    second: ServerProcess | None = None
    try:
        child, code, cards = await asyncio.to_thread(zoe_sits_down, first.ssh_port, before)
        children.append(child)
        assert await first.kill(signal.SIGKILL) == -signal.SIGKILL
        second = await ServerProcess(data, config).start()
        await asyncio.to_thread(someone_else_types_her_name, second.telnet_port, impostor)
        seen = impostor.text
        assert "Tu mano" not in seen and "r1" not in seen and "Hola" not in seen, seen
        assert await asyncio.to_thread(zoe_comes_back, second.ssh_port, after, code) == cards
        for log in (first.log, second.log):
            text = "".join(log)
            assert code not in text and code.replace("-", "") not in text
        assert "wrong resume code for zoe" in "".join(second.log)
    finally:
        for c in children:
            c.close(force=True)
        if second is not None:
            await second.kill(signal.SIGTERM)
        if first.proc is not None and first.proc.returncode is None:
            await first.kill(signal.SIGKILL)
