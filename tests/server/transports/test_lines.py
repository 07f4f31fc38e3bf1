"""server/transports/lines.py: the telnet line assembler, without a network."""

import random

import pytest

from server.transports.lines import TOO_LONG, LineAssembler


def feed_all(asm: LineAssembler, *chunks: str) -> list[object]:
    out: list[object] = []
    for chunk in chunks:
        out.extend(asm.feed(chunk).lines)
    return out


def test_every_line_end_is_one_line_end():
    asm = LineAssembler()
    assert feed_all(asm, "a\rb\nc\r\nd\r\x00e\n") == ["a", "b", "c", "d", "e"]


def test_crlf_split_across_reads_gives_one_line():
    asm = LineAssembler()
    assert feed_all(asm, "abc\r", "\ndef\r", "\x00ghi\n", "jkl\r") == ["abc", "def", "ghi", "jkl"]
    # the LF swallowed after a CR is only the one right after it
    assert feed_all(asm, "\n") == []
    assert feed_all(asm, "\n") == [""]


def test_empty_lines_are_kept():
    asm = LineAssembler()
    assert feed_all(asm, "\n\r\n\r\r") == ["", "", "", ""]


def test_partial_line_waits_for_its_end():
    asm = LineAssembler()
    assert feed_all(asm, "pl", "ay 7c") == []
    assert asm.pending == "play 7c"
    assert feed_all(asm, "\r\n") == ["play 7c"]


def test_backspace_and_delete_edit_the_line_and_echo_erasure():
    asm = LineAssembler()
    fed = asm.feed("bobx\x7f\x08b\r")
    assert fed.lines == ["bob"]
    assert fed.echo == "bobx\b \b\b \bb\r\n"
    # backspace on an empty line does nothing
    assert asm.feed("\x08\x08ok\n").lines == ["ok"]


def test_secret_input_is_not_echoed():
    asm = LineAssembler()
    asm.secret = True
    fed = asm.feed("hunter2\r\n")
    assert fed.lines == ["hunter2"]
    assert fed.echo == "\r\n"


def test_control_characters_and_escape_sequences_are_dropped():
    asm = LineAssembler()
    # arrow keys (CSI and SS3), a bell, a NUL inside the line, a C1 control; tab becomes a space
    assert feed_all(asm, "a\x1b[Ab\x1bOCc\x07\x00d\x9be\tf\n") == ["abcde f"]
    # an escape sequence split across reads
    assert feed_all(asm, "x\x1b[1", ";5D", "y\n") == ["xy"]


def test_line_over_the_cap_is_refused_whole():
    asm = LineAssembler(max_line=10)
    assert feed_all(asm, "0123456789\n") == ["0123456789"]
    assert feed_all(asm, "0123456789A", "more and more", "\r\n", "ok\n") == [TOO_LONG, "ok"]


def test_huge_input_keeps_memory_bounded():
    asm = LineAssembler(max_line=100)
    for _ in range(1000):
        asm.feed("x" * 4096)
    assert asm.buffered <= 100
    assert feed_all(asm, "\n") == [TOO_LONG]


def test_unicode_passes_through():
    asm = LineAssembler()
    assert feed_all(asm, "Zoé ♥ Спекуляция\n") == ["Zoé ♥ Спекуляция"]


class Longhand(LineAssembler):
    shortcut = False


@pytest.mark.parametrize("secret", [False, True])
def test_the_whole_line_shortcut_changes_nothing(secret):
    """``feed`` takes a chunk that is one ordinary line and its end at once: random input cut at
    random places gives the same lines, echo and pending text as without the shortcut."""
    rng = random.Random(14)
    alphabet = ["a", "b", "é", " ", "\r", "\n", "\r\n", "\x00", "\x1b", "[", "A", "O", "\x7f", "\x08", "\t",
                "\x85", '{"cmd": "ping"}\n', "xxxxxx\n", "abc\r\n", "12345678\n", "123456789\r\n"]
    shortcuts = 0
    plain = ["", "a", "12345678", "123456789", '{"cmd": "ping"}', "é" * 8]
    for _ in range(400):
        if rng.random() < 0.5:  # mostly whole lines, as programs send them
            text = "".join(rng.choice(plain) + rng.choice(["\n", "\r\n", "\r", "\t\n", "\x7f\n", "\x00\n"]) for _ in range(rng.randint(1, 6)))
        else:
            text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
        short, longhand, machine = LineAssembler(max_line=8), Longhand(max_line=8), LineAssembler(max_line=8)
        short.secret = longhand.secret = machine.secret = secret
        pos = 0
        while pos < len(text):
            end = text.find("\n", pos) + 1
            step = end - pos if end and rng.random() < 0.5 else rng.choice([1, 2, 5, 9, 40])
            chunk = text[pos:pos + step]
            shortcuts += not short._buf and chunk.endswith("\n") and chunk.count("\n") == 1
            a, b = short.feed(chunk), longhand.feed(chunk)
            assert (a.lines, a.echo, short.pending) == (b.lines, b.echo, longhand.pending), (text, pos, step)
            assert machine.lines(chunk) == a.lines and machine.pending == short.pending  # (JSON mode's)
            pos += step
    assert shortcuts > 50
