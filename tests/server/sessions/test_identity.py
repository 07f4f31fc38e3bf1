"""server/sessions/identity.py: nobody, then a guest's or an account's name."""

from __future__ import annotations

from server.sessions.identity import Identity


def test_nobody_until_logged_in_then_the_name_and_whether_a_guest() -> None:
    who = Identity()
    assert (who.name, who.guest, who.logged_in, who.welcomed) == (None, True, False, False)
    who.logged("Zoé", guest=True)
    assert (who.name, who.guest, who.logged_in) == ("Zoé", True, True)
    who.logged("Zoé", guest=False)  # a guest who registered, in place
    assert (who.name, who.guest, who.logged_in) == ("Zoé", False, True)
