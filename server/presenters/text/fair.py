"""Fair deals for people: ``seed`` (a standing contribution), ``verify`` [ROUND] and their replies.

The words are in :mod:`server.presenters.text.words` (``graine``/``semilla``,
``vérifier``/``verificar``); the sentences in :mod:`server.messages.fair_events`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from server.messages.fair_events import result_mark, step_text, verify_footer, verify_title
from server.messages.terminal import BOLD, TermStyle, finish, paint, wrap_text
from server.messages.translations import translation
from server.presenters.text.context import Command, CommandContext, ParseError
from server.presenters.text.parse import _HANDLERS
from server.presenters.text.words import OFF_WORDS, fold, switch_word, verb
from server.protocol import Result, items_in, objects_in

COMMANDS = frozenset({"seed", "entropy", "verify"})


def _h_seed(cmd: str, rest: Sequence[str], text: str, lang: str, ctx: CommandContext) -> Command | ParseError:
    body = text.split(None, 1)
    if len(body) < 2 or not body[1].strip():
        return Command("seed", {})
    arg = body[1].strip()
    if fold(arg) in OFF_WORDS:
        return Command("seed", {"clear": True})
    return Command("seed", {"text": arg})


def _h_verify(cmd: str, rest: Sequence[str], text: str, lang: str, ctx: CommandContext) -> Command | ParseError:
    return Command("verify", {"round": rest[0]} if rest else {})


_HANDLERS.update({"seed": _h_seed, "verify": _h_verify})


def render_fair(cmd: str, reply: Result, lang: str, style: TermStyle) -> str:
    t = translation(lang)
    width = style.width
    if cmd == "entropy":
        return finish(wrap_text(t.gettext("Your randomness is in deal {round}.").format(round=reply.get("round", "")),
                                width), style)
    if cmd == "seed":
        seed = reply.get("seed")
        if seed is None:
            text = t.gettext("Seed removed: your deals are made from the other players' randomness and the "
                             "server's.") if reply.get("set") else \
                t.gettext("You have no seed. Set one with {example}: it is mixed into every deal you play.").format(
                    example=f"{verb(lang, 'seed')} 7f3a kiwi 19")
        elif reply.get("set"):
            text = t.gettext("Seed set: “{seed}”. It is mixed into every deal you play until you change it "
                             "({off} removes it).").format(seed=seed, off=f"{verb(lang, 'seed')} {switch_word(lang, False)}")
            if reply.get("round") is not None:
                text += " " + t.gettext("It counts for deal {round}, about to be dealt.").format(round=reply["round"])
        else:
            text = t.gettext("Your seed: “{seed}”. It is mixed into every deal you play.").format(seed=seed)
        return finish(wrap_text(text, width), style)
    return _verify(reply, lang, style)


def _verify(reply: Result, lang: str, style: TermStyle) -> str:
    width = style.width
    lines = [paint(line, BOLD, style) for line in wrap_text(verify_title(lang, reply), width)]
    steps = objects_in(reply.get("steps"))
    decks = any(s.get("code") == "decks" for s in steps)
    marks = [result_mark(lang, str(s.get("result"))) for s in steps]
    names = [str(n or "") for n in items_in(reply.get("names"))]
    w = max((len(m) for m in marks), default=2) + 2
    for step, mark in zip(steps, marks, strict=True):
        head = f"  [{mark}]".ljust(w + 3)
        values = step.get("values")
        body = wrap_text(step_text(lang, str(step.get("code")), str(step.get("result")),
                                   values if isinstance(values, Mapping) else {}, names, decks),
                         max(20, width - len(head)))
        lines.append(head + body[0])
        lines += [" " * len(head) + b for b in body[1:]]
    checker = reply.get("checker")
    lines += wrap_text(verify_footer(lang, checker if isinstance(checker, str) else None), width)
    return finish(lines, style)
