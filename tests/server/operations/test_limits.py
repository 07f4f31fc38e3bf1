"""server/operations/limits.py and server/config.py: limits at the edge, pure (the clock is passed in)."""

import pytest

from server.config import ConfigError, load_config
from server.operations.limits import ConnectionCounter, RateLimiter, TokenBucket, clean_text


def test_token_bucket_burst_then_rate():
    bucket = TokenBucket(rate=2.0, burst=3)
    assert [bucket.take(0.0) for _ in range(4)] == [True, True, True, False]
    assert bucket.take(0.25) is False  # half a token
    assert bucket.take(0.5) is True  # one token after 0.5 s at 2/s
    assert bucket.take(100.0) is True  # refill is capped at the burst
    assert sum(bucket.take(100.0) for _ in range(10)) == 2


def test_rate_limiter_counts_refusals_in_a_row_until_flood():
    limiter = RateLimiter.of(rate=1.0, burst=1, flood_disconnect=3)
    assert limiter.allow(0.0)
    assert not limiter.allow(0.0) and not limiter.allow(0.0)
    assert not limiter.flooding
    assert not limiter.allow(0.0)
    assert limiter.flooding
    assert limiter.allow(10.0) and not limiter.flooding  # an accepted command resets the count


def test_connection_counter_caps_per_address():
    counter = ConnectionCounter(per_address=2)
    assert counter.acquire("10.0.0.1") and counter.acquire("10.0.0.1")
    assert not counter.acquire("10.0.0.1")
    assert counter.acquire("10.0.0.2")
    counter.release("10.0.0.1")
    assert counter.acquire("10.0.0.1")
    assert counter.count("10.0.0.1") == 2


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("hello", "hello"),
        ("\x1b[31mred\x1b[0m text", "red text"),
        ("bell\x07 and\x00 nul", "bell and nul"),
        ("title \x1b]0;pwned\x07 ok", "title ok"),
        ("multi\nline\r\ntext", "multi line text"),
        ("rtl \u202eevil\u202c", "rtl evil"),
        ("zero\u200bwidth", "zerowidth"),
        ("c1 \x9b31m csi", "c1 csi"),
        ("  spaces   folded ", "spaces folded"),
        ("Zoé ♥ Спекуляция", "Zoé ♥ Спекуляция"),
        # a pile of accents keeps two per character once composed; Vietnamese and Thai as they are
        ("x" + "\u0301" * 50 + "y", "x\u0301\u0301y"),
        ("e" + "\u0301" * 50, "\u00e9\u0301\u0301"),
        ("Việt Nam ệ", "Việt Nam ệ"),
        ("\u0e01\u0e34\u0e48", "\u0e01\u0e34\u0e48"),
    ],
)
def test_clean_text_strips_controls_and_escapes(raw, clean):
    assert clean_text(raw) == clean


def test_clean_text_limit():
    assert clean_text("x" * 50, limit=10) == "x" * 10


def test_config_defaults_file_and_overrides(tmp_path):
    cfg = load_config()
    assert (cfg.ssh_port, cfg.telnet_port, cfg.default_lang) == (2222, 2323, "fr")
    f = tmp_path / "donne.toml"
    f.write_text('[server]\nssh_port = 2022\n[timers]\nturn_seconds = 12\n')
    cfg = load_config(f, telnet_port=0, host=None)
    assert (cfg.ssh_port, cfg.telnet_port, cfg.turn_seconds, cfg.host) == (2022, 0, 12.0, "127.0.0.1")
    assert cfg.db_path.name == "donne.sqlite3"


def test_config_refuses_unknown_and_bad_values(tmp_path):
    f = tmp_path / "bad.toml"
    f.write_text("[server]\nshh_port = 1\n")
    with pytest.raises(ConfigError, match="shh_port"):
        load_config(f)
    with pytest.raises(ConfigError):
        load_config(ssh_port=70000)
    with pytest.raises(ConfigError):
        load_config(default_stake=3)
    with pytest.raises(ConfigError):
        load_config(max_line="long")
    with pytest.raises(ConfigError):
        load_config(tmp_path / "missing.toml")


def test_open_seeks_count_as_their_openers_rooms():
    from server.operations.limits import Opener, RoomLimits, RoomSlots

    slots = RoomSlots(RoomLimits(max_rooms=10, per_account=1, per_address=2, guest_share=0.5))
    g1, g2, g3 = (Opener(f"g{i}", "198.51.100.1", True) for i in range(3))
    ada = Opener("ada", "198.51.100.1", False)
    assert slots.take(g1) is None
    assert slots.refusal(g3, [g2]) == ("rooms_per_address", 2)  # one room + one seek from the address
    assert slots.refusal(g3) is None  # without the seek: a room is still free for the address
    assert slots.refusal(ada, [g2]) is None  # an account is not counted per address
    assert slots.refusal(ada, [ada]) == ("rooms_per_account", 1)  # its own seek is its one room
    others = [Opener(f"h{i}", f"203.0.113.{i}", True) for i in range(5)]
    assert slots.refusal(others[0], others[1:]) == ("guest_rooms", 5)  # 1 room + 4 seeks: the guests' 5
    assert slots.refusal(others[0], others[2:]) is None
    assert len(slots) == 1  # asking takes nothing
