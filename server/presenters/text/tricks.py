"""The ``tricks`` reply as a person reads it: each closed trick of the round, then the one on the table.

Only what the server sent: the cards played face up (server/games/tricks.py), never a hand.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from server.messages.labels import cards_label
from server.messages.terminal import BOLD, TermStyle, finish, paint, wrap_items, wrap_text
from server.messages.translations import translation
from server.protocol import JSONValue, Result, items_in, objects_in, strings_in


def render_tricks(reply: Result, lang: str, style: TermStyle) -> str:
    t = translation(lang)
    # a null name: someone who hides where they sit, read by a spectator as their seat
    names = [str(n) if n else t.gettext("seat {seat}").format(seat=i)
             for i, n in enumerate(items_in(reply.get("seats")))]
    tricks = objects_in(reply.get("tricks"))
    current = objects_in(reply.get("trick"))
    number = reply.get("round")
    if number is None:
        return finish(wrap_text(t.gettext("No round has been dealt yet."), style.width), style)
    lines = [paint(t.gettext("Tricks of round {n}:").format(n=number), BOLD, style)]
    if not tricks:
        lines += ["  " + line for line in wrap_text(t.gettext("No trick closed yet."), style.width - 2)]
    for i, trick in enumerate(tricks, 1):
        items = _plays(objects_in(trick.get("plays")), names, lang, style)
        items.append(t.gettext("({name} closes it)").format(name=_name(trick.get("by"), names)))
        lines += wrap_items(items, style.width, indent="      ", first=f"  {i:>2}. ")
    if current:
        head = t.gettext("On the table:") + " "
        lines += wrap_items(_plays(current, names, lang, style), style.width, indent="      ", first="  " + head)
    return finish(lines, style)


def _plays(plays: Sequence[Mapping[str, JSONValue]], names: Sequence[str], lang: str, style: TermStyle) -> list[str]:
    t = translation(lang)
    out = []
    for play in plays:
        who = _name(play.get("seat"), names)
        if play.get("pass"):
            text = t.gettext("{name} passes").format(name=who)
        elif play.get("cut"):
            text = t.gettext("{name} cuts with {cards}").format(name=who, cards=cards_label(strings_in(play.get("cards")),
                                                                                             lang, style))
        else:
            text = f"{who} {cards_label(strings_in(play.get('cards')), lang, style)}"
        out.append(text + ",")
    if out:
        out[-1] = out[-1][:-1]
    return out


def _name(seat: JSONValue, names: Sequence[str]) -> str:
    return names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else "?"
