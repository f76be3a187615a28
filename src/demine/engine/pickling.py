"""Pickling the frozen dataclasses of the compiled build.

mypyc compiles a frozen dataclass to a native class without the slots pickle fills: pickle's
default way sets each field after making the object, and the frozen class refuses
(``FrozenInstanceError``), so in the compiled build such values could not be read back, for
example in another process. Each class returns :func:`by_fields` from ``__reduce__``: it is
rebuilt by its constructor, with its checks, in both builds.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any


def by_fields(value: Any) -> tuple[Any, ...]:
    """``__reduce__`` of a dataclass: its class and its fields in order, the constructor's
    arguments.

    >>> import pickle
    >>> from demine.engine.grid import PRESETS
    >>> pickle.loads(pickle.dumps(PRESETS["expert"])) == PRESETS["expert"]
    True
    """
    return (type(value), tuple(getattr(value, f.name) for f in fields(value)))
