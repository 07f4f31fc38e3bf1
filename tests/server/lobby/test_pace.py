"""How often one may reach others (server/lobby/pace.py), the budgets under it (server/operations/limits.py), seeks as
lobby news, ignoring a guest by its origin, and the kept ``verify`` replies: pure, on explicit times,
without a network."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from server.config import load_config
from server.lobby.moderation import Origin, ignored_origin, origin_of
from server.lobby.newsdigest import NEWS_DIGEST, news_text
from server.lobby.pace import Pace, Recent, sender, spoke
from server.messages.errors import error_message
from server.messages.events import event_text
from server.operations.limits import Budgets
from server.people.players import Player
from server.protocol import CommandError, Shared


def person(name: str, peer: str = "192.0.2.1", *, guest: bool = True, key: str | None = None) -> Player:
    player = Player(name=name, guest=guest)
    player.session = SimpleNamespace(conn=SimpleNamespace(peer=peer, key=key))  # type: ignore[assignment]
    return player


def refusal(call: Any, *args: Any) -> tuple[str, dict[str, Any]] | None:
    try:
        call(*args)
    except CommandError as exc:
        return exc.code, exc.params
    return None


def test_budgets_per_key_burst_then_rate_and_refilled_keys_are_swept() -> None:
    budgets = Budgets(per_minute=60, burst=2)  # one a second, two at once
    assert budgets.take("a", 0.0) and budgets.take("a", 0.0) and not budgets.take("a", 0.0)
    assert budgets.take("b", 0.0)  # another key: its own budget
    assert not budgets.ready("a", 0.5) and budgets.ready("a", 1.0)
    assert budgets.take("a", 1.0) and not budgets.take("a", 1.0)
    assert Budgets(per_minute=0, burst=1).take("x", 0.0)  # 0 per minute: no limit
    many = Budgets(per_minute=60, burst=1)
    for i in range(Budgets.SWEEP + 10):
        many.take(f"guest{i}", float(i) * 0.001)
    assert len(many) < Budgets.SWEEP + 10  # keys whose buckets refilled were forgotten
    assert not many.take(f"guest{Budgets.SWEEP + 9}", 2.0)  # a recent one is still counted


def test_a_guest_spends_its_address_s_budget_an_account_its_own() -> None:
    assert sender(person("hx0", "198.51.100.7")) == sender(person("hx0b", "198.51.100.7"))
    assert sender(person("hx0", "2001:db8::1")) == sender(person("hx1", "2001:db8::2"))  # one /64
    assert sender(person("ada", "198.51.100.7", guest=False)) != sender(person("bea", "198.51.100.7", guest=False))


def test_tells_have_a_budget_per_sender_and_per_recipient() -> None:
    pace = Pace(load_config(tells_per_minute=6, tells_burst=3, tells_received_per_minute=6, tells_received_burst=5))
    victim = person("vic", "203.0.113.1", guest=False)
    senders = [person(f"g{i}", f"198.51.100.{i}") for i in range(4)]
    delivered = 0
    refusals: list[tuple[str, dict[str, Any]]] = []
    for _ in range(5):
        for s in senders:
            got = refusal(pace.tell, s, victim, 0.0)
            if got is None:
                delivered += 1
            else:
                refusals.append(got)
    assert delivered == 5  # four senders together: the victim's burst, not 4 x 3
    assert ("rate_limited", {"reason": "tells_to", "name": "vic"}) in refusals
    # the same address is the same sender, whatever the guest name
    pace = Pace(load_config(tells_per_minute=6, tells_burst=3))
    a, b = person("hxa", "198.51.100.9"), person("hxab", "198.51.100.9")
    others = [person(f"v{i}", "203.0.113.2", guest=False) for i in range(4)]
    for i in range(3):
        pace.tell(a if i % 2 else b, others[i], 0.0)
    assert refusal(pace.tell, b, others[3], 0.0) == ("rate_limited", {"reason": "tells"})
    assert refusal(pace.tell, b, others[3], 10.0) is None  # one more after 10 s (6 a minute)


def test_a_conversation_is_not_held_up_by_strangers_flooding_the_recipient() -> None:
    pace = Pace(load_config(tells_received_per_minute=6, tells_received_burst=2))
    vic, friend = person("vic", guest=False), person("ana", "203.0.113.9", guest=False)
    flood = [person(f"s{i}", f"198.51.100.{i}") for i in range(3)]
    for s in flood[:2]:
        pace.tell(s, vic, 0.0)
    assert refusal(pace.tell, flood[2], vic, 0.0) == ("rate_limited", {"reason": "tells_to", "name": "vic"})
    assert refusal(pace.tell, friend, vic, 0.0) is not None  # a stranger too, so far
    spoke(vic, friend)  # vic told ana something: ana answers past vic's budget
    assert refusal(pace.tell, friend, vic, 0.0) is None
    assert refusal(pace.tell, flood[2], vic, 0.0) is not None


def test_a_refused_tell_costs_nothing() -> None:
    pace = Pace(load_config(tells_per_minute=6, tells_burst=2, tells_received_per_minute=6, tells_received_burst=1))
    me, busy, other = person("me", "198.51.100.1"), person("busy", guest=False), person("oth", guest=False)
    pace.tell(person("x", "198.51.100.2"), busy, 0.0)  # busy's budget is spent
    for _ in range(5):
        assert refusal(pace.tell, me, busy, 0.0) is not None
    assert refusal(pace.tell, me, other, 0.0) is None and refusal(pace.tell, me, busy, 60.0) is None


def test_challenges_seeks_and_verify_have_their_budgets() -> None:
    pace = Pace(load_config(challenges_per_minute=6, challenges_burst=2, challenges_received_per_minute=6,
                            challenges_received_burst=3, seeks_per_minute=4, seeks_burst=2,
                            verify_per_minute=20, verify_burst=2))
    me, vic = person("me", "198.51.100.1"), person("vic", guest=False)
    assert [refusal(pace.challenge, me, vic, 0.0) for _ in range(3)][-1] == ("rate_limited",
                                                                              {"reason": "challenges"})
    others = [person(f"c{i}", f"198.51.100.{10 + i}") for i in range(3)]
    assert [refusal(pace.challenge, o, vic, 0.0) for o in others][-1] == (
        "rate_limited", {"reason": "challenges_to", "name": "vic"})  # 2 from me, 1 more, then vic is full
    assert [refusal(pace.seek, me, 0.0) for _ in range(3)][-1] == ("rate_limited", {"reason": "seeks"})
    # verify: 2 at once for a player, 6 for everyone from one address
    crowd = [person(f"v{i}", "198.51.100.50") for i in range(4)]
    got = [refusal(pace.verify, p, 0.0) for p in crowd for _ in range(2)]
    assert got[:2] == [None, None] and got[2:6] == [None] * 4
    assert got[6:] == [("rate_limited", {"reason": "verify"})] * 2
    assert refusal(pace.verify, person("far", "203.0.113.3"), 0.0) is None


def test_logins_with_a_password_have_a_budget_per_account() -> None:
    pace = Pace(load_config(logins_per_minute=12, logins_burst=2))
    assert refusal(pace.login, "ada", 0.0) is None and refusal(pace.login, "ada", 0.0) is None
    assert refusal(pace.login, "ada", 0.0) == ("rate_limited", {"reason": "logins"})
    assert refusal(pace.login, "bob", 0.0) is None  # another account
    assert refusal(pace.login, "ada", 5.0) is None  # 12 a minute: one more after 5 s


def test_replay_has_budgets_as_many_as_verify_s_of_its_own() -> None:
    pace = Pace(load_config(verify_per_minute=20, verify_burst=2))
    crowd = [person(f"r{i}", "198.51.100.60") for i in range(4)]
    got = [refusal(pace.replay, p, 0.0) for p in crowd for _ in range(2)]
    assert got[:6] == [None] * 6 and got[6:] == [("rate_limited", {"reason": "replay"})] * 2
    assert refusal(pace.verify, crowd[0], 0.0) is None  # a replay spends nothing of verify's
    assert refusal(pace.replay, crowd[0], 3.0) is None  # 20 a minute: one more after 3 s


@pytest.mark.parametrize("lang", ["fr", "es", "en"])
def test_every_refusal_of_the_budgets_says_why_in_the_reader_s_language(lang: str) -> None:
    generic = error_message(lang, "rate_limited")
    seen = set()
    for reason in ("tells", "tells_to", "challenges", "challenges_to", "seeks", "verify", "replay", "logins"):
        text = error_message(lang, "rate_limited", reason=reason, name="vic")
        assert text != generic and text not in seen
        seen.add(text)
    assert "vic" in error_message(lang, "rate_limited", reason="tells_to", name="vic")
    if lang != "en":
        assert "tell" not in " ".join(seen).lower() and "seek" not in " ".join(seen).lower()


def test_seeks_are_lobby_news_digested_beyond_a_few() -> None:
    reader = SimpleNamespace(shared_line=lambda shared, you=None: event_text("en", shared.event, (), None) + "\n")
    seeks = [Shared({"event": "seek", "seek": i, "name": f"g{i}", "game": "president", "rules": "classic",
                     "seats": 4, "missing": 3}) for i in range(NEWS_DIGEST + 2)]
    digests: dict[tuple[int, int, int], Shared] = {}
    few = news_text(reader, seeks[:2], digests, 0)  # type: ignore[arg-type]
    assert few.count("\n") == 2 and "g1" in few
    many = news_text(reader, [*seeks, Shared({"event": "room_closed", "room": "r1"})], digests, 3)  # type: ignore[arg-type]
    assert many.count("\n") == 1 and "10 new seeks" in many and "1 closed" in many
    assert digests[0, 1, NEWS_DIGEST + 2].event["seeks"] == NEWS_DIGEST + 2
    only = news_text(reader, seeks, {}, 0)  # type: ignore[arg-type]
    assert only.startswith("10 new seeks") and "Rooms" not in only
    for lang in ("fr", "es"):
        text = event_text(lang, {"event": "rooms_changed", "opened": 0, "closed": 0, "open": 0, "seeks": 9}, (), None)
        assert "9" in text and "seek" not in text


def test_a_guest_is_ignored_by_its_address_or_its_key_under_any_name() -> None:
    hx0 = person("hx0", "198.51.100.7", key="ssh-ed25519 AAAAkey")
    hx0b = person("hx0b", "198.51.100.7")
    by_key = person("hx0c", "203.0.113.50", key="ssh-ed25519 AAAAkey")
    elsewhere = person("hx1", "203.0.113.51")
    member = person("hx0d", "198.51.100.7", guest=False)
    names, marks = {"hx0": "hx0"}, {"hx0": origin_of(hx0)}
    assert marks["hx0"] == Origin("198.51.100.7", "ssh-ed25519 AAAAkey")
    assert ignored_origin(names, marks, hx0b)  # type: ignore[arg-type]
    assert ignored_origin(names, marks, by_key)  # type: ignore[arg-type]
    assert not ignored_origin(names, marks, elsewhere)  # type: ignore[arg-type]
    assert not ignored_origin(names, marks, member)  # type: ignore[arg-type]  # accounts: by name only
    assert not ignored_origin({}, marks, hx0b)  # type: ignore[arg-type]  # unignored: the mark counts no more
    hx0b.session = None
    assert ignored_origin(names, marks, hx0b)  # type: ignore[arg-type]  # noted once: holds while away


def test_recent_keeps_the_last_used() -> None:
    recent: Recent[str, int] = Recent(2)
    recent.put("a", 1)
    recent.put("b", 2)
    assert recent.get("a") == 1
    recent.put("c", 3)
    assert recent.get("b") is None and recent.get("a") == 1 and len(recent) == 2


def test_a_kept_verify_reply_is_never_the_answer_for_a_record_that_changed() -> None:
    from dataclasses import replace

    from server.commands.fair import fingerprint
    from tests.kits.social_records import match_records

    record = match_records("classic", ["ana", "bob", "eva"], 7, rounds=1)[0]
    record = replace(record, extra={**record.extra, "fairness": {"server_seed": "11" * 32}})
    forged = replace(record, extra={**record.extra, "fairness": {"server_seed": "00" * 32}})
    assert fingerprint(record) == fingerprint(replace(record))
    assert fingerprint(record) != fingerprint(forged)
    assert fingerprint(record) != fingerprint(replace(record, log=record.log[:-1]))
