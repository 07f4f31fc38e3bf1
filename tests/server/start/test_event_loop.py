"""``[server] event_loop``: which loop ``donne serve`` runs on."""

from __future__ import annotations

import asyncio
import builtins
from typing import Any

import pytest

from server.config import ConfigError, load_config
from server.start.app import loop_factory, loop_name


def _without_uvloop(monkeypatch: Any) -> None:
    real = builtins.__import__

    def fake(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "uvloop":
            raise ImportError(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake)


def test_the_default_is_uvloop_when_installed() -> None:
    # the standard loop saturates at 5,000 players where uvloop does not (bench/README.md)
    assert load_config().event_loop == "auto"


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


def test_the_start_up_line_names_the_loop() -> None:
    with asyncio.Runner() as runner:
        assert loop_name(runner.get_loop()) == "asyncio"
    uvloop = pytest.importorskip("uvloop")
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        assert loop_name(runner.get_loop()) == "uvloop"


def test_a_loop_name_not_known_is_refused() -> None:
    with pytest.raises(ConfigError, match="event_loop"):
        load_config(event_loop="trio")


class _GoneAtOnce:
    """A transport whose client went away before telnetlib3's first negotiation step ran."""

    def __init__(self) -> None:
        self.closing = False

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return ("127.0.0.1", 40000) if name == "peername" else default

    def write(self, data: bytes) -> None:
        pass

    def close(self) -> None:
        self.closing = True

    def is_closing(self) -> bool:
        return self.closing

    def set_protocol(self, protocol: Any) -> None:
        pass


@pytest.mark.parametrize("loop_name", ["asyncio", "uvloop"])
def test_a_telnet_client_gone_before_negotiation_leaves_nothing_in_the_loop_log(loop_name: str) -> None:
    # telnetlib3 schedules its first negotiation step with call_soon; a connection lost before it
    # ran had its cancelled negotiation "completed" (InvalidStateError), under either loop.
    from server.transports.telnet import DonneTelnetServer

    factory = None if loop_name == "asyncio" else pytest.importorskip("uvloop").new_event_loop
    seen: list[dict[str, Any]] = []

    async def connect_and_vanish() -> None:
        asyncio.get_running_loop().set_exception_handler(lambda loop, context: seen.append(context))
        for _ in range(20):
            protocol = DonneTelnetServer(shell=None, connect_maxwait=0.2, timeout=0)
            protocol.connection_made(_GoneAtOnce())  # type: ignore[arg-type]
            protocol.connection_lost(None)
        for _ in range(5):
            await asyncio.sleep(0)
        await asyncio.sleep(0.3)  # past connect_maxwait: the negotiation timer has nothing to do either

    with asyncio.Runner(loop_factory=factory) as runner:
        runner.run(connect_and_vanish())
    assert seen == []
