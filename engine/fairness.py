"""Deals nobody can rig, that every player can check (the algorithm is specified in docs/fairness.md).

Before each deal the server commits to a secret 32-byte *server seed*; then every seated player
may contribute a short text; the deal depends on the seed and on every contribution, in seat order,
so no single party (the server included) can choose it, and after the deal everyone can check it.

* **Président** (the seed is published after the round): the commitment is
  ``SHA-256(server_seed)``; the engine deals from :func:`deal_seed` (give it to
  ``PresidentMatch.deal_action``); after the round :func:`president_reveal` is the published
  record and :func:`verify_president` checks it against what a player saw.
* **Speculation** (undealt cards stay secret for ever, S12h): the commitment is
  :func:`speculation_commitment`, a root over 16 decks shuffled from the seed and committed card
  by card with secret salts; the contributions choose one deck and a public permutation of it;
  ``SpeculationMatch.deal_action(seed, contributions=...)`` deals from that composition; after the
  deal :func:`speculation_reveal` opens only the positions that were shown (and the 15 decks not
  used, as a spot check that the server committed to real decks); :func:`verify_speculation`
  checks it.

Everything here is a pure function of its arguments (stdlib ``hashlib``/``hmac`` only, no clock,
no global random). The verifiers return structured steps (stable codes and JSON values, no prose)
that the server renders in each player's language; ``docs/verify_deal.py`` is an independent,
import-free re-implementation that must report the same steps.
"""

from __future__ import annotations

import hashlib
import hmac
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.cards import CODES
from engine.errors import BadArgument
from engine.seeds import SeedStream, commitment, derive, shuffled

VERSION = 1
"""The record format and algorithm version (``"v"`` of every record)."""
SEED_BYTES = 32
"""A server seed is exactly this many bytes (the server draws them from ``os.urandom``)."""
MAX_CONTRIBUTION_BYTES = 64
"""A contribution is at most this many bytes of UTF-8 (after normalisation)."""
DECKS = 16
"""Speculation: decks committed per deal; one is dealt, the other 15 are opened as a spot check."""
SALT_BYTES = 16
"""Speculation: the secret salt of each committed position."""
STACK = 3
"""Speculation: face-down cards per player (S4)."""

TAG_DEAL_SEED = b"donne/president/deal-seed/v1"
TAG_BOT = b"donne/bot-contribution/v1"
TAG_DECK = b"donne/speculation/deck/v1"
TAG_SHUFFLE = b"donne/speculation/shuffle/v1"
TAG_SALT = b"donne/speculation/salt/v1"
TAG_POSITION = b"donne/speculation/position/v1"
TAG_DECK_ROOT = b"donne/speculation/deck-root/v1"
TAG_ROOT = b"donne/speculation/root/v1"
TAG_MIX = b"donne/speculation/mix/v1"

"""Card id → code (``"3c"`` … ``"2s"``): the only card notation in records and hash inputs."""
_CARD_ID: dict[str, int] = {code: i for i, code in enumerate(CODES)}
_CODE_BYTES: tuple[bytes, ...] = tuple(c.encode("ascii") for c in CODES)

PASS, FAIL, NOTE = "pass", "fail", "note"
"""Results of a verification :class:`Step`; ``note`` informs and never fails a report."""

Contributions = Sequence[str | None]
"""One entry per seat of the table, in seat order: the seat's text, or ``None`` for no contribution."""


# -- encodings -------------------------------------------------------------------------------------


def _tag(tag: bytes) -> bytes:
    """A domain-separation tag with its length in front: ``u8(len) ‖ tag``."""
    return bytes([len(tag)]) + tag


_POSITION = hashlib.sha256(_tag(TAG_POSITION))
"""The position hash with its tag already absorbed (copied for each position: the hot path of a commitment)."""
_BYTE = tuple(bytes([i]) for i in range(256))


def _hmac(key: bytes, tag: bytes, data: bytes = b"") -> bytes:
    return hmac.digest(key, _tag(tag) + data, "sha256")


def _sha(tag: bytes, data: bytes) -> bytes:
    return hashlib.sha256(_tag(tag) + data).digest()


def normalize_contribution(text: object) -> str:
    """A player's contribution as the table records it: surrounding white space stripped, Unicode
    NFC, no control character, at most :data:`MAX_CONTRIBUTION_BYTES` bytes of UTF-8 (an empty
    text is a valid contribution, distinct from none), nothing invisible (format characters: direction
    overrides, zero-width joiners; unassigned ones), at most :data:`MAX_MARKS` combining marks on a
    character. Refuses with :class:`BadArgument` (``reason``: ``contribution``,
    ``contribution_characters``, ``contribution_invisible``, ``contribution_marks`` or
    ``contribution_too_long``)."""
    if not isinstance(text, str):
        raise BadArgument("a contribution is a text", reason="contribution")
    out = unicodedata.normalize("NFC", text.strip())
    if any(unicodedata.category(ch) in ("Cc", "Cs") for ch in out):
        raise BadArgument("no control characters in a contribution", reason="contribution_characters")
    if any(unicodedata.category(ch) in ("Cf", "Co", "Cn", "Zl", "Zp") for ch in out):
        # a record shows the text: no direction override (U+202E), zero-width or unassigned character
        raise BadArgument("no invisible characters in a contribution", reason="contribution_invisible")
    if _stacked_marks(out):
        raise BadArgument("at most two marks on a character", reason="contribution_marks")
    if len(out.encode("utf-8")) > MAX_CONTRIBUTION_BYTES:
        raise BadArgument(
            "the contribution is too long", reason="contribution_too_long", max=MAX_CONTRIBUTION_BYTES
        )
    return out


MAX_MARKS = 2
"""Combining marks (accents) one character may carry in a contribution: ``ệ`` has two; a pile of
them draws over the lines around it wherever the record is shown."""


def _stacked_marks(text: str) -> bool:
    run = 0
    for i, ch in enumerate(text):
        if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me"):
            run += 1
            if run > MAX_MARKS or i == 0:
                return True
        else:
            run = 0
    return False


def _contribution_ok(c: object) -> bool:
    """The verifier's (version-independent) check: ``None`` or a text of at most 64 UTF-8 bytes."""
    if c is None:
        return True
    if not isinstance(c, str):
        return False
    try:
        return len(c.encode("utf-8")) <= MAX_CONTRIBUTION_BYTES
    except UnicodeEncodeError:
        return False


def encode_contributions(contributions: Contributions) -> bytes:
    """``u8(seats) ‖`` per seat ``0x00`` (no contribution) or ``0x01 ‖ u16be(len) ‖ utf8``.

    Refuses (:class:`BadArgument`, ``reason="contributions"``) a list that is not 1–255 entries of
    ``None`` or normalised text (:func:`normalize_contribution`)."""
    return _encode(contributions, strict=True)


def _encode(contributions: Contributions, strict: bool) -> bytes:
    if isinstance(contributions, str | bytes) or not 1 <= len(contributions) <= 255:
        raise BadArgument("one contribution (or None) per seat", reason="contributions")
    out = bytearray([len(contributions)])
    for c in contributions:
        if c is None:
            out.append(0)
            continue
        if not _contribution_ok(c) or (strict and normalize_contribution(c) != c):
            raise BadArgument("contributions must be normalised texts", reason="contributions")
        b = c.encode("utf-8")
        out += b"\x01" + len(b).to_bytes(2, "big") + b
    return bytes(out)


def _check_seed(server_seed: object) -> bytes:
    if not isinstance(server_seed, bytes | bytearray) or len(server_seed) != SEED_BYTES:
        raise BadArgument(f"a server seed is {SEED_BYTES} bytes", reason="seed")
    return bytes(server_seed)


def bot_contribution(commitment_hex: str, seat: int) -> str:
    """What a bot of ``seat`` contributes: a public function of the deal's commitment.

    It is fixed before the contribution window opens and anyone can recompute it, so the server
    (who runs the bots) cannot use a bot to steer a deal after seeing the players' texts. It adds
    no entropy either: only players' contributions protect them from the server."""
    key = bytes.fromhex(commitment_hex)
    return "bot:" + _hmac(key, TAG_BOT, bytes([seat])).hex()[:32]


# -- Président -------------------------------------------------------------------------------------


def president_commitment(server_seed: bytes) -> str:
    """Published before the contribution window: hex ``SHA-256(server_seed)``."""
    return commitment(_check_seed(server_seed))


def deal_seed(server_seed: bytes, contributions: Contributions) -> bytes:
    """The deal's shuffle seed: ``HMAC-SHA-256(server_seed, u8(len(tag)) ‖ tag ‖ contributions)``
    (:func:`encode_contributions`). Give it to ``PresidentMatch.deal_action``."""
    return _hmac(_check_seed(server_seed), TAG_DEAL_SEED, encode_contributions(contributions))


def president_hands(seed: bytes, dealer: int, present: Sequence[int], seats: int) -> list[list[int]]:
    """The hands ``engine.president`` deals from ``seed`` (P3): ``shuffled(0..51, seed)`` one card at
    a time from the first present seat after ``dealer``; per seat sorted card ids (none if absent)."""
    cards = shuffled(list(range(52)), seed)
    present = sorted(present)
    after = [s for s in present if s > dealer] + [s for s in present if s <= dealer]
    hands: list[list[int]] = [[] for _ in range(seats)]
    for i, seat in enumerate(after):
        hands[seat] = sorted(cards[i :: len(after)])
    return hands


def president_dealer_draw(seed: bytes, present: Sequence[int]) -> int:
    """The first round's dealer (P3): ``present[SeedStream(derive(seed, "dealer")).below(len(present))]``."""
    present = sorted(present)
    return present[SeedStream(derive(seed, "dealer")).below(len(present))]


def president_reveal(
    server_seed: bytes,
    contributions: Contributions,
    *,
    round: int,
    dealer: int,
    present: Sequence[int],
    dealer_drawn: bool,
    bots: Iterable[int] = (),
) -> dict[str, Any]:
    """The record published after a Président round (everything: the round is over).

    ``dealer``/``present``: of the ``dealt`` event; ``dealer_drawn``: the engine drew this dealer
    from the seed (the first round of a match); ``bots``: seats whose contribution is
    :func:`bot_contribution`. The hands are recomputed from the seed, not taken from a match."""
    seed = _check_seed(server_seed)
    cs = list(contributions)
    shuffle_seed = deal_seed(seed, cs)
    n = len(cs)
    present = sorted(present)
    hands = president_hands(shuffle_seed, dealer, present, n)
    return {
        "v": VERSION,
        "game": "president",
        "round": round,
        "seats": n,
        "commitment": commitment(seed),
        "server_seed": seed.hex(),
        "contributions": cs,
        "bots": sorted(set(bots)),
        "deal_seed": shuffle_seed.hex(),
        "dealer": dealer,
        "present": present,
        "dealer_drawn": bool(dealer_drawn),
        "hands": [[CODES[c] for c in h] for h in hands],
    }


# -- Speculation: the commitment -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CommittedDeck:
    """One of the :data:`DECKS` decks: ``cards[i]`` is the card at committed position ``i``."""

    seed: bytes
    cards: tuple[int, ...]
    salts: tuple[bytes, ...]
    hashes: tuple[bytes, ...]
    """``H_i = SHA-256(u8(len(tag)) ‖ tag ‖ u8(i) ‖ salt_i ‖ code(card_i))``, salts of :data:`SALT_BYTES`."""
    root: bytes
    """``SHA-256(u8(len(tag)) ‖ tag ‖ H_0 ‖ … ‖ H_51)``."""


def committed_deck(deck_seed: bytes) -> CommittedDeck:
    """The deck, salts, position hashes and root that ``deck_seed`` defines: the cards are
    ``shuffled(0..51, HMAC(deck_seed, tag))``, the salts the first 52 × 16 bytes of
    ``SeedStream(HMAC(deck_seed, tag))``."""
    cards = tuple(shuffled(list(range(52)), _hmac(deck_seed, TAG_SHUFFLE)))
    raw = SeedStream(_hmac(deck_seed, TAG_SALT)).read(52 * SALT_BYTES)
    salts = tuple(raw[i : i + SALT_BYTES] for i in range(0, 52 * SALT_BYTES, SALT_BYTES))
    hashes = []
    for i in range(52):
        h = _POSITION.copy()
        h.update(_BYTE[i] + salts[i] + _CODE_BYTES[cards[i]])
        hashes.append(h.digest())
    return CommittedDeck(deck_seed, cards, salts, tuple(hashes), _sha(TAG_DECK_ROOT, b"".join(hashes)))


def position_hash(position: int, salt: bytes, card: int) -> bytes:
    """``H_i = SHA-256(u8(len(tag)) ‖ tag ‖ u8(i) ‖ salt_i ‖ code(card_i))`` of one committed position."""
    return _sha(TAG_POSITION, bytes([position]) + salt + _CODE_BYTES[card])


@dataclass(frozen=True, slots=True)
class SpeculationCommitment:
    """What the server commits to before a Speculation deal: :data:`DECKS` decks and their root."""

    decks: tuple[CommittedDeck, ...]
    root: bytes
    """``SHA-256(u8(len(tag)) ‖ tag ‖ root_0 ‖ … ‖ root_15)``; published as hex before the window."""


def speculation_commit(server_seed: bytes) -> SpeculationCommitment:
    """The decks of a deal: deck ``k`` comes from ``HMAC(server_seed, tag ‖ u8(k))``."""
    seed = _check_seed(server_seed)
    decks = tuple(committed_deck(_hmac(seed, TAG_DECK, bytes([k]))) for k in range(DECKS))
    return SpeculationCommitment(decks, _sha(TAG_ROOT, b"".join(d.root for d in decks)))


def speculation_commitment(server_seed: bytes) -> str:
    """Published before the contribution window (hex): reveals nothing of any deck."""
    return speculation_commit(server_seed).root.hex()


def speculation_mix(root: bytes, contributions: Contributions, strict: bool = True) -> bytes:
    """``HMAC-SHA-256(root, u8(len(tag)) ‖ tag ‖ contributions)``: public once the window closes."""
    return _hmac(root, TAG_MIX, _encode(contributions, strict))


def chosen_deck(mix: bytes) -> int:
    """The deck dealt: ``SeedStream(derive(mix, "deck")).below(16)``."""
    return SeedStream(derive(mix, "deck")).below(DECKS)


def permutation(mix: bytes) -> list[int]:
    """``P = shuffled(0..51, derive(mix, "permutation"))``: the ``k``-th card dealt is the chosen
    deck's card at position ``P[k]``."""
    return shuffled(list(range(52)), derive(mix, "permutation"))


def speculation_dealer_draw(mix: bytes, seats: int) -> int:
    """The seat where the first dealer's search starts (S2, S12a): ``SeedStream(derive(mix, "dealer")).below(seats)``."""
    return SeedStream(derive(mix, "dealer")).below(seats)


@dataclass(frozen=True, slots=True)
class SpeculationDeal:
    """A committed Speculation deal once the contributions are in."""

    commit: SpeculationCommitment
    contributions: tuple[str | None, ...]
    mix: bytes
    chosen: int
    permutation: tuple[int, ...]
    dealt: tuple[int, ...]
    """Card ids in the order they leave the deck (``dealt[k] = deck_chosen[P[k]]``)."""

    def dealer_draw(self, seats: int) -> int:
        return speculation_dealer_draw(self.mix, seats)


def speculation_deal(commit: SpeculationCommitment, contributions: Contributions) -> SpeculationDeal:
    """The deal of a commitment (:func:`speculation_commit` of the server seed) once the
    contributions are in: what ``SpeculationMatch`` deals from (it recomputes it from the seed)."""
    mix = speculation_mix(commit.root, contributions)
    chosen = chosen_deck(mix)
    perm = tuple(permutation(mix))
    cards = commit.decks[chosen].cards
    return SpeculationDeal(commit, tuple(contributions), mix, chosen, perm, tuple(cards[p] for p in perm))


def speculation_reveal(
    deal: SpeculationDeal,
    *,
    round: int,
    dealer: int,
    order: Sequence[int],
    shown: Iterable[int],
    dealer_drawn: bool = False,
    chips: Sequence[int] | None = None,
    ante: int | None = None,
    bots: Iterable[int] = (),
) -> dict[str, Any]:
    """The record published after a Speculation deal (``deal``: :func:`speculation_deal` of the
    deal's commitment and contributions). Publish it only once the deal is over: it names every
    card of ``shown``.

    ``order``: the players in dealing order, dealer last (``dealt.players[1:] + players[:1]``);
    ``shown``: the dealt indices everyone has seen (``SpeculationMatch.shown_positions()``: after
    a finished deal, every dealt card; never an undealt one); ``dealer_drawn``: the engine drew the
    dealer from the seed (first deal of a match without ``first_dealer``), then ``chips`` (every
    seat's chips before the deal) and ``ante`` let anyone redo S12a. Only the openings of
    ``shown`` positions of the dealt deck are included; its other salts never leave the server."""
    order = [int(s) for s in order]
    dealt = STACK * len(order) + 1
    indices = sorted(set(shown))
    if any(not 0 <= k < dealt for k in indices):
        raise BadArgument("only dealt positions can be shown", reason="shown")
    deck = deal.commit.decks[deal.chosen]
    record: dict[str, Any] = {
        "v": VERSION,
        "game": "speculation",
        "round": round,
        "seats": len(deal.contributions),
        "commitment": deal.commit.root.hex(),
        "decks": DECKS,
        "chosen": deal.chosen,
        "deck_roots": [d.root.hex() for d in deal.commit.decks],
        "deck_seeds": [None if k == deal.chosen else d.seed.hex() for k, d in enumerate(deal.commit.decks)],
        "hashes": [h.hex() for h in deck.hashes],
        "contributions": list(deal.contributions),
        "bots": sorted(set(bots)),
        "mix": deal.mix.hex(),
        "dealer": dealer,
        "order": order,
        "dealer_drawn": bool(dealer_drawn),
    }
    if dealer_drawn:
        if chips is None or ante is None:
            raise BadArgument("a drawn dealer needs the chips and the ante", reason="dealer")
        record["chips"] = [int(c) for c in chips]
        record["ante"] = int(ante)
    record["shown"] = [
        {
            "index": k,
            "position": deal.permutation[k],
            "card": CODES[deck.cards[deal.permutation[k]]],
            "salt": deck.salts[deal.permutation[k]].hex(),
        }
        for k in indices
    ]
    return record


def shown_cards(events: Iterable[Mapping[str, Any]], round: int | None = None) -> dict[int, str]:
    """Dealt index → card code of every card a Speculation deal showed, from its public events
    (protocol dicts, as a player receives them): the trump (index ``3p``), each turned card and
    the stacks revealed at the end (S12h), following the cards moved by trades (S9).

    ``round``: the deal to read (default: the last one in ``events``). Raises :class:`ValueError`
    on a transcript that does not add up."""
    shown: dict[int, str] = {}
    stacks: dict[int, list[int]] = {}
    trump_index = -1
    reading = False
    for e in events:
        name = e.get("event")
        if name == "dealt":
            reading = round is None or e.get("round") == round
            if not reading:
                continue
            shown = {}
            players = [int(s) for s in e["players"]]
            order = players[1:] + players[:1]
            p = len(order)
            stacks = {s: [level * p + i for level in range(STACK)] for i, s in enumerate(order)}
            trump_index = STACK * p
        elif not reading:
            continue
        elif name == "trump":
            shown[trump_index] = str(e["card"])
        elif name == "turned":
            shown[stacks[int(e["seat"])].pop()] = str(e["card"])
        elif name == "traded":
            seller, buyer, k = stacks[int(e["to"])], stacks[int(e["from"])], int(e["cards"])
            if not 1 <= k <= len(seller):
                raise ValueError("a trade of cards that are not there")
            moved = seller[-k:]
            del seller[-k:]
            buyer[0:0] = moved
        elif name == "revealed":
            for seat, codes in enumerate(e["stacks"]):
                held = stacks.get(seat, [])
                if len(codes) != len(held):
                    raise ValueError("revealed stacks do not match the deal")
                for code, k in zip(codes, reversed(held), strict=True):
                    shown[k] = str(code)
            if round is not None:
                reading = False  # the deal asked for is complete
    return shown


# -- verification ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Step:
    """One verification step: a stable ``code``, its ``result`` and JSON ``values`` to show."""

    code: str
    result: str
    values: Mapping[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "result": self.result, "values": dict(self.values)}


@dataclass(frozen=True, slots=True)
class Report:
    """The steps of one verification, in order; ``ok`` when none failed."""

    game: str
    steps: tuple[Step, ...]

    @property
    def ok(self) -> bool:
        return all(s.result != FAIL for s in self.steps)

    def to_dict(self) -> dict[str, Any]:
        return {"game": self.game, "ok": self.ok, "steps": [s.to_dict() for s in self.steps]}


class _Bad(Exception):
    """A record field that is missing or malformed."""

    def __init__(self, field: str) -> None:
        super().__init__(field)
        self.field = field


def _int(r: Mapping[str, Any], key: str, lo: int, hi: int) -> int:
    v = r.get(key)
    if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
        raise _Bad(key)
    return v


def _hex(v: object, field: str, size: int = 32) -> bytes:
    if isinstance(v, str) and len(v) == 2 * size:
        try:
            b = bytes.fromhex(v)
        except ValueError:
            raise _Bad(field) from None
        if len(b) == size:
            return b
    raise _Bad(field)


def _list(r: Mapping[str, Any], key: str, size: int | None = None) -> list[Any]:
    v = r.get(key)
    if not isinstance(v, list) or (size is not None and len(v) != size):
        raise _Bad(key)
    return v


def _seats(v: object, field: str, seats: int) -> list[int]:
    """Distinct seat numbers."""
    if not isinstance(v, list) or any(not isinstance(s, int) or isinstance(s, bool) or not 0 <= s < seats for s in v):
        raise _Bad(field)
    if len(set(v)) != len(v):
        raise _Bad(field)
    return list(v)


def _common(r: Mapping[str, Any], game: str) -> tuple[int, list[str | None], list[int]]:
    """The fields every record has: version, game, round, seats, contributions, bots."""
    if not isinstance(r, Mapping):
        raise _Bad("record")
    if r.get("v") != VERSION or isinstance(r.get("v"), bool):
        raise _Bad("v")
    if r.get("game") != game:
        raise _Bad("game")
    _int(r, "round", 1, 1 << 62)
    seats = _int(r, "seats", 1, 255)
    _hex(r.get("commitment"), "commitment")
    contributions = _list(r, "contributions", seats)
    bots = _seats(r.get("bots"), "bots", seats)
    if not isinstance(r.get("dealer_drawn"), bool):
        raise _Bad("dealer_drawn")
    return seats, contributions, bots


def _contribution_steps(
    commitment_hex: str, contributions: list[Any], bots: list[int], seen: Mapping[str, Any]
) -> list[Step]:
    steps: list[Step] = []
    if not all(_contribution_ok(c) for c in contributions):
        bad = next(s for s, c in enumerate(contributions) if not _contribution_ok(c))
        return [Step("contributions", FAIL, {"seat": bad})]
    given = [s for s, c in enumerate(contributions) if c is not None]
    steps.append(Step("contributions", PASS, {"given": given, "none": [s for s in range(len(contributions)) if s not in given]}))
    wrong = [s for s in sorted(bots) if contributions[s] != bot_contribution(commitment_hex, s)]
    steps.append(Step("bots", FAIL if wrong else PASS, {"bots": sorted(bots), "wrong": wrong}))
    players = [s for s in given if s not in bots]
    steps.append(Step("entropy", PASS if players else NOTE, {"players": players}))
    seat = seen.get("seat")
    if "contribution" in seen and isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < len(contributions):
        mine = seen["contribution"]
        if isinstance(mine, str):
            mine = unicodedata.normalize("NFC", mine.strip())
        found = contributions[seat]
        steps.append(Step("own_contribution", PASS if found == mine else FAIL, {"seat": seat, "sent": mine, "found": found}))
    else:
        steps.append(Step("own_contribution", NOTE, {}))
    return steps


def _commitment_seen(record_commitment: str, seen: Mapping[str, Any]) -> Step:
    announced = seen.get("commitment")
    if not isinstance(announced, str):
        return Step("commitment_seen", NOTE, {"commitment": record_commitment})
    same = announced.lower() == record_commitment.lower()
    return Step("commitment_seen", PASS if same else FAIL, {"commitment": record_commitment, "announced": announced})


def _codes(v: object, field: str) -> list[int]:
    if not isinstance(v, list) or any(not isinstance(c, str) or c not in _CARD_ID for c in v):
        raise _Bad(field)
    return [_CARD_ID[c] for c in v]


def verify_president(record: Mapping[str, Any], seen: Mapping[str, Any] | None = None) -> Report:
    """Check a :func:`president_reveal` record step by step; ``seen`` holds what the player saw:
    ``commitment`` (announced before the window), ``seat`` and ``contribution`` (what he sent,
    ``None`` for nothing), ``hands`` (the ``hands`` of the ``dealt`` event he received)."""
    seen = seen if isinstance(seen, Mapping) else {}
    steps: list[Step] = []
    try:
        seats, contributions, bots = _common(record, "president")
        server_seed = _hex(record.get("server_seed"), "server_seed")
        claimed_seed = _hex(record.get("deal_seed"), "deal_seed")
        present = _seats(record.get("present"), "present", seats)
        if not present or present != sorted(present):
            raise _Bad("present")
        dealer = _int(record, "dealer", 0, seats - 1)
        if dealer not in present:
            raise _Bad("dealer")
        hands_field = _list(record, "hands", seats)
        claimed_hands = [sorted(_codes(h, "hands")) for h in hands_field]
    except _Bad as bad:
        return Report("president", (Step("format", FAIL, {"field": bad.field}),))
    steps.append(Step("format", PASS, {"round": record["round"], "seats": seats}))
    commit = str(record["commitment"]).lower()
    steps.append(_commitment_seen(commit, seen))
    computed = hashlib.sha256(server_seed).hexdigest()
    steps.append(Step("commitment", PASS if computed == commit else FAIL, {"computed": computed, "commitment": commit}))
    steps += _contribution_steps(commit, contributions, bots, seen)
    if any(s.code == "contributions" and s.result == FAIL for s in steps):
        return Report("president", tuple(steps))
    shuffle_seed = _hmac(server_seed, TAG_DEAL_SEED, _encode(contributions, strict=False))
    steps.append(Step("deal_seed", PASS if shuffle_seed == claimed_seed else FAIL, {"computed": shuffle_seed.hex()}))
    if record["dealer_drawn"]:
        drawn = president_dealer_draw(shuffle_seed, present)
        steps.append(Step("dealer", PASS if drawn == dealer else FAIL, {"drawn": drawn, "dealer": dealer}))
    else:
        steps.append(Step("dealer", NOTE, {"dealer": dealer}))
    hands = president_hands(shuffle_seed, dealer, present, seats)
    wrong = [s for s in range(seats) if hands[s] != claimed_hands[s]]
    steps.append(Step("hands", FAIL if wrong else PASS, {"present": present, "wrong": wrong}))
    seen_hands = seen.get("hands")
    if isinstance(seen_hands, list):
        checked, mismatched = [], []
        for s, h in enumerate(seen_hands[:seats]):
            if h is None:
                continue
            checked.append(s)
            try:
                mine = sorted(_codes(h, "hands"))
            except _Bad:
                mismatched.append(s)
                continue
            if mine != hands[s]:
                mismatched.append(s)
        steps.append(Step("hands_seen", FAIL if mismatched else PASS, {"checked": checked, "wrong": mismatched}))
    else:
        steps.append(Step("hands_seen", NOTE, {}))
    return Report("president", tuple(steps))


def verify_speculation(record: Mapping[str, Any], seen: Mapping[str, Any] | None = None) -> Report:
    """Check a :func:`speculation_reveal` record step by step; ``seen`` holds what the player saw:
    ``commitment`` (the root announced before the window), ``seat`` and ``contribution``, and
    ``events`` (the deal's events as received, see :func:`shown_cards`)."""
    seen = seen if isinstance(seen, Mapping) else {}
    steps: list[Step] = []
    try:
        seats, contributions, bots = _common(record, "speculation")
        if record.get("decks") != DECKS or isinstance(record.get("decks"), bool):
            raise _Bad("decks")
        chosen = _int(record, "chosen", 0, DECKS - 1)
        deck_roots = [_hex(h, "deck_roots") for h in _list(record, "deck_roots", DECKS)]
        deck_seeds_field = _list(record, "deck_seeds", DECKS)
        deck_seeds: list[bytes | None] = []
        for k, v in enumerate(deck_seeds_field):
            if (v is None) != (k == chosen):
                raise _Bad("deck_seeds")
            deck_seeds.append(None if v is None else _hex(v, "deck_seeds"))
        hashes = [_hex(h, "hashes") for h in _list(record, "hashes", 52)]
        claimed_mix = _hex(record.get("mix"), "mix")
        order = _seats(record.get("order"), "order", seats)
        if not order or STACK * len(order) + 1 > 52:
            raise _Bad("order")
        dealer = _int(record, "dealer", 0, seats - 1)
        chips: list[int] = []
        ante = 0
        if record["dealer_drawn"]:
            chips = _list(record, "chips", seats)
            if any(not isinstance(c, int) or isinstance(c, bool) or c < 0 for c in chips):
                raise _Bad("chips")
            ante = _int(record, "ante", 0, 1 << 62)
        openings = []
        for o in _list(record, "shown"):
            if not isinstance(o, Mapping):
                raise _Bad("shown")
            index = _int(o, "index", 0, 51)
            position = _int(o, "position", 0, 51)
            card = o.get("card")
            if not isinstance(card, str) or card not in _CARD_ID:
                raise _Bad("shown")
            openings.append((index, position, card, _hex(o.get("salt"), "shown", SALT_BYTES)))
    except _Bad as bad:
        return Report("speculation", (Step("format", FAIL, {"field": bad.field}),))
    steps.append(Step("format", PASS, {"round": record["round"], "seats": seats}))
    commit = str(record["commitment"]).lower()
    steps.append(_commitment_seen(commit, seen))
    # the 15 decks not dealt are opened: each must be the deck its seed defines
    wrong_decks = [
        k for k, s in enumerate(deck_seeds) if s is not None and committed_deck(s).root != deck_roots[k]
    ]
    steps.append(Step("decks", FAIL if wrong_decks else PASS, {"checked": DECKS - 1, "wrong": wrong_decks}))
    root_c = _sha(TAG_DECK_ROOT, b"".join(hashes))
    steps.append(Step("hashes", PASS if root_c == deck_roots[chosen] else FAIL, {"deck": chosen, "root": root_c.hex()}))
    root = _sha(TAG_ROOT, b"".join(deck_roots))
    steps.append(Step("commitment", PASS if root.hex() == commit else FAIL, {"computed": root.hex(), "commitment": commit}))
    steps += _contribution_steps(commit, contributions, bots, seen)
    if any(s.code == "contributions" and s.result == FAIL for s in steps):
        return Report("speculation", tuple(steps))
    mix = speculation_mix(bytes.fromhex(commit), contributions, strict=False)
    steps.append(Step("mix", PASS if mix == claimed_mix else FAIL, {"computed": mix.hex()}))
    drawn_deck = chosen_deck(mix)
    steps.append(Step("chosen", PASS if drawn_deck == chosen else FAIL, {"computed": drawn_deck, "chosen": chosen}))
    p = len(order)
    cyclic = [(s - dealer - 1) % seats for s in order]
    order_ok = order[-1] == dealer and cyclic == sorted(cyclic)
    steps.append(Step("order", PASS if order_ok else FAIL, {"order": order, "dealer": dealer}))
    if record["dealer_drawn"]:
        start = speculation_dealer_draw(mix, seats)
        expected = next(
            (s for s in ((start + i) % seats for i in range(seats)) if s in order and chips[s] >= 2 * ante), None
        )
        steps.append(Step("dealer", PASS if expected == dealer else FAIL, {"drawn": start, "dealer": dealer}))
    else:
        steps.append(Step("dealer", NOTE, {"dealer": dealer}))
    perm = permutation(mix)
    dealt = STACK * p + 1
    problem: dict[str, Any] | None = None
    indices: set[int] = set()
    cards: set[str] = set()
    for index, position, card, salt in openings:
        if index >= dealt:
            problem = {"index": index, "problem": "undealt"}
        elif index in indices or card in cards:
            problem = {"index": index, "problem": "duplicate"}
        elif position != perm[index]:
            problem = {"index": index, "problem": "position"}
        elif position_hash(position, salt, _CARD_ID[card]) != hashes[position]:
            problem = {"index": index, "problem": "hash"}
        if problem is not None:
            break
        indices.add(index)
        cards.add(card)
    if problem is None:
        steps.append(Step("openings", PASS, {"count": len(openings), "dealt": dealt}))
    else:
        steps.append(Step("openings", FAIL, problem))
    events = seen.get("events")
    if isinstance(events, list):
        steps.append(_cards_seen(events, int(record["round"]), {o[0]: o[2] for o in openings}))
    else:
        steps.append(Step("cards_seen", NOTE, {}))
    return Report("speculation", tuple(steps))


def _cards_seen(events: list[Any], round: int, revealed: dict[int, str]) -> Step:
    try:
        saw = shown_cards([e for e in events if isinstance(e, Mapping)], round)
    except (KeyError, ValueError, TypeError, IndexError):
        return Step("cards_seen", FAIL, {"problem": "transcript"})
    for k in sorted(set(saw) | set(revealed)):
        if saw.get(k) != revealed.get(k):
            return Step("cards_seen", FAIL, {"index": k, "seen": saw.get(k), "revealed": revealed.get(k)})
    return Step("cards_seen", PASS, {"count": len(saw)})


def verify(record: Mapping[str, Any], seen: Mapping[str, Any] | None = None) -> Report:
    """:func:`verify_president` or :func:`verify_speculation`, by the record's ``game``."""
    game = record.get("game") if isinstance(record, Mapping) else None
    if game == "speculation":
        return verify_speculation(record, seen)
    if game == "president":
        return verify_president(record, seen)
    return Report(str(game), (Step("format", FAIL, {"field": "game"}),))
