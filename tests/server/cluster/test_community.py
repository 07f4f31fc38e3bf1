"""The community across nodes, one node's side: what leaves, and what a person here is handed."""

from __future__ import annotations

from server.cluster.community import Community
from tests.server.cluster.fakes import FakeBus
from tests.server.lobby.fakes import FakeSession, online


class Conduct:
    def __init__(self) -> None:
        self.ignoring: set[tuple[str, str]] = set()
        self.mutes: dict[str, float | None] = {}

    def ignores(self, who: str, whom: str) -> bool:
        return (who, whom) in self.ignoring

    def noted_mute(self, name: str, until: float | None) -> None:
        self.mutes[name] = until


def community() -> tuple[Community, FakeBus, Conduct, dict]:
    bus, conduct = FakeBus(), Conduct()
    here = {"ana": online("Ana")}
    far = {"zoe": {"name": "Zoe", "guest": False, "room": None, "seat": None}}

    def local(key: str):
        p = here.get(key)
        return (p, p.session) if p is not None else None

    return Community(bus, conduct, local, lambda: far), bus, conduct, here  # type: ignore[arg-type]


def test_someone_online_elsewhere_is_found_and_reached_through_the_lobby_channel():
    c, bus, _, _ = community()
    assert c.elsewhere("zoe") == {"name": "Zoe", "guest": False, "room": None, "seat": None}
    assert c.elsewhere("Ana") is None and c.elsewhere("nobody") is None
    c.reach("zoe", {"event": "tell", "from": "Ana"}, "Ana")
    assert bus.broadcasts == [{"t": "reach", "key": "zoe", "ev": {"event": "tell", "from": "Ana"}, "reply_to": "Ana"}]


def test_only_the_keys_not_online_here_leave_the_node():
    c, bus, _, _ = community()
    c.tell_keys(["ana", "zoe", "bob"], {"event": "friend_online", "name": "Cy"}, but="bob")
    assert bus.broadcasts == [{"t": "keys", "keys": ["zoe"], "ev": {"event": "friend_online", "name": "Cy"},
                               "but": "bob"}]


def test_a_tell_from_someone_ignored_is_not_handed_over_and_a_mute_is_noted():
    c, _, conduct, here = community()
    session = here["ana"].session
    assert isinstance(session, FakeSession)
    conduct.ignoring.add(("Ana", "Max"))
    c.handle({"t": "reach", "key": "ana", "ev": {"event": "tell", "from": "Max"}, "reply_to": "Max"})
    assert session.events == []
    c.handle({"t": "reach", "key": "ana", "ev": {"event": "tell", "from": "Zoe"}, "reply_to": "Zoe"})
    assert session.events == [{"event": "tell", "from": "Zoe"}] and here["ana"].extra["reply_to"] == "Zoe"
    c.handle({"t": "mute", "name": "Ana", "until": 99.0, "ev": {"event": "muted"}})
    assert conduct.mutes == {"Ana": 99.0} and session.events[-1] == {"event": "muted"}
