"""An event many readers receive is worded once per reading, and says exactly what it says alone.

A table's event goes out as one :class:`server.protocol.Shared`; each presenter
words it once per *reading* (``server.messages.kit.reading``: the seats an
event's wording declares it names read their own words, the other seats share
one, spectators another; an event that reads the same for everyone is worded
once) and language (and terminal). These tests play random games of the three
tables (every event they produce, ``shared_games``) and check, for every event,
every language, every seat and a spectator, in a random order of readers, with
JSON and text presenters sharing the event's cache, that the shared line is the
line made alone for that reader (``presenter.event``, what ``Session.event_line``
queues). A wrong declaration would give a reader another seat's words (a hidden
card of an exchange, "You are dealt"...): breaking any declaration on purpose
makes the check fail.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from server.messages import kit
from server.messages.terminal import ASCII, PLAIN, TermStyle
from server.messages.translations import LANGS
from server.presenters.json import JsonPresenter
from server.presenters.text import TextPresenter
from server.protocol import Shared
from tests.server.messages.shared_games import Pushed, games

STYLES = (PLAIN, TermStyle(width=44, unicode=False, color=True))
READERS: tuple[int | None, ...] = (None, 0, 1, 2, 3)


class Viewer:
    def __init__(self, lang: str, style: TermStyle = PLAIN) -> None:
        self.lang = lang
        self.name = "zoe"
        self.guest = False
        self.logged_in = True
        self.style = style
        self.welcomed = True

    def send_raw(self, text: str) -> None:
        pass

    def where(self) -> tuple[Any, str]:
        return None, "room"


def _presenters() -> list[Any]:
    out: list[Any] = []
    for lang in LANGS:
        out.append(JsonPresenter(Viewer(lang)))
        for style in STYLES:
            text = TextPresenter(Viewer(lang, style))
            text._commitment_told = True  # what a commitment is: told once per session, never shared
            out.append(text)
    return out


@pytest.fixture(scope="module")
def pushed() -> list[Pushed]:
    return games()


def mismatches(pushed: list[Pushed], *, kinds: set[str] | None = None, seed: int = 0) -> Iterator[tuple[Any, ...]]:
    """Each (event, presenter, reader, shared line, line alone) where the two differ."""
    rng = random.Random(seed)
    presenters = _presenters()
    alone = _presenters()  # fresh ones: the long way, as if nothing were shared
    for shared, _ in pushed:
        event = shared.event
        if kinds is not None and event.get("event") not in kinds:
            continue
        fresh = Shared(event, shared.names, shared.source)
        # every reader twice, every presenter, in a random order, all sharing one cache
        calls = [(i, you) for i in range(len(presenters)) for you in READERS * 2]
        rng.shuffle(calls)
        wanted: dict[tuple[int, int | None], str] = {}
        for i, you in calls:
            got = presenters[i].shared(fresh, you)
            want = wanted.get((i, you))
            if want is None:
                want = wanted[i, you] = alone[i].event(event, shared.names, you)
            if got != want:
                yield event, presenters[i].render_key(), you, got, want


def test_the_games_produce_every_event_of_a_match(pushed: list[Pushed]) -> None:
    seen = Counter(shared.event.get("event") for shared, _ in pushed)
    president = {"dealt", "exchange", "played", "passed", "cut", "trick_closed", "out", "revolution", "round_over",
                 "timeout"}
    speculation = {"ante", "trump", "turned", "auction", "bid", "sold", "kept", "offered", "declined", "withdrawn",
                   "lapsed", "traded", "pool_won", "revealed", "deal_over"}
    table = {"chat", "joined", "left", "match_started", "match_over", "commitment", "disconnected", "reconnected"}
    assert president | speculation | table <= set(seen), sorted(president | speculation | table - set(seen))
    assert sum(seen.values()) > 2000


def test_shared_words_are_the_words_made_alone_for_every_reader(pushed: list[Pushed]) -> None:
    wrong = list(mismatches(pushed))
    assert not wrong, wrong[:3]


def test_readers_share_words_an_event_does_not_name_them_in() -> None:
    """The point of it: ``played`` is worded twice for four seats and a spectator (the seat that
    played, everyone else... and the spectator); ``chat`` once; ``round_over`` once per reader."""
    worded: list[Any] = []
    real = JsonPresenter._words

    def counting(self: Any, *args: Any) -> str:
        worded.append(args[-1])
        return real(self, *args)

    p = JsonPresenter(Viewer("en"))
    p._words = counting.__get__(p)  # type: ignore[method-assign]
    names = ("Ana", "Bob", "Cy", "Di")
    for event, wordings in [({"event": "played", "seat": 2, "cards": ["7c"], "remaining": 3}, 3),
                            ({"event": "chat", "name": "Bob", "message": "hi"}, 1),
                            ({"event": "round_over", "round": 1, "ranking": [0, 1, 2, 3],
                              "scores": [3, 2, 1, 0], "totals": [3, 2, 1, 0]}, 5)]:
        worded.clear()
        shared = Shared(event, names)
        lines = {you: p.shared(shared, you) for you in (0, 1, 2, 3, None)}
        assert len(worded) == wordings, event
        if event["event"] == "played":
            assert "You play 7♣." in lines[2] and all("Cy plays 7♣." in lines[s] for s in (0, 1, 3, None))


def _seen_kinds(pushed: list[Pushed]) -> set[str]:
    return {str(shared.event.get("event")) for shared, _ in pushed}


def test_a_wrong_declaration_is_caught(pushed: list[Pushed], monkeypatch: pytest.MonkeyPatch) -> None:
    """Every declaration that says some reader reads words of their own is needed: declaring instead
    that the words are the same for everyone (or that the event names no seat) gives some reader
    words that are not theirs, and the check above sees it."""
    checked = []
    for kind in sorted(_seen_kinds(pushed)):
        declared = kit.READERS.get(kind)
        if declared is None or declared is kit.ANYONE:
            continue
        wrongs: list[kit.Readers] = [kit.ANYONE]
        if isinstance(declared, kit.named | kit.named_by) and kind != "commitment":  # nobody gave a seed
            wrongs.append(kit.named())
        if declared is kit.EVERY_SEAT:
            wrongs.append(kit.named())
        for wrong in wrongs:
            monkeypatch.setitem(kit.READERS, kind, wrong)
            assert next(mismatches(pushed, kinds={kind}), None) is not None, (kind, wrong.said)
            checked.append(kind)
        monkeypatch.setitem(kit.READERS, kind, declared)
    assert {"played", "passed", "exchange", "dealt", "round_over", "bid", "sold", "commitment"} <= set(checked)


def test_every_worded_event_declares_its_readers() -> None:
    """A new wording says which readers' seats change its words (the default, every seat, is safe
    but shares nothing); the list, as the report gives it."""
    assert set(kit.READERS) == set(kit.EVENTS)
    undeclared = sorted(k for k, r in kit.READERS.items() if r is kit.EVERY_SEAT)
    assert undeclared == ["deal_over", "round_over"]


def test_a_spectator_never_shares_a_seats_words() -> None:
    """Readings of seats and of spectators never meet, except for words that are everyone's."""
    for kind, readers in kit.READERS.items():
        event = {"event": kind, "seat": 1, "from": 1, "to": 2, "winners": [1], "given": [1], "hands": [None, ["3c"]]}
        spectator = readers.reading(event, None)
        for you in range(4):
            if readers is not kit.ANYONE:
                assert readers.reading(event, you) != spectator, (kind, you)
    assert kit.reading({"event": "no such event"}, 2) == 2
    assert kit.reading({"event": "played", "seat": [1]}, 2) == kit.OTHER_SEAT  # odd field: no error
    assert ASCII.unicode is False


RICH = {"seat": 1, "from": 1, "to": 2, "leader": 1, "bidder": 1, "owner": 1, "buyer": 2, "seller": 1, "dealer": 1,
        "winners": [1], "given": [1], "payments": [{"seat": 1, "amount": 2}], "chips": [1, -2, 0, 3],
        "scores": [1, 2, 3, 0], "totals": [4, 2, 3, 0], "ranking": [1, 0, 2, 3], "name": "Bob", "room": "r1",
        "round": 2, "card": "Qh", "cards": ["7c"], "amount": 3, "price": 2, "offer": 4, "window": 5, "count": 1,
        "hands": [None, ["3c"], None, None], "message": "hi", "text": "hi", "code": "idle", "seconds": 5,
        "grace": 30, "role": "moderator", "delta": 5, "reason": "test", "until": "2030-01-01"}


@pytest.mark.parametrize("fields", [RICH, {}])
def test_every_declaration_holds_for_every_worded_event(fields: dict[str, Any]) -> None:
    """Beyond the games: each worded event, with every field a wording reads naming a seat (or none),
    read by every seat and a spectator, says what it says alone; and so do the sample events of
    test_events (every kind of a match)."""
    from tests.server.messages.test_events import EVENTS, NAMES

    events = [{"event": kind, **fields} for kind in sorted(kit.EVENTS)] + list(EVENTS)
    pushed: list[Pushed] = [(Shared(e, tuple(NAMES)), ()) for e in events]
    wrong = list(mismatches(pushed))
    assert not wrong, wrong[:3]
