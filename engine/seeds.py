"""Explicit, replayable randomness: every deal comes from a seed owned by its round.

A seed is a byte string (a server draws 32 bytes from ``os.urandom``). Before
the deal a server may publish :func:`commitment` (SHA-256 of the seed) and
reveal the seed after the round; anyone can then re-run :func:`shuffled` and
check the deal. The generator is specified here (SHA-256 in counter mode,
rejection sampling, Fisher–Yates), so it does not depend on the version of
Python's ``random`` module: the same seed gives the same deal forever.
No global state anywhere.
"""

from __future__ import annotations

import hashlib
import importlib
from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar

T = TypeVar("T")


class _Hash(Protocol):
    def digest(self) -> bytes: ...

    def hexdigest(self) -> str: ...


def _sha256_constructor() -> Callable[[bytes], _Hash]:
    """SHA-256 from CPython's own module when it has one (``_sha2`` since 3.12, ``_sha256`` in
    3.11), else :func:`hashlib.sha256`: on the short inputs of seeds and deals it costs half of
    hashlib's OpenSSL-backed constructor, which sets up a context at every call (the digests are
    the same; a test checks)."""
    for name in ("_sha2", "_sha256"):
        try:
            constructor: Callable[[bytes], _Hash] = importlib.import_module(name).sha256
        except (ImportError, AttributeError):
            continue
        return constructor
    return hashlib.sha256


sha256 = _sha256_constructor()
"""``sha256(data)``: a SHA-256 hash object (``digest()``, ``hexdigest()``), as ``hashlib.sha256(data)``."""


def commitment(seed: bytes) -> str:
    """Hex SHA-256 of the seed, publishable before the deal."""
    return sha256(seed).hexdigest()


def derive(seed: bytes, label: str) -> bytes:
    """A sub-seed for one purpose (``"round-3"``, ``"bot-1"``), independent of the others."""
    return sha256(seed + b"/" + label.encode()).digest()


class SeedStream:
    """Deterministic integers from a seed: SHA-256(seed || counter) blocks, read byte by byte."""

    __slots__ = ("_buf", "_counter", "_pos", "_seed")

    def __init__(self, seed: bytes) -> None:
        self._seed = bytes(seed)
        self._counter = 0
        self._buf = b""
        self._pos = 0
        """Bytes of ``_buf`` before ``_pos`` are used up."""

    def _block(self) -> bytes:
        block = sha256(self._seed + self._counter.to_bytes(8, "big")).digest()
        self._counter += 1
        return block

    def _bytes(self, n: int) -> bytes:
        buf, pos = self._buf, self._pos
        if len(buf) - pos < n:
            buf = buf[pos:]
            pos = 0
            while len(buf) < n:
                buf += self._block()
            self._buf = buf
        self._pos = pos + n
        return buf[pos : pos + n]

    def read(self, n: int) -> bytes:
        """The next ``n`` bytes of the stream (salts, keys: docs/fairness.md)."""
        if n < 0:
            raise ValueError("n must not be negative")
        return self._bytes(n)

    def below(self, n: int) -> int:
        """Uniform integer in ``[0, n)`` (rejection sampling, no modulo bias)."""
        if n <= 0:
            raise ValueError("n must be positive")
        if n == 1:
            return 0
        bits = (n - 1).bit_length()
        mask = (1 << bits) - 1
        if bits <= 8:  # one byte per draw: read it in place
            buf, pos = self._buf, self._pos
            while True:
                if pos == len(buf):
                    buf = self._buf = self._block()
                    pos = 0
                x = buf[pos] & mask
                pos += 1
                if x < n:
                    self._pos = pos
                    return x
        nbytes = (bits + 7) // 8
        while True:
            x = int.from_bytes(self._bytes(nbytes), "big") & mask
            if x < n:
                return x


def shuffled(items: Sequence[T], seed: bytes) -> list[T]:
    """A Fisher–Yates shuffle of ``items`` driven only by ``seed``."""
    out = list(items)
    stream = SeedStream(seed)
    for i in range(len(out) - 1, 0, -1):
        j = stream.below(i + 1)
        out[i], out[j] = out[j], out[i]
    return out


def seed_from_int(n: int) -> bytes:
    """A seed from a small integer (simulator ``--seed``, tests)."""
    return sha256(b"donne-seed/" + str(n).encode()).digest()
