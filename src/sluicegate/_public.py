"""The public places of the core (docs/api.md) and `publish`, which makes a place the one its names report.

httpx's habit: each public class and function says in `__module__` the one place users import it from, so
reprs, tracebacks and docs name that place and not the private module behind it.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any

__all__ = ["PLACES", "publish"]

PLACES = (
    "sluicegate",
    "sluicegate.budget",
    "sluicegate.call",
    "sluicegate.dialects",
    "sluicegate.evidence",
    "sluicegate.host",
    "sluicegate.lifecycle",
    "sluicegate.prompts",
    "sluicegate.redaction",
    "sluicegate.scripted",
    "sluicegate.sources",
    "sluicegate.sse",
    "sluicegate.testing",
)


def publish(place: str, namespace: Mapping[str, Any]) -> None:
    """Set `__module__` to `place` on the classes and functions `namespace["__all__"]` lists, unless another
    public place already claimed them (the root re-exports `sluicegate.call`'s names, which stay theirs)."""
    for name in namespace["__all__"]:
        obj = namespace[name]
        if (isinstance(obj, type) or inspect.isfunction(obj)) and obj.__module__ not in PLACES:
            obj.__module__ = place
