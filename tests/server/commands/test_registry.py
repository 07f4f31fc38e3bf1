"""The command registry (``server/commands/__init__.py``): each name once, every module found."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

import server.commands as commands
from server.commands import Context, RegistryError, command


async def _one(ctx: Context, args: Mapping[str, Any]) -> dict[str, Any] | None:
    return None


async def _other(ctx: Context, args: Mapping[str, Any]) -> dict[str, Any] | None:
    return {}


_other.__module__ = "server.commands.elsewhere"  # as if a later module registered the name again


def test_a_name_registered_twice_stops_the_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(commands, "COMMANDS", {})
    command("twice")(_one)
    with pytest.raises(RegistryError, match=r"'twice'.*already registered"):
        command("twice")(_other)
    assert commands.COMMANDS["twice"].handler is _one  # the first one stays


def test_a_missing_command_module_stops_the_registry() -> None:
    with pytest.raises(RegistryError, match=r"server\.commands\.nowhere not found"):
        commands.import_modules(("server.commands.nowhere",))


def test_a_module_failing_to_import_fails_as_itself() -> None:
    with pytest.raises(ModuleNotFoundError) as caught:
        commands.import_modules(("server.commands.nowhere.deeper",))
    assert caught.value.name == "server.commands.nowhere"  # (not the module asked for: its parent)


def test_every_command_module_registers_its_names_once() -> None:
    registry = commands.load()
    assert {"who", "whoami", "leaderboard", "login", "play"} <= set(registry)
    assert registry["who"].handler.__module__ == "server.commands.social"
    assert registry["leaderboard"].handler.__module__ == "server.commands.social"
