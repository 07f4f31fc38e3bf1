"""Terminal widths: escapes, wide and combining characters, cutting and wrapping."""

from __future__ import annotations

import pytest

from server.messages.terminal import display_width, fit, strip_ansi, wrap_items


def test_width_helpers():
    assert display_width("\x1b[31m7♥\x1b[0m") == 2
    assert display_width("日本") == 4
    assert display_width("é") == 1 and display_width("e\u0301") == 1
    cut = fit("\x1b[1mBartholomew the Great\x1b[0m", 10)
    assert display_width(cut) == 10 and cut.endswith("\x1b[0m")
    assert strip_ansi(cut).endswith("…")
    lines = wrap_items(["aaaa", "bbbb", "cccc"], 9, indent="  ", first="x: ")
    assert lines == ["x: aaaa", "  bbbb", "  cccc"]
    try:
        import wcwidth
    except ImportError:  # pragma: no cover - wcwidth is optional
        return
    for sample in ("Zoé 7♥ D♣", "日本語 カード", "«ça ou rien»", "▶ ▮▮"):
        assert display_width(sample) == wcwidth.wcswidth(sample), sample


@pytest.mark.parametrize("width", range(12, 60))
def test_wrap_text_keeps_french_marks_with_their_words(width: int) -> None:
    from server.messages.terminal import wrap_text

    text = "Tapez « graine TEXTE » dans les 2 s pour mêler votre aléa : il ne peut plus le changer ?"
    lines = wrap_text(text, width, indent="  ")
    assert " ".join(line.strip() for line in lines) == text
    for line in lines:
        assert display_width(line) <= width
        assert not line.strip().startswith(("»", ":", "?")), lines
        assert not line.rstrip().endswith("«"), lines
