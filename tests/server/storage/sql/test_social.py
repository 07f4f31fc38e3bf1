"""Profiles, friends, offline messages and ratings in the store, on SQLite and PostgreSQL.

Ratings (OpenSkill Plackett–Luce): updated in the transaction that records a rated
round, stored with their history, found again from scratch by ``server.storage.ratings.recompute``;
an unrated round changes nothing; a bot's place never moves a person's rating.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from server.games import ADAPTERS
from server.storage import StoreSettings, open_store, ratings
from server.storage.api import MailboxFull, NoSuchAccount, RoundRecord, TooManyFriends
from server.storage.sql.store import SQLStore
from tests.kits.social_records import match_records

FAST = StoreSettings(scrypt_n=2**10, house_chips=10_000, starting_chips=100)
PEOPLE = ("alice", "bob", "carol", "dave")


@pytest_asyncio.fixture
async def store(where: str) -> AsyncIterator[SQLStore]:
    s = await open_store(where, FAST)
    for name in PEOPLE:
        await s.accounts.register(name, "secret")
    yield s
    audit = await s.ledger.audit()
    await s.close()
    assert audit.ok, audit.problems


async def test_profile_bio_privacy_and_last_seen(store: SQLStore) -> None:
    profile = await store.social.profile("Alice")
    assert profile is not None and profile.name == "alice" and profile.bio == "" and profile.last_seen is None
    assert profile.registered > 0 and not profile.hide_where and profile.notify
    await store.social.set_profile("alice", bio="j'aime la coupe", hide_where=True)
    await store.social.seen("alice")
    got = await store.social.profile("ALICE")
    assert got is not None and got.bio == "j'aime la coupe" and got.hide_where and got.last_seen is not None
    assert await store.social.profile("nobody") is None
    with pytest.raises(NoSuchAccount):
        await store.social.set_profile("nobody", bio="x")


async def test_friends_and_watchers(store: SQLStore) -> None:
    assert await store.social.add_friend("alice", "BOB", limit=2) == "bob"
    assert await store.social.add_friend("alice", "bob", limit=2) == "bob"  # twice: once
    await store.social.add_friend("alice", "carol", limit=2)
    with pytest.raises(TooManyFriends):
        await store.social.add_friend("alice", "dave", limit=2)
    with pytest.raises(NoSuchAccount):
        await store.social.add_friend("alice", "zed", limit=10)
    assert await store.social.friends("alice") == ["bob", "carol"]
    await store.social.add_friend("dave", "bob", limit=10)
    assert await store.social.watchers("bob") == ["alice", "dave"]
    await store.social.set_profile("dave", notify=False)  # dave switched the notices off
    assert await store.social.watchers("bob") == ["alice"]
    assert await store.social.remove_friend("alice", "Bob")
    assert not await store.social.remove_friend("alice", "bob")
    assert await store.social.friends("alice") == ["carol"]


async def test_offline_messages_are_bounded_and_taken_once(store: SQLStore) -> None:
    for i in range(2):
        await store.social.send_mail("alice", "bob", f"hi {i}", per_sender=2, per_recipient=3)
    with pytest.raises(MailboxFull):
        await store.social.send_mail("Alice", "bob", "one too many", per_sender=2, per_recipient=3)
    await store.social.send_mail("carol", "bob", "hello", per_sender=2, per_recipient=3)
    with pytest.raises(MailboxFull):
        await store.social.send_mail("dave", "bob", "full", per_sender=2, per_recipient=3)
    with pytest.raises(NoSuchAccount):
        await store.social.send_mail("alice", "guest7", "x", per_sender=2, per_recipient=3)
    letters = await store.social.take_mail("BOB")
    assert [(m.sender, m.text) for m in letters] == [("alice", "hi 0"), ("alice", "hi 1"), ("carol", "hello")]
    assert await store.social.take_mail("bob") == []


# -- ratings ---------------------------------------------------------------------------------------


def _record(round_id: str, ranking: list[int], *, rated: bool = True, bots: tuple[int, ...] = (),
            seats: tuple[str, ...] = PEOPLE) -> RoundRecord:
    return RoundRecord(round_id, "president", "classic", list(seats), {"bot_level": "normal", "match": {}},
                       [], {"event": "round_over", "ranking": ranking}, finished_at=1.0,
                       extra={"rated": rated, "bots": list(bots)})


async def _record_all(store: SQLStore, records: list[RoundRecord]) -> None:
    for record in records:
        await store.history.record_round(record, rated=ratings.rated_round(record, ADAPTERS[record.rules]))


async def test_a_rated_round_moves_ratings_the_right_way_and_is_kept(store: SQLStore) -> None:
    await _record_all(store, [_record("r1-u-1", [2, 0, 3, 1])])
    board = await store.ratings.board("president", "classic", 10)
    assert [r.name for r in board] == ["carol", "alice", "dave", "bob"]
    assert board[0].mu > ratings.MU > board[-1].mu and all(r.games == 1 for r in board)
    changes = await store.ratings.changes("carol")
    assert len(changes) == 1 and changes[0].round_id == "r1-u-1" and changes[0].mu_after > changes[0].mu_before
    await _record_all(store, [_record("r1-u-1", [1, 3, 0, 2])])  # the same round again: nothing moves
    assert [r.games for r in await store.ratings.of("carol")] == [1]
    assert await store.ratings.board("president", "classic", 10, min_games=2) == []


async def test_an_unrated_round_changes_nothing(store: SQLStore) -> None:
    await _record_all(store, [_record("r1-u-1", [2, 0, 3, 1], rated=False)])
    assert await store.ratings.board("president", "classic", 10) == []
    assert len(await store.history.played("alice")) == 1  # the round is in the history all the same


async def test_bots_never_move_a_persons_rating(store: SQLStore) -> None:
    seats = ("alice", "bob", "bot2", "bot3")
    # the same order of alice and bob, the bots anywhere: alice and bob move the same
    await _record_all(store, [_record("r1-u-1", [2, 3, 0, 1], bots=(2, 3), seats=seats)])
    first = {r.name: r for r in await store.ratings.board("president", "classic", 10)}
    await store.ratings.replace_all([], [])
    await _record_all(store, [_record("r1-u-2", [0, 1, 2, 3], bots=(2, 3), seats=seats)])
    second = {r.name: r for r in await store.ratings.board("president", "classic", 10)}
    assert (first["alice"].mu, first["alice"].sigma) == (second["alice"].mu, second["alice"].sigma)
    assert (first["bob"].mu, first["bob"].sigma) == (second["bob"].mu, second["bob"].sigma)
    bots = await store.ratings.board("president", "classic", 10, kind="bot")
    assert [b.name for b in bots] == ["bot:normal"] and bots[0].games == 1
    # the bots did well the first time, badly the second: their own rating says so
    assert (await store.ratings.of("bot:normal"))[0].mu < ratings.MU
    # one person among bots: no person's rating moves at all
    await _record_all(store, [_record("r1-u-3", [0, 1, 2, 3], bots=(1, 2, 3), seats=("carol", "bot1", "bot2", "bot3"))])
    assert await store.ratings.of("carol") == []


async def test_the_stored_history_recomputes_the_same_ratings(store: SQLStore) -> None:
    records = (match_records("classic", PEOPLE, 1, rounds=3, uid="a")
               + match_records("tdc", PEOPLE[:3], 2, rounds=3, uid="b")
               + match_records("speculation", ("alice", "bob", "carol", "bot3"), 3, bots=(3,), rounds=4, uid="c")
               + match_records("classic", PEOPLE, 4, rounds=2, rated=False, uid="d"))
    await _record_all(store, records)
    live = sorted(await _all(store), key=lambda r: (r.game, r.rules, r.name))
    assert {r.rules for r in live} == {"classic", "tdc", "speculation"}
    assert sum(r.games for r in live if r.rules == "classic") == 3 * 4  # the unrated match moved nothing
    changes = await store.ratings.changes("alice", 100)
    again = sorted(await ratings.recompute(store, ADAPTERS), key=lambda r: (r.game, r.rules, r.name))
    assert again == live
    # written back: the same ratings and the same history
    assert sorted(await _all(store), key=lambda r: (r.game, r.rules, r.name)) == live
    assert await store.ratings.changes("alice", 100) == changes
    # the speculation deals were ranked by the chips won in each
    spec = next(r for r in records if r.rules == "speculation")
    scores = ADAPTERS["speculation"].round_scores(spec.config["match"], spec.log, spec.result)
    assert sum(scores.values()) == 0 and set(scores) <= {0, 1, 2, 3}


async def _all(store: SQLStore) -> list[ratings.Rating]:
    out = []
    for rules, adapter in ADAPTERS.items():
        for kind in ("player", "bot"):
            out += await store.ratings.board(adapter.game, rules, 100, kind=kind)
    return out


def test_rated_round_skips_matches_and_unrated_tables() -> None:
    adapter = ADAPTERS["classic"]
    assert ratings.rated_round(_record("r1-u-match", [0, 1, 2, 3]), adapter) is None
    assert ratings.rated_round(_record("r1-u-1", [0, 1, 2, 3], rated=False), adapter) is None
    got = ratings.rated_round(_record("r1-u-1", [3, 1, 0, 2], bots=(2,)), adapter)
    assert got is not None and got.scores == {3: 4.0, 1: 3.0, 0: 2.0, 2: 1.0} and got.bots == {2: "bot:normal"}
    assert dataclasses.asdict(got)["rules"] == "classic"
