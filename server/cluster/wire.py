"""The messages nodes send each other through Redis, and their encoding (no I/O).

Every message is one JSON object with ``t`` (its kind), ``from`` (the sending node) and the
fields of its kind:

front → owner (the node's channel of the table's owner)
    ``cmd``  ``rid req m cmd args`` — a person's command for a table; answered by ``reply``
    ``conn`` ``rid m`` — the person's connection is (back) on that front, or wants a redraw
    ``disc`` ``rid m`` — the person's connection ended (counts only from their current front)
owner → front
    ``reply`` ``req ok`` or ``req err params``
    ``st``   ``rid lines to`` — a table's states of one moment: only the seats this front holds
             people for (``lines``: ``[[seat, JSON-mode state line], …]``, seat ``null``: the
             spectators'),
             ``to``: ``[[key, seat], …]``
    ``sh``   ``rid ev names to`` — a table event for the front's readers
    ``ev``   ``key ev names you`` — an event for one person; ``notice`` ``key what params``
    ``gone`` ``rid key`` — the person is no longer at the table; ``close`` ``key reason``
a tournament's (:mod:`server.cluster.events`; answered by ``reply``)
    ``tcmd`` ``req cmd args name staff`` — front → the event's owner: a ``tournament_*`` command
    ``tseat`` ``req rid key free`` — the event's owner → a person's front: join them at that table
either
    ``batch`` ``msgs`` — several of the above for one node, in the order they were made

lobby channel (every node)
    ``chat`` / ``news`` ``ev`` — lobby chat, room-list news
    ``kick`` ``key`` — that name logged in on the sending node: older sessions end
    ``owner`` ``rid epoch`` — the sending node owns that table now (after a take-over)
    ``reach`` ``keys`` ``ignores`` ``mute`` — tells, friends' notices, ignore lists and mutes
             (:mod:`server.cluster.community`)

``m`` (a member) is ``{"key", "name", "guest", "prefs", "lang"}``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NotRequired, TypedDict

import orjson

from server.protocol import JSONObject, JSONValue, Result, encode_value
from server.protocol import decode as decode_line

PREFIX = "donne:"

Message = JSONObject
"""A message: a JSON object. As it arrives from another node, ``t`` and ``from`` are checked by
:func:`decode` and every other field is read with a check of its type, as anything a node did not
make itself."""


class Person(TypedDict):
    """A person as the owner of their table reads them from a message (:func:`read_member`; written
    by :func:`member`)."""

    key: str
    name: str
    guest: bool
    prefs: dict[str, bool]
    lang: str
    gen: int
    proof: NotRequired[str]


class StatesMessage(TypedDict):
    """An ``st`` message as a front reads it (:func:`read_states`; the relay's handler of its kind is
    handed it as such): its fields as the owner writes them, each still checked where it is read (a
    pair of another shape fails its unpacking)."""

    rid: JSONValue
    lines: list[list[JSONValue]]
    to: list[list[JSONValue]]


class SharedMessage(TypedDict):
    """An ``sh`` message as a front reads it (:func:`read_recipients`), as :class:`StatesMessage`."""

    rid: JSONValue
    ev: JSONValue
    names: JSONValue
    to: list[list[JSONValue]]


class ReplyMessage(TypedDict, total=False):
    """A ``reply`` as the front that asked reads it: ``ok`` (the owner's room's result) or ``err`` and
    ``params``."""

    req: JSONValue
    ok: Result | None
    err: JSONValue
    params: JSONValue


KINDS = frozenset({"cmd", "conn", "disc", "reply", "st", "sh", "ev", "notice", "gone", "close",
                   "tcmd", "tseat", "chat", "news", "kick", "owner", "reach", "keys", "ignores", "mute", "batch"})


class BadMessage(ValueError):
    """Not a message of the cluster (bad JSON, unknown kind, missing field)."""


def node_channel(node: str) -> str:
    return f"{PREFIX}n:{node}"


LOBBY_CHANNEL = f"{PREFIX}lobby"


def node_key(node: str) -> str:
    """The node's keep-alive (expires when the node stops renewing it)."""
    return f"{PREFIX}node:{node}"


def presence_key(node: str) -> str:
    return f"{PREFIX}presence:{node}"


def rooms_key(node: str) -> str:
    return f"{PREFIX}rooms:{node}"


def seats_key(node: str) -> str:
    return f"{PREFIX}seats:{node}"


TABLES_KEY = f"{PREFIX}tables"
"""The cluster's durable tables: room id → the node that owns it (failover looks there)."""


TOURNAMENTS_KEY = f"{PREFIX}tournaments"
"""The cluster's open tournaments: event id → the node that runs it (failover looks there). An
event's lease is ``lease_key("tour:<id>")`` (its fence key, ``storage.api_tournaments.fence_key``)."""


def lease_key(rid: str) -> str:
    return f"{PREFIX}lease:{rid}"


def epoch_key(rid: str) -> str:
    return f"{PREFIX}epoch:{rid}"


def login_key(key: str) -> str:
    """A name's login generation: each login takes the next; only a newer one ends an older session."""
    return f"{PREFIX}login:{key}"


_OPTIONS = orjson.OPT_NON_STR_KEYS


def encode(msg: Mapping[str, JSONValue]) -> str:
    """``msg`` as the wire carries it (compact JSON, UTF-8). What orjson writes, orjson reads back
    exactly (its integers are within 64 bits, its strings valid UTF-8); what it refuses (an integer
    beyond 64 bits from a person's command) is written by the standard library after a space, and
    :func:`decode` reads such a message with the careful reader of people's lines."""
    try:
        return orjson.dumps(msg, default=str, option=_OPTIONS).decode()
    except TypeError:  # orjson.JSONEncodeError
        return " " + encode_value(msg)


def decode(raw: str | bytes) -> Message:
    """The message in ``raw``; :class:`BadMessage` if it is not one."""
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    msg: JSONValue = None
    if text[:1] == "{":  # written by orjson (:func:`encode`): read by orjson alone, without the
        try:  # careful reader's scan of the whole text for long numbers (most of a node's reading time)
            msg = orjson.loads(text)
        except ValueError:
            msg = None
    if msg is None:
        msg = decode_line(text)  # the standard library's answer where orjson's would differ
    if msg is None:
        raise BadMessage("not a JSON object")
    if not isinstance(msg, dict) or msg.get("t") not in KINDS or not isinstance(msg.get("from"), str):
        raise BadMessage("not a cluster message")
    return msg


def batch(msgs: Sequence[Mapping[str, JSONValue]]) -> Message:
    return {"t": "batch", "msgs": [dict(m) for m in msgs]}


def read_batch(msg: Message) -> list[Message]:
    """The messages of a ``batch``, each with its sender (a bad one is left out)."""
    out = []
    msgs = msg.get("msgs")
    for one in msgs if isinstance(msgs, list) else ():
        if isinstance(one, dict) and one.get("t") in KINDS and one.get("t") != "batch":
            out.append({**one, "from": msg["from"]})
    return out


def member(key: str, name: str, guest: bool, prefs: Mapping[str, bool], lang: str,
           proof: str | None = None, gen: int = 0) -> Message:
    """A person as the owner of their table needs them (``proof``: a guest's resume code, hashed;
    ``gen``: the generation of the login their session is of): the fields of :class:`Person`."""
    m: Message = {"key": key, "name": name, "guest": guest, "prefs": dict(prefs), "lang": lang, "gen": gen}
    if proof is not None:
        m["proof"] = proof
    return m


def read_member(msg: Message) -> Person:
    m = msg.get("m")
    if not isinstance(m, dict):
        raise BadMessage("no member")
    key, name, proof = m.get("key"), m.get("name"), m.get("proof")
    if not isinstance(key, str) or not isinstance(name, str):
        raise BadMessage("no member")
    prefs = m.get("prefs")
    out: Person = {"key": key, "name": name, "guest": bool(m.get("guest")),
                   "prefs": {str(k): bool(v) for k, v in prefs.items()} if isinstance(prefs, dict) else {},
                   "lang": str(m.get("lang") or "en"), "gen": generation(m.get("gen"))}
    if isinstance(proof, str):
        out["proof"] = proof
    return out


def generation(value: object) -> int:
    """A login generation read from a message (0: none)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def states_message(rid: str, lines: Mapping[int | None, str],
                   to: Sequence[tuple[str, int | None]]) -> Message:
    """A table's states of one moment for a front: each seat's as the JSON-mode line the owner
    would send a session of its own (built and encoded once, shared with the owner's own readers);
    the front sends it as it is to a JSON session and reads it only for a text one."""
    return {"t": "st", "rid": rid, "lines": [[seat, line] for seat, line in lines.items()],
            "to": [[key, seat] for key, seat in to]}


def read_states(msg: StatesMessage) -> tuple[dict[int | None, str], list[tuple[str, int | None]]]:
    """The state lines of an ``st`` message by seat, and its recipients."""
    out: dict[int | None, str] = {}
    for pair in msg.get("lines") or ():
        seat, line = pair
        if not (seat is None or isinstance(seat, int)) or not isinstance(line, str):
            raise BadMessage("bad state")
        out[seat] = line
    return out, _recipients(msg)


def _recipients(msg: StatesMessage | SharedMessage) -> list[tuple[str, int | None]]:
    to: list[tuple[str, int | None]] = []
    for pair in msg.get("to") or ():
        key, seat = pair
        if not isinstance(key, str) or not (seat is None or isinstance(seat, int)):
            raise BadMessage("bad recipient")
        to.append((key, seat))
    return to


def read_recipients(msg: SharedMessage) -> list[tuple[str, int | None]]:
    return _recipients(msg)
