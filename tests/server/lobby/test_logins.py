"""Logging in, with a fake store and a fake lobby: guests, accounts, names in use, a guest's seat."""

from __future__ import annotations

import asyncio
import types
from typing import Any

import pytest

from server.lobby.logins import GuestHold, Logins, typed_name
from server.people import resume
from server.people.players import Player
from server.protocol import CommandError
from tests.server.lobby.fakes import FakeSession


class Accounts:
    def __init__(self) -> None:
        self.registered = {"Bob": "secret"}
        self.guests: list[str] = []

    async def exists(self, name: str, *, fresh: bool = False) -> bool:
        return name in self.registered

    async def get(self, name: str) -> Any:
        return types.SimpleNamespace(name=name, guest=False) if name in self.registered else None

    async def verify_password(self, name: str, password: str, address: str = "") -> Any:
        return await self.get(name) if self.registered.get(name) == password else None

    async def login_guest(self, name: str) -> Any:
        self.guests.append(name)
        return types.SimpleNamespace(name=name, guest=True)


class Pace:
    def login(self, key: str, now: float) -> None:
        pass


class Conduct:
    async def entered(self, player: Player) -> None:
        pass


class Entrance:
    def __init__(self) -> None:
        self.config = types.SimpleNamespace(max_name=20, allow_guests=True)
        self.store = types.SimpleNamespace(accounts=Accounts())
        self.players: dict[str, Player] = {}
        self.closing = False
        self.pace = Pace()
        self.conduct = Conduct()
        self.resume_attempts = resume.Attempts()
        self.login_lock = asyncio.Lock()
        self.welcomed: list[str] = []
        self.logins = Logins(self)  # type: ignore[arg-type]

    async def door(self, **kw: Any) -> None:
        return None

    async def greet(self, session: Any) -> None:
        pass

    async def guest_hold(self, key: str) -> GuestHold | None:
        return await self.logins.guest_hold(key)

    def after_login(self, player: Player) -> None:
        self.welcomed.append(player.name)


class Session(FakeSession):
    def __init__(self) -> None:
        super().__init__()
        self.conn = types.SimpleNamespace(peer="10.0.0.1", kind="telnet")
        self.name: str | None = None
        self.closed_why: list[str] = []

    @property
    def logged_in(self) -> bool:
        return self.name is not None

    def logged(self, name: str, guest: bool) -> None:
        self.name = name

    def close(self, reason: str = "closed") -> None:
        self.closed_why.append(reason)
        self.closed.set()


async def test_a_guest_logs_in_with_a_new_resume_code_and_is_welcomed():
    lobby = Entrance()
    session = Session()
    player = await lobby.logins.login(session, "Ana")  # type: ignore[arg-type]
    assert player.guest and player.name == "Ana" and lobby.players["ana"] is player
    assert player.code and player.resume and session.name == "Ana" and lobby.welcomed == ["Ana"]
    assert lobby.store.accounts.guests == ["Ana"]


async def test_a_guest_name_in_use_is_refused_without_its_code():
    lobby = Entrance()
    await lobby.logins.login(Session(), "Ana")  # type: ignore[arg-type]
    with pytest.raises(CommandError) as refused:
        await lobby.logins.login(Session(), "ana")  # type: ignore[arg-type]
    assert refused.value.code == "name_taken"


async def test_an_account_needs_its_password_and_a_second_login_replaces_the_first():
    lobby = Entrance()
    with pytest.raises(CommandError) as refused:
        await lobby.logins.login(Session(), "Bob", password="wrong")  # type: ignore[arg-type]
    assert refused.value.code == "bad_password"
    first, second = Session(), Session()
    bob = await lobby.logins.login(first, "Bob", password="secret")  # type: ignore[arg-type]
    again = await lobby.logins.login(second, "bob", password="secret")  # type: ignore[arg-type]
    assert again is bob and not bob.guest and bob.session is second
    assert first.closed_why == ["replaced"] and first.notices == ["replaced"]


async def test_nobody_logs_in_while_the_lobby_closes():
    lobby = Entrance()
    lobby.closing = True
    with pytest.raises(CommandError) as refused:
        await lobby.logins.login(Session(), "Ana")  # type: ignore[arg-type]
    assert refused.value.code == "not_allowed"
    assert lobby.logins.start_guest("Ana") is None


def test_a_guest_seated_at_a_table_of_another_process_may_not_become_an_account_there():
    lobby = Entrance()
    guest = Player(name="Ana", guest=True)
    guest.room = types.SimpleNamespace(id="r1")  # type: ignore[assignment]  (a RemotePlace, say)
    guest.seat = 0
    with pytest.raises(CommandError) as refused:
        lobby.logins.check_become(guest)
    assert refused.value.code == "not_allowed" and refused.value.params["reason"] == "table_elsewhere"


def test_names_are_cleaned_and_staff_looking_names_refused():
    assert typed_name("  Ana ", 20) == "Ana"
    for bad in ("", "x" * 21, "admin_bob"):
        with pytest.raises(CommandError):
            typed_name(bad, 20)
