"""server/protocol.py decode(): what a client's line reads as is what the standard library reads."""

import json
import random

import pytest

from server.protocol import decode


def reference(line: str):
    """The standard library's reading, except that text holding a lone surrogate is no JSON a
    client may send (nothing could store, hash or send it as UTF-8)."""
    try:
        obj = json.loads(line)
        json.dumps(obj, ensure_ascii=False).encode()
    except UnicodeEncodeError:
        return None
    except (ValueError, RecursionError):
        return None
    return obj if isinstance(obj, dict) else None


EDGES = [
    '{"cmd":"play","cards":["7c","7h"],"id":1}', '{"a":NaN}', '{"a":Infinity}', '{"a":-Infinity}', '{"a":1e400}',
    '{"amount":123456789012345678901234567890}', '{"a":9223372036854775807}', '{"a":-9223372036854775809}',
    '{"a":18446744073709551616}', '{"a":1.00000000000000000001}', '{"a":"\\ud800"}', '{"a":"\\u0000"}',
    "[" * 5000 + "]" * 5000, '{"a":' * 3000 + "1" + "}" * 3000, '{"a":1,"a":2}', ' {"x": 1} ', '{"x": 1}\r\n',
    '"str"', "[1]", "nul", "", '{"a":-0.0}', '{"\\u00e9":"é"}', '{"a": 1} x', "\ufeff{}", '{"a":1}\x00',
]


@pytest.mark.parametrize("line", EDGES)
def test_edge_lines_read_as_the_standard_library_reads_them(line):
    assert repr(decode(line)) == repr(reference(line))


def test_random_lines_read_as_the_standard_library_reads_them():
    rng = random.Random(14)
    atoms = ['"x"', '"é"', '"\\ud83c"', "1", "-0", "12345678901234567890", "1.5e3", "NaN", "true", "null", "[]",
             "{}", '"\\"', "01", "1.", ".5", "-", "tru", '"\\u12"']
    for _ in range(3000):
        parts = [rng.choice(atoms) for _ in range(rng.randint(1, 6))]
        keys = [f'"k{i}"' for i in range(len(parts))]
        line = "{" + ",".join(f"{k}:{v}" for k, v in zip(keys, parts, strict=True)) + "}"
        if rng.random() < 0.2:  # damaged
            i = rng.randrange(len(line))
            line = line[:i] + rng.choice(["", ",", "}", '"', "\\", "\x00"]) + line[i + 1:]
        assert repr(decode(line)) == repr(reference(line)), line


@pytest.mark.parametrize("line", [
    '{"cmd":"finger","name":"a\\ud800"}', '{"cmd":"say","text":"\\udc00x"}', '{"cmd":"ignore","\\ud83c":1}',
    '{"cmd":"seed","text":["ok",{"deep":["\\udfff"]}]}', '{"cmd":"finger","name":"a\ud800"}',
])
def test_a_lone_surrogate_anywhere_is_no_json_a_client_may_send(line):
    assert decode(line) is None


def test_a_surrogate_pair_is_one_character_and_reads():
    assert decode('{"cmd":"say","text":"\\ud83c\\udca1"}') == {"cmd": "say", "text": "\U0001f0a1"}
