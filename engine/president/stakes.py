"""Money of the ``tdc`` table (RULES T13): pure functions, chips never created or lost.

A round with stake ``S`` (even) debits ``S`` from every playing seat when it
starts (:func:`stake_debits`) and pays back at the end (:func:`stake_payouts`):
Président ``2S``, Vice-président ``1.5S``, neutral ``S``, vice-last ``0.5S``,
last ``0``. :func:`settle_stakes` is the net change of the round (payout minus
stake): ``+S, +S/2, 0, -S/2, -S``; it always sums to 0.

    >>> settle_stakes([2, 0, 1], {2: "president", 0: "neutral", 1: "last"}, 10)
    {2: 10, 0: 0, 1: -10}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

_PAYOUT_HALVES = {"president": 4, "vice_president": 3, "neutral": 2, "vice_last": 1, "last": 0}
"""Payout per title in half-stakes."""


def _title(titles: Mapping[int, str] | Sequence[str | None], seat: int) -> str:
    title = titles[seat]
    if title not in _PAYOUT_HALVES:
        raise ValueError(f"seat {seat} has no title")
    return title


def _check(ranking: Sequence[int], stake: int) -> None:
    if stake < 0 or stake % 2:
        raise ValueError("the stake must be an even number of chips (T13)")
    if len(set(ranking)) != len(ranking):
        raise ValueError("a seat appears twice in the ranking")


def stake_debits(present: Sequence[int], stake: int) -> dict[int, int]:
    """What each playing seat puts in when the round starts (T13): ``-S`` each."""
    _check(present, stake)
    return {seat: -stake for seat in present}


def stake_payouts(
    ranking: Sequence[int], titles: Mapping[int, str] | Sequence[str | None], stake: int
) -> dict[int, int]:
    """What each playing seat gets back at the end of the round (T13), by title."""
    _check(ranking, stake)
    half = stake // 2
    return {seat: _PAYOUT_HALVES[_title(titles, seat)] * half for seat in ranking}


def settle_stakes(
    ranking: Sequence[int], titles: Mapping[int, str] | Sequence[str | None], stake: int
) -> dict[int, int]:
    """Net chip change of each playing seat for one round (T13); the values sum to 0.

    ``ranking``: the seats of the round, first to last. ``titles``: seat → title
    (``"president"`` … ``"last"``), a mapping or a list indexed by seat.
    """
    payouts = stake_payouts(ranking, titles, stake)
    out = {seat: payouts[seat] - stake for seat in ranking}
    if sum(out.values()) != 0:
        raise ValueError("titles do not pair up: the settlement would create chips")
    return out


def titles_for(ranking: Sequence[int]) -> dict[int, str]:
    """Titles of RULES P12 / T11 for a finishing order (first to last)."""
    n = len(ranking)
    out = {seat: "neutral" for seat in ranking}
    if n == 0:
        return out
    out[ranking[0]] = "president"
    out[ranking[-1]] = "last"
    if n >= 4:
        out[ranking[1]] = "vice_president"
        out[ranking[-2]] = "vice_last"
    return out
