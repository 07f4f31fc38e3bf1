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
