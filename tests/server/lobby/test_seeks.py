"""Seeks and challenges as data (server/lobby/seeks.py) on explicit times; their words; the replay viewer."""

from __future__ import annotations

from server.config import load_config
from server.games import parse_options
from server.lobby.seeks import Seeks
from server.messages.terminal import TermStyle
from server.presenters.text.context import CommandContext
from server.presenters.text.parse import parse_line
from server.presenters.text.replay import ReplayViewer, pace
from tests.kits.social_records import match_records

CFG = load_config()


def _opts(**args: object) -> object:
    return parse_options({"game": "president", "rules": "classic", "seats": 4, **args}, CFG)


def test_a_seek_fills_in_order_and_lapses_at_its_time() -> None:
    seeks = Seeks()
    seek = seeks.add("Alice", "alice", {"game": "president"}, _opts(bots=1), expires=100.0)  # type: ignore[arg-type]
    assert seek.people == 3 and seek.missing == 2
    assert not seeks.accept(seek, "bob", "Bob")
    assert not seeks.accept(seek, "bob", "Bob")  # twice: once
    assert seeks.offered_to("bob") == [] and seeks.offered_to("carol") == [seek]
    assert seeks.accept(seek, "carol", "Carol")  # the last seat a person needs
    assert seek.summary()["accepted"] == ["Bob", "Carol"]
    assert seeks.next_deadline() == 100.0
    assert seeks.expire(99.9) == [] and len(seeks) == 1
    assert seeks.expire(100.0) == [seek] and len(seeks) == 0 and seeks.next_deadline() is None


def test_a_challenge_is_seen_by_its_two_people_only_and_ends_with_them() -> None:
    seeks = Seeks()
    challenge = seeks.add("Alice", "alice", {}, _opts(bots=2), expires=60.0, to="bob", to_name="Bob")  # type: ignore[arg-type]
    public = seeks.add("Carol", "carol", {}, _opts(), expires=300.0)  # type: ignore[arg-type]
    assert challenge.challenge and seeks.visible("dave") == [public]
    assert seeks.offered_to("bob") == [challenge, public]
    assert seeks.owned_by("alice") is challenge
    seeks.accept(public, "bob", "Bob")
    own, left = seeks.drop("bob")  # bob is gone: the challenge to him ends, his seat in carol's seek too
    assert own == [challenge] and left == [public] and public.accepted == []
    assert seeks.next_deadline() == 300.0


def test_the_words_of_the_social_commands() -> None:
    lobby = CommandContext()
    assert parse_line("dire à bob salut toi", "fr", lobby).args == {"name": "bob", "text": "salut toi"}
    assert parse_line("susurrar ana hola", "es", lobby).cmd == "tell"
    assert parse_line("profil bob", "fr", lobby).args == {"name": "bob"}
    assert parse_line("amigo quitar bob", "es", lobby).cmd == "unfriend"
    assert parse_line("amis non", "fr", lobby).args == {"notify": False}
    assert parse_line("accepter", "fr", lobby).cmd == "accept_seek"
    assert parse_line("rechazar 4", "es", lobby).args == {"seek": 4}
    seek = parse_line("chercher président tdc 4 mise=10 remplir", "fr", lobby)
    assert seek.cmd == "seek" and seek.args["fill"] is True and seek.args["stake"] == 10
    assert parse_line("create president classic 4 bots=2 rated", "en", lobby).args["rated"] is True
    assert parse_line("crear presidente 4 amistosa", "es", lobby).args["rated"] is False
    assert parse_line("leaderboard rating tdc", "en", lobby).args == {"by": "rating", "rules": "tdc",
                                                                      "game": "president"}
    at_table = CommandContext(where="room", moves=frozenset({"bid", "accept"}), you=1)
    assert parse_line("accept 3", "en", at_table).cmd == "accept"  # an offer at a Speculation table


def test_the_viewer_pages_and_keeps_within_the_round() -> None:
    from server.community.replays import replay_reply
    from server.games import ADAPTERS

    record = match_records("classic", ["ana", "bob", "eva"], 7, rounds=1)[0]
    viewer = ReplayViewer(replay_reply(record, ADAPTERS["classic"]))
    style = TermStyle(width=60, unicode=False, color=False)
    assert "ana, bob, eva" in viewer.page("en", style)
    viewer.move(1)
    assert "step 1 of" in viewer.page("en", style)
    assert not viewer.move(-5) or viewer.at == 0
    viewer.move(10_000)
    hands = viewer.page("es", style)
    assert viewer.at == viewer.last and "Al repartir" in hands
    assert all(len(line) <= 60 for line in hands.splitlines())
    assert pace(None) == 1.5 and pace(0.01) == 0.2 and pace(99) == 10.0
