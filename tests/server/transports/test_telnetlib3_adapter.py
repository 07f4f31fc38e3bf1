"""telnetlib3's private names the telnet door uses: all listed, all there (server/transports/telnetlib3_adapter.py).

The door reaches past telnetlib3's public API in a few places; a telnetlib3 release that renames one
of those would break it quietly (JSON mode's plain input skipped, MCCP2 off, counts wrong). The
list is checked against the installed telnetlib3, and the door's code against the list.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from server.transports import mud, telnet, telnetlib3_adapter
from server.transports.telnetlib3_adapter import PRIVATE_API, _defines, missing


def test_the_installed_telnetlib3_has_every_private_name_the_door_uses() -> None:
    assert missing() == [], (
        "the installed telnetlib3 lacks names server/transports/telnet.py relies on: "
        "check the pin in pyproject.toml and server/transports/telnetlib3_adapter.py"
    )


def test_a_name_telnetlib3_lacks_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    server = next(iter(PRIVATE_API))
    monkeypatch.setitem(telnetlib3_adapter.PRIVATE_API, server, (*PRIVATE_API[server], "_no_such_thing"))
    assert missing() == [f"{server.__name__}._no_such_thing"]


def _private_names(module: object) -> set[str]:
    """The names after a dot, defined, or asked of ``getattr`` in ``module``'s code that start with one ``_``."""
    source = Path(getattr(module, "__file__", "") or "").read_text(encoding="utf-8")
    found = re.findall(r"\.(_[a-z][a-z0-9_]*)\b", source)
    found += re.findall(r"\bdef (_[a-z][a-z0-9_]*)", source)
    found += re.findall(r"(?:get|has|set)attr\([^,()]+, \"(_[a-z][a-z0-9_]*)\"", source)
    return set(found)


def _telnetlib3s(names: set[str]) -> set[str]:
    return {n for n in names if any(_defines(cls, n) for cls in PRIVATE_API)}


def test_every_private_name_of_telnetlib3_the_adapter_touches_is_listed() -> None:
    listed = {name for names in PRIVATE_API.values() for name in names}
    theirs = _telnetlib3s(_private_names(telnetlib3_adapter))
    assert theirs <= listed, sorted(theirs - listed)
    assert "_buffer" in theirs and "_tx_bytes" in theirs  # (the scan finds them)


def test_the_telnet_door_touches_none_of_telnetlib3s_private_names() -> None:
    """Only the adapter does (its list, its checks)."""
    for module in (telnet, mud):
        assert _telnetlib3s(_private_names(module)) == set(), module.__name__
