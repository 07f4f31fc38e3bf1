"""Ratings (OpenSkill, per game and table kind) and their history, on the shared SQL.

A rated round updates its entrants' ratings inside the transaction that records it
(:func:`rate_in_tx`, called by ``SQLHistory.record_round``): the ratings change in
the order the history grows, so ``server.storage.ratings.recompute`` finds them again.
"""

from __future__ import annotations

from collections.abc import Sequence

from server.storage import names as _names
from server.storage import ratings as _model
from server.storage.api import RatedRound, Rating, RatingChange, RoundRecord
from server.storage.sql.tx import Row, Runner, Tx
from server.storage.sql.values import integer, number, text


def _rating(row: Row) -> Rating:
    return Rating(text(row["name"]), text(row["kind"]), text(row["game"]), text(row["rules"]), float(number(row["mu"])), float(number(row["sigma"])),
                  integer(row["games"]))


def rate_in_tx(t: Tx, record: RoundRecord, rated: RatedRound, registered: Sequence[bool]) -> None:
    """The ratings learn from one recorded round (once: a round already rated is left alone)."""
    if t.one("SELECT 1 FROM rating_history WHERE round_id = ?", (record.round_id,)):
        return
    people, bots = _model.entrants(rated, list(record.seats), registered, _names.name_key)
    if not people and not bots:
        return
    game, rules = rated.game, rated.rules
    movers = (people if len(people) >= 2 else []) + (bots if len(people) + len(bots) >= 2 else [])
    keys = {k for _, k, _, _ in movers}
    now = record.finished_at or t.now()
    for _, key, name, _ in movers:  # every entrant that moves has a row (two servers may race to make it)
        t.execute(
            """INSERT INTO ratings (key, name, kind, game, rules, mu, sigma, games, updated)
               VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?) ON CONFLICT (key, game, rules) DO NOTHING""",
            (key, name, "bot" if key.startswith(_model.BOT_KEY) else "player", game, rules,
             _model.MU, _model.SIGMA, now),
        )
    current: dict[str, tuple[float, float]] = {}
    for key in sorted({k for _, k, _, _ in people + bots}):  # in key order; those that move locked (PostgreSQL)
        row = t.one("SELECT mu, sigma FROM ratings WHERE key = ? AND game = ? AND rules = ?"
                    + (t.lock if key in keys else ""), (key, game, rules))
        if row is not None:
            current[key] = (float(number(row["mu"])), float(number(row["sigma"])))
    new = _model.update(current, [(k, s) for _, k, _, s in people], [(k, s) for _, k, _, s in bots])
    for seat, key, _, score in people + bots:
        if key not in new:
            continue
        (mu0, s0), (mu1, s1) = current.get(key, (_model.MU, _model.SIGMA)), new[key]
        t.execute(
            """INSERT INTO rating_history (round_id, key, game, rules, seat, score, mu_before, sigma_before,
                                           mu_after, sigma_after, ts)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
            (record.round_id, key, game, rules, seat, score, mu0, s0, mu1, s1, now),
        )
    names = {k: n for _, k, n, _ in people + bots}
    for key, (mu, sigma) in new.items():
        t.execute(
            """UPDATE ratings SET mu = ?, sigma = ?, games = games + 1, updated = ?, name = ?
               WHERE key = ? AND game = ? AND rules = ?""",
            (mu, sigma, now, names[key], key, game, rules),
        )


class SQLRatings:
    def __init__(self, store: Runner) -> None:
        self._store = store

    async def of(self, name: str) -> list[Rating]:
        key = name if name.startswith(_model.BOT_KEY) else _names.name_key(name)

        def q(t: Tx) -> list[Rating]:
            rows = t.all("SELECT * FROM ratings WHERE key = ? ORDER BY game, rules", (key,))
            return [_rating(r) for r in rows]

        return await self._store.run_read(q)

    async def board(self, game: str, rules: str, limit: int = 10, *, min_games: int = 0,
                    kind: str = "player") -> list[Rating]:
        def q(t: Tx) -> list[Rating]:
            rows = t.all(
                """SELECT * FROM ratings WHERE game = ? AND rules = ? AND kind = ? AND games >= ?
                   ORDER BY mu - 3 * sigma DESC, games DESC, key ASC LIMIT ?""",
                (game, rules, kind, int(min_games), int(limit)),
            )
            return [_rating(r) for r in rows]

        return await self._store.run_read(q)

    async def changes(self, name: str, limit: int = 20) -> list[RatingChange]:
        key = name if name.startswith(_model.BOT_KEY) else _names.name_key(name)

        def q(t: Tx) -> list[RatingChange]:
            rows = t.all(
                """SELECT h.*, r.name AS rname FROM rating_history h
                   JOIN ratings r ON r.key = h.key AND r.game = h.game AND r.rules = h.rules
                   WHERE h.key = ? ORDER BY h.id DESC LIMIT ?""",
                (key, int(limit)),
            )
            return [RatingChange(text(r["round_id"]), text(r["rname"]), text(r["game"]), text(r["rules"]), integer(r["seat"]), float(number(r["score"])),
                                 float(number(r["mu_before"])), float(number(r["sigma_before"])), float(number(r["mu_after"])),
                                 float(number(r["sigma_after"])), float(number(r["ts"]))) for r in rows]

        return await self._store.run_read(q)

    async def replace_all(self, ratings: Sequence[Rating], changes: Sequence[RatingChange]) -> None:
        def tx(t: Tx) -> None:
            t.execute("DELETE FROM rating_history")
            t.execute("DELETE FROM ratings")
            now = t.now()
            for r in ratings:
                key = r.name if r.kind == "bot" else _names.name_key(r.name)
                t.execute(
                    """INSERT INTO ratings (key, name, kind, game, rules, mu, sigma, games, updated)
                       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)""",
                    (key, r.name, r.kind, r.game, r.rules, r.mu, r.sigma, r.games, now),
                )
            for c in changes:
                key = c.name if c.name.startswith(_model.BOT_KEY) else _names.name_key(c.name)
                t.execute(
                    """INSERT INTO rating_history (round_id, key, game, rules, seat, score, mu_before,
                                                   sigma_before, mu_after, sigma_after, ts)
                       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
                    (c.round_id, key, c.game, c.rules, c.seat, c.score, c.mu_before, c.sigma_before,
                     c.mu_after, c.sigma_after, c.ts),
                )

        await self._store.run_write(tx)
