"""Who is connected: nobody yet, then a guest's or an account's name.

A session is nobody until the lobby logs it in (:meth:`Identity.logged`); an account coming back
may have been greeted at the door already (``welcomed``), so the presenter does not greet it twice.
"""

from __future__ import annotations


class Identity:
    """The name a session logged in with, and whether it is a guest's."""

    __slots__ = ("guest", "name", "welcomed")

    def __init__(self) -> None:
        self.name: str | None = None
        self.guest = True
        self.welcomed = False  # greeted at the door already (an account coming back)

    @property
    def logged_in(self) -> bool:
        return self.name is not None

    def logged(self, name: str, guest: bool) -> None:
        """Logged in as ``name`` (again, when a guest becomes an account in place)."""
        self.name = name
        self.guest = guest
