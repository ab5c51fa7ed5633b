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

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from .._stream import EMPTY_STEP, STOPPED_STEP, Done, Guard, Step, check_piece
from . import fastpath
from . import prefilter as _pf
from . import whole as _whole
from .detector import LOOKBEHIND, Detector, custom_detector
from .normalize import extend_view, normalize, plain_view
from .operators import OperatorSpec, Replace, resolve_operator
from .registry import select
from .settle import Engine, Finding
from .starters import BUILTIN_IDS
from .tracker import OpenTracker

_native = fastpath.native  # the compiled fast path (_native.c), or None: chosen in fastpath.py

DEFAULT_NOTICE = "[sluicegate: the rest of this answer was withheld because it may contain an unfinished secret]"
UNSETTLED = "unsettled_secret"
# Held text below this is re-checked on every feed; above it, after it grows by a quarter, so that a long
# held block (a PEM key fed one character at a time) costs linear time, not quadratic.
_EAGER = 256


def configure_native() -> None:
    """Hand the compiled feed the module values it mirrors (again after a test changes one of them)."""
    fastpath.configure(_EAGER)


configure_native()


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
    # False: never use the compiled fast path of `feed` (_native.c), even where it was built.
    _NATIVE = True
    # False: `redact()` always streams the text (whole.py's one pass, which tests compare with the stream).
    _WHOLE = True
    # False: a settle of a short range is always `_release`'s general path (`_release_step`'s lean one is compared
    # with it in tests/redact/test_release_lean.py).
    _LEAN_RELEASE = True
    # False: `redact()` makes the stream's tracker and compiled feed before its one pass, as `Redactor()` does;
    # True: only where the one pass declines (a new engine's first tracker and a compiled feed cost ~0.1 ms, a
    # twentieth of 64 KB at 20 MB/s; tests/redact/test_whole_lean.py compares the two).
    _LAZY_STREAM = True
    # False: the lean release chooses among several matches by `Engine._choose` (validating and locating every one
    # of them), not `Engine._choose_lazy`, and never by `_native.release_one`, which chooses lazily (tests/redact/
    # test_settle_round2.py compares them).
    _LAZY_CHOOSE = True
    # False: the lean release searches every detector of the settle, never taking the complete match the compiled
    # feed's check has just found (`fastpath.keepers`, `Engine.settle_short`'s `kept`).
    _REUSE_MATCH = True
    # False: the lean release of one finding is always Python (`Engine.settle_short`, `_release_plain`), never
    # `_native.release_one` (its commonest case in C; needs `_REUSE_MATCH`).
    _C_RELEASE = True

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
        self._begin(_compile(type(self), entities, max_hold, allow, custom), operator, notice)

    @classmethod
    def factory(
        cls,
        *,
        entities: Iterable[str] | None = None,
        operator: OperatorSpec = "replace",
        max_hold: int = 8192,
        allow: Iterable[str] = (),
        custom: Iterable[object] = (),
        notice: str = DEFAULT_NOTICE,
    ) -> Callable[[], Redactor]:
        """A maker of fresh Redactors with these options, for a server that starts a stream per request: the
        options are checked and the detectors compiled once, here (the error, if any, comes now); each call
        returns a new Redactor that shares them (`Redactor(**options)` compiles them again every time, about
        half its cost). Each Redactor still has its own state, and with `operator="hash"` (the string) its own
        random key: the same output as `Redactor(**options)`. An operator *object* is shared by every stream:
        `Hash()` draws its random key once, when it is made, so `factory(operator=Hash())` links values across
        streams; pass `"hash"` for unlinkable ones."""
        shared = _compile(cls, entities, max_hold, allow, custom)
        resolve_operator(operator)  # a wrong operator fails here, not at the first request

        def make() -> Redactor:
            r = cls.__new__(cls)
            r._begin(shared, operator, notice)
            return r

        return make

    def _begin(self, shared: _Shared, operator: OperatorSpec, notice: str, *, stream: bool = True) -> None:
        """One stream's state over the compiled, shared part (`stream=False`: without the tracker and the compiled
        feed, for `redact()`'s one pass alone; `_begin` again before feeding)."""
        self._engine = shared.engine
        self._tracker = OpenTracker(self._engine) if self._FAST and stream else None
        self._operator = resolve_operator(operator)
        self._max_hold = max_hold = shared.max_hold
        self._allow = shared.allow
        self._notice = notice
        self._raw = ""  # held raw text
        self._positions: list[int] | None = None  # view index -> raw index; None while they coincide
        self._view = ""  # up to LOOKBEHIND characters of released context, then the view of `_raw`
        self._base = 0  # where the view of `_raw` starts in `_view`
        self._next_check = 1
        self._stopped = False
        self._done = False
        self._counts: dict[str, int] = {}
        self._ahead = ""  # the promised start of the text still to come (the last `lookahead`, less what came)
        # The compiled common case of `feed`, `quick(self, piece)` (fastpath.py): over the tracker and the
        # starters handed to it, and this instance's state fields (`_native.STATE`).
        tracker = self._tracker
        native = fastpath.native is not None and self._NATIVE and _inlines(type(self))
        self._kept: tuple[tuple[object, object], ...] | None = None
        self._quick_native: Callable[[Any, str], Any] | None = None
        if native and tracker is not None:
            if self._REUSE_MATCH and self._LEAN_RELEASE:
                self._kept = fastpath.keepers(tracker)
            self._quick_native = fastpath.compiled_feed(tracker, max_hold, kept=self._kept)

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

    def feed(self, piece: str, *, lookahead: str = "") -> Step:
        """Take a piece; release what is settled. `lookahead` (from the stage before, `Step.lookahead`): what the
        next piece, if any, begins with. Never released; it settles values that end where `piece` ends."""
        if type(piece) is not str:
            check_piece(piece)
        if self._stopped or self._done:
            return STOPPED_STEP if self._stopped else EMPTY_STEP
        if lookahead or self._ahead:
            return self._feed_ahead(piece, lookahead)
        native = self._quick_native
        # The compiled feed hands back (None, before changing anything) a piece that would fill `max_hold`; asked
        # anyway, it first runs the special-character search over all of it (30 ms for 256 KiB of prose).
        if native is not None and len(self._raw) + len(piece) < self._max_hold:
            got = native(self, piece)
            if got is not None:
                if type(got) is not int:
                    step: Step = got
                    return step
                return self._release_step(got)
        return self._feed_rest(piece)

    def _feed_rest(self, piece: str) -> Step:
        """`feed` where the compiled feed did not take the piece (it handed it back unchanged, or there is none).
        A method of its own so that the compiled `feed` (`fastpath.install_feed`) can hand it on too."""
        raw = self._raw
        if len(raw) + len(piece) < self._max_hold and self._tracker is not None:
            # The usual piece: one slice of the loop below, and the held text stays under `max_hold`, so it
            # cannot stop. The same steps, without the loop's bookkeeping. (_native.c does this part for a
            # piece that needs no view map: it returns the Step, or the point to settle, or None to come here.)
            if self._positions is None and piece.isascii():
                self._view += piece
                self._raw = raw = raw + piece
            else:
                self._append(piece)
                raw = self._raw
            if len(raw) < self._next_check:
                return EMPTY_STEP
            base = self._base
            point = self._tracker.open_from(self._view, base)
            if point <= base and self._positions is None:  # nothing settles: `_release` without its copies
                held = len(raw)
                self._next_check = held + (1 if held < _EAGER else held // 4)
                return EMPTY_STEP
            return self._release_step(point)
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
                if point <= self._base and self._positions is None:  # nothing settles: `_release` without copies
                    held = len(self._raw)
                    self._next_check = held + (1 if held < _EAGER else held // 4)
                    if held >= self._max_hold:
                        return self._stop("".join(out))
                    continue
                hint = self._tracker.complete_mask(self._base, point) if self._tracker is not None else None
                text, held = self._release(point, final=False, hint=hint)
                out.append(text)
                if held >= self._max_hold:
                    return self._stop("".join(out))
        text = "".join(out)
        return Step(text) if text else EMPTY_STEP

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

    def _redact_whole(self, text: str) -> str | None:
        """What `feed(text)` and `flush()` release on a fresh instance, in one settle of the whole view
        (whole.py), or None where that is not proven to be the stream's answer (then nothing has changed)."""
        if not self._WHOLE or not self._FAST or self._raw or self._view or self._stopped or self._done:
            return None
        self._append(text)
        engine = self._engine
        view = self._view
        per = _whole.matches(engine, view)
        window = self._max_hold - (len(self._raw) - len(view))
        if not _whole.certified(engine, view, per, window, BUILTIN_IDS):
            self._raw, self._view, self._positions = "", "", None
            return None
        if _whole.LEAN and _lean_whole(type(self)):
            out = self._render_chosen(_whole.chosen(engine, view, per, self._allow))
        else:
            out = self._render(len(self._raw), _whole.findings(engine, view, per, self._keep))
        self._done = True
        self._raw, self._view, self._positions = "", "", None
        return out

    def _render_chosen(self, chosen: list[tuple[int, int, Detector]]) -> str:
        """`_render(len(self._raw), findings)` of a whole text (`_base` 0) for `whole.chosen`'s triples, where
        `_render` and `_keep` are Redactor's own: the same text and counts, with the position map read directly
        and `Replace`'s text (the entity's alone) made once per entity."""
        raw, view, positions = self._raw, self._view, self._positions
        operator = self._operator
        counts = self._counts
        same: dict[str, str] | None = {} if type(operator) is Replace else None
        parts: list[str] = []
        at = 0
        for start, end, detector in chosen:
            a, b = (start, end) if positions is None else (positions[start], positions[end - 1] + 1)
            parts.append(raw[at:a])
            entity = detector.entity
            if same is None:
                parts.append(operator(entity, raw[a:b], view[start:end]))
            else:
                got = same.get(entity)
                if got is None:
                    got = same[entity] = operator(entity, raw[a:b], view[start:end])
                parts.append(got)
            counts[entity] = counts.get(entity, 0) + 1
            at = b
        parts.append(raw[at:])
        return "".join(parts)

    def _feed_ahead(self, piece: str, lookahead: str) -> Step:
        """`feed` with a promise: check the piece keeps the last one, feed it as usual, then settle the held tail
        against the new promise (`_settle_ahead`)."""
        check_piece(lookahead)
        ahead = self._ahead
        if ahead:
            if piece.startswith(ahead):
                ahead = ""
            elif ahead.startswith(piece):
                ahead = ahead[len(piece) :]
            else:
                self._stop("")
                raise ValueError(
                    "the piece does not begin with the lookahead given before it: a stage that hands on a lookahead "
                    "promises that its next release begins with it (the stream is stopped)"
                )
        if lookahead and ahead and not (lookahead.startswith(ahead) or ahead.startswith(lookahead)):
            self._stop("")
            raise ValueError("the lookahead contradicts the one given before it (the stream is stopped)")
        ahead = lookahead if len(lookahead) >= len(ahead) else ahead
        self._ahead = ""
        step = self.feed(piece) if piece else EMPTY_STEP
        if step.stopped:
            return step
        self._ahead = ahead
        more = self._settle_ahead(ahead) if ahead else ""
        return Step(step.text + more) if more else step

    def _settle_ahead(self, ahead: str) -> str:
        """Release the held tail as far as the whole text will settle it, given that what follows is either
        nothing (the stream ends: `flush`, plain or truncated) or begins with `ahead`. Every case is computed
        and the release goes only as far as they all agree, so the released text is the same as without the
        lookahead, only sooner, and it depends on the text alone, not on how much lookahead was given.

        The point is at most the leftmost place a match is open in the held text followed by `ahead` (a match
        open in any longer text is open there), at most where a flush would open a block or a cut-short token,
        and pulled back past any match that straddles it in either case (`Engine.settle`); the findings before
        it must be the same in both. Held text with `ahead` that could reach `max_hold` is left to the usual
        checks, so that a stop happens where it would without the lookahead."""
        raw = self._raw
        if not raw or len(raw) + len(ahead) >= self._max_hold:
            return ""
        engine = self._engine
        view, base = self._view, self._base
        longer = view + normalize(ahead)
        among: tuple[Detector, ...] | None = None
        if self._tracker is not None:  # only the few detectors open in the view are asked
            point, open_ones = self._tracker.open_ahead(view, base, longer)
            among = tuple(engine.detectors[i] for i in open_ones)
        else:
            point = min(engine.open_from(longer, base), len(view))
        # At a flush: an open block would stop the stream there, a cut-short token would be replaced from there.
        block = engine.open_block(view, base, among)
        if block is not None:
            point = min(point, block)
        # (from where its match begins: the flush finds it by a search from the released point)
        cut = engine.open_prefix_start(view, base, among)
        if cut is not None:
            point = min(point, cut)
        if point <= base:
            return ""
        # The detectors that may have a complete match before `point` in the view also bound those in `longer`
        # (one that completes there was complete or open in the view).
        hint = self._tracker.complete_mask(base, point) if self._tracker is not None else None
        while True:
            point, findings = engine.settle(longer, base, point, final=False, keep=self._keep, hint=hint)
            at_end, final = engine.settle(view, base, point, final=True, keep=self._keep, hint=hint)
            if at_end == point:
                break
            point = at_end
        if point <= base or findings != final:  # a flush would settle it otherwise: leave it to the usual path
            return ""
        text, _ = self._release(point, final=False, findings=findings)
        return text

    def _release_step(self, point: int) -> Step:
        """Settle and release up to `point` (from the tracker, held text under `max_hold`), as a Step."""
        tracker = self._tracker
        assert tracker is not None
        kept = self._kept
        # The lazy choice asks `_keep` only of the winner: an overridden `_keep` (it may count or log what it is
        # asked) is asked of every match, as `_choose` does; so is the C release, which always chooses lazily.
        lazy = self._LAZY_CHOOSE and type(self)._keep is Redactor._keep
        if kept is not None and lazy and self._C_RELEASE and self._positions is None:  # (`kept`: lean, compiled)
            engine = self._engine
            info, most = engine.one_info(), engine.short_max
            step: Step | None = _native.release_one(
                self, point, tracker, self._counts, self._operator, self._keep, kept, info, most
            )
            if step is not None:
                return step
        hint = tracker.complete_mask(self._base, point)
        if hint and self._LEAN_RELEASE and self._positions is None and self._quick_native is not None:
            lb, origin = tracker.bounds()
            got = self._engine.settle_short(
                self._view, self._base, point, hint, self._keep, lb, origin, lazy, self._kept
            )
            if got is not None:
                text = self._release_plain(got[0], got[1], tracker)
                return _text_step(text) if text else EMPTY_STEP
        text, _ = self._release(point, final=False, hint=hint)
        return Step(text) if text else EMPTY_STEP

    def _release_plain(self, point: int, findings: list[Finding], tracker: OpenTracker) -> str:
        """`_release(point, final=False, findings=findings)` where the view and the held text coincide (no
        position map) and the class's own `_release`/`_render` are Redactor's (the compiled feed is in use):
        the same text and state, without the map's lookups. Why: a settling feed is the p99 feed on logs and
        JSON, and its Python around the settle was a third of it (docs/performance.md, "the settling feed")."""
        base = self._base
        raw = self._raw
        cut = point - base
        if findings:
            parts: list[str] = []
            at = 0
            counts = self._counts
            view = self._view
            for f in findings:
                a = f.start - base
                b = f.end - base
                parts.append(raw[at:a])
                entity = f.detector.entity
                parts.append(self._operator(entity, raw[a:b], view[f.start : f.end]))
                counts[entity] = counts.get(entity, 0) + 1
                at = b
            parts.append(raw[at:cut])
            text = "".join(parts)
        else:
            text = raw[:cut]
        self._raw = raw = raw[cut:]
        start = point - LOOKBEHIND if point > LOOKBEHIND else 0
        self._view = self._view[start:]
        tracker.shift(start)
        self._base = point - start
        held = len(raw)
        self._next_check = held + (1 if held < _EAGER else held // 4)
        return text

    def _stop(self, text: str) -> Step:
        self._stopped = True
        self._done = True
        self._raw, self._view, self._positions = "", "", None
        return Step(text, True, (Guard((UNSETTLED,), self._notice), Done("stopped")))

    def _append(self, piece: str) -> None:
        if self._positions is None:
            view = plain_view(piece)
            if view is not None:  # nothing dropped: the indices still coincide
                self._view += view
                self._raw += piece
                return
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
        return not self._allow or value.casefold() not in self._allow

    def _release(
        self,
        point: int,
        *,
        final: bool,
        forced: Finding | None = None,
        hint: int | None = None,
        findings: list[Finding] | None = None,
    ) -> tuple[str, int]:
        """Release raw text up to view position `point` (after settling it); return (text, chars still held).

        `forced` (the end of a truncated stream): an open value to replace up to the end; findings that reach
        into it are merged into it. `findings`: `point` is settled already, with these findings."""
        if findings is not None:
            pass
        elif hint == 0 and point - self._base <= _pf.MIN_RANGE:  # no detector can have a complete match there
            findings = []
        else:
            point, findings = self._engine.settle(
                self._view, self._base, point, final=final, keep=self._keep, hint=hint
            )
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


def _text_step(text: str, new: Callable[[type[Step]], Step] = object.__new__) -> Step:
    """`Step(text)`, built as the dataclass's `__init__` would (its fields in its `__dict__`, in their order) without
    its frozen `__setattr__`: 0.5 against 1.3 µs, on the settling feed (`_native.c`'s `make_step` does the same)."""
    step = new(Step)
    d = step.__dict__
    d["text"] = text
    d["stopped"] = False
    d["events"] = ()
    d["lookahead"] = ""
    return step


@dataclass(frozen=True)
class _Shared:
    """What every stream with the same options shares: the compiled engine (patterns, starters, prefilter;
    its caches are keyed by the view they were asked about, so streams do not see each other's) and the
    checked options."""

    engine: Engine
    max_hold: int
    allow: frozenset[str]


def _compile(
    cls: type[Redactor], entities: Iterable[str] | None, max_hold: int, allow: Iterable[str], custom: Iterable[object]
) -> _Shared:
    if isinstance(max_hold, bool) or not isinstance(max_hold, int) or max_hold < 1:
        raise ValueError(f"max_hold must be a positive int, got {max_hold!r}")
    if isinstance(allow, str):
        raise TypeError("allow takes an iterable of values, not a single string")
    detectors: tuple[Detector, ...] = select(entities) + tuple(custom_detector(c) for c in custom)
    if not detectors:
        raise ValueError("no detectors selected")
    engine = Engine(detectors, fast=cls._FAST, compiled=cls._COMPILED)
    return _Shared(engine, max_hold, frozenset(normalize(a).casefold() for a in allow))


# The methods the compiled feed does itself on its common path (the append, the release with no findings).
_INLINED = ("_append", "_release", "_render", "_raw_index")


def _lean_whole(cls: type[Redactor]) -> bool:
    """True unless `cls` overrides what `_render_chosen` and `whole.chosen` do in place of `_render` and `_keep`."""
    return cls._render is Redactor._render and cls._keep is Redactor._keep and cls._raw_index is Redactor._raw_index


def _inlines(cls: type[Redactor]) -> bool:
    """True unless `cls` overrides a method the compiled feed would do in its place: a subclass that does gets
    the Python path, so that its override runs on every piece, as it would without the extension."""
    return all(getattr(cls, name) is getattr(Redactor, name) for name in _INLINED)


fastpath.install_feed(Redactor)


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
    if Redactor._LAZY_STREAM:
        shared = _compile(Redactor, entities, max_hold, allow, custom)
        r = Redactor.__new__(Redactor)
        r._begin(shared, operator, notice, stream=False)
        whole = r._redact_whole(check_piece(text))
        if whole is not None:
            return whole
        r._begin(shared, operator, notice)  # (the stream's whole state, as `Redactor(...)` makes it)
    else:
        r = Redactor(entities=entities, operator=operator, max_hold=max_hold, allow=allow, custom=custom, notice=notice)
        whole = r._redact_whole(check_piece(text))
        if whole is not None:
            return whole
    first = r.feed(text)
    last = first if first.stopped else r.flush()
    out = first.text + (last.text if last is not first else "")
    stopped = first.stopped or last.stopped
    return out + notice if stopped else out
