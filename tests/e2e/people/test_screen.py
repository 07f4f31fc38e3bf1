"""What the screen says must be true: history, leaderboards, greetings, help, rule words, JSON corners.

People are real telnet clients (telnetlib3) on a plain terminal, reading what the server
draws; programs are the JSON client of ``clients/client.py``. Each test starts a
real server on free loopback ports (SQLite in a tmp dir).
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import asyncssh
import pytest
import telnetlib3
from babel.messages.pofile import read_po

from clients.client import Client
from server.messages.labels import ordinal
from server.messages.terminal import TermStyle, strip_ansi
from server.messages.translations import LANGS, po_path
from server.presenters.text.context import CommandContext
from server.presenters.text.help import help_text
from server.start.app import Running
from server.storage.api import RoundRecord
from tests.kits.servers import connect, play_simply, start_server

ROOT = Path(__file__).resolve().parents[3]
RULE_ID = re.compile(r"\b[PTS][0-9]+[a-h]?\b")


class Person:
    """Someone at a telnet client, 200 columns wide (few wrapped lines), on an xterm (colours are
    stripped before reading)."""

    def __init__(self, reader: Any, writer: Any) -> None:
        self.reader, self.writer = reader, writer
        self.raw = ""
        self.pos = 0  # in :attr:`flat`: what :meth:`expect` has read

    @classmethod
    async def arrive(cls, server: Running, name: str, *, lang: str = "en", password: str | None = None,
                     greeting: str = "Type help") -> Person:
        reader, writer = await telnetlib3.open_connection("127.0.0.1", server.telnet_port, cols=200, rows=50,
                                                          term="xterm", encoding="utf8", connect_minwait=0.05)
        person = cls(reader, writer)
        await person.expect("]: ")
        person.type(lang)
        await person.expect(": ")
        person.type(name)
        if password is not None:
            await person.expect(": ")  # Password / Mot de passe / Contraseña
            person.type(password)
        await person.expect(greeting)
        return person

    @property
    def flat(self) -> str:
        """Everything shown, ANSI removed, every run of white space one space (wrapped lines join)."""
        return re.sub(r"\s+", " ", strip_ansi(self.raw))

    def type(self, line: str) -> None:
        self.writer.write(line + "\r")

    async def expect(self, needle: str, timeout: float = 20.0) -> str:
        """Read until ``needle`` (words, whatever the wrapping) shows after what was read; the text
        from there to the end of ``needle``."""
        flat_needle = re.sub(r"\s+", " ", needle)

        async def go() -> str:
            while True:
                flat = self.flat
                at = flat.find(flat_needle, self.pos)
                if at >= 0:
                    start, self.pos = self.pos, at + len(flat_needle)
                    return flat[start:self.pos]
                chunk = await self.reader.read(4096)
                if not chunk:
                    raise EOFError(f"closed before {needle!r}; saw {flat[self.pos:]!r}")
                self.raw += chunk

        return await asyncio.wait_for(go(), timeout)

    async def ask(self, line: str, until: str) -> str:
        self.type(line)
        return await self.expect(until)

    async def reply_lines(self, line: str, heading: str) -> list[str]:
        """The lines of the reply to ``line`` after its ``heading`` line (a ``ping`` typed after it
        marks the end: its ``pong`` comes after the whole reply)."""
        mark = len(self.raw)
        self.type(line)
        self.type("ping")
        await self.expect("pong")
        text = strip_ansi(self.raw[mark:]).replace("\r", "")
        assert heading in text, text
        body = text[text.index(heading):text.rindex("pong")]
        body = body[body.index("\n") + 1:]  # from the line after the heading's
        return [b.strip() for b in body.splitlines() if b.strip() and b.strip() != "ping"]

    def close(self) -> None:
        self.writer.close()


async def until(predicate: Any, timeout: float = 20.0) -> None:
    async def go() -> None:
        while not predicate():
            await asyncio.sleep(0.02)

    await asyncio.wait_for(go(), timeout)


def session_of(server: Running, name: str) -> Any:
    return server.lobby.players[name].session


# -------------------------------------------------------------------------- history


@pytest.mark.e2e
async def test_a_finished_classic_match_has_its_line_and_the_table_says_what_to_do_now(server: Running) -> None:
    """P15: the match gets its own history line (place, points, winner) beside its rounds; the
    help of a finished table offers rematch, leave and rooms, never a play; an account that logs
    in again is greeted back with its chips, before its table is drawn again."""
    await server.store.accounts.register("alice", "horse-battery-1")
    alice = await Client.connect_tcp("127.0.0.1", server.telnet_port, timeout=10)
    await alice.login("alice", "horse-battery-1")
    over = asyncio.ensure_future(alice.next_event("match_over", timeout=60))
    await alice.request("create", game="president", rules="classic", seats=4, bots=3, bot_level="easy", rounds=2)
    final = await asyncio.wait_for(play_simply(alice), 60)
    match_over = await over
    me = final["you"]
    mine = (await alice.request("history"))["history"]
    assert [h["match"] for h in mine] == [True, False, False] and mine[0]["points"] == match_over["totals"][me]
    assert mine[0]["won"] == (me in match_over["winners"]) and "chips" not in mine[0]

    person = await Person.arrive(server, "alice", password="horse-battery-1", greeting="Welcome back, alice: 1,000 chips.")
    bob = await Person.arrive(server, "bob")
    try:
        await until(lambda: alice.closed.is_set())  # the new connection took over
        await until(lambda: session_of(server, "alice").where()[0] is not None)  # the finished table, drawn
        await person.expect("The match is over.")
        assert person.flat.index("Welcome back") < person.flat.index("Président · classic")  # then the table
        shown = await person.ask("help", "this help")
        assert "rematch" in shown and "leave" in shown and "rooms" in shown
        assert "7 7" not in shown and "Cards:" not in shown and "pass" not in shown
        assert "Hello alice" not in person.flat  # welcomed back once, not greeted twice

        lines = await person.reply_lines("history", "Your last games:")
        assert len(lines) == 3, lines
        total = match_over["totals"][me]
        place = 1 + sum(1 for t in match_over["totals"] if t > total)
        assert "whole match" in lines[0] and f"{total} pt" in lines[0], lines[0]
        assert ("winner" in lines[0]) == (me in match_over["winners"])
        assert f"place {ordinal('en', place)}" in lines[0], lines[0]
        assert all("whole match" not in line and re.search(r"\+\d+ pts?\b", line) for line in lines[1:]), lines

        others = await bob.reply_lines("history alice", "alice's last games:")
        assert others == lines  # the same lines, under another heading
        assert "Your last" not in bob.flat
    finally:
        person.close()
        bob.close()
        await alice.close()


@pytest.mark.e2e
async def test_a_tdc_line_shows_the_chip_change_and_no_points(server: Running) -> None:
    """T13: the line shows what the round won or lost (never the balance), and no points."""
    alice = await connect(server, "alice")
    rounds: list[dict[str, Any]] = []
    alice.on_push = lambda m: rounds.append(m) if m.get("event") == "round_over" else None
    await alice.request("create", game="president", rules="tdc", seats=4, bots=3, stake=10, rounds=1,
                        bot_level="easy")
    final = await asyncio.wait_for(play_simply(alice), 60)
    change = rounds[-1]["chips"][final["you"]]
    balance = (await alice.request("whoami"))["chips"]
    bob = await Person.arrive(server, "bob")
    try:
        lines = await bob.reply_lines("history alice", "alice's last games:")
        assert len(lines) == 2 and "whole match" in lines[0], lines  # the match, then its round
        assert f"{change:+d} chip" in lines[1] and str(balance) not in lines[1], (lines, change, balance)
        assert not any(re.search(r"\bpts?\b", line) for line in lines), lines
    finally:
        bob.close()
        await alice.close()


@pytest.mark.e2e
async def test_a_speculation_deal_line_shows_its_change_not_the_chips_held(tmp_path: Path) -> None:
    """S10: a deal's line is what it won or lost; the match's line what the match did (S11)."""
    server = await start_server(tmp_path, flip_seconds=0.05, offer_seconds=0.05)  # the bots' offers declined for her
    alice = await connect(server, "alice")
    try:
        start = (await alice.request("whoami"))["chips"]
        over = asyncio.ensure_future(alice.next_event("match_over", timeout=60))
        await alice.request("create", game="speculation", seats=3, bots=2, bot_level="easy", rounds=1,
                            turn_seconds=1)
        match_over = await over  # nobody acts for alice: the clock turns her cards, her auctions close
        change = (await alice.request("whoami"))["chips"] - start
        assert match_over["changes"][0] == change
        mine = (await alice.request("history"))["history"]
        assert [(h["match"], h["chips"]) for h in mine] == [(True, change), (False, change)], mine
        assert mine[0]["place"] == 1 + sum(1 for c in match_over["changes"] if c > change)
        bob = await Person.arrive(server, "bob", lang="fr", greeting="Tapez aide")
        try:
            lines = await bob.reply_lines("historique alice", "Dernières parties de alice")
            word = "jeton" if abs(change) <= 1 else "jetons"  # French: 0 and 1 are singular
            assert len(lines) == 2 and "partie entière" in lines[0], lines
            assert all(f"{change:+d} {word}" in line and f" {start + change} " not in line for line in lines), lines
        finally:
            bob.close()
    finally:
        await alice.close()
        await server.stop()


# -------------------------------------------------------------------------- leaderboard


def _tdc_round(rid: str, seats: list[str], chips: list[int]) -> RoundRecord:
    return RoundRecord(round_id=rid, game="president", rules="tdc", seats=seats, config={"seats": len(seats)},
                       log=[], result={"event": "round_over", "chips": chips,
                                       "titles": ["president", "neutral", "last"]})


@pytest.mark.parametrize(("lang", "words"), [
    ("en", ("Type help", "leaderboard", "Leaderboard,", "+1 chip ", "-10 chips")),
    ("fr", ("Tapez aide", "classement", "Classement,", "+1 jeton ", "-10 jetons")),
    ("es", ("Escribe ayuda", "clasificación", "Clasificación,", "+1 ficha ", "-10 fichas")),
])
@pytest.mark.e2e
async def test_the_leaderboard_without_a_game_shows_every_board_with_plurals_right(
        server: Running, lang: str, words: tuple[str, ...]) -> None:
    greeting, command, heading, one, minus_ten = words
    for name in ("alice", "bob", "carol"):
        await server.store.accounts.register(name, "horse-battery-1")
    await server.store.history.record_round(_tdc_round("t-1", ["alice", "bob", "carol"], [1, 9, -10]))
    person = await Person.arrive(server, "zoe", lang=lang, greeting=greeting)
    try:
        named = await person.reply_lines(f"{command} tdc", heading)
        everything = await person.reply_lines(command, heading)
        assert everything == named, everything  # the only board with anyone on it
        assert [line.split()[1] for line in named] == ["bob", "alice", "carol"]
        assert one in named[1] + " " and minus_ten in named[2], named
    finally:
        person.close()
    board = await (await connect(server, "yann")).request("leaderboard")
    assert [(b["rules"], [r["name"] for r in b["leaderboard"]]) for b in board["boards"]] == [
        ("classic", []), ("tdc", ["bob", "alice", "carol"]), ("speculation", [])]


@pytest.mark.parametrize(("lang", "words"), [
    ("fr", ("Tapez aide", "classement tdc", "Classement,", "Personne n’est encore classé.", "+9 jetons",
            "provisoire")),
    ("es", ("Escribe ayuda", "clasificación tdc", "Clasificación,", "Todavía no hay nadie clasificado.", "+9 fichas",
            "provisional")),
])
@pytest.mark.e2e
async def test_a_guest_sees_where_they_stand_marked_provisional(server: Running, lang: str,
                                                                words: tuple[str, ...]) -> None:
    greeting, command, heading, nobody, won, provisional = words
    await server.store.history.record_round(_tdc_round("t-1", ["zoe", "yves", "xena"], [9, 1, -10]))
    person = await Person.arrive(server, "zoe", lang=lang, greeting=greeting)
    try:
        lines = await person.reply_lines(command, heading)
        text = " ".join(lines)
        assert nobody in text and "zoe" in text and won in text and provisional in text, lines
        assert "yves" not in text  # only the asker's own line: guests are not ranked
    finally:
        person.close()
    board = await (await connect(server, "zoe")).request("leaderboard", game="president", rules="tdc")
    assert board["leaderboard"] == [] and board["you"]["provisional"] is True and board["you"]["chips"] == 9


# -------------------------------------------------------------------------- words


def test_no_rule_id_in_anything_a_player_reads() -> None:
    """Rule ids (T14, P16, S12h...) are for the code: every sentence says the rule in words."""
    for lang in LANGS:
        with po_path(lang).open("rb") as f:
            catalog = read_po(f, locale=lang)
        for msg in catalog:
            for text in (msg.id, msg.string):
                for part in (text if isinstance(text, list | tuple) else [text]):
                    assert not RULE_ID.search(part or ""), (lang, part)
    style = TermStyle(100, False, False)
    tdc = frozenset({"play", "pass", "cut", "give"})
    give = CommandContext(where="room", moves=tdc, phase="give", give=2, you=0)
    play = CommandContext(where="room", moves=tdc, phase="play", you=0, your_turn=True)
    for lang in LANGS:
        for ctx in (give, play):
            assert not RULE_ID.search(help_text(lang, ctx, style)), help_text(lang, ctx, style)


@pytest.mark.e2e
async def test_whoami_at_a_staked_table_shows_what_is_at_stake(server: Running) -> None:
    """T13: the stake of the round being played is not in the balance; whoami says both."""
    person = await Person.arrive(server, "carmen")
    client = await connect(server, "dmitri")
    try:
        person.type("create president tdc 4 bots=3 stake=10")
        await until(lambda: (session_of(server, "carmen").where()[0] or {}).get("at_stake") == 10)
        shown = await person.ask("whoami", "Language")
        assert "190 chips." in shown and "10 more chips are at stake in this round." in shown, shown
        # a program sees the same, as fields
        await client.request("create", game="president", rules="tdc", seats=4, bots=3, stake=10)
        await client.next_state(lambda s: s.get("at_stake") == 10, timeout=20, current=True)
        who = await client.request("whoami")
        assert (who["chips"], who["at_stake"]) == (190, 10)
    finally:
        person.close()
        await client.close()


@pytest.mark.e2e
async def test_the_commitment_is_explained_once_per_session(tmp_path: Path) -> None:
    # nobody answers the bot's offers either: each is declined for them at once (S9)
    server = await start_server(tmp_path, flip_seconds=0.05, offer_seconds=0.05)
    seated = await Person.arrive(server, "ana")
    watcher = await Person.arrive(server, "bea")
    explained = "That code binds the server to its secret shuffle before anyone adds randomness"
    third = await connect(server, "cleo")
    try:
        await seated.ask("create speculation 3 bots=1 rounds=2 time=1", "you sit at it")
        await watcher.ask("watch 1", "You watch room r1.")
        await third.request("join", room="r1")  # every seat taken: the match begins; nobody acts, the clock does
        for person in (seated, watcher):
            await person.expect("Deal 1: the server committed to its shuffle")
            await person.expect(explained)
            await person.expect("Deal 2: the server committed to its shuffle", timeout=60)
            await person.expect("The match is over", timeout=60)
            assert person.flat.count(explained) == 1, person.flat  # both deals shown, explained once
    finally:
        seated.close()
        watcher.close()
        await third.close()
        await server.stop()


# -------------------------------------------------------------------------- JSON and the doors


@pytest.mark.e2e
async def test_quit_in_machine_mode_replies_then_closes(server: Running) -> None:
    client = await connect(server, "robo")
    reply = await client.request("quit")
    assert reply["type"] == "ok"
    await asyncio.wait_for(client.closed.wait(), 10)
    await until(lambda: "robo" not in server.lobby.players)
    await client.close()


@pytest.mark.e2e
async def test_not_logged_in_names_the_login_command_and_its_fields(server: Running) -> None:
    client = await Client.connect_tcp("127.0.0.1", server.telnet_port, timeout=10)
    try:
        reply = await client.request_raw("whoami")
        assert reply["code"] == "not_logged_in"
        assert all(f'"{word}"' in reply["message"] for word in ("login", "name", "password")), reply
        await client.request("lang", lang="fr")
        reply = await client.request_raw("rooms")
        assert all(f'"{word}"' in reply["message"] for word in ("login", "name", "password")), reply
    finally:
        await client.close()


def test_every_room_closed_reason_is_documented() -> None:
    sources = [p.read_text() for p in (ROOT / "server" / "table").glob("*.py")]
    sources.append((ROOT / "server" / "lobby" / "lobby.py").read_text())
    sources.append((ROOT / "server" / "rooms" / "room.py").read_text())  # the room closes its table: Shutdown("waited")
    reasons: set[str] = set()
    for text in sources:
        reasons |= set(re.findall(r'(?:_clos(?:e|ing)|(?:cycle|self)\.close)\("(\w+)"\)', text))
        reasons |= set(re.findall(r'"event": "room_closed"[^}]*"reason": "(\w+)"', text))
        reasons |= set(re.findall(r'Shutdown\("(\w+)"\)', text))
        reasons |= set(re.findall(r'class Shutdown:[^@]*?reason: str = "(\w+)"', text))  # its default
    assert {"empty", "over", "shutdown", "error", "waited"} <= reasons, reasons
    doc = (ROOT / "docs" / "protocol.md").read_text()
    row = next(line for line in doc.splitlines() if line.startswith("| `room_closed`"))
    assert all(f"`{reason}`" in row for reason in reasons), (reasons, row)


@pytest.mark.e2e
async def test_the_telnet_menu_and_the_ssh_greeting_say_how_to_change_language(server: Running) -> None:
    reader, writer = await telnetlib3.open_connection("127.0.0.1", server.telnet_port, term="dumb",
                                                      encoding="utf8", connect_minwait=0.05)
    try:
        seen = ""
        while "]: " not in seen:
            seen += await asyncio.wait_for(reader.read(4096), 10)
        for words in ("lang en", "langue fr", "idioma es"):
            assert words in seen, seen
        writer.write("langue fr\r")  # what the menu says works there too
        while "Nom" not in seen:
            seen += await asyncio.wait_for(reader.read(4096), 10)
    finally:
        writer.close()

    async def shell(env: dict[str, str]) -> str:
        async with asyncssh.connect("127.0.0.1", server.ssh_port, username="sam", known_hosts=None,
                                    agent_path=None, client_keys=None) as conn:
            proc = await conn.create_process(term_type="dumb", term_size=(200, 40), env=env)
            out = ""
            while "help" not in out and "aide" not in out:
                out += await asyncio.wait_for(proc.stdout.read(4096), 10)
            proc.stdin.write("langue fr\n")  # understood in an English session
            while "Langue" not in out:
                out += await asyncio.wait_for(proc.stdout.read(4096), 10)
            proc.stdin.write("quitter\n")
            await asyncio.wait_for(proc.wait_closed(), 10)
            return out

    plain = await shell({})
    for words in ("Type lang en", "Tapez langue fr", "Escribe idioma es"):
        assert words in plain, plain
    told = await shell({"LANG": "fr_FR.UTF-8"})
    assert "idioma es" not in told and "Bonjour sam" in told


class _Reader:
    """The least a text presenter reads of its session."""

    lang, name, guest, logged_in = "en", "ana", True, True
    style = TermStyle(100, True, False)

    def send_raw(self, text: str) -> None:
        pass

    def where(self) -> tuple[None, str]:
        return None, "room"


def test_a_shared_commitment_is_explained_to_each_reader_once_whoever_renders_it_first() -> None:
    """The words of an event many readers receive are made once per kind of reader; the explanation
    is each session's own: told with its first commitment, never twice, never skipped."""
    from server.presenters.text import TextPresenter
    from server.protocol import Shared

    def deal(n: int) -> Shared:
        return Shared({"event": "commitment", "room": "r1", "round": n, "commitment": "ab" * 32})

    early, late = TextPresenter(_Reader()), TextPresenter(_Reader())
    explained = "That code binds the server to its secret shuffle"
    assert explained in early.shared(deal(1), 0)
    second = deal(2)
    assert explained not in early.shared(second, 0)  # told already; its line is the shared one
    assert explained in late.shared(second, 1)  # late's first, though early made the shared words
    assert explained not in late.shared(deal(3), 1)
    third = deal(4)
    assert explained in TextPresenter(_Reader()).shared(third, 0)
    assert explained not in early.shared(third, 0)  # a newcomer rendered first: early is not told again
