"""The Speculation engine: one match (a series of deals) at one table (RULES S1–S12).

State is plain lists of card ids; every rule check lives in the ``_check_*``
methods, shared by :meth:`apply`, :meth:`can` and :meth:`legal_actions`.
A refused action raises an :class:`engine.errors.Refusal` before anything
changes (invariant 5).

Where the cards are (invariant 1): each seat's face-down ``stack`` (index 0
is the bottom, the last item the top), each seat's face-up cards
(``faceup``: turned cards, dead or best, and a bought best trump), and the
undealt rest of the deck (never shown, S12h). Chips (invariant 4): each
seat's ``chips`` plus the ``pool``; bids are not escrowed because nothing
can change a bidder's chips while an auction is open (S12c: no trade then).

Reading of the rules where they leave room (see docs/engine.md):

* S7: an auction opens for every new best trump (the first included) unless
  S12b ends the deal; it ends with ``sell`` (to the best bid), ``keep``, or
  the room's :class:`CloseAuction` at its deadline (a keep). Every bid
  renews the auction's pending key, so a room restarts its deadline.
* S8: after an auction turning resumes with the seat after the one who owned
  the card on auction (for the first trump, the dealer: so it starts at the
  dealer's left), skipping the holder and empty stacks.
* S9: any playing seat may trade with any other playing seat, the holder of
  the best trump included, as buyer or seller, while no auction is open.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

from engine.api import Action, Pending
from engine.errors import BadArgument, IllegalPlay, InsufficientChips, NotAllowed, NotYourTurn, Refusal
from engine.fairness import SpeculationDeal, encode_contributions, speculation_commit, speculation_deal
from engine.seeds import SeedStream, derive

from .actions import (
    Accept,
    Bid,
    CloseAuction,
    Deal,
    Decline,
    Keep,
    Offer,
    Sell,
    SpeculationAction,
    Turn,
    Withdraw,
    action_from,
    action_from_dict,
)
from .events import (
    Ante,
    AuctionOpened,
    BidMade,
    DealOver,
    Dealt,
    Declined,
    Kept,
    Lapsed,
    MatchOver,
    Offered,
    PoolWon,
    Revealed,
    Sold,
    SpeculationEvent,
    Traded,
    Trump,
    Turned,
    Withdrawn,
)
from .rules import CARD_STRENGTH, DEFAULT_CHIPS, MAX_PLAYERS, MIN_PLAYERS, STACK, beats, is_trump_ace
from .view import AuctionView, OfferView, SeatView, SpeculationView

_DECK = tuple(range(52))
_DECK_SET = frozenset(_DECK)
_KINDS = (Deal, CloseAuction, Turn, Bid, Sell, Keep, Offer, Accept, Decline, Withdraw)


def _deal_order(seed: bytes, need: int) -> list[int]:
    """The deck of a deal, first card dealt first: ``engine.seeds.shuffled(deck, seed)`` read from
    its end (the top of a face-down deck is its last card).

    Fisher–Yates fixes the last positions first, so only the ``need`` cards
    dealt (S4) and the trump (S5) are drawn from the stream: the same cards,
    in the same order, as reversing the full shuffle; the undealt rest is
    never shown (S12h) and stays as the partial shuffle left it.
    """
    out = list(_DECK)
    stream = SeedStream(seed)
    below = stream.below
    for i in range(51, max(0, 51 - need), -1):
        j = below(i + 1)
        out[i], out[j] = out[j], out[i]
    out.reverse()
    return out


class _Auction:
    __slots__ = ("after", "best_bid", "bidder", "bids", "card", "owner", "seq")

    def __init__(self, owner: int, card: int, seq: int) -> None:
        self.owner = owner
        self.card = card
        self.seq = seq
        self.after = owner
        """Turning resumes with the seat after this one (S8)."""
        self.best_bid = 0
        self.bidder: int | None = None
        self.bids = 0


class _Offer:
    __slots__ = ("buyer", "covered", "id", "k", "price", "seller")

    def __init__(self, oid: int, buyer: int, seller: int, k: int, price: int, covered: tuple[int, ...]) -> None:
        self.id = oid
        self.buyer = buyer
        self.seller = seller
        self.k = k
        self.price = price
        self.covered = covered
        """The k cards on top of the seller's stack when the offer was made (S12d); never shown."""


class SpeculationMatch:
    """A Speculation table playing ``deals`` deals (S11).

    ``seats``: 3–9 (S1). ``chips``: each seat's chips (default
    :data:`~engine.speculation.rules.DEFAULT_CHIPS` each). ``ante``: chips
    each player puts in the pool, the dealer double (S3). ``deals``: how many
    deals (default: each seat deals twice, ``2 * seats``, S11/S12g).
    ``first_dealer``: the first dealer; default ``None`` draws him from the
    first deal's seed (S2).
    """

    game = "speculation"
    rules_name = "speculation"

    def __init__(
        self,
        seats: int = 3,
        chips: Sequence[int] | None = None,
        ante: int = 1,
        deals: int | None = None,
        first_dealer: int | None = None,
        rules: str | None = None,
    ) -> None:
        if rules not in (None, "speculation"):
            raise ValueError(f"Speculation has no rule set {rules!r}")
        if not isinstance(seats, int) or not MIN_PLAYERS <= seats <= MAX_PLAYERS:
            raise ValueError(f"Speculation is for {MIN_PLAYERS} to {MAX_PLAYERS} players (S1), not {seats!r}")
        balances = [DEFAULT_CHIPS] * seats if chips is None else [int(c) for c in chips]
        if len(balances) != seats or any(c < 0 for c in balances):
            raise ValueError("chips: one non-negative number per seat")
        if not isinstance(ante, int) or ante < 0:
            raise ValueError("ante must be a non-negative number of chips")
        if deals is not None and (not isinstance(deals, int) or deals < 1):
            raise ValueError("deals must be a positive number")
        if first_dealer is not None and not 0 <= first_dealer < seats:
            raise ValueError("first_dealer must be a seat number")
        self._n = seats
        self.ante = ante
        self.deals = 2 * seats if deals is None else deals
        self.first_dealer = first_dealer
        self._initial = tuple(balances)
        self._chips = balances
        self._total = sum(balances)
        self._pool = 0
        self._round = 0
        self._dealer: int | None = None
        self._next_dealer: int | None = first_dealer
        self._playing = [False] * seats
        self._stacks: list[list[int]] = [[] for _ in range(seats)]
        self._faceup: list[list[int]] = [[] for _ in range(seats)]
        self._undealt: list[int] = list(_DECK)
        self._trump: int | None = None
        self._best: int | None = None
        self._holder: int | None = None
        self._auction: _Auction | None = None
        self._auction_seq = 0
        self._turn: int | None = None
        self._turn_seq = 0
        self._offers: dict[int, _Offer] = {}
        self._offer_seq = 0
        self._in_deal = False
        self._over = not self._deal_possible()
        self._steps = 0
        self._public_step = -1
        self._public: SpeculationView | None = None
        # immutable actions reused by legal_actions() and pending() (the hot path of simulations)
        self._turns = tuple(Turn(s) for s in range(seats))
        self._keeps = tuple(Keep(s) for s in range(seats))
        self._sells = tuple(Sell(s) for s in range(seats))
        self._close = CloseAuction()
        self._offer_ones = tuple(tuple(Offer(b, s, 1, 1) for s in range(seats)) for b in range(seats))
        self._offer_lists: list[list[Offer] | None] = [None] * seats
        """Per seat, the representative offers of legal_actions(); ``None`` once a stack emptied or filled."""
        self._seat_views: list[SeatView | None] = [None] * seats
        """Cached public record of each seat; ``None`` once the seat's chips or cards changed."""
        self._shown = 0
        """Cards face up on the table this deal (turned, trump)."""
        self._dealt: tuple[int, ...] = ()
        """The cards dealt this deal (or the last), in the order they left the deck (trump last)."""
        self._fair: tuple[tuple[bytes, tuple[str | None, ...]], SpeculationDeal] | None = None
        """The committed deal of the last checked :class:`Deal` with contributions (computed once)."""

    # -- facts ------------------------------------------------------------

    @property
    def seats(self) -> int:
        return self._n

    @property
    def round(self) -> int:
        """The deal number (1 for the first deal; 0 before it). Grows with every deal, ace deals too."""
        return self._round

    @property
    def over(self) -> bool:
        return self._over

    @property
    def chips(self) -> tuple[int, ...]:
        return tuple(self._chips)

    @property
    def pool(self) -> int:
        return self._pool

    @property
    def config(self) -> dict[str, Any]:
        """The constructor arguments, for :meth:`replay`."""
        return {
            "seats": self._n,
            "chips": list(self._initial),
            "ante": self.ante,
            "deals": self.deals,
            "first_dealer": self.first_dealer,
        }

    @classmethod
    def replay(cls, config: Mapping[str, Any], log: Iterable[Mapping[str, Any]]) -> SpeculationMatch:
        """Rebuild a match from its configuration and its log of action dicts (invariant 3)."""
        match = cls(**dict(config))
        for record in log:
            match.apply(action_from_dict(record))
        return match

    def needs_deal(self) -> bool:
        return not self._in_deal and not self._over

    def deal_action(self, seed: bytes, **table: Any) -> Deal:
        """The chance step. ``table`` may hold ``present`` (seats at the table, S11/S12a),
        ``contributions`` (the players' entropy, one text or ``None`` per seat: ``seed`` is then
        the server seed, docs/fairness.md) and, for tests only, ``cards`` (an explicit deck order,
        see :class:`Deal`)."""
        present = table.get("present")
        cards = table.get("cards")
        contributions = table.get("contributions")
        return Deal(
            bytes(seed),
            None if cards is None else tuple(int(c) for c in cards),
            None if present is None else tuple(int(s) for s in present),
            None if contributions is None else tuple(contributions),
        )

    def action_from(self, seat: int, cmd: str, args: Mapping[str, Any]) -> SpeculationAction:
        return action_from(seat, cmd, args)

    # -- deciding -----------------------------------------------------------

    def pending(self) -> Sequence[Pending]:
        if not self._in_deal:
            return ()
        a = self._auction
        if a is not None:
            return (Pending(("auction", self._round, a.seq, a.bids), "auction", None, self._close),)
        t = self._turn
        assert t is not None
        return (Pending(("turn", self._round, self._turn_seq), "turn", t, self._turns[t]),)

    def legal_actions(self, seat: int) -> Sequence[SpeculationAction]:
        """What ``seat`` may do now; bids and offers in representative form
        (the lowest bid; for each other seat with face-down cards an offer of 1 chip for its top card).
        Use :meth:`can` for other amounts and counts."""
        if not self._in_deal or not 0 <= seat < self._n or not self._playing[seat]:
            return ()
        out: list[SpeculationAction] = []
        a = self._auction
        chips = self._chips[seat]
        if a is not None:
            if seat == a.owner:
                out.append(self._keeps[seat])
                if a.bidder is not None:
                    out.append(self._sells[seat])
            elif chips > a.best_bid:
                out.append(Bid(seat, a.best_bid + 1))
        else:
            if self._turn == seat:
                out.append(self._turns[seat])
            if chips >= 1:
                forms = self._offer_lists[seat]
                if forms is None:
                    one = self._offer_ones[seat]
                    forms = self._offer_lists[seat] = [one[s] for s, stack in enumerate(self._stacks) if stack and s != seat]
                out += forms
        if not self._offers:
            return out
        for o in self._offers.values():
            if o.seller == seat:
                if a is None:
                    out.append(Accept(seat, o.id))
                out.append(Decline(seat, o.id))
            elif o.buyer == seat:
                out.append(Withdraw(seat, o.id))
        return out

    def can(self, action: Action) -> bool:
        try:
            self._check(action)
        except Refusal:
            return False
        return True

    def apply(self, action: Action) -> tuple[SpeculationEvent, ...]:
        """Apply one action; its events. A refusal raises and changes nothing."""
        self._check(action)
        self._steps += 1
        if isinstance(action, Turn):
            return self._do_turn(action.seat)
        if isinstance(action, Bid):
            return self._do_bid(action)
        if isinstance(action, Offer):
            return self._do_offer(action)
        if isinstance(action, Accept):
            return self._do_accept(action)
        if isinstance(action, Sell):
            return self._do_sell()
        if isinstance(action, Keep):
            return self._do_keep(timeout=False)
        if isinstance(action, CloseAuction):
            return self._do_keep(timeout=True)
        if isinstance(action, Decline):
            self._offers.pop(action.offer)
            return (Declined(action.offer, action.seat),)
        if isinstance(action, Withdraw):
            self._offers.pop(action.offer)
            return (Withdrawn(action.offer, action.seat),)
        assert isinstance(action, Deal)  # _check refused anything else
        return self._do_deal(action)

    # -- checks (raise, change nothing) ----------------------------------

    def _check(self, action: Action) -> None:
        if not isinstance(action, _KINDS):
            raise BadArgument(f"not a Speculation action: {action!r}", reason="action")
        if isinstance(action, Deal):
            self._check_deal(action)
            return
        if not self._in_deal:
            raise NotAllowed("no deal in progress", reason="no_deal")
        if isinstance(action, CloseAuction):
            if self._auction is None:
                raise NotAllowed("no auction", reason="no_auction")
            return
        seat = getattr(action, "seat", None)
        if not isinstance(seat, int) or not 0 <= seat < self._n or not self._playing[seat]:
            raise NotAllowed("not playing this deal", reason="sitting_out")
        a = self._auction
        if isinstance(action, Turn):
            if a is not None or self._turn != seat:
                raise NotYourTurn("not your turn to turn a card", **self._turn_refusal(seat))
        elif isinstance(action, Bid):
            if a is None:
                raise NotAllowed("no auction", reason="no_auction", can=self._can(seat))
            if seat == a.owner:
                raise NotAllowed("the owner does not bid", reason="own_auction", can=self._can(seat))
            if not isinstance(action.amount, int) or action.amount < 1 or action.amount <= a.best_bid:
                raise IllegalPlay(
                    "a bid beats the best bid by at least 1 chip",
                    reason="bid_too_low",
                    min=a.best_bid + 1,
                    max=self._chips[seat],
                    can=self._can(seat),
                )
            if action.amount > self._chips[seat]:
                raise InsufficientChips(
                    "not enough chips",
                    reason="bid_over_chips",
                    chips=self._chips[seat],
                    max=self._chips[seat],
                    can=self._can(seat),
                )
        elif isinstance(action, (Sell, Keep)):
            if a is None:
                raise NotAllowed("no auction", reason="no_auction", can=self._can(seat))
            if seat != a.owner:
                raise NotAllowed("only the owner sells or keeps", reason="not_owner", can=self._can(seat))
            if isinstance(action, Sell) and a.bidder is None:
                raise NotAllowed("no bid to sell to", reason="no_bid", can=self._can(seat))
        elif isinstance(action, Offer):
            self._check_offer(action, a)
        elif isinstance(action, (Accept, Decline, Withdraw)):
            o = self._offers.get(action.offer) if isinstance(action.offer, int) else None
            if o is None:
                raise NotAllowed("no such offer", reason="no_such_offer", offer=action.offer, can=self._can(seat))
            if isinstance(action, Withdraw):
                if seat != o.buyer:
                    raise NotAllowed("only the buyer withdraws an offer", reason="not_buyer", can=self._can(seat))
            elif seat != o.seller:
                raise NotAllowed("only the seller accepts or declines an offer", reason="not_party", can=self._can(seat))
            elif isinstance(action, Accept) and a is not None:
                raise NotAllowed("no trade while an auction is open (S12c)", reason="auction_open", can=self._can(seat))

    def _can(self, seat: int) -> dict[str, Any] | None:
        """What ``seat`` may do now, in the view's compact form (for the params of a refusal)."""
        return self.view(seat).can

    def _turn_refusal(self, seat: int) -> dict[str, Any]:
        """Why ``seat`` may not turn a card now (S7, S8, S12c), as refusal params."""
        if self._auction is not None:
            reason = "auction_open"  # S12c: nobody is on turn while an auction is open
        elif seat == self._holder:
            reason = "holder_turns_not"  # S8: the holder of the best trump never turns
        elif not self._stacks[seat]:
            reason = "no_cards_to_turn"
        else:
            reason = "not_your_turn"
        return {"reason": reason, "turn": self._turn, "can": self._can(seat)}

    def _check_offer(self, action: Offer, a: _Auction | None) -> None:
        seat = action.seat
        if a is not None:
            raise NotAllowed("no offer while an auction is open (S12c)", reason="auction_open", can=self._can(seat))
        to = action.to
        if not isinstance(to, int) or not 0 <= to < self._n:
            raise BadArgument("no such seat", reason="no_such_seat", to=to)
        if to == seat:
            raise NotAllowed("offers go to another player of this deal", reason="self_offer", can=self._can(seat))
        if not self._playing[to]:
            raise NotAllowed("offers go to another player of this deal", reason="bad_target", can=self._can(seat))
        k = action.cards
        if not isinstance(k, int) or not 1 <= k <= len(self._stacks[to]):
            raise IllegalPlay(
                "that many face-down cards are not there",
                reason="bad_count",
                max=len(self._stacks[to]),
                can=self._can(seat),
            )
        if not isinstance(action.price, int) or action.price < 1:
            raise IllegalPlay("a price is at least 1 chip", reason="price_too_low", can=self._can(seat))
        if action.price > self._chips[seat]:
            raise InsufficientChips(
                "not enough chips",
                reason="price_over_chips",
                chips=self._chips[seat],
                max=self._chips[seat],
                can=self._can(seat),
            )

    def _plan_deal(self, action: Deal) -> tuple[int, list[int]]:
        """S2/S3/S12a: the dealer and the players, dealer's left first and the dealer last."""
        n = self._n
        present = action.present
        at = [True] * n if present is None else [s in present for s in range(n)]
        chips = self._chips
        start = self._next_dealer
        if start is None:  # S2: drawn from the first deal's seed (with contributions: from their mix)
            fair = self._fair_deal(action)
            start = SeedStream(derive(action.seed, "dealer")).below(n) if fair is None else fair.dealer_draw(n)
        dealer = -1
        for i in range(n):
            s = (start + i) % n
            if at[s] and chips[s] >= 2 * self.ante:  # S12a: passes to the next seat that can pay double
                dealer = s
                break
        if dealer < 0:
            raise NotAllowed("nobody can pay the dealer's double ante (S12a)", reason="no_dealer")
        order = [s for s in ((dealer + i) % n for i in range(1, n)) if at[s] and chips[s] >= self.ante]
        order.append(dealer)
        if len(order) < MIN_PLAYERS:
            raise NotAllowed("a deal needs at least 3 players with their ante (S3)", reason="not_enough_players")
        return dealer, order

    def _check_deal(self, action: Deal) -> None:
        if self._in_deal:
            raise NotAllowed("a deal is in progress", reason="deal_in_progress")
        if self._over:
            raise NotAllowed("the match is over", reason="match_over")
        if not isinstance(action.seed, bytes):
            raise BadArgument("a deal needs a seed", reason="seed")
        if action.present is not None and any(
            not isinstance(s, int) or not 0 <= s < self._n for s in action.present
        ):
            raise BadArgument("present: seat numbers", reason="present")
        if action.cards is not None:
            cards = action.cards
            if len(set(cards)) != len(cards) or any(not isinstance(c, int) or not 0 <= c < 52 for c in cards):
                raise BadArgument("cards: distinct card ids", reason="cards")
        if action.contributions is not None:
            if action.cards is not None:
                raise BadArgument("a committed deal has no explicit cards", reason="contributions")
            if len(action.contributions) != self._n:
                raise BadArgument("one contribution (or None) per seat", reason="contributions")
            encode_contributions(action.contributions)  # normalised texts, or a refusal
        self._fair_deal(action)  # refuses a server seed that is not 32 bytes
        self._plan_deal(action)

    def _fair_deal(self, action: Deal) -> SpeculationDeal | None:
        """The committed deal of a :class:`Deal` with contributions (``None`` without), computed once."""
        if action.contributions is None:
            return None
        key = (action.seed, action.contributions)
        if self._fair is None or self._fair[0] != key:
            self._fair = (key, speculation_deal(speculation_commit(action.seed), action.contributions))
        return self._fair[1]

    # -- changes ------------------------------------------------------------

    def _do_deal(self, action: Deal) -> tuple[SpeculationEvent, ...]:
        dealer, order = self._plan_deal(action)
        n = self._n
        need = STACK * len(order) + 1
        fair = self._fair_deal(action)
        if fair is not None:
            deck = list(fair.dealt)
        elif action.cards is not None:
            given = set(action.cards)
            deck = list(action.cards) + [c for c in _DECK if c not in given]
        else:
            deck = _deal_order(derive(action.seed, "deck"), need)
        self._dealt = tuple(deck[:need])
        self._round += 1
        self._dealer = dealer
        self._seat_views = [None] * n
        self._offer_lists = [None] * n
        self._shown = 1
        self._in_deal = True
        playing = [False] * n
        for s in order:
            playing[s] = True
        self._playing = playing
        # S3: ante, the dealer double
        payments = []
        chips = self._chips
        for s in range(n):
            if playing[s]:
                amount = 2 * self.ante if s == dealer else self.ante
                chips[s] -= amount
                self._pool += amount
                payments.append((s, amount))
        # S4: one card at a time from the dealer's left, three rounds; the first card received
        # is at the bottom of the stack (index 0).
        stacks: list[list[int]] = [[] for _ in range(n)]
        i = 0
        for _ in range(STACK):
            for s in order:
                stacks[s].append(deck[i])
                i += 1
        trump = deck[i]
        self._stacks = stacks
        self._undealt = deck[i + 1 :]
        assert i + 1 == need
        # S5: the next card is face up, the dealer's; the first best trump
        faceup: list[list[int]] = [[] for _ in range(n)]
        faceup[dealer].append(trump)
        self._faceup = faceup
        self._trump = trump & 3
        self._best = trump
        self._holder = dealer
        self._auction = None
        self._turn = None
        events: list[SpeculationEvent] = [
            Ante(tuple(payments), self._pool),
            Dealt(self._round, dealer, tuple(order[-1:] + order[:-1]), tuple(len(st) for st in stacks)),
            Trump(dealer, trump),
        ]
        if is_trump_ace(trump, trump & 3):  # S6
            self._end_deal(dealer, "ace", events)
        else:
            self._open_auction(dealer, trump, events)
        return tuple(events)

    def _open_auction(self, owner: int, card: int, events: list[SpeculationEvent]) -> None:
        """S7: the new best trump of ``owner`` is up for sale; nobody is on turn (S12c)."""
        self._auction_seq += 1
        self._auction = _Auction(owner, card, self._auction_seq)
        self._turn = None
        events.append(AuctionOpened(owner, card))

    def _next_turner(self, start: int) -> int | None:
        """S8: the first seat from ``start`` on (clockwise) who turns: not the holder, cards left."""
        n = self._n
        holder = self._holder
        stacks = self._stacks
        for i in range(n):
            s = (start + i) % n
            if s != holder and stacks[s]:
                return s
        return None

    def _resume(self, after: int, events: list[SpeculationEvent]) -> None:
        """Turning goes on with the seat after ``after``; S10 when nobody but the holder can turn."""
        t = self._next_turner(after + 1)
        if t is None:
            assert self._holder is not None
            self._end_deal(self._holder, "end", events)
        else:
            self._turn = t
            self._turn_seq += 1

    def _do_turn(self, seat: int) -> tuple[SpeculationEvent, ...]:
        card = self._stacks[seat].pop()
        self._faceup[seat].append(card)
        self._seat_views[seat] = None
        if not self._stacks[seat]:
            self._offer_lists = [None] * self._n
        self._shown += 1
        best = self._best
        assert best is not None
        new_best = beats(card, best)  # S8
        events: list[SpeculationEvent] = [Turned(seat, card, new_best)]
        if self._offers:
            self._lapse_cards(seat, events)
        if not new_best:
            self._resume(seat, events)
            return tuple(events)
        self._best = card
        self._holder = seat
        ace = is_trump_ace(card, card & 3)
        if ace or self._next_turner(seat) is None:  # S12b, S10
            self._end_deal(seat, "ace" if ace else "end", events)
        else:
            self._open_auction(seat, card, events)
        return tuple(events)

    def _do_bid(self, action: Bid) -> tuple[SpeculationEvent, ...]:
        a = self._auction
        assert a is not None
        a.best_bid = action.amount
        a.bidder = action.seat
        a.bids += 1
        return (BidMade(action.seat, action.amount),)

    def _do_sell(self) -> tuple[SpeculationEvent, ...]:
        a = self._auction
        assert a is not None and a.bidder is not None
        buyer, price, owner = a.bidder, a.best_bid, a.owner
        self._chips[buyer] -= price
        self._chips[owner] += price  # S7: to the seller, never the pool
        self._faceup[owner].remove(a.card)
        self._faceup[buyer].append(a.card)  # face up on the buyer's stack
        self._seat_views[owner] = self._seat_views[buyer] = None
        self._holder = buyer
        self._auction = None
        events: list[SpeculationEvent] = [Sold(owner, buyer, a.card, price)]
        if self._offers:
            self._lapse_chips(events)
        self._resume(a.after, events)
        return tuple(events)

    def _do_keep(self, timeout: bool) -> tuple[SpeculationEvent, ...]:
        a = self._auction
        assert a is not None
        self._auction = None
        events: list[SpeculationEvent] = [Kept(a.owner, a.card, timeout)]
        self._resume(a.after, events)
        return tuple(events)

    def _do_offer(self, action: Offer) -> tuple[SpeculationEvent, ...]:
        self._offer_seq += 1
        oid = self._offer_seq
        stack = self._stacks[action.to]
        covered = tuple(stack[-action.cards :])
        self._offers[oid] = _Offer(oid, action.seat, action.to, action.cards, action.price, covered)
        return (Offered(oid, action.seat, action.to, action.cards, action.price),)

    def _do_accept(self, action: Accept) -> tuple[SpeculationEvent, ...]:
        o = self._offers.pop(action.offer)
        seller = self._stacks[o.seller]
        moved = seller[-o.k :]
        del seller[-o.k :]
        self._stacks[o.buyer][0:0] = moved  # S9: face down UNDER the buyer's stack
        self._chips[o.buyer] -= o.price
        self._chips[o.seller] += o.price
        self._seat_views[o.buyer] = self._seat_views[o.seller] = None
        if not seller or len(self._stacks[o.buyer]) == o.k:  # a stack emptied or filled
            self._offer_lists = [None] * self._n
        events: list[SpeculationEvent] = [Traded(o.id, o.buyer, o.seller, o.k, o.price)]
        if self._offers:
            self._lapse_cards(o.seller, events)
            self._lapse_chips(events)
        # S12e: the turn stays unless its player has no face-down card left; S10 may end the deal
        t = self._turn
        assert t is not None
        nt = self._next_turner(t)
        if nt is None:
            assert self._holder is not None
            self._end_deal(self._holder, "end", events)
        elif nt != t:
            self._turn = nt
            self._turn_seq += 1
        return tuple(events)

    def _lapse_cards(self, seller: int, events: list[SpeculationEvent]) -> None:
        """S12d: cards only ever leave a stack from its top, so every offer to that seller lapses."""
        for oid in [o.id for o in self._offers.values() if o.seller == seller]:
            del self._offers[oid]
            events.append(Lapsed(oid, "cards"))

    def _lapse_chips(self, events: list[SpeculationEvent]) -> None:
        """S12d: an offer lapses when its buyer's chips fall below its price."""
        chips = self._chips
        for oid in [o.id for o in self._offers.values() if chips[o.buyer] < o.price]:
            del self._offers[oid]
            events.append(Lapsed(oid, "chips"))

    def _end_deal(self, winner: int, reason: str, events: list[SpeculationEvent]) -> None:
        """S10/S6: the holder takes the pool; stacks shown (S12h); maybe the match ends (S11)."""
        for oid in list(self._offers):
            events.append(Lapsed(oid, "deal_over"))
        self._offers.clear()
        amount = self._pool
        self._chips[winner] += amount
        self._seat_views[winner] = None
        self._pool = 0
        best = self._best
        assert best is not None
        events.append(PoolWon(winner, amount, best, reason))
        events.append(Revealed(tuple(tuple(reversed(st)) for st in self._stacks)))
        events.append(DealOver(self._round, winner, tuple(self._chips)))
        self._in_deal = False
        self._turn = None
        self._auction = None
        assert self._dealer is not None
        self._next_dealer = (self._dealer + 1) % self._n  # S2: the deal passes to the left
        if self._round >= self.deals or not self._deal_possible():
            self._over = True
            changes = tuple(c - i for c, i in zip(self._chips, self._initial, strict=True))
            top = max(changes)
            winners = tuple(s for s, c in enumerate(changes) if c == top)
            events.append(MatchOver(winners, tuple(self._chips), changes, self._round))

    def _deal_possible(self) -> bool:
        """S3/S12a: a dealer who can pay double and at least 3 players in all."""
        a = self.ante
        chips = self._chips
        return any(c >= 2 * a for c in chips) and sum(1 for c in chips if c >= a) >= MIN_PLAYERS

    # -- seeing ---------------------------------------------------------------

    def _public_view(self) -> SpeculationView:
        if self._public_step == self._steps and self._public is not None:
            return self._public
        a = self._auction
        cache = self._seat_views
        if None in cache:
            chips, stacks, faceup, playing = self._chips, self._stacks, self._faceup, self._playing
            for s, seen in enumerate(cache):
                if seen is None:
                    cache[s] = SeatView(s, chips[s], tuple(faceup[s]), len(stacks[s]), playing[s])
        seats = cast(tuple[SeatView, ...], tuple(cache))  # no None left
        holder, best = self._holder, self._best
        view = SpeculationView(
            self._round,
            None,
            self._dealer,
            self._turn,
            self._trump,
            None if holder is None or best is None else (holder, best),
            self._pool,
            None if a is None else AuctionView(a.owner, a.card, a.best_bid, a.bidder),
            tuple(OfferView(o.id, o.buyer, o.seller, o.k, o.price) for o in self._offers.values()),
            seats,
            self._in_deal,
            52 - self._shown if self._round else 52,
            self.deals,
            self.ante,
            self._over,
        )
        self._public = view
        self._public_step = self._steps
        return view

    def view(self, seat: int | None) -> SpeculationView:
        """What ``seat`` (``None``: a spectator) sees: the same public facts for everyone, no face-down card."""
        p = self._public_view()
        if seat is None:
            return p
        return SpeculationView(p[0], seat, *p[2:])


    def shown_positions(self) -> tuple[int, ...]:
        """The dealt indices (0: the first card dealt … ``3p``: the trump) of the current or last
        deal whose card everyone has seen: the trump and the turned cards during a deal; after it
        (S12h) every dealt card. Never an undealt one (what ``engine.fairness.speculation_reveal``
        may open)."""
        if not self._in_deal:
            return tuple(range(len(self._dealt)))
        up = {c for cards in self._faceup for c in cards}
        return tuple(k for k, c in enumerate(self._dealt) if c in up)

    # -- invariants -----------------------------------------------------------

    def check_invariants(self) -> int:
        """RULES invariants 1 and 4 and the state's own consistency; the number of checks run."""
        n = self._n
        stacks, faceup, chips = self._stacks, self._faceup, self._chips
        every = set(self._undealt)
        count = len(self._undealt)
        shown = 0
        for s in range(n):
            every.update(stacks[s])
            every.update(faceup[s])
            count += len(stacks[s])
            shown += len(faceup[s])
        assert count + shown == 52 and every == _DECK_SET, "invariant 1: the 52 cards"
        assert not self._round or self._shown == shown, "the count of cards shown"
        assert sum(chips) + self._pool == self._total, "invariant 4: chips conserved"
        assert self._pool >= 0 and min(chips) >= 0, "no negative chips"
        checks = 3
        for s in range(n):
            if not self._playing[s]:
                assert not stacks[s] and not faceup[s], "a seat sitting out holds no card"
        checks += 1
        if not self._in_deal:
            assert self._pool == 0 and not self._offers, "between deals: empty pool, no offer"
            assert self._auction is None and self._turn is None
            return checks + 2
        holder, best, trump = self._holder, self._best, self._trump
        assert holder is not None and best is not None and trump is not None
        assert self._playing[holder] and best in faceup[holder] and best & 3 == trump, "the holder shows the best"
        assert not is_trump_ace(best, trump), "a trump ace ends the deal (S6, S12b)"
        top = max(CARD_STRENGTH[c] for up in faceup for c in up if c & 3 == trump)
        assert top == CARD_STRENGTH[best], "the best trump is the highest face up"
        assert self._next_turner(0) is not None, "S10: someone but the holder has a face-down card"
        checks += 4
        a, t = self._auction, self._turn
        assert (a is None) != (t is None), "either an auction or a turn (S12c)"
        if a is not None:
            assert a.owner == holder and a.card == best, "the auction sells the best trump"
            assert a.bidder is None or (a.bidder != a.owner and a.best_bid <= chips[a.bidder])
        else:
            assert t is not None and t != holder and stacks[t] and self._playing[t], "a valid turner (S8)"
        checks += 1
        for o in self._offers.values():
            assert o.buyer != o.seller and self._playing[o.buyer] and self._playing[o.seller]
            assert 1 <= o.price <= chips[o.buyer], "S12d: the buyer can pay"
            assert tuple(stacks[o.seller][-o.k :]) == o.covered, "S12d: the offer's cards are in place"
            checks += 1
        return checks


if TYPE_CHECKING:  # SpeculationMatch keeps the contract of engine/api.py
    from engine.api import Match

    _contract: Match = SpeculationMatch()
