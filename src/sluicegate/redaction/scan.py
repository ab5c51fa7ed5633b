"""Where a few costly detectors can start, without hyperscan: the whole-string path's pure-Python prefilter.

Why: settling a long range runs each detector's `finditer` over it, and IBAN, IP, MAC and the Discord token are
most of that time (their patterns begin with a letter, digit or hex class, so the `regex` engine tries them at
almost every position: 20 ms of the ~50 ms that 256 KiB of the planted corpus takes). Their prefilter triggers
(prefilter.py `_triggers`) end in a rare character (two digits after two letters, a separator after hex digits,
a dot after a 24-character run), and written with a lookbehind for the common part, the `regex` engine finds
them by that rare character at C speed (under 1 ms each). Each hit gives the same candidate range as the
hyperscan prefilter's (`[occurrence start - K, occurrence end - shortest trigger]`), so the detectors are asked
only there, with `prefilter.matches_in`. The occurrences found are exactly the trigger's (a lookbehind variant
matches at every place the trigger does, shifted by `back`), so the covering property the hyperscan prefilter
is tested for holds here too; tests/redact/test_scan.py checks it against the engine and the settle outputs
against `finditer`'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import regex

from . import prefilter as _pf
from .detector import Detector

# entity -> for each trigger of prefilter._triggers(), in order, the variants that together find its occurrences,
# as (pattern over the encoded view, back): a match at j is an occurrence starting at j - back and ending where
# the match ends (MAC's trigger has two alternatives whose occurrences start at different distances before the
# separator, so two variants).
_VARIANTS: dict[str, tuple[tuple[tuple[str, int], ...], ...]] = {
    "IBAN_CODE": (((r"(?<=[A-Za-z]{2})[0-9]{2}", 2),),),
    "IP_ADDRESS": (((r"[0-9]{1,3}\.", 0),), ((r":", 0),)),
    "MAC_ADDRESS": (((r"(?<=[0-9A-Fa-f]{2})[:\-]", 2), (r"(?<=[0-9A-Fa-f]{4})\.", 4)),),
    "DISCORD_BOT_TOKEN": (((r"(?<=[0-9A-Za-z_\-]{24})\.", 24),),),
}


class Scan:
    """`hits(view, lo)`: for each covered detector, merged closed ranges of where a complete match starting at
    or after lo can start, or no entry when its triggers are too dense to pay (the caller uses `finditer`)."""

    def __init__(self, detectors: Sequence[Detector], builtin_ids: frozenset[int]) -> None:
        table = _pf._triggers()
        self._plans: list[tuple[int, tuple[tuple[regex.Pattern[bytes], int, int, int], ...]]] = []
        for i, d in enumerate(detectors):
            if id(d) not in builtin_ids or d.entity not in _VARIANTS:
                continue
            triggers = table[d.entity]
            variants = _VARIANTS[d.entity]
            assert len(triggers) == len(variants), d.entity
            plan = tuple(
                (regex.compile(v.encode("ascii")), back, k, lo)
                for found_by, (_, k, lo, _) in zip(variants, triggers, strict=True)
                for v, back in found_by
            )
            self._plans.append((i, plan))

    def hits(self, view: str, lo: int, per: int = _pf.HIT_BUDGET) -> dict[int, list[tuple[int, int]]]:
        """`per`: at most one hit per this many characters (and 64) for a detector to get an entry; the scan of
        a detector stops as soon as it has more (on logs or JSON its triggers are every few characters)."""
        out: dict[int, list[tuple[int, int]]] = {}
        if not self._plans or len(view) <= lo:
            return out
        data = _pf.encode(view[lo:])
        budget = 64 + len(data) // per
        for i, plan in self._plans:
            spans: list[tuple[int, int]] = []
            over = False
            for rx, back, k, shortest in plan:
                for m in rx.finditer(data, overlapped=True):
                    spans.append((lo + m.start() - back - k, lo + m.end() - shortest))
                    if len(spans) > budget:
                        over = True
                        break
                if over:
                    break
            if not over:
                out[i] = _pf._merge(spans, lo)
        return out


def shared(detectors: Sequence[Detector]) -> Scan:
    return _shared(tuple(detectors))


@lru_cache(maxsize=32)
def _shared(detectors: tuple[Detector, ...]) -> Scan:
    from .starters import BUILTIN_IDS

    return Scan(detectors, BUILTIN_IDS)
