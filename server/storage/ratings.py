"""Ratings on a multi-player model: OpenSkill's Plackett–Luce, per game and table kind.

A finished round ranks its players (classic: the order out; tdc: the T15 ranking;
Speculation: the chips each player won in the deal; see each adapter's
``round_scores``). :func:`rated_round` turns a history record into what the ratings
learn from it (:class:`~server.storage.api.RatedRound`); the store updates the
ratings in the same transaction as it records the round (``History.record_round``),
calling :func:`update` here. :func:`recompute` starts again from nothing and replays
every rated round of the history in order: it finds the same ratings.

People are rated among people only: a bot's place never moves a person's rating.
Bots have ratings of their own (``bot:LEVEL``), rated among every entrant; several
seats of the same level at one table move that rating by the mean of their results.
Guests are not rated (their names are reused by strangers). A table with bots is
unrated unless its creator asked for ``rated`` (or the server's ``rate_bot_tables``).

This module does no I/O except :func:`recompute`, which reads and writes a store.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Protocol

from openskill.models import PlackettLuce

from server.protocol import JSONValue
from server.storage.api import RatedRound, Rating, RatingChange, RoundRecord, is_match

if TYPE_CHECKING:
    from server.storage.api import Store

MODEL = PlackettLuce()
"""OpenSkill's Plackett–Luce model with its defaults (mu 25, sigma 25/3, tau 25/300)."""

MU = float(MODEL.mu)
SIGMA = float(MODEL.sigma)
BOT_KEY = "bot:"

Prior = tuple[float, float]
"""(mu, sigma)."""


def ordinal(mu: float, sigma: float) -> float:
    """The conservative estimate boards rank by: mu − 3 sigma (0 for a newcomer)."""
    return mu - 3.0 * sigma


def ranks_of(scores: Sequence[float]) -> list[int]:
    """Competition ranks from scores, higher is better: ``[5, 9, 5] -> [2, 1, 2]``."""
    return [1 + sum(1 for other in scores if other > mine) for mine in scores]


def _rate(priors: Sequence[Prior], scores: Sequence[float]) -> list[Prior]:
    teams = [[MODEL.rating(mu=mu, sigma=sigma)] for mu, sigma in priors]
    rated = MODEL.rate(teams, ranks=[float(r) for r in ranks_of(scores)])
    return [(float(team[0].mu), float(team[0].sigma)) for team in rated]


def update(current: Mapping[str, Prior], people: Sequence[tuple[str, float]],
           bots: Sequence[tuple[str, float]] = ()) -> dict[str, Prior]:
    """The new ``(mu, sigma)`` of every entrant that moves, from one round.

    ``current``: the entrants' ratings before the round (missing: a newcomer's);
    ``people``: ``(key, score)`` of the people who played (each once); ``bots``:
    ``(bot key, score)`` of the bots (a key may repeat). People are rated among
    people (at least two), bots among everyone (at least two entrants).
    """
    def prior(key: str) -> Prior:
        return current.get(key, (MU, SIGMA))

    out: dict[str, Prior] = {}
    if len(people) >= 2:
        posts = _rate([prior(k) for k, _ in people], [s for _, s in people])
        for (key, _), post in zip(people, posts, strict=True):
            out[key] = post
    if bots and len(people) + len(bots) >= 2:
        everyone = [*people, *bots]
        posts = _rate([prior(k) for k, _ in everyone], [s for _, s in everyone])
        per_bot: dict[str, list[Prior]] = {}
        for (key, _), post in zip(everyone[len(people):], posts[len(people):], strict=True):
            per_bot.setdefault(key, []).append(post)
        for key, got in per_bot.items():
            out[key] = (sum(m for m, _ in got) / len(got), sum(s for _, s in got) / len(got))
    return out


# -- what a record teaches ---------------------------------------------------------------------------


class Scorer(Protocol):
    """What ranks a round's players: the table's adapter (``server.games``)."""

    def round_scores(self, config: Mapping[str, JSONValue], log: Sequence[Mapping[str, JSONValue]],
                     result: Mapping[str, JSONValue]) -> dict[int, float]: ...


def bot_key(level: str) -> str:
    return BOT_KEY + level


def rated_round(record: RoundRecord, scorer: Scorer) -> RatedRound | None:
    """What the ratings learn from ``record``, or None: a match's record, an unrated table, a round
    nobody can be ranked in. ``record.extra``: ``rated`` (the table's option) and ``bots`` (seats
    played by a bot), as the room records them."""
    if is_match(record.round_id) or not record.extra.get("rated"):
        return None
    try:
        scores = scorer.round_scores(record.match, record.log, record.result)
    except Exception:
        return None
    if len(scores) < 2:
        return None
    level = str(record.config.get("bot_level") or "normal")
    played = record.extra.get("bots")
    bots = {s: bot_key(level) for s in played if isinstance(s, int) and s in scores} if isinstance(played, list) else {}
    return RatedRound(record.game, record.rules, scores, bots)


def entrants(rated: RatedRound, seats: Sequence[str], registered: Sequence[bool],
             key_of: Callable[[str], str]) -> tuple[list[tuple[int, str, str, float]], list[tuple[int, str, str, float]]]:
    """``(seat, key, name, score)`` of the people (registered accounts) and of the bots of a round."""
    people: list[tuple[int, str, str, float]] = []
    bots: list[tuple[int, str, str, float]] = []
    for seat, score in sorted(rated.scores.items()):
        if seat in rated.bots:
            bots.append((seat, rated.bots[seat], rated.bots[seat], float(score)))
        elif seat < len(seats) and seat < len(registered) and registered[seat] and seats[seat]:
            people.append((seat, key_of(seats[seat]), seats[seat], float(score)))
    return people, bots


# -- from scratch ------------------------------------------------------------------------------------


async def recompute(store: Store, scorers: Mapping[str, Scorer], *, write: bool = True) -> list[Rating]:
    """Every rating again from nothing: the rated rounds of the history, in the order recorded.

    ``scorers``: table kind -> its adapter. Returns the ratings found (and, with
    ``write``, replaces the stored ratings and changes by them)."""
    from server.storage.names import name_key

    state: dict[tuple[str, str, str], tuple[str, str, float, float, int]] = {}
    changes: list[RatingChange] = []
    async for record, registered in store.history.each_record():
        scorer = scorers.get(record.rules)
        rated = rated_round(record, scorer) if scorer is not None else None
        if rated is None:
            continue
        people, bots = entrants(rated, list(record.seats), registered, name_key)
        table = (rated.game, rated.rules)
        current = {k: (state[(k, *table)][2], state[(k, *table)][3]) for _, k, _, _ in people + bots
                   if (k, *table) in state}
        new = update(current, [(k, sc) for _, k, _, sc in people], [(k, sc) for _, k, _, sc in bots])
        for seat, key, name, score in people + bots:
            if key not in new:
                continue
            before = current.get(key, (MU, SIGMA))
            changes.append(RatingChange(record.round_id, name, rated.game, rated.rules, seat, score,
                                        before[0], before[1], new[key][0], new[key][1], record.finished_at))
        for key, name in {k: n for _, k, n, _ in people + bots if k in new}.items():
            old = state.get((key, *table))
            kind = "bot" if key.startswith(BOT_KEY) else "player"
            state[(key, *table)] = (name, kind, *new[key], (old[4] if old else 0) + 1)
    ratings = [Rating(name, kind, game, rules, mu, sigma, games)
               for (_, game, rules), (name, kind, mu, sigma, games) in state.items()]
    if write:
        await store.ratings.replace_all(ratings, changes)
    return ratings
