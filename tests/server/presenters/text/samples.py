"""What every text renderer's test needs: the terminals to try and the promises every output keeps."""

from __future__ import annotations

import itertools

from server.messages.terminal import TermStyle, display_width

WIDTHS = (40, 80, 120)


STYLES = [TermStyle(w, u, c) for w, u, c in itertools.product(WIDTHS, (True, False), (True, False))]


LONG_NAMES = ["Zoé", "Bartholomew_the_Great", "Carmen", "Dmitri", "Éloïse", "Fu", "Gwendolyn", "H"]


def check(text: str, style: TermStyle) -> None:
    """The three promises of every renderer."""
    for line in text.split("\n"):
        assert display_width(line) <= style.width, (style, line)
    if not style.color:
        assert "\x1b" not in text, style
    if not style.unicode:
        assert text.isascii(), (style, [ch for ch in text if not ch.isascii()])
