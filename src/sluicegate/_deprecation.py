"""Old public names kept working for a while: a module `__getattr__` that warns and hands back the new object.

A public name that moves or is renamed stays importable from its old place with a `DeprecationWarning` that
names the new place (docs/api.md lists them; CHANGELOG says when each moved).
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["moved_module", "moved_names"]


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


def moved_module(module: str, private: str, public: str) -> Callable[[str], Any]:
    """A module `__getattr__` for an old module path: every name still resolves, from `private`, with a
    `DeprecationWarning` that points at `public` (the place to import from now)."""

    def __getattr__(name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        value = getattr(importlib.import_module(private), name)
        warnings.warn(
            f"module {module} is private now ({private}); import {name} from {public}",
            DeprecationWarning,
            stacklevel=2,
        )
        return value

    return __getattr__
