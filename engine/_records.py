"""Fast positional constructors for the engine's frozen slotted dataclasses (hot path only).

The ``__init__`` that :mod:`dataclasses` writes for a frozen class sets each field through
``object.__setattr__``, which costs several times more than filling a slot directly; a round of
Président builds a few such records (the deal, the round's end, the exchange moves, the time-out
decisions a room waits for). :func:`record_maker` returns a function taking every field in order
that creates the instance and fills its slots, giving an object equal to ``cls(*values)``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields, is_dataclass
from typing import Any, TypeVar

T = TypeVar("T")


def record_maker(cls: type[T]) -> Callable[..., T]:
    """``make(*values)``, equal to ``cls(*values)`` with every field given positionally.

    Falls back to ``cls`` itself when it is not a slotted dataclass whose fields are all slots.
    """
    if not is_dataclass(cls) or not hasattr(cls, "__slots__"):
        return cls
    names = [f.name for f in fields(cls)]
    try:
        setters = [getattr(cls, name).__set__ for name in names]
    except AttributeError:
        return cls
    args = ", ".join(f"a{i}" for i in range(len(names)))
    body = "".join(f"    s{i}(o, a{i})\n" for i in range(len(names)))
    namespace: dict[str, Any] = {"new": object.__new__, "cls": cls}
    namespace.update({f"s{i}": setter for i, setter in enumerate(setters)})
    exec(f"def make({args}):\n    o = new(cls)\n{body}    return o\n", namespace)
    make: Callable[..., T] = namespace["make"]
    make.__doc__ = f"A {cls.__name__} from its fields in order (see engine._records)."
    return make
