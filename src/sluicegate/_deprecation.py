"""Old public names kept working for a while: a module `__getattr__` that warns and hands back the new object.

A public name that moves or is renamed stays importable from its old place with a `DeprecationWarning` that
names the new place (docs/api.md lists them; CHANGELOG says when each moved).
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["moved_names"]


def moved_names(module: str, moved: Mapping[str, str]) -> Callable[[str], Any]:
    """A module `__getattr__` for `module`: `moved` maps an old name to the new `package:Name` it became."""

    def __getattr__(name: str) -> Any:
        target = moved.get(name)
        if target is None:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        place, _, new = target.partition(":")
        warnings.warn(f"{module}.{name} is deprecated; use {place}.{new}", DeprecationWarning, stacklevel=2)
        return getattr(importlib.import_module(place), new)

    return __getattr__
