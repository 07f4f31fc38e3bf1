"""A real MUD client: TinTin++ (Debian ``tintin++``) against ``donne serve`` (its own process, its
default event loop), with MSSP, GMCP and MCCP2 on, logs in as a guest, opens a table and plays a
move. Driven through a pseudo-terminal (pexpect), every wait bounded; skipped without ``tt++``.
"""

from __future__ import annotations

import json
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from clients.serverproc import LOAD_LIMITS, server_config

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[3]
TT = shutil.which("tt++") or ("/usr/games/tt++" if Path("/usr/games/tt++").exists() else None)

SCRIPT = r"""#config {debug telnet} on
#event {IAC WILL GMCP} {#send {\xFF\xFD\xC9\}}
#event {IAC SB GMCP Char.Status IAC SE} {#showme GMCP-STATUS %0}
#event {IAC SB GMCP Donne.Hand IAC SE} {#showme GMCP-HAND %0}
#event {IAC SB MSSP} {#showme MSSP-VAR %0=%1}
#session donne 127.0.0.1 PORT
"""


def started(tmp_path: Path) -> tuple[subprocess.Popen[Any], int]:
    config = tmp_path / "serve.toml"
    config.write_text(server_config(tmp_path / "data", LOAD_LIMITS, server_keys=(
        'default_lang = "en"', "telnet_mssp = true", "telnet_gmcp = true", "telnet_mccp = true")))
    ready = tmp_path / "ready.json"
    proc = subprocess.Popen([sys.executable, "-m", "server.start.cli", "serve", "--config", str(config),
                             "--ready-file", str(ready)], cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=(tmp_path / "serve.log").open("w"))
    end = time.monotonic() + 30
    while not ready.exists():
        assert proc.poll() is None, (tmp_path / "serve.log").read_text()
        assert time.monotonic() < end, "no ready file"
        time.sleep(0.05)
    return proc, int(json.loads(ready.read_text())["telnet_port"])


@pytest.mark.skipif(TT is None, reason="TinTin++ (tt++, Debian tintin++) is not installed")
def test_tintin_plays_a_move_with_gmcp_mssp_and_mccp(tmp_path):
    pexpect = pytest.importorskip("pexpect")
    proc, port = started(tmp_path)
    script = tmp_path / "donne.tin"
    script.write_text(SCRIPT.replace("PORT", str(port)))
    tt = pexpect.spawn(TT, ["-G", str(script)], cwd=str(tmp_path), encoding="utf-8", codec_errors="replace",
                       dimensions=(50, 120), timeout=20, env={"TERM": "xterm", "PATH": "/usr/bin:/bin"})
    try:
        tt.expect(r"Language / Langue / Idioma")
        before = str(tt.before)
        assert "MSSP-VAR NAME=donne" in before  # MSSP, read before the door's first question
        assert "MCCP2 INITIALIZED" in before and "SENT IAC DO MCCP2" in before
        tt.sendline("en")
        tt.expect("Name")
        tt.sendline("tina")
        tt.expect("Hello tina")
        tt.sendline("create president classic 3 bots=2")
        tt.expect(r"GMCP-STATUS \{name\}\{tina\}.*\{room\}\{r1\}\{seat\}\{0\}")
        tt.expect(r"GMCP-HAND \{room\}\{r1\}\{you\}\{0\}\{hand\}\{\{1\}")
        # the first decision that comes: lead the example the prompt gives, or pass
        got = tt.expect([r"you lead \(for example ([^)]+)\)", r"or pass\."], timeout=60)
        if got == 0:
            example = re.sub(r"\x1b\[[0-9;]*m", "", tt.match.group(1))
            tt.sendline(f"play {example}")
            tt.expect(r"You play ")
        else:
            tt.sendline("pass")
            tt.expect(r"You pass\.")
        tt.sendline("#end")
        tt.expect(pexpect.EOF, timeout=10)
    finally:
        tt.close(force=True)
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    log = (tmp_path / "serve.log").read_text()
    assert "Traceback" not in log and "Fatal error" not in log, log[-3000:]


def test_mccp2_under_the_servers_own_event_loop(tmp_path):
    """MCCP2 in ``donne serve`` as it runs (uvloop when installed, whose transports cannot be patched):
    the stream inflates to the text, the connection lives on."""
    import asyncio

    from tests.e2e.mud.test_telnet_mud import login
    from tests.kits.mudclient import MCCP2, MudClient

    proc, port = started(tmp_path)

    async def go() -> None:
        client = await MudClient.connect(port, do=(MCCP2,))
        try:
            await client.until(lambda: any(opt == MCCP2 for opt, _ in client.subs))
            await login(client, "zoe")
            client.line("who")
            await client.expect("zoe")
            assert client.compressed_bytes > 0
        finally:
            await client.close()

    try:
        asyncio.run(asyncio.wait_for(go(), 60))
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
    log = (tmp_path / "serve.log").read_text()
    assert "Fatal error" not in log and "read-only" not in log, log[-3000:]
