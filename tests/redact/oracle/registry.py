"""The built-in detectors in priority order (earlier wins when two findings cover the same span) and
entity selection."""

from __future__ import annotations

from collections.abc import Iterable

from . import network, pii, recall_detectors, secrets
from .detector import Detector

BUILTIN: tuple[Detector, ...] = recall_detectors.adopt(
    secrets.DETECTORS[:-1] + pii.DETECTORS + network.DETECTORS + secrets.DETECTORS[-1:]
)
ENTITIES: tuple[str, ...] = tuple(dict.fromkeys(d.entity for d in BUILTIN))


def select(entities: Iterable[str] | None) -> tuple[Detector, ...]:
    """All built-ins, or those named (unknown names are an error, not a silent no-op)."""
    if entities is None:
        return BUILTIN
    if isinstance(entities, str):
        raise TypeError("entities takes an iterable of names, e.g. ['EMAIL_ADDRESS'], not a single string")
    wanted = list(entities)
    unknown = sorted(set(wanted) - set(ENTITIES))
    if unknown:
        raise ValueError(f"unknown entities {unknown}; known: {', '.join(ENTITIES)}")
    return tuple(d for d in BUILTIN if d.entity in wanted)
