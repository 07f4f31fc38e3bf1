"""The cut (T9): out of turn, the first valid cut to reach the table wins; a later play ends the chance,
a pass does not; ``autocut`` cuts the moment it becomes possible."""

from __future__ import annotations

from typing import Any

from engine.president import Play
from tests.server.table.harness import Harness

P3 = ["alice", "bob", "carol"]


def _cut_by_the_third(m: Any, events: tuple[Any, ...]) -> bool:
    """The leader's weakest single can be cut by the player after next only, and the next player can
    beat it."""
    leader = m.turn
    m.apply(Play(leader, (m.hand(leader)[0],)))
    nxt = m.turn
    third = next(s for s in range(3) if s not in (leader, nxt))
    return set(m.cut_options()) == {third} and any(a.cmd == "play" for a in m.legal_actions(nxt))


def _table(**prefs: bool) -> tuple[Harness, dict[str, Any]]:
    h = Harness("tdc", seats=3, stake=2, turn_seconds=20)
    h.join("alice", "bob")
    h.seed_for_next_deal(_cut_by_the_third)
    h.member("carol", **prefs)
    h.join("carol")
    m = h.table.match
    leader = m.turn
    seats = {"leader": leader, "next": (leader + 1) % 3, "third": (leader + 2) % 3}
    keys = {role: h.table.seats[s].member for role, s in seats.items()}
    card = str(m.hand(leader)[0])
    return h, {**{f"{r}_key": k for r, k in keys.items()}, **seats, "card": card}


def test_T9_a_cut_closes_the_trick_the_cutter_leads_and_a_second_cut_is_refused() -> None:
    h, t = _table()
    h.ok(t["leader_key"], "play", cards=[t["card"]])
    cut = h.state(t["third_key"])["cut"]
    assert cut is not None and len(cut) == 3 and h.state(t["next_key"])["cut"] is None
    # the third cuts out of turn, although the next player is on turn
    h.ok(t["third_key"], "cut", cards=cut)
    remaining = len(h.table.match.hand(t["third"]))
    assert h.events("alice", "cut") == h.events("bob", "cut") == [
        {"event": "cut", "seat": t["third"], "cards": cut, "remaining": remaining, "room": "t1"}]
    closed = h.events("alice", "trick_closed")
    assert closed[-1]["reason"] == "cut" and closed[-1]["leader"] == t["third"]
    state = h.state("alice")
    assert state["turn"] == t["third"] and state["trick"] == []
    # the same cut again (sent twice, or by a slower player): refused, nothing changes
    log, view = list(h.table.log), h.table.match.view(None).to_dict()
    h.inbox["alice"].clear()
    refused = h.refused(t["third_key"], "cut", cards=cut)
    assert refused.code == "not_allowed" and refused.params["reason"] == "cut_moved_on"  # its trick closed
    assert h.table.log == log and h.table.match.view(None).to_dict() == view
    assert h.events("alice") == [] and h.inbox["alice"].states() == []  # a refusal pushes nothing


def test_T9_a_pass_leaves_the_chance_open_a_play_ends_it() -> None:
    h, t = _table()
    h.ok(t["leader_key"], "play", cards=[t["card"]])
    cut = h.state(t["third_key"])["cut"]
    h.ok(t["next_key"], "pass")  # a pass is not a play
    assert h.state(t["third_key"])["cut"] == cut
    h.ok(t["third_key"], "cut", cards=cut)
    assert h.events("bob", "cut")[-1]["seat"] == t["third"]

    h, t = _table()
    h.ok(t["leader_key"], "play", cards=[t["card"]])
    cut = h.state(t["third_key"])["cut"]
    m = h.table.match
    beat = next(a for a in m.legal_actions(t["next"]) if a.cmd == "play")
    h.ok(t["next_key"], "play", cards=[str(c) for c in beat.cards])  # any later play ends the chance
    assert h.state(t["third_key"])["cut"] is None
    refused = h.refused(t["third_key"], "cut", cards=cut)
    assert refused.code == "not_allowed" and not h.events("alice", "cut")


def test_T9_autocut_cuts_in_the_same_moment_as_the_play_it_cuts() -> None:
    h, t = _table(autocut=True)
    assert h.table.seats[t["third"]].prefs == {"autocut": True}
    h.inbox["alice"].clear()
    h.ok(t["leader_key"], "play", cards=[t["card"]])
    names = [e["event"] for e in h.events("alice")]
    assert names[:3] == ["played", "cut", "trick_closed"]
    assert h.events("alice", "cut")[0]["seat"] == t["third"]
    assert h.state("alice")["turn"] == t["third"]  # the next player never had the chance to play


def test_T9_autocut_command_turns_it_on_for_the_seat() -> None:
    h, t = _table()
    h.ok(t["third_key"], "autocut", on=True)
    h.ok(t["leader_key"], "play", cards=[t["card"]])
    assert [e["seat"] for e in h.events("alice", "cut")] == [t["third"]]
    # turned off, it cuts no more
    h2, t2 = _table()
    h2.ok(t2["third_key"], "autocut", on=True)
    h2.ok(t2["third_key"], "autocut", on=False)
    h2.ok(t2["leader_key"], "play", cards=[t2["card"]])
    assert h2.events("alice", "cut") == [] and h2.state(t2["third_key"])["cut"] is not None


# -- the cut window (a person sits: no bot acts before people had time to cut) ---------------------


def _bot_cuts_the_persons_lead(m: Any, events: tuple[Any, ...]) -> bool:
    """Seat 0 (a person) leads; its weakest single can be cut by the bot on seat 2 only."""
    if m.turn != 0:
        return False
    m.apply(Play(0, (m.hand(0)[0],)))
    return set(m.cut_options()) == {2}


def _nobody_cuts_the_persons_lead(m: Any, events: tuple[Any, ...]) -> bool:
    if m.turn != 0:
        return False
    m.apply(Play(0, (m.hand(0)[0],)))
    return m.cut_open() and not m.cut_options()


def _window_table(wanted: Any) -> Harness:
    h = Harness("tdc", seats=3, bots=1, stake=2, turn_seconds=20, settings={"cut_window": 3.0, "bot_delay": 1.0})
    h.join("alice")
    h.seed_for_next_deal(wanted)
    h.join("bob")
    assert h.table.seats[2].bot is not None and h.table.match.turn == 0
    return h


def test_T9_a_bot_cuts_inside_the_window_before_anyone_is_prompted_for_the_turn_it_takes_away() -> None:
    """A bot that can cut cuts after its usual pause, inside the window: the person on turn next is
    never prompted (no state without the window gives them the turn) before the cut takes it away."""
    h = _window_table(_bot_cuts_the_persons_lead)
    card = str(h.table.match.hand(0)[0])
    played_at = h.clock.now
    h.ok("alice", "play", cards=[card])
    state = h.state("bob")
    assert state["window"] == {"kind": "cut", "left": 3.0}
    assert state["turn"] == 1 and state["deadline"] == 23.0  # bob's 20 s start after the window
    assert h.table.wake == played_at + 1.0  # the bot's usual pause, inside the window
    h.tick_wake()
    cut = h.events("alice", "cut")
    assert len(cut) == 1 and cut[0]["seat"] == 2 and h.clock.now == played_at + 1.0
    before_cut = [s for s in h.inbox["bob"].states() if s.get("turn") == 1 and s.get("trick")]
    assert before_cut and all(s["window"] is not None for s in before_cut)  # bob was never prompted
    assert h.state("bob")["turn"] == 2 and h.state("bob")["window"] is None  # the cutter leads


def test_T9_bots_that_cannot_cut_wait_for_the_window_s_end() -> None:
    h = _window_table(_nobody_cuts_the_persons_lead)
    played_at = h.clock.now
    h.ok("alice", "play", cards=[str(h.table.match.hand(0)[0])])
    assert h.table.wake == played_at + 3.0


def test_T9_the_window_is_the_same_whether_or_not_anyone_can_cut() -> None:
    h = _window_table(_nobody_cuts_the_persons_lead)
    card = str(h.table.match.hand(0)[0])
    h.ok("alice", "play", cards=[card])
    assert h.state("bob")["window"] == {"kind": "cut", "left": 3.0}
    assert h.state("alice")["window"] == h.state("bob")["window"]
    h.tick_wake()
    assert h.state("bob")["window"] is None and not h.events("alice", "cut")


def test_no_cut_window_at_the_classic_table() -> None:
    h = Harness("classic", seats=3, turn_seconds=20, settings={"cut_window": 3.0})
    h.join(*P3)
    leader = h.table.match.turn
    h.ok(h.table.seats[leader].member, "play", cards=[str(h.table.match.hand(leader)[0])])
    assert h.state("alice")["window"] is None
