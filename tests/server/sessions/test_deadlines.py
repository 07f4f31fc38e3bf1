"""server/sessions/deadlines.py: the login time-out, then the idle time-out outside a seat (times only)."""

from __future__ import annotations

from server.sessions.deadlines import MIN_WAIT, Deadlines


def test_a_connection_that_does_not_log_in_is_over_at_the_login_timeout() -> None:
    d = Deadlines(login_timeout=60, idle_timeout=600, now=1000.0)
    assert d.wait(1000.0, logged_in=False) == 60
    assert d.wait(1059.0, logged_in=False) == 1
    assert d.expired(1059.9, logged_in=False, seated=False) is None
    assert d.expired(1060.0, logged_in=False, seated=False) == "login_timeout"
    assert d.wait(1100.0, logged_in=False) == MIN_WAIT  # late: looked at soon


def test_once_in_the_idle_timeout_counts_from_the_last_line() -> None:
    d = Deadlines(login_timeout=60, idle_timeout=600, now=0.0)
    d.touch(100.0)
    assert d.wait(100.0, logged_in=True) == 600
    assert d.expired(699.0, logged_in=True, seated=False) is None
    assert d.expired(700.0, logged_in=True, seated=False) == "idle"


def test_a_seated_player_is_never_idle_and_their_quiet_time_is_forgotten() -> None:
    d = Deadlines(login_timeout=60, idle_timeout=600, now=0.0)
    assert d.expired(5000.0, logged_in=True, seated=True) is None
    assert d.last_input == 5000.0  # standing up later: the time counts from here
    assert d.wait(5000.0, logged_in=True) == 600


def test_no_idle_deadline_when_it_is_off() -> None:
    d = Deadlines(login_timeout=60, idle_timeout=0, now=0.0)
    assert d.wait(10.0, logged_in=True) is None
    assert d.wait(10.0, logged_in=False) == 50
