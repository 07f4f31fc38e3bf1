"""Password hashing (scrypt from the standard library) and the slow-down of wrong guesses.

A stored hash carries its parameters: ``scrypt$N$r$p$salt$hash`` (salt and hash
in URL-safe base64), so the cost can be raised later without invalidating old
accounts (:func:`needs_rehash`).

:class:`Backoff` counts recent failures per name and per client address and
says how long the caller must wait before answering a failed attempt:
``base * 2 ** (failures - 1)``, capped. Failures older than ``window`` seconds
are forgotten; a success clears the name's count (not the address's).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import time
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field

from server.storage.api import BadPassword

SCRYPT_N = 2**14
SCRYPT_R = 8
SCRYPT_P = 1
SALT_BYTES = 16
HASH_BYTES = 32
MIN_PASSWORD = 4
MAX_PASSWORD = 256


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def normalize_password(password: str) -> bytes:
    """NFC, so the same password typed on two terminals is the same bytes (RFC 8265 spirit)."""
    return unicodedata.normalize("NFC", password).encode("utf-8")


def check_new_password(password: str) -> None:
    if not isinstance(password, str):
        raise BadPassword("a password is text")
    if len(password) < MIN_PASSWORD:
        raise BadPassword(f"a password has at least {MIN_PASSWORD} characters")
    if len(password) > MAX_PASSWORD:
        raise BadPassword(f"a password has at most {MAX_PASSWORD} characters")
    if any(not ch.isprintable() for ch in password):
        raise BadPassword("a password has printable characters only")


def _scrypt(password: bytes, salt: bytes, n: int, r: int, p: int, dklen: int) -> bytes:
    return hashlib.scrypt(password, salt=salt, n=n, r=r, p=p, dklen=dklen, maxmem=256 * 1024 * 1024)


def hash_password(password: str, n: int = SCRYPT_N, r: int = SCRYPT_R, p: int = SCRYPT_P) -> str:
    salt = os.urandom(SALT_BYTES)
    digest = _scrypt(normalize_password(password), salt, n, r, p, HASH_BYTES)
    return f"scrypt${n}${r}${p}${_b64(salt)}${_b64(digest)}"


def verify_password(password: str, stored: str) -> bool:
    """True when ``password`` matches ``stored``; constant-time comparison."""
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
        if scheme != "scrypt":
            return False
        expected = _unb64(digest)
        got = _scrypt(normalize_password(password), _unb64(salt), int(n), int(r), int(p), len(expected))
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(got, expected)


def needs_rehash(stored: str, n: int = SCRYPT_N) -> bool:
    try:
        scheme, stored_n, *_ = stored.split("$")
        return scheme != "scrypt" or int(stored_n) < n
    except ValueError:
        return True


# A hash to check against when the name does not exist, so that an unknown
# name costs the same time as a wrong password (no user enumeration by timing).
_DUMMY: dict[int, str] = {}


def dummy_hash(n: int = SCRYPT_N) -> str:
    if n not in _DUMMY:
        _DUMMY[n] = hash_password("not a password", n=n)
    return _DUMMY[n]


@dataclass
class Backoff:
    """Exponential delays after failed passwords, per name and per address."""

    base: float = 0.5
    maximum: float = 8.0
    window: float = 900.0
    clock: Callable[[], float] = time.monotonic
    _fails: dict[str, tuple[int, float]] = field(default_factory=dict)

    def _count(self, key: str) -> int:
        entry = self._fails.get(key)
        if entry is None:
            return 0
        count, last = entry
        if self.clock() - last > self.window:
            del self._fails[key]
            return 0
        return count

    def _bump(self, key: str) -> int:
        count = self._count(key) + 1
        self._fails[key] = (count, self.clock())
        return count

    def failures(self, name_key: str, address: str = "") -> int:
        n = self._count("n:" + name_key)
        return max(n, self._count("a:" + address)) if address else n

    def fail(self, name_key: str, address: str = "") -> tuple[int, float]:
        """Record a failure; returns (failures, seconds the caller must wait)."""
        count = self._bump("n:" + name_key)
        if address:
            count = max(count, self._bump("a:" + address))
        self._prune()
        return count, self.delay(count)

    def delay(self, failures: int) -> float:
        if failures <= 0:
            return 0.0
        return float(min(self.maximum, self.base * 2 ** (failures - 1)))

    def succeed(self, name_key: str) -> None:
        self._fails.pop("n:" + name_key, None)

    def _prune(self) -> None:
        if len(self._fails) > 10_000:
            now = self.clock()
            for key in [k for k, (_, last) in self._fails.items() if now - last > self.window]:
                del self._fails[key]


RESET_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I/L: read aloud or copied by hand
RESET_GROUPS = 3  # of 4 characters: 31^12, about 2^59


def new_reset_code() -> str:
    """A one-time code for ``resetpw``: ``7KQM-XP3A-R9TD`` (random, from :mod:`secrets`)."""
    import secrets

    chars = [secrets.choice(RESET_ALPHABET) for _ in range(4 * RESET_GROUPS)]
    return "-".join("".join(chars[i:i + 4]) for i in range(0, len(chars), 4))


def normalize_code(text: str) -> str:
    """A typed reset code as hashed: upper case, without dashes or spaces (``7kqm xp3a r9td``)."""
    return "".join(ch for ch in str(text).upper() if ch not in "- ")
