"""Durable tables: what a table writes to its log, and the table rebuilt from that log after a restart.

A table's durable truth is its configuration (:func:`table_config`, written when it
opens with ``TableOpened``) and its log, written with ``TableLog`` before anything
it caused leaves the server and in the same transaction as the chip movements it
caused (the room does the writing: :class:`Journal` gives it the entries of each
step). The engine is deterministic, so the log holds the engine's actions and the
table's own facts, never the engine's state:

``{"k": "m", "config": {...}}``
    a match begins (the engine's configuration: the first match, or a rematch);
``{"k": "a", "a": {...}}``
    an engine action applied (``action.to_dict()``): deals with their seed, people's
    moves, time-outs, cuts, automatic moves, bots' moves;
``{"k": "u"}``
    the action before was undone (the ledger refused the chips it moved);
``{"k": "s", "h": "...", "hh": "...", "f": {...}}``
    a step ends: ``h`` is the hash of the match's public state after the entries
    before it (:func:`state_hash`, checked on replay), ``hh`` (a step that dealt) the
    hash of every seat's view, hands included; ``f`` the table's own facts
    (:func:`facts`: its seats, whose they are, bots, the round's escrow...) when they
    changed since the last ``f``.

The hashes are of the views as the engine shows them (``to_dict()``): an upgrade
that changes what a view holds changes them too, and the operator resumes across
it with ``check_hashes = false`` (then only an action the engine refuses stops a
replay).

:func:`restore` rebuilds a :class:`~server.table.core.Table` from a stored table: the
match replayed action by action (each hash checked), the last facts put back, the
bots made again from their seeds and fed the events they saw, every person away
with their grace, and every clock held for the resume window
(:meth:`server.table.clocks.Clocks.hold`). A log that does not replay raises :class:`Unreplayable`
with a reason fit for an operator (never a card).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeAlias

import orjson

from engine import game_class
from engine.api import Action, Event, Match
from engine.bots import LEVELS, make_bot
from engine.errors import Refusal
from engine.seeds import derive
from server.games import ADAPTERS, GameAdapter, TableOptions
from server.protocol import JSONObject, JSONValue, objects_in
from server.table.core import Table
from server.table.fair import ExplicitSeed, FairKey, fairness_facts_of
from server.table.logged import copied, integer, listed, number, text
from server.table.steps import TableSettings

FORMAT = 1
"""The version of :func:`table_config` and of the entries; a table of another version is set aside."""

_OPTION_KEYS = ("game", "rules", "seats", "bots", "bot_level", "turn_seconds", "stake", "ante", "rounds")


class Unreplayable(Exception):
    """A stored table that cannot be rebuilt (a bug, a changed engine): ``reason`` says where and why."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def enable(table: Table) -> None:
    """From now on the table keeps the entries its log needs (see :class:`Journal`)."""
    table.game.keep_journal()


def table_config(table: Table) -> JSONObject:
    """What ``TableOpened`` stores: the options, the owner, the table's first match id, the bots' seed."""
    opts = table.opts
    return {"v": FORMAT, **{k: getattr(opts, k) for k in _OPTION_KEYS}, "extra": dict(opts.extra),
            "owner": table.owner, "uid": table.first_uid, "bot_seed": table.bot_seed.hex()}


_encode_std = json.JSONEncoder(sort_keys=True, separators=(",", ":"), default=str).encode


def _encode_bytes(view: object) -> bytes:
    """``view`` as the standard library writes it sorted, compact and ASCII, in bytes (the hashes of logs
    written by earlier versions must still match): orjson's bytes when they are the same — string keys
    only, ASCII text — else the standard encoder's."""
    try:
        data = orjson.dumps(view, option=orjson.OPT_SORT_KEYS)  # (without ``default``: a little faster)
    except TypeError:
        try:
            data = orjson.dumps(view, default=str, option=orjson.OPT_SORT_KEYS)
        except TypeError:  # int keys (sorted otherwise), an int beyond 64 bits
            return _encode_std(view).encode()
    return data if data.isascii() else _encode_std(view).encode()


def _encode(view: object) -> str:
    """:func:`_encode_bytes` as text."""
    return _encode_bytes(view).decode()


def _hashes(match: Match, every_seat: bool) -> tuple[str, str | None]:
    """:func:`state_hash` of the match, and (``every_seat``) with every seat's view too: the spectator's
    view is made and encoded once for both (the second hash's text begins with the first's)."""
    hasher = hashlib.blake2b(_encode_bytes(match.view(None).to_dict()), digest_size=8)
    public = hasher.hexdigest()
    if not every_seat:
        return public, None
    for seat in range(match.seats):
        hasher.update(b"\n")
        hasher.update(_encode_bytes(match.view(seat).to_dict()))
    return public, hasher.hexdigest()


def state_hash(match: Match, *, every_seat: bool = False) -> str:
    """A short hash of the match's public state (what a spectator's view says); ``every_seat``:
    of every seat's view too (their hands: after a deal). The text hashed is the spectator's view
    then each seat's, in order, as :func:`_encode` writes them, one line each."""
    public, every = _hashes(match, every_seat)
    return public if every is None else every


_SeatKey: TypeAlias = tuple[str | None, str | None, str | None, bool | None, str | None, bool, str | None,
                            dict[str, bool], str | None, int, str | None]
"""A taken seat's part of :data:`_Key`: name, account, member, substitute (a bot: None for none), display,
leaving, departed, prefs, seed, arrived, proof."""

_Key: TypeAlias = tuple[str, int, str, bool, str | None, tuple[tuple[int, str], ...], tuple[tuple[int, int], ...],
                        str | None, tuple[int, ...], str | None, bool, list[_SeatKey | None], int, int | None,
                        FairKey | None]
"""What :func:`facts` is made of (see :func:`_facts_of`)."""


def _facts_key(table: Table) -> _Key:
    """Every value :func:`facts` is made of, each copied as deep as :func:`facts` copies it (so that
    equal keys make equal facts), in a tuple cheaper to make and compare than the facts."""
    window = table.clocks.window
    chips = table.chips
    return (table.uid, table.matches, table.status, table.game.match is not None, chips.round_id,
            tuple(chips.stakes.items()), tuple(chips.escrow.items()), table.fair.commitment,
            tuple(chips.start), None if window is None else window[0], table.clocks.over_at is not None,
            [None if s.empty else (s.name, s.account, s.member, None if s.bot is None else s.substitute,
                                   s.bot_display, s.leaving, s.departed, dict(s.prefs), s.seed, s.arrived,
                                   s.proof if s.member is not None else None)
             for s in table.seats],
            table.arrivals, table.dealt_arrivals, table.fair.key())


def _facts_of(key: _Key) -> JSONObject:
    """The facts a :func:`_facts_key` stands for."""
    (uid, matches, status, match, round_id, stakes, escrow, commitment, round_chips, window, over, seats,
     arrivals, dealt_arrivals, fair) = key
    return {"uid": uid, "matches": matches, "status": status, "match": match, "round_id": round_id,
            "stakes": sorted([s, a] for s, a in stakes), "escrow": sorted([s, n] for s, n in escrow),
            "commitment": commitment, "round_chips": list(round_chips), "window": window, "over": over,
            "seats": [None if s is None else
                      {"name": s[0], "account": s[1], "member": s[2],
                       "bot": None if s[3] is None else ("sub" if s[3] else "table"), "display": s[4],
                       "leaving": s[5], "departed": s[6], "prefs": s[7], "seed": s[8], "arrived": s[9],
                       **({"proof": s[10]} if s[10] is not None else {})}
                      for s in seats],
            "arrivals": [arrivals, dealt_arrivals], "fair": fairness_facts_of(fair)}


def facts(table: Table) -> JSONObject:
    """The table's own state beside the match: what the log must give back after a restart.

    Connections, graces, clocks and spectators are left out: a restart gives everyone a
    fresh grace and every decision its full time."""
    return _facts_of(_facts_key(table))


@dataclass
class Journal:
    """The log entries of one table not written yet, as the room takes them at each step."""

    table: Table
    seq: int = 0  # the number of the next entry in the store
    last_facts: JSONObject | None = None  # the facts written last (or being written)
    _taken: list[JSONObject] = field(default_factory=list)
    # the key of the facts last made (``_facts_key``), and ``last_facts`` then: while both are the same,
    # the facts are (equal keys make equal facts) and need not be made again
    _key: _Key | None = field(default=None, repr=False)
    _key_facts: JSONObject | None = field(default=None, repr=False)

    def take(self) -> list[JSONObject]:
        """The entries to write before this step's messages leave (empty: nothing changed)."""
        journal = self.table.journal
        assert journal is not None, "the table is not durable"
        entries = journal.copy()
        journal.clear()
        step: JSONObject = {"k": "s"}
        key = _facts_key(self.table)
        if key != self._key or self.last_facts is not self._key_facts or self.last_facts is None:
            current = _facts_of(key)
            if current != self.last_facts:
                step["f"] = current
                self.last_facts = current
            self._key, self._key_facts = key, self.last_facts
        acted = dealt = False
        for entry in entries:
            kind = entry["k"]
            if kind != "s":
                acted = True
                if kind == "a":
                    action = entry["a"]  # (its to_dict())
                    if isinstance(action, dict) and action.get("cmd") == "deal":
                        dealt = True
        if "f" not in step and not entries:
            return []
        match = self.table.match
        if match is not None and acted:
            step["h"], every = _hashes(match, dealt)
            if every is not None:
                step["hh"] = every  # the hands dealt
        entries.append(step)
        self._taken = entries
        return entries

    def written(self) -> None:
        """The entries taken last are in the store."""
        self.seq += len(self._taken)
        self._taken = []

    def not_written(self) -> None:
        """The entries taken last could not be written: they go first next time."""
        journal = self.table.journal
        assert journal is not None
        journal[:0] = self._taken
        self._taken = []


# -- rebuilding --------------------------------------------------------------------------------------


def last_facts(entries: Sequence[Mapping[str, JSONValue]]) -> JSONObject | None:
    """The table's facts as the log last wrote them (None: none yet)."""
    for entry in reversed(entries):
        got = entry.get("f")
        if entry.get("k") == "s" and isinstance(got, dict):
            return dict(got)
    return None


def accounts_of(entries: Sequence[Mapping[str, JSONValue]]) -> list[str]:
    """The people's accounts a stored table still holds a seat for (a restart keeps their guests)."""
    got = last_facts(entries)
    if got is None:
        return []
    return [str(s["account"]) for s in objects_in(got.get("seats", [])) if s and s.get("account")
            and s.get("bot") != "table"]


def _parser(game: str) -> Callable[[JSONObject], Action]:
    """The engine's reader of logged actions for ``game`` (each game package has ``action_from_dict``)."""
    package = game_class(game).__module__.rpartition(".")[0]
    parse: Callable[[JSONObject], Action] = importlib.import_module(package).action_from_dict
    return parse


@dataclass
class _Replay:
    """The current match rebuilt from the log, with the events each of its actions caused."""

    adapter: GameAdapter
    config: JSONObject | None = None
    match: Match | None = None
    actions: list[JSONObject] = field(default_factory=list)
    events: list[tuple[Event, ...]] = field(default_factory=list)


def _options(config: Mapping[str, JSONValue]) -> TableOptions:
    return TableOptions(str(config["game"]), str(config["rules"]), integer(config["seats"]), integer(config["bots"]),
                        str(config["bot_level"]), number(config["turn_seconds"]), integer(config["stake"]),
                        integer(config["ante"]), None if config["rounds"] is None else integer(config["rounds"]),
                        copied(config.get("extra") or {}))


def replay(config: Mapping[str, JSONValue], entries: Sequence[Mapping[str, JSONValue]], *,
           check: bool = True) -> tuple[Match | None, list[JSONObject], list[tuple[Event, ...]]]:
    """The last match of a stored table: (match or None, its actions, the events of each), every
    state hash checked (``check``; else only what the engine refuses stops it). Raises
    :class:`Unreplayable`."""
    if config.get("v") != FORMAT:
        raise Unreplayable(f"format {config.get('v')!r} is not {FORMAT}")
    adapter = ADAPTERS.get(str(config.get("rules")))
    if adapter is None:
        raise Unreplayable(f"no table kind {config.get('rules')!r}")
    parse = _parser(adapter.game)
    r = _Replay(adapter)
    for i, entry in enumerate(entries):
        kind = entry.get("k")
        try:
            if kind == "m":
                r.config = copied(entry["config"])
                r.match = adapter.replay(r.config, [])
                r.actions, r.events = [], []
            elif kind == "a":
                if r.match is None:
                    raise Unreplayable(f"entry {i}: an action before any match")
                action = copied(entry["a"])
                r.events.append(tuple(r.match.apply(parse(dict(action)))))
                r.actions.append(action)
            elif kind == "u":
                if not r.actions or r.config is None:
                    raise Unreplayable(f"entry {i}: nothing to undo")
                r.actions.pop()
                r.events.pop()
                r.match = adapter.replay(r.config, r.actions)
            elif kind == "s" and check:
                for key, every_seat in (("h", False), ("hh", True)):
                    wanted = entry.get(key)
                    if wanted is not None and (r.match is None or state_hash(r.match, every_seat=every_seat) != wanted):
                        raise Unreplayable(f"entry {i}: the replayed state differs from the one stored")
            elif kind != "s":
                raise Unreplayable(f"entry {i}: unknown kind {kind!r}")
        except Unreplayable:
            raise
        except Refusal as exc:
            raise Unreplayable(f"entry {i}: the engine refuses it ({exc.code})") from None
        except Exception as exc:
            raise Unreplayable(f"entry {i}: {type(exc).__name__}") from None
    return r.match, r.actions, r.events


def restore(table_id: str, config: Mapping[str, JSONValue], entries: Sequence[Mapping[str, JSONValue]],
            settings: TableSettings, *, now: float, resume_window: float, draw_seed: Callable[[], bytes | ExplicitSeed],
            bot_options: Mapping[str, object] | None = None, check: bool = True) -> Table:
    """The table as its log left it, durable, every person away, every clock held until
    ``now + resume_window`` (see the module's documentation). Raises :class:`Unreplayable`."""
    match, actions, events = replay(config, entries, check=check)
    try:
        opts = _options(config)
        bot_seed = bytes.fromhex(str(config["bot_seed"]))
        owner, first_uid = str(config["owner"]), str(config["uid"])
    except (KeyError, TypeError, ValueError) as exc:
        raise Unreplayable(f"the configuration is incomplete ({type(exc).__name__})") from None
    got = last_facts(entries)
    table = Table(table_id, ADAPTERS[opts.rules], opts, settings, owner=owner, uid=first_uid, draw_seed=draw_seed,
                  bot_seed=bot_seed, bot_options=bot_options)
    table.now = now
    if got is not None:
        try:
            _put_back(table, got, match, actions, events)
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise Unreplayable(f"the table's facts do not fit ({type(exc).__name__})") from None
    enable(table)
    start = now  # a table nobody sits at (bots alone) goes on at once
    if any(s.member is not None for s in table.seats):
        table.clocks.resume_until = start = now + resume_window
        grace = max(settings.grace_seconds, resume_window)
        for seat in table.seats:
            if seat.member is not None:
                seat.present = False
                seat.grace_until = now + grace
    table.clocks.hold(start, table)
    return table


def _put_back(table: Table, got: Mapping[str, JSONValue], match: Match | None, actions: list[JSONObject],
              events: list[tuple[Event, ...]]) -> None:
    opts = table.opts
    table.uid = str(got["uid"])
    table.matches = integer(got["matches"])
    table.status = str(got["status"])
    if got["match"]:
        if match is None:
            raise ValueError("the facts name a match the log does not have")
        table.game.restore(match, actions)
    chips = table.chips
    chips.round_id = text(got["round_id"])
    chips.stakes = {integer(s): str(a) for s, a in map(listed, listed(got["stakes"]))}
    chips.escrow = {integer(s): integer(n) for s, n in map(listed, listed(got["escrow"]))}
    table.fair.commitment = text(got["commitment"])
    chips.start = tuple(integer(c) for c in listed(got["round_chips"]))
    if got["window"] is not None:
        table.clocks.window = (str(got["window"]), 0.0)  # its length starts again (Clocks.hold)
    table.clocks.over_at = 0.0 if got["over"] else None
    arrivals, dealt = listed(got.get("arrivals") or (0, None))
    table.arrivals, table.dealt_arrivals = integer(arrivals), None if dealt is None else integer(dealt)
    fair = got.get("fair")
    table.fair.restore(copied(fair) if fair else None)  # the deal being played: its record at the round's end
    for seat, entry in zip(table.seats, listed(got["seats"]), strict=True):
        if entry is None:
            continue
        s = copied(entry)
        seat.name, seat.account, seat.member = text(s["name"]), text(s["account"]), text(s["member"])
        seat.bot_display, seat.leaving, seat.departed = text(s["display"]), bool(s["leaving"]), text(s["departed"])
        seat.prefs = {str(k): bool(v) for k, v in copied(s["prefs"]).items()}
        seat.arrived = integer(s.get("arrived", 0))  # (logs written before T12's newcomers: 0)
        seat.seed = text(s.get("seed"))
        seat.proof = text(s.get("proof"))  # a guest's resume code, hashed (logs written before it: none)
        if s["bot"] == "table":
            level = opts.bot_level
            options = table.bot_options if LEVELS.get(level, level) == "search" else {}
            seat.bot = make_bot(opts.game, level, seat.index, derive(table.bot_seed, f"bot-{seat.index}"), **options)
        elif s["bot"] == "sub":
            seat.substitute = True
            seat.bot = make_bot(opts.game, "normal", seat.index, derive(table.bot_seed, f"sub-{seat.index}"))
    if table.match is not None:
        for evs in events:  # the bots saw the match so far
            for ev in evs:
                for seat in table.seats:
                    if seat.bot is not None:
                        seen = ev.for_seat(seat.index)
                        if seen is not None:
                            with contextlib.suppress(Exception):  # a bot's memory is a help, not a duty
                                seat.bot.observe(seen)

