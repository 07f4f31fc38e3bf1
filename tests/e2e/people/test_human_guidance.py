"""A person at the table over real clients: what the help teaches works where it teaches it.

French over ``ssh`` at 80 columns: the replay's own words work while seated at a table where moves
are typed (``revoir``, ``suivant``, ``n``, ``fin``); a mistyped word is answered with a French word;
``historique`` shows each round id whole (the id ``revoir`` needs); ``plis`` shows the round's
earlier tricks; the match's end says what comes next (``revanche``, ``partir``).

Spanish over ``telnet``: ``amigo zoe`` for a guest at the same table says she is a guest; the empty
friends list never suggests one's own name; ``salir`` at a staked round asks first, like ``irse``;
after leaving a staked round the person sits at another table at once (``sentarse``).

The clients are installed by ``make tools``; each test skips without its own.
"""

from __future__ import annotations

import asyncio
import re
import shutil
from typing import Any

import pytest

from clients.client import Client
from server.messages.terminal import strip_ansi
from tests.kits.servers import start_server

pexpect = pytest.importorskip("pexpect")
pytestmark = pytest.mark.e2e
ROUND_ID = r"r\d+-[0-9a-f]+-\d+"


def _ssh_fr(port: int) -> Any:
    child = pexpect.spawn(
        "ssh", ["-F", "/dev/null", "-tt", "-p", str(port), "-o", "StrictHostKeyChecking=no",
                "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR", "-o", "SendEnv=LANG",
                "-o", "BatchMode=yes", "-o", "IdentityFile=/dev/null", "Zoe@127.0.0.1"],
        env={"LANG": "fr_FR.UTF-8", "TERM": "xterm", "PATH": "/usr/bin:/bin", "HOME": "/nonexistent"},
        encoding="utf-8", codec_errors="replace", dimensions=(40, 80), timeout=30)
    child.expect("Bonjour")
    return child


SEEN: list[str] = []  # everything read so far (what expect went past too)


async def _say(child: Any, line: str, expect: str | re.Pattern[str], timeout: float = 30) -> str:
    await asyncio.to_thread(child.sendline, line)
    await asyncio.to_thread(child.expect, expect, timeout)
    SEEN.append(strip_ansi(child.before + child.after))
    return SEEN[-1]


@pytest.mark.skipif(shutil.which("ssh") is None, reason="ssh client not installed: run make tools")
async def test_french_over_ssh_replay_while_seated_history_ids_tricks_and_the_match_end(tmp_path: Any) -> None:
    running = await start_server(tmp_path, turn_seconds=1.0)  # the person's clock plays for them (P: pass)
    child = await asyncio.to_thread(_ssh_fr, running.ssh_port)
    try:
        await _say(child, "créer président classique 3 bots=2 manches=2", "Manche 1")
        await asyncio.to_thread(child.expect, "Manche 2", 90)  # round 1 is over; still seated
        out = await _say(child, "revoir", re.compile(r"Rediffusion de la manche.*arrêter,\s+fin\.", re.S))
        assert "lire [secondes]" in out and "jouer [secondes]" not in out  # lire is never a move
        await _say(child, "suivant", r"étape 1 sur")
        await _say(child, "n", r"étape 2 sur")
        out = await _say(child, "fin", "les mains")
        assert "Commande inconnue" not in out and "n’est pas une carte" not in out
        out = await _say(child, "frend", re.compile(r"Commande inconnue «\s*frend\s*».*\?", re.S))
        assert "friend" not in out.replace("frend", "")  # a French word is suggested
        await _say(child, "plis", "Plis de la manche 2")
        # the round id is whole on its line at 80 columns (it was cut: "[r1-85…")
        out = await _say(child, "historique", re.compile(rf"\[{ROUND_ID}\]"))
        assert "…" not in out
        # the match's end says what comes next
        end = re.compile(r"Et maintenant.*revanche.*partir", re.S)
        if not end.search("".join(SEEN)):
            await asyncio.to_thread(child.expect, end, 90)
    finally:
        child.close(force=True)
        await running.stop()


def _telnet_es(port: int, name: str, password: str) -> Any:
    child = pexpect.spawn("telnet", ["127.0.0.1", str(port)], env={"TERM": "xterm", "PATH": "/usr/bin:/bin"},
                          encoding="utf-8", codec_errors="replace", dimensions=(40, 80), timeout=30)
    child.expect("Idioma")
    child.sendline("3")
    child.expect("Nombre")
    child.sendline(name)
    child.expect("ontraseña")
    child.sendline(password)
    child.expect("Hola")
    return child


@pytest.mark.skipif(shutil.which("telnet") is None, reason="telnet client not installed: run make tools")
async def test_spanish_over_telnet_friends_quit_and_sitting_elsewhere_after_leaving(tmp_path: Any) -> None:
    running = await start_server(tmp_path, turn_seconds=30.0)
    signup = await Client.connect_tcp("127.0.0.1", running.telnet_port, timeout=10)
    await signup.register("ana", "pw-ana-123")
    await signup.close()
    child = await asyncio.to_thread(_telnet_es, running.telnet_port, "ana", "pw-ana-123")
    zoe = await Client.connect_tcp("127.0.0.1", running.telnet_port, timeout=10)
    await zoe.login("zoe")
    dora = await Client.connect_tcp("127.0.0.1", running.telnet_port, timeout=10)
    await dora.register("dora", "pw-dora-123")
    try:
        out = await _say(child, "crear presidente tdc 3 bots=1 apuesta=2", re.compile(r"Mesa (r\d+) abierta"))
        room = re.search(r"Mesa (r\d+) abierta", out).group(1)  # type: ignore[union-attr]
        await zoe.request("join", room=room)
        other = (await dora.request("create", game="president", rules="tdc", seats=3, bots=1, stake=2))["room"]
        await zoe.next_state(lambda s: s.get("phase") in ("play", "exchange"), timeout=20, current=True)
        got = await zoe.request("tricks")  # the same in JSON: the round's tricks so far, public cards only
        assert got["round"] == 1 and got["tricks"] == [] and got["seats"][0] == "ana"
        out = await _say(child, "amigo zoe", "invitado")
        assert "no hay nadie" not in out.lower()
        out = await _say(child, "amigos", "vacía")
        await asyncio.to_thread(child.expect, r"amigo \S+")
        assert "amigo ana" not in strip_ansi(child.before + child.after)
        # quitting a staked round asks first, like leaving
        await _say(child, "salir", re.compile(r"2 fichas tuyas en juego.*Escribe salir otra vez", re.S))
        await _say(child, "irse", re.compile(r"Escribe irse otra vez"))
        await _say(child, "irse", re.compile(r"vestíbulo"))
        # free at once: another staked table seats her now
        out = await _say(child, f"sentarse {other}", re.compile(rf"Ana se sienta|{other}"), 20)
        state = await dora.next_state(lambda s: any(seat.get("name") == "ana" for seat in s.get("seats") or []),
                                      timeout=20, current=True)
        assert state["room"] == other
        assert "Ya estás en la mesa" not in out
    finally:
        child.close(force=True)
        await zoe.close()
        await dora.close()
        await running.stop()
