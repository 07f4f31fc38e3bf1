"""GMCP frames as :class:`server.transports.mud.GmcpLink` writes them: compact UTF-8 JSON (the
encoder the JSON mode uses: a table's state goes to every GMCP reader at each move), with the
standard library's ASCII as the fallback for what that encoder refuses."""

from __future__ import annotations

import json

from telnetlib3.telopt import GMCP, IAC, SB, SE

from server.transports.mud import GmcpLink


class Options:
    def enabled(self, option: bytes) -> bool:
        return option == GMCP


class Writer:
    def __init__(self) -> None:
        self.local_option = Options()
        self.frames: list[bytes] = []

    def send_iac(self, data: bytes) -> None:
        self.frames.append(data)


def body(frame: bytes, package: str) -> bytes:
    head = IAC + SB + GMCP + package.encode() + b" "
    assert frame.startswith(head) and frame.endswith(IAC + SE)
    return frame[len(head):-2]


def test_a_package_is_compact_utf8_json():
    writer = Writer()
    link = GmcpLink(writer)
    assert link.send("Char.Status", {"name": "Zoé", "room": None, "seats": {1: "Bob"}})
    raw = body(writer.frames[0], "Char.Status")
    assert raw == '{"name":"Zoé","room":null,"seats":{"1":"Bob"}}'.encode()  # no \\u00e9: the bytes of é
    assert IAC not in raw


def test_what_the_fast_encoder_refuses_still_goes():
    writer = Writer()
    link = GmcpLink(writer)
    assert link.send("Donne.Table", {"n": 2**70, "s": "a\ud800"})
    assert json.loads(body(writer.frames[0], "Donne.Table")) == {"n": 2**70, "s": "a\ud800"}


def test_the_packages_of_one_turn_of_the_loop_go_in_one_write() -> None:
    import asyncio

    async def go() -> list[bytes]:
        writer = Writer()
        link = GmcpLink(writer)
        link.send("Donne.Event", {"event": "played"})
        link.send("Donne.Table", {"turn": 1})
        link.send("Donne.Hand", {"hand": ["3c"]})
        assert writer.frames == []  # not yet: at the end of this turn
        await asyncio.sleep(0)
        return writer.frames

    frames = asyncio.run(go())
    assert len(frames) == 1  # one system call for the three
    assert [f.split(b" ")[0] for f in frames[0].split(IAC + SE)[:-1]] == [
        IAC + SB + GMCP + b"Donne.Event", IAC + SB + GMCP + b"Donne.Table", IAC + SB + GMCP + b"Donne.Hand"]
