"""``[server] event_loop``: which loop ``donne serve`` runs on."""

from __future__ import annotations

import asyncio
import builtins
from typing import Any

import pytest

from server.app import loop_factory
from server.config import ConfigError, load_config


def _without_uvloop(monkeypatch: Any) -> None:
    real = builtins.__import__

    def fake(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "uvloop":
            raise ImportError(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake)


def test_asyncio_is_the_standard_loop() -> None:
    assert loop_factory(load_config(event_loop="asyncio")) is None


def test_auto_falls_back_to_the_standard_loop_and_uvloop_is_refused_without_it(monkeypatch: Any) -> None:
    _without_uvloop(monkeypatch)
    assert loop_factory(load_config(event_loop="auto")) is None
    with pytest.raises(ConfigError, match="uvloop is not installed"):
        loop_factory(load_config(event_loop="uvloop"))


def test_uvloop_when_installed() -> None:
    uvloop = pytest.importorskip("uvloop")
    factory = loop_factory(load_config(event_loop="auto"))
    assert factory is uvloop.new_event_loop
    with asyncio.Runner(loop_factory=factory) as runner:
        assert isinstance(runner.get_loop(), uvloop.Loop)


def test_a_loop_name_not_known_is_refused() -> None:
    with pytest.raises(ConfigError, match="event_loop"):
        load_config(event_loop="trio")
