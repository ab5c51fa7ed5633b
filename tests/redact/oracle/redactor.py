"""`Redactor`: the streaming redaction filter, and `redact()` for whole strings.

Release rule: at each check the filter releases up to the settlement point (see settle.py), with settled
findings replaced, and holds the rest. There is no holdback window: on prose the held tail is the current
word or number; a PEM block or a long token is held whole until it ends. If the held tail reaches `max_hold`
while a match is still open, the stream stops with `Guard(("unsettled_secret",), notice)` and nothing of the
open match is released. At the end of the stream an unterminated private-key block also fails closed.

Chunk invariance: checks happen at least whenever the held text reaches `max_hold`, and the settlement point
is a function of the text seen so far, so the stop position, the released text and the events do not depend
on where pieces were cut. `redact(text)` is literally one `feed(text)` and `flush()`.
"""

from __future__ import annotations

from collections.abc import Iterable

from sluicegate._stream import EMPTY_STEP, STOPPED_STEP, Done, Guard, Step, check_piece
from .detector import LOOKBEHIND, Detector, custom_detector
from .normalize import extend_view, needs_normalizing, normalize
from .operators import OperatorSpec, resolve_operator
from .registry import select
from .settle import Engine, Finding
from .tracker import OpenTracker

DEFAULT_NOTICE = "[sluicegate: the rest of this answer was withheld because it may contain an unfinished secret]"
UNSETTLED = "unsettled_secret"
# Held text below this is re-checked on every feed; above it, after it grows by a quarter, so that a long
# held block (a PEM key fed one character at a time) costs linear time, not quadratic.
_EAGER = 256


class Redactor:
    """Stream filter that replaces personal data and secrets, releasing text only once it is settled.

    `entities`: built-in entity names to detect (default: all). `operator`: "replace" (`<ENTITY>`), "mask",
    "hash" (keyed, stable within the stream) or a callable `(entity, raw_value) -> str`. `max_hold`: the most
    characters held before failing closed. `allow`: values never redacted (compared case-insensitively after
    normalization). `custom`: extra detectors, `(entity, pattern[, validator])` or `Detector`.
    """

    # False: ask every detector on every check (the straightforward path the differential test compares with).
    _FAST = True
    # False: never use the compiled prefilter (prefilter.py), even with the `[fast]` extra installed.
    _COMPILED = True

    def __init__(
        self,
        *,
        entities: Iterable[str] | None = None,
        operator: OperatorSpec = "replace",
        max_hold: int = 8192,
        allow: Iterable[str] = (),
        custom: Iterable[object] = (),
        notice: str = DEFAULT_NOTICE,
    ) -> None:
        if isinstance(max_hold, bool) or not isinstance(max_hold, int) or max_hold < 1:
            raise ValueError(f"max_hold must be a positive int, got {max_hold!r}")
        if isinstance(allow, str):
            raise TypeError("allow takes an iterable of values, not a single string")
        detectors: tuple[Detector, ...] = select(entities) + tuple(custom_detector(c) for c in custom)
        if not detectors:
            raise ValueError("no detectors selected")
        self._engine = Engine(detectors, fast=self._FAST, compiled=self._COMPILED)
        self._tracker = OpenTracker(self._engine) if self._FAST else None
        self._operator = resolve_operator(operator)
        self._max_hold = max_hold
        self._allow = frozenset(normalize(a).casefold() for a in allow)
        self._notice = notice
        self._raw = ""  # held raw text
        self._positions: list[int] | None = None  # view index -> raw index; None while they coincide
        self._view = ""  # up to LOOKBEHIND characters of released context, then the view of `_raw`
        self._base = 0  # where the view of `_raw` starts in `_view`
        self._next_check = 1
        self._stopped = False
        self._done = False
        self._counts: dict[str, int] = {}

    @property
    def stopped(self) -> bool:
        return self._stopped

    @property
    def held(self) -> int:
        """Characters currently held back."""
        return len(self._raw)

    @property
    def counts(self) -> dict[str, int]:
        """How many values of each entity were replaced so far (never the values themselves)."""
        return dict(self._counts)

    def feed(self, piece: str) -> Step:
        check_piece(piece)
        if self._stopped or self._done:
            return STOPPED_STEP if self._stopped else EMPTY_STEP
        out: list[str] = []
        i = 0
        while i < len(piece):
            take = piece[i : i + self._max_hold - len(self._raw)]
            i += len(take)
            self._append(take)
            if len(self._raw) >= self._next_check or len(self._raw) >= self._max_hold:
                if self._tracker is not None:
                    point = self._tracker.open_from(self._view, self._base)
                else:
                    point = self._engine.open_from(self._view, self._base)
                text, held = self._release(point, final=False)
                out.append(text)
                if held >= self._max_hold:
                    return self._stop("".join(out))
        return Step("".join(out)) if out else EMPTY_STEP

    def flush(self, *, truncated: bool = False) -> Step:
        if self._stopped or self._done:
            return STOPPED_STEP if self._stopped else EMPTY_STEP
        self._done = True
        block = self._engine.open_block(self._view, self._base)
        if block is not None:
            text, _ = self._release(block, final=True)
            return self._stop(text)
        # Cut short (the provider died): a token open past its distinctive prefix (`AKIA…`, `ghp_…`, `eyJ….`)
        # is replaced, not released; a word that could still have become an address stays text.
        cut = self._engine.open_prefix(self._view, self._base) if truncated else None
        text, _ = self._release(len(self._view), final=True, forced=cut)
        return Step(text, False, (Done("truncated" if truncated else "complete"),))

    # -- internals -------------------------------------------------------------------------------------

    def _stop(self, text: str) -> Step:
        self._stopped = True
        self._done = True
        self._raw, self._view, self._positions = "", "", None
        return Step(text, True, (Guard((UNSETTLED,), self._notice), Done("stopped")))

    def _append(self, piece: str) -> None:
        if self._positions is None and not needs_normalizing(piece):
            self._view += piece
        else:
            if self._positions is None:
                self._positions = list(range(len(self._raw)))
            self._view += extend_view(piece, len(self._raw), self._positions)
        self._raw += piece

    def _raw_index(self, body: int) -> int:
        """Raw index of view-body index `body` (len(raw) at the end)."""
        if self._positions is None:
            return body
        return self._positions[body] if body < len(self._positions) else len(self._raw)

    def _keep(self, detector: Detector, value: str) -> bool:
        if detector.validate is not None and not detector.validate(value):
            return False
        return value.casefold() not in self._allow

    def _release(self, point: int, *, final: bool, forced: Finding | None = None) -> tuple[str, int]:
        """Release raw text up to view position `point` (after settling it); return (text, chars still held).

        `forced` (the end of a truncated stream): an open value to replace up to the end; findings that reach
        into it are merged into it."""
        point, findings = self._engine.settle(self._view, self._base, point, final=final, keep=self._keep)
        if forced is not None:
            start = forced.start
            for f in findings:
                if f.end > forced.start:
                    start = min(start, f.start)
            findings = [f for f in findings if f.end <= start] + [Finding(start, forced.end, forced.detector)]
        body = point - self._base
        cut = self._raw_index(body)
        text = self._render(cut, findings)
        self._raw = self._raw[cut:]
        if self._positions is not None:
            self._positions = [p - cut for p in self._positions[body:]]
            if len(self._positions) == len(self._raw):
                self._positions = None
        start = max(0, point - LOOKBEHIND)
        self._view = self._view[start:]
        if self._tracker is not None:
            self._tracker.shift(start)
        self._base = point - start
        held = len(self._raw)
        self._next_check = held + (1 if held < _EAGER else held // 4)
        return text, held

    def _render(self, cut: int, findings: list[Finding]) -> str:
        if not findings:
            return self._raw[:cut]
        parts: list[str] = []
        at = 0
        for f in findings:
            a = self._raw_index(f.start - self._base)
            b = self._raw_index(f.end - 1 - self._base) + 1
            parts.append(self._raw[at:a])
            parts.append(self._operator(f.detector.entity, self._raw[a:b], self._view[f.start : f.end]))
            self._counts[f.detector.entity] = self._counts.get(f.detector.entity, 0) + 1
            at = b
        parts.append(self._raw[at:cut])
        return "".join(parts)


def redact(
    text: str,
    *,
    entities: Iterable[str] | None = None,
    operator: OperatorSpec = "replace",
    max_hold: int = 8192,
    allow: Iterable[str] = (),
    custom: Iterable[object] = (),
    notice: str = DEFAULT_NOTICE,
) -> str:
    """Redact a whole string exactly as the stream would: the released text, then the notice if it stopped.

    A private-key block that never ends, or an open match longer than `max_hold`, fails closed here too:
    nothing of it is returned, and the notice says so.
    """
    r = Redactor(entities=entities, operator=operator, max_hold=max_hold, allow=allow, custom=custom, notice=notice)
    first = r.feed(check_piece(text))
    last = first if first.stopped else r.flush()
    out = first.text + (last.text if last is not first else "")
    stopped = first.stopped or last.stopped
    return out + notice if stopped else out
