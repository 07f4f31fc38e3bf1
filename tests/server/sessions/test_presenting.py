"""server/sessions/presenting.py: the presenter of a mode, GMCP beside the text, the last state."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from server.messages.terminal import TermStyle
from server.presenters.gmcp import GmcpFeed
from server.presenters.json import JsonPresenter
from server.presenters.text import TextPresenter
from server.sessions.presenting import LastState, present


def viewer() -> Any:
    return SimpleNamespace(lang="en", name=None, guest=True, logged_in=False, style=TermStyle(),
                           welcomed=False, player=None, app=None, send_raw=lambda text: None,
                           where=lambda: (None, "lobby"))


class Link:
    active = False

    def send(self, package: str, data: Any) -> None:
        pass


def test_each_mode_its_presenter_and_gmcp_only_beside_text_on_a_link() -> None:
    v = viewer()
    json, feed = present(v, "json", Link())
    assert isinstance(json, JsonPresenter) and feed is None
    text, feed = present(v, "text", None)
    assert isinstance(text, TextPresenter) and feed is None
    text, feed = present(v, "text", Link())
    assert isinstance(text, TextPresenter) and isinstance(feed, GmcpFeed)


class States:
    """A table's states of one moment, counting the dicts made."""

    def __init__(self) -> None:
        self.made = 0

    def reader(self, seat: int | None) -> dict[str, Any]:
        self.made += 1
        return {"seat": seat}


def test_the_last_state_kept_or_made_from_its_states_only_when_read() -> None:
    last = LastState()
    assert last.state is None
    last.keep({"room": "r1"})
    assert last.state == {"room": "r1"}
    states = States()
    last.keep_later(states, 2)
    last.keep_later(states, 3)  # a later moment replaces it, unmade
    assert states.made == 0
    assert last.state == {"seat": 3} and last.state == {"seat": 3} and states.made == 1
    last.keep({"room": "r2"})
    assert last.state == {"room": "r2"}
