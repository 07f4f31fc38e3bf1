"""Real history records for the social tests: engine matches between bots, cut into rounds.

Each record is what a table stores (``server/table/rounds.py``): the options, the
match's engine configuration under ``match``, the log from the match's start to the
round's end, the round's end event; ``extra`` as the room adds it (``rated``, ``bots``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.bots import make_bot
from engine.bots.driver import play_match
from engine.seeds import seed_from_int
from server.games import ADAPTERS
from server.storage.api import RoundRecord

SEATS = {"classic": 4, "tdc": 4, "speculation": 4}


def match_records(rules: str, names: Sequence[str], seed: int, *, rated: bool = True,
                  bots: Sequence[int] = (), rounds: int | None = 2, room: str = "r1",
                  uid: str = "u") -> list[RoundRecord]:
    """The records of one bot match at a ``rules`` table seated by ``names``."""
    adapter = ADAPTERS[rules]
    n = len(names)
    args: dict[str, Any] = {"game": adapter.game, "rules": rules, "seats": n, "rounds": rounds}
    if rules == "tdc":
        args["stake"] = 2
    opts = adapter.options(args, _Settings())
    match = adapter.new_match(opts, [100] * n)
    config = {**opts.to_dict(), "match": match.config}
    log: list[dict[str, Any]] = []
    records: list[RoundRecord] = []

    def step(action: Any, events: tuple[Any, ...]) -> None:
        log.append(action.to_dict())
        for ev in events:
            if ev.name == adapter.round_end:
                records.append(RoundRecord(
                    round_id=f"{room}-{uid}-{len(records) + 1}", game=adapter.game, rules=rules, seats=list(names),
                    config=config, log=list(log), result=ev.to_dict(), finished_at=1000.0 + len(records),
                    extra={"room": room, "rated": rated, "bots": list(bots)}))

    players = [make_bot(adapter.game, "random", s, seed_from_int(seed * 10 + s)) for s in range(n)]
    play_match(match, players, seed_from_int(seed), step, check_every=0)
    return records


class _Settings:
    turn_seconds = 30.0
    auction_seconds = 10.0
    flip_seconds = 2.0
    default_stake = 2
    default_ante = 1
    rate_bot_tables = False
