#!/usr/bin/env python3
"""Check a published donne deal record, step by step (the algorithm: docs/fairness.md).

    python3 verify_deal.py RECORD.json [SEEN.json]

RECORD.json is the record the server published after a Président round or a Speculation deal.
SEEN.json (optional) is what you saw yourself, with any of these keys:
  "commitment"    the commitment (Président) or root (Speculation) announced before the deal,
  "seat", "contribution"   your seat and the text you contributed (null: none),
  "hands"         Président: the "hands" of the "dealt" event you received,
  "events"        Speculation: the events of the deal as you received them (JSON mode).
A RECORD.json of the form {"record": {...}, "seen": {...}} holds both.

Prints each step and exits with 0 when no step failed, 1 otherwise. Python 3.8+ standard library
only, and on purpose nothing from donne: it is a second implementation of the specification, short
enough to be rewritten in another language.
"""

import hashlib
import hmac
import json
import sys
import unicodedata

RANKS, SUITS = "3456789TJQKA2", "cdhs"
CODES = [RANKS[i // 4] + SUITS[i % 4] for i in range(52)]  # card id -> code, "3c" = 0 ... "2s" = 51
CARD_ID = {code: i for i, code in enumerate(CODES)}
DECKS, STACK, MAX_BYTES = 16, 3, 64


# -- primitives (docs/fairness.md, "Building blocks") ------------------------------------------


def tagged(tag):
    """A domain tag with its length in front: u8(len) || tag."""
    return bytes([len(tag)]) + tag


def sha(tag, data):
    return hashlib.sha256(tagged(tag) + data).digest()


def mac(key, tag, data=b""):
    return hmac.digest(key, tagged(tag) + data, "sha256")


def derive(seed, label):
    """engine.seeds.derive: SHA-256(seed || "/" || label)."""
    return hashlib.sha256(seed + b"/" + label.encode()).digest()


class Stream:
    """engine.seeds.SeedStream: the bytes of SHA-256(seed || u64be(0)), SHA-256(seed || u64be(1)), ..."""

    def __init__(self, seed):
        self.seed, self.counter, self.buf, self.pos = seed, 0, b"", 0

    def byte_string(self, n):
        while len(self.buf) - self.pos < n:
            self.buf += hashlib.sha256(self.seed + self.counter.to_bytes(8, "big")).digest()
            self.counter += 1
        self.pos += n
        return self.buf[self.pos - n : self.pos]

    def below(self, n):
        """Uniform in [0, n): read ceil(bits/8) bytes big-endian, keep the low bits, retry if >= n."""
        if n == 1:
            return 0
        bits = (n - 1).bit_length()
        while True:
            x = int.from_bytes(self.byte_string((bits + 7) // 8), "big") & ((1 << bits) - 1)
            if x < n:
                return x


def shuffled(items, seed):
    """engine.seeds.shuffled: Fisher-Yates from the last position down to 1."""
    out, stream = list(items), Stream(seed)
    for i in range(len(out) - 1, 0, -1):
        j = stream.below(i + 1)
        out[i], out[j] = out[j], out[i]
    return out


def encode(contributions):
    """u8(seats) || per seat 0x00 (none) or 0x01 || u16be(len) || UTF-8."""
    out = bytes([len(contributions)])
    for c in contributions:
        if c is None:
            out += b"\x00"
        else:
            b = c.encode("utf-8")
            out += b"\x01" + len(b).to_bytes(2, "big") + b
    return out


def bot_contribution(commitment_hex, seat):
    return "bot:" + mac(bytes.fromhex(commitment_hex), b"donne/bot-contribution/v1", bytes([seat])).hex()[:32]


def president_hands(seed, dealer, present, seats):
    """One card at a time, from the first present seat after the dealer (P3)."""
    cards = shuffled(range(52), seed)
    after = [s for s in present if s > dealer] + [s for s in present if s <= dealer]
    hands = [[] for _ in range(seats)]
    for i, seat in enumerate(after):
        hands[seat] = sorted(cards[i :: len(after)])
    return hands


def position_hash(position, salt, card):
    return sha(b"donne/speculation/position/v1", bytes([position]) + salt + CODES[card].encode("ascii"))


def committed_deck(deck_seed):
    """(cards, salts, hashes, root) of one Speculation deck: cards[i] is at committed position i."""
    cards = shuffled(range(52), mac(deck_seed, b"donne/speculation/shuffle/v1"))
    raw = Stream(mac(deck_seed, b"donne/speculation/salt/v1")).byte_string(52 * 16)
    salts = [raw[16 * i : 16 * i + 16] for i in range(52)]  # 16 bytes each
    hashes = [position_hash(i, salts[i], cards[i]) for i in range(52)]
    return cards, salts, hashes, sha(b"donne/speculation/deck-root/v1", b"".join(hashes))


def shown_cards(events, round_):
    """Dealt index -> card of every card the deal showed, following trades (S4, S5, S8, S9, S12h)."""
    shown, stacks, trump, reading = {}, {}, -1, False
    for e in events:
        name = e.get("event")
        if name == "dealt":
            reading = e.get("round") == round_
            if reading:
                players = [int(s) for s in e["players"]]  # the dealer first, then his left
                order = players[1:] + players[:1]  # dealing order, dealer last
                p = len(order)
                shown, trump = {}, STACK * p
                stacks = {s: [level * p + i for level in range(STACK)] for i, s in enumerate(order)}
        elif not reading:
            continue
        elif name == "trump":
            shown[trump] = str(e["card"])
        elif name == "turned":
            shown[stacks[int(e["seat"])].pop()] = str(e["card"])  # the top card is the last one
        elif name == "traded":  # "cards" cards from the top of "to" go under the stack of "from"
            seller, buyer, k = stacks[int(e["to"])], stacks[int(e["from"])], int(e["cards"])
            if not 1 <= k <= len(seller):
                raise ValueError("a trade of cards that are not there")
            moved = seller[-k:]
            del seller[-k:]
            buyer[0:0] = moved
        elif name == "revealed":  # per seat, top card first
            for seat, codes in enumerate(e["stacks"]):
                held = stacks.get(seat, [])
                if len(codes) != len(held):
                    raise ValueError("revealed stacks do not match the deal")
                for code, k in zip(codes, reversed(held)):  # noqa: B905 (lengths checked; 3.8 has no strict=)
                    shown[k] = str(code)
            reading = False
    return shown


# -- record fields -------------------------------------------------------------------------------


class Bad(Exception):
    pass


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def get_int(r, key, lo, hi):
    v = r.get(key)
    if not is_int(v) or not lo <= v <= hi:
        raise Bad(key)
    return v


def get_hex(v, field, size=32):
    if isinstance(v, str) and len(v) == 2 * size:
        try:
            b = bytes.fromhex(v)
        except ValueError:
            raise Bad(field) from None
        if len(b) == size:
            return b
    raise Bad(field)


def get_list(r, key, size=None):
    v = r.get(key)
    if not isinstance(v, list) or (size is not None and len(v) != size):
        raise Bad(key)
    return v


def get_seats(v, field, seats):
    if not isinstance(v, list) or any(not is_int(s) or not 0 <= s < seats for s in v) or len(set(v)) != len(v):
        raise Bad(field)
    return list(v)


def get_codes(v, field):
    if not isinstance(v, list) or any(not isinstance(c, str) or c not in CARD_ID for c in v):
        raise Bad(field)
    return [CARD_ID[c] for c in v]


def contribution_ok(c):
    if c is None:
        return True
    if not isinstance(c, str):
        return False
    try:
        return len(c.encode("utf-8")) <= MAX_BYTES
    except UnicodeEncodeError:
        return False


def common(r, game):
    if not isinstance(r, dict):
        raise Bad("record")
    if r.get("v") != 1 or isinstance(r.get("v"), bool):
        raise Bad("v")
    if r.get("game") != game:
        raise Bad("game")
    get_int(r, "round", 1, 1 << 62)
    seats = get_int(r, "seats", 1, 255)
    get_hex(r.get("commitment"), "commitment")
    contributions = get_list(r, "contributions", seats)
    bots = get_seats(r.get("bots"), "bots", seats)
    if not isinstance(r.get("dealer_drawn"), bool):
        raise Bad("dealer_drawn")
    return seats, contributions, bots


# -- the steps -----------------------------------------------------------------------------------


def step(code, ok, values):
    """ok: True (pass), False (fail) or None (note: information only)."""
    return {"code": code, "result": "note" if ok is None else "pass" if ok else "fail", "values": values}


def commitment_seen(commitment, seen):
    announced = seen.get("commitment")
    if not isinstance(announced, str):
        return step("commitment_seen", None, {"commitment": commitment})
    return step("commitment_seen", announced.lower() == commitment, {"commitment": commitment, "announced": announced})


def contribution_steps(commitment, contributions, bots, seen):
    for seat, c in enumerate(contributions):
        if not contribution_ok(c):
            return [step("contributions", False, {"seat": seat})]
    given = [s for s, c in enumerate(contributions) if c is not None]
    out = [step("contributions", True, {"given": given, "none": [s for s in range(len(contributions)) if s not in given]})]
    wrong = [s for s in sorted(bots) if contributions[s] != bot_contribution(commitment, s)]
    out.append(step("bots", not wrong, {"bots": sorted(bots), "wrong": wrong}))
    players = [s for s in given if s not in bots]
    out.append(step("entropy", True if players else None, {"players": players}))  # none: the server alone chose
    seat = seen.get("seat")
    if "contribution" in seen and is_int(seat) and 0 <= seat < len(contributions):
        mine = seen["contribution"]
        if isinstance(mine, str):
            mine = unicodedata.normalize("NFC", mine.strip())
        found = contributions[seat]
        out.append(step("own_contribution", found == mine, {"seat": seat, "sent": mine, "found": found}))
    else:
        out.append(step("own_contribution", None, {}))
    return out


def verify_president(r, seen):
    try:
        seats, contributions, bots = common(r, "president")
        server_seed = get_hex(r.get("server_seed"), "server_seed")
        claimed_seed = get_hex(r.get("deal_seed"), "deal_seed")
        present = get_seats(r.get("present"), "present", seats)
        if not present or present != sorted(present):
            raise Bad("present")
        dealer = get_int(r, "dealer", 0, seats - 1)
        if dealer not in present:
            raise Bad("dealer")
        claimed_hands = [sorted(get_codes(h, "hands")) for h in get_list(r, "hands", seats)]
    except Bad as bad:
        return [step("format", False, {"field": str(bad)})]
    steps = [step("format", True, {"round": r["round"], "seats": seats})]
    commitment = r["commitment"].lower()
    steps.append(commitment_seen(commitment, seen))
    # 1. the seed revealed is the one committed to before the deal
    computed = hashlib.sha256(server_seed).hexdigest()
    steps.append(step("commitment", computed == commitment, {"computed": computed, "commitment": commitment}))
    steps += contribution_steps(commitment, contributions, bots, seen)
    if steps[-1]["code"] == "contributions":  # a malformed contribution: nothing more to compute
        return steps
    # 2. the shuffle seed mixes the server seed with every contribution
    seed = mac(server_seed, b"donne/president/deal-seed/v1", encode(contributions))
    steps.append(step("deal_seed", seed == claimed_seed, {"computed": seed.hex()}))
    # 3. the first round's dealer is drawn from it (later rounds: the next seat, P3)
    if r["dealer_drawn"]:
        drawn = present[Stream(derive(seed, "dealer")).below(len(present))]
        steps.append(step("dealer", drawn == dealer, {"drawn": drawn, "dealer": dealer}))
    else:
        steps.append(step("dealer", None, {"dealer": dealer}))
    # 4. the deal, and the hands you saw
    hands = president_hands(seed, dealer, present, seats)
    wrong = [s for s in range(seats) if hands[s] != claimed_hands[s]]
    steps.append(step("hands", not wrong, {"present": present, "wrong": wrong}))
    seen_hands = seen.get("hands")
    if isinstance(seen_hands, list):
        checked, mismatched = [], []
        for s, h in enumerate(seen_hands[:seats]):
            if h is None:
                continue
            checked.append(s)
            try:
                if sorted(get_codes(h, "hands")) != hands[s]:
                    mismatched.append(s)
            except Bad:
                mismatched.append(s)
        steps.append(step("hands_seen", not mismatched, {"checked": checked, "wrong": mismatched}))
    else:
        steps.append(step("hands_seen", None, {}))
    return steps


def verify_speculation(r, seen):
    try:
        seats, contributions, bots = common(r, "speculation")
        if r.get("decks") != DECKS or isinstance(r.get("decks"), bool):
            raise Bad("decks")
        chosen = get_int(r, "chosen", 0, DECKS - 1)
        deck_roots = [get_hex(h, "deck_roots") for h in get_list(r, "deck_roots", DECKS)]
        deck_seeds = []
        for k, v in enumerate(get_list(r, "deck_seeds", DECKS)):
            if (v is None) != (k == chosen):
                raise Bad("deck_seeds")
            deck_seeds.append(None if v is None else get_hex(v, "deck_seeds"))
        hashes = [get_hex(h, "hashes") for h in get_list(r, "hashes", 52)]
        claimed_mix = get_hex(r.get("mix"), "mix")
        order = get_seats(r.get("order"), "order", seats)
        if not order or STACK * len(order) + 1 > 52:
            raise Bad("order")
        dealer = get_int(r, "dealer", 0, seats - 1)
        chips, ante = [], 0
        if r["dealer_drawn"]:
            chips = get_list(r, "chips", seats)
            if any(not is_int(c) or c < 0 for c in chips):
                raise Bad("chips")
            ante = get_int(r, "ante", 0, 1 << 62)
        openings = []
        for o in get_list(r, "shown"):
            if not isinstance(o, dict):
                raise Bad("shown")
            index, position = get_int(o, "index", 0, 51), get_int(o, "position", 0, 51)
            card = o.get("card")
            if not isinstance(card, str) or card not in CARD_ID:
                raise Bad("shown")
            openings.append((index, position, card, get_hex(o.get("salt"), "shown", 16)))
    except Bad as bad:
        return [step("format", False, {"field": str(bad)})]
    steps = [step("format", True, {"round": r["round"], "seats": seats})]
    commitment = r["commitment"].lower()
    steps.append(commitment_seen(commitment, seen))
    # 1. the 15 decks not dealt are opened: each is the deck its seed defines (a spot check)
    wrong = [k for k, s in enumerate(deck_seeds) if s is not None and committed_deck(s)[3] != deck_roots[k]]
    steps.append(step("decks", not wrong, {"checked": DECKS - 1, "wrong": wrong}))
    # 2. the 52 position hashes of the dealt deck give its root, and the 16 roots the commitment
    root = sha(b"donne/speculation/deck-root/v1", b"".join(hashes))
    steps.append(step("hashes", root == deck_roots[chosen], {"deck": chosen, "root": root.hex()}))
    computed = sha(b"donne/speculation/root/v1", b"".join(deck_roots)).hex()
    steps.append(step("commitment", computed == commitment, {"computed": computed, "commitment": commitment}))
    steps += contribution_steps(commitment, contributions, bots, seen)
    if steps[-1]["code"] == "contributions":  # a malformed contribution: nothing more to compute
        return steps
    # 3. the contributions choose the deck and the permutation
    mix = mac(bytes.fromhex(commitment), b"donne/speculation/mix/v1", encode(contributions))
    steps.append(step("mix", mix == claimed_mix, {"computed": mix.hex()}))
    deck = Stream(derive(mix, "deck")).below(DECKS)
    steps.append(step("chosen", deck == chosen, {"computed": deck, "chosen": chosen}))
    # 4. the players in dealing order (dealer's left first, dealer last) and the first dealer (S2, S12a)
    p = len(order)
    cyclic = [(s - dealer - 1) % seats for s in order]
    steps.append(step("order", order[-1] == dealer and cyclic == sorted(cyclic), {"order": order, "dealer": dealer}))
    if r["dealer_drawn"]:
        start = Stream(derive(mix, "dealer")).below(seats)
        seats_from = [(start + i) % seats for i in range(seats)]
        expected = next((s for s in seats_from if s in order and chips[s] >= 2 * ante), None)
        steps.append(step("dealer", expected == dealer, {"drawn": start, "dealer": dealer}))
    else:
        steps.append(step("dealer", None, {"dealer": dealer}))
    # 5. every card shown was at its committed position: the k-th card dealt is position P[k]
    perm = shuffled(range(52), derive(mix, "permutation"))
    dealt = STACK * p + 1
    problem, indices, cards = None, set(), set()
    for index, position, card, salt in openings:
        if index >= dealt:
            problem = {"index": index, "problem": "undealt"}
        elif index in indices or card in cards:
            problem = {"index": index, "problem": "duplicate"}
        elif position != perm[index]:
            problem = {"index": index, "problem": "position"}
        elif position_hash(position, salt, CARD_ID[card]) != hashes[position]:
            problem = {"index": index, "problem": "hash"}
        if problem is not None:
            break
        indices.add(index)
        cards.add(card)
    steps.append(step("openings", problem is None, problem or {"count": len(openings), "dealt": dealt}))
    # 6. ... and the cards you saw are the ones opened, at the same places
    events = seen.get("events")
    if isinstance(events, list):
        revealed = {o[0]: o[2] for o in openings}
        try:
            saw = shown_cards([e for e in events if isinstance(e, dict)], r["round"])
        except (KeyError, ValueError, TypeError, IndexError):
            steps.append(step("cards_seen", False, {"problem": "transcript"}))
            return steps
        diff = [k for k in sorted(set(saw) | set(revealed)) if saw.get(k) != revealed.get(k)]
        if diff:
            k = diff[0]
            steps.append(step("cards_seen", False, {"index": k, "seen": saw.get(k), "revealed": revealed.get(k)}))
        else:
            steps.append(step("cards_seen", True, {"count": len(saw)}))
    else:
        steps.append(step("cards_seen", None, {}))
    return steps


def verify(record, seen=None):
    """The steps (dicts: code, result, values) checking one record."""
    seen = seen if isinstance(seen, dict) else {}
    game = record.get("game") if isinstance(record, dict) else None
    if game == "president":
        return verify_president(record, seen)
    if game == "speculation":
        return verify_speculation(record, seen)
    return [step("format", False, {"field": "game"})]


def main(argv):
    if len(argv) not in (2, 3):
        print("usage: verify_deal.py RECORD.json [SEEN.json]", file=sys.stderr)
        return 1
    try:
        with open(argv[1], encoding="utf-8") as f:
            record = json.load(f)
        seen = {}
        if isinstance(record, dict) and "record" in record:
            record, seen = record["record"], record.get("seen") or {}
        if len(argv) == 3:
            with open(argv[2], encoding="utf-8") as f:
                seen = json.load(f)
    except (OSError, ValueError) as exc:
        print(f"cannot read the record: {exc}", file=sys.stderr)
        return 1
    steps = verify(record, seen)
    for s in steps:
        values = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in s["values"].items())
        print(f"{s['result'].upper():4}  {s['code']:16} {values}")
    failed = [s["code"] for s in steps if s["result"] == "fail"]
    print("FAILED: " + ", ".join(failed) if failed else "OK: every check passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
