"""A clean restart in the middle of a person's turn, over the real OpenSSH client (``ssh``), read as a person.

An account logs in with its password (``ssh`` prompts for it: pexpect types it), opens a
classic table with two bots and waits for its turn, 40 seconds a decision. The server is
stopped cleanly right then: the person reads that the server is restarting and that their
tables will be back, and the connection ends. A new server on the same data folder rebuilds
the table; the person logs in again and reads that the server restarted and that their table
is back, finds the same hand, and it is still their turn with the whole 40 seconds: time
spent down is charged to nobody.
"""

from __future__ import annotations

import asyncio
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.people.test_human_play import Screen
from tests.kits.servers import start_server

pexpect = pytest.importorskip("pexpect")

pytestmark = [pytest.mark.e2e,
              pytest.mark.skipif(shutil.which("ssh") is None, reason="OpenSSH client (ssh) not installed: make tools")]

PASSWORD = "correct-horse-restart"
SETTINGS: dict[str, Any] = {"turn_seconds": 40.0, "bot_delay": 0.0, "round_pause": 0.0, "resume_window": 30.0}
HAND = re.compile(r"Your hand \((\d+)\)\s*:([^\r\n]*)")


def login(port: int, screen: Screen) -> Any:
    child = pexpect.spawn(
        "ssh",
        ["-F", "/dev/null", "-tt", "-p", str(port), "-o", "StrictHostKeyChecking=no",
         "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR", "-o", "SendEnv=LANG",
         "-o", "PreferredAuthentications=password", "-o", "PubkeyAuthentication=no",
         "-o", "NumberOfPasswordPrompts=1", "zoe@127.0.0.1"],
        env={"LANG": "en_US.UTF-8", "TERM": "xterm", "PATH": "/usr/bin:/bin", "HOME": "/nonexistent"},
        encoding="utf-8", codec_errors="replace", dimensions=(40, 100), timeout=30,
    )
    child.logfile_read = screen
    child.expect("assword:")
    child.sendline(PASSWORD)
    return child


def until_my_turn(port: int, screen: Screen) -> Any:
    child = login(port, screen)
    child.expect("zoe")
    child.sendline("create president classic 3 bots=2")
    child.expect(r"Your turn")
    child.expect(r"\(40\s*s\)")
    return child


def told_of_the_restart(child: Any) -> None:
    child.expect(r"The server is restarting: your tables will be back")
    child.expect(pexpect.EOF)


def back_at_the_table(port: int, screen: Screen) -> Any:
    child = login(port, screen)
    child.expect(r"The server restarted; your table r1 is back")
    child.expect(r"Your hand \(\d+\)")
    child.expect(r"\(40\s*s\)")  # the whole time again
    return child


async def test_a_clean_restart_in_the_middle_of_a_persons_turn_gives_the_notice_and_the_full_time_back(
        tmp_path: Path) -> None:
    running = await start_server(tmp_path, **SETTINGS)
    before, after = Screen(), Screen()
    children: list[Any] = []
    try:
        await running.store.accounts.register("zoe", PASSWORD)
        children.append(await asyncio.to_thread(until_my_turn, running.ssh_port, before))
        hand_before = HAND.findall(before.text)[-1]
        stopping = asyncio.ensure_future(running.stop())  # mid-turn: the clock had 40 s
        await asyncio.to_thread(told_of_the_restart, children[-1])
        await stopping
        running = await start_server(tmp_path, **SETTINGS)
        children.append(await asyncio.to_thread(back_at_the_table, running.ssh_port, after))
        assert HAND.findall(after.text)[-1] == hand_before  # the same hand
        assert "Your turn" in after.text.split("is back")[-1]  # still the person's turn
        assert "Traceback" not in before.text + after.text
    finally:
        for child in children:
            child.close(force=True)
        await running.stop()
