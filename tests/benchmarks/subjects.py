"""Uniform wrappers around the filters being compared: ours and the peers, each with its real API.

Each subject offers `whole(text)`, a tight `stream(pieces)` (for throughput: nothing but the filter's own calls)
and a traced `trace(pieces)` (per-piece time, characters held, input consumed before the first output byte).
A subject whose package or class is missing is still listed, with `reason` saying why, so every table keeps its
rows and says "not available" instead of failing.

Peer APIs (read from their installed source, versions pinned in requirements-bench.txt):
- safestream-redactor 0.4.0: `Redactor()` (redactor.py:100), `.redact(text)` (:282), `.redact_stream(chunks)` a
  generator over an iterable (:294) that coalesces input into 64 KiB windows plus an 8 KiB overlap
  (engine.py:32-40, 127-151).
- llm-stream-guards 0.2.1: push-style `feed(delta) -> str`, `finish(truncated=False) -> str`, raise `Blocked`
  (_stream.py:41-51). `LinkStream(allowed_hosts, emails=, phones=)` (_links.py:319) strips untrusted links and
  ungrounded e-mails/phones; `CitationStream(count)` (_citations.py:26); `AmountStream(grounded)`
  (_amounts.py:397) with `numbers_in(*sources)` (_amounts.py:238); `Chain(*guards)` (_stream.py:58).
- presidio-analyzer/anonymizer 2.2.366: `AnalyzerEngine(nlp_engine=...)` with a `SpacyNlpEngine` whose `nlp` is
  `spacy.blank("en")` (no model download), then `AnonymizerEngine().anonymize(text, analyzer_results)`. Whole text
  only: it has no streaming API.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

# Offline: tldextract (used by Presidio's e-mail recognizer) would otherwise fetch the public suffix list.
os.environ.setdefault("TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS", "")


@dataclass
class Trace:
    """One instrumented streamed run."""

    text: str
    stopped: bool
    piece_ns: list[int]
    held: list[int]
    first_out_consumed: int | None  # input characters consumed when the first output character appeared


class Subject:
    """A filter under test. `reason` is None when it can run, else why not (shown in the tables)."""

    name = "?"
    streaming = True
    reason: str | None = None
    last_stopped = False  # whether the last `stream` call ended in a stop (block)

    def whole(self, text: str) -> str:
        raise NotImplementedError

    def stream(self, pieces: Sequence[str]) -> str:
        raise NotImplementedError

    def trace(self, pieces: Sequence[str]) -> Trace:
        raise NotImplementedError


# --- push-style filters (ours and llm-stream-guards) --------------------------------------------------------------


class PushSubject(Subject):
    """Wraps a filter with feed/finish; `_open()` returns (feed, finish, held_or_None) for a fresh instance."""

    def _open(
        self,
    ) -> tuple[Callable[[str], tuple[str, bool]], Callable[[], tuple[str, bool]], Callable[[], int] | None]:
        raise NotImplementedError

    def whole(self, text: str) -> str:
        return self.stream([text])

    def trace(self, pieces: Sequence[str]) -> Trace:
        feed, finish, held_of = self._open()
        out: list[str] = []
        piece_ns: list[int] = []
        held: list[int] = []
        consumed = released = 0
        first: int | None = None
        stopped = False
        clock = time.perf_counter_ns
        for piece in pieces:
            t0 = clock()
            text, stopped = feed(piece)
            piece_ns.append(clock() - t0)
            consumed += len(piece)
            if text:
                out.append(text)
                released += len(text)
                if first is None:
                    first = consumed
            held.append(held_of() if held_of is not None else consumed - released)
            if stopped:
                break
        if not stopped:
            text, stopped = finish()
            out.append(text)
            if text and first is None:
                first = consumed
        return Trace("".join(out), stopped, piece_ns, held, first)


class OurFilter(PushSubject):
    """A sluicegate StreamFilter made by `factory` (Step-returning feed/flush, sticky stop)."""

    def __init__(self, name: str, factory: Callable[[], object] | None, reason: str | None = None) -> None:
        self.name = name
        self._factory = factory
        self.reason = reason

    def _open(self):  # type: ignore[no-untyped-def]
        f = self._factory()  # type: ignore[misc]

        def feed(piece: str) -> tuple[str, bool]:
            step = f.feed(piece)
            return step.text, step.stopped

        def finish() -> tuple[str, bool]:
            step = f.flush()
            return step.text, step.stopped

        held_of = (lambda: int(f.held)) if hasattr(f, "held") else None
        return feed, finish, held_of

    def stream(self, pieces: Sequence[str]) -> str:
        f = self._factory()  # type: ignore[misc]
        feed = f.feed
        out = []
        append = out.append
        for piece in pieces:
            step = feed(piece)
            append(step.text)
            if step.stopped:
                self.last_stopped = True
                return "".join(out)
        step = f.flush()
        append(step.text)
        self.last_stopped = step.stopped
        return "".join(out)


class GuardsFilter(PushSubject):
    """An llm-stream-guards guard: `feed(delta) -> str`, `finish() -> str`, raises `Blocked` to stop."""

    def __init__(self, name: str, factory: Callable[[], object] | None, reason: str | None = None) -> None:
        self.name = name
        self._factory = factory
        self.reason = reason

    def _open(self):  # type: ignore[no-untyped-def]
        from llm_stream_guards import Blocked

        g = self._factory()  # type: ignore[misc]

        def feed(piece: str) -> tuple[str, bool]:
            try:
                return g.feed(piece), False
            except Blocked:
                return "", True

        def finish() -> tuple[str, bool]:
            try:
                return g.finish(), False
            except Blocked:
                return "", True

        return feed, finish, None

    def stream(self, pieces: Sequence[str]) -> str:
        from llm_stream_guards import Blocked

        g = self._factory()  # type: ignore[misc]
        feed = g.feed
        out = []
        append = out.append
        self.last_stopped = False
        try:
            for piece in pieces:
                append(feed(piece))
            append(g.finish())
        except Blocked:
            self.last_stopped = True
        return "".join(out)


# --- safestream-redactor (pull-style generator) ------------------------------------------------------------------


class Safestream(Subject):
    name = "safestream-redactor 0.4.0 (defaults)"

    def __init__(self) -> None:
        try:
            from safestream_redactor import Redactor

            self._r = Redactor()
        except Exception as exc:  # noqa: BLE001 - reported in the table
            self.reason = f"not installed here ({type(exc).__name__}: {exc})"

    def whole(self, text: str) -> str:
        return self._r.redact(text)

    def stream(self, pieces: Sequence[str]) -> str:
        return "".join(self._r.redact_stream(iter(pieces)))

    def trace(self, pieces: Sequence[str]) -> Trace:
        # The engine pulls pieces; the time between two pulls is what handling one piece cost.
        state = {"consumed": 0, "released": 0, "first": None}
        piece_ns: list[int] = []
        held: list[int] = []
        clock = time.perf_counter_ns

        def source() -> Iterable[str]:
            last = None
            for piece in pieces:
                now = clock()
                if last is not None:
                    piece_ns.append(now - last)
                    held.append(state["consumed"] - state["released"])
                state["consumed"] += len(piece)
                last = clock()
                yield piece
            if last is not None:
                piece_ns.append(clock() - last)
                held.append(state["consumed"] - state["released"])

        out: list[str] = []
        for chunk in self._r.redact_stream(source()):
            if chunk:
                if state["first"] is None:
                    state["first"] = state["consumed"]
                out.append(chunk)
                state["released"] += len(chunk)
        return Trace("".join(out), False, piece_ns, held, state["first"])  # type: ignore[arg-type]


# --- Presidio (whole text only) ----------------------------------------------------------------------------------


class Presidio(Subject):
    name = "Presidio 2.2.366 (blank spaCy, whole text)"
    streaming = False

    def __init__(self) -> None:
        try:
            import spacy
            from presidio_analyzer import AnalyzerEngine
            from presidio_analyzer.nlp_engine import SpacyNlpEngine
            from presidio_anonymizer import AnonymizerEngine

            engine = SpacyNlpEngine(models=[{"lang_code": "en", "model_name": "blank"}])
            nlp = spacy.blank("en")
            nlp.max_length = 100_000_000
            engine.nlp = {"en": nlp}  # already "loaded": no spacy.load, no download
            self._analyzer = AnalyzerEngine(nlp_engine=engine, supported_languages=["en"])
            self._anonymizer = AnonymizerEngine()
        except Exception as exc:  # noqa: BLE001 - reported in the table
            self.reason = f"not installed here ({type(exc).__name__}: {exc})"

    def whole(self, text: str) -> str:
        results = self._analyzer.analyze(text=text, language="en")
        return self._anonymizer.anonymize(text=text, analyzer_results=results).text


# --- factories ----------------------------------------------------------------------------------------------------


def _ours(attr: str) -> tuple[object | None, str | None]:
    try:
        import sluicegate
    except ImportError as exc:
        return None, f"sluicegate not importable ({exc})"
    cls = getattr(sluicegate, attr, None)
    if cls is None:
        return None, f"not available: sluicegate.{attr} is not on this branch yet"
    return cls, None


def our_redactor() -> Subject:
    cls, reason = _ours("Redactor")
    return OurFilter("sluicegate Redactor (defaults)", (lambda: cls()) if cls else None, reason)  # type: ignore[operator,misc]


def our_gate(sources: list[str]) -> Subject:
    cls, reason = _ours("SentenceGate")
    return OurFilter("sluicegate SentenceGate", (lambda: cls(sources)) if cls else None, reason)  # type: ignore[operator,misc]


def _guards(attr: str) -> tuple[object | None, str | None]:
    try:
        import llm_stream_guards
    except ImportError as exc:
        return None, f"not installed here ({exc}); run `make bench` for the peers venv"
    return getattr(llm_stream_guards, attr), None


def link_stream() -> Subject:
    cls, reason = _guards("LinkStream")
    # No allowed hosts and empty grounded sets: every link, e-mail and phone number is untrusted, i.e. removed.
    factory = (lambda: cls((), emails=(), phones=())) if cls else None  # type: ignore[operator,misc]
    return GuardsFilter("llm-stream-guards 0.2.1 LinkStream", factory, reason)


def citation_stream(sources: list[str]) -> Subject:
    cls, reason = _guards("CitationStream")
    return GuardsFilter("llm-stream-guards CitationStream", (lambda: cls(len(sources))) if cls else None, reason)  # type: ignore[operator,misc]


def amount_stream(sources: list[str]) -> Subject:
    cls, reason = _guards("AmountStream")
    if cls is None:
        return GuardsFilter("llm-stream-guards AmountStream", None, reason)
    from llm_stream_guards import numbers_in

    grounded = numbers_in(*sources)
    return GuardsFilter("llm-stream-guards AmountStream", lambda: cls(grounded), None)  # type: ignore[operator,misc]


def citation_amount_chain(sources: list[str]) -> Subject:
    cls, reason = _guards("Chain")
    if cls is None:
        return GuardsFilter("llm-stream-guards Chain(Citation, Amount)", None, reason)
    from llm_stream_guards import AmountStream, CitationStream, numbers_in

    grounded = numbers_in(*sources)
    return GuardsFilter(
        "llm-stream-guards Chain(Citation, Amount)",
        lambda: cls(CitationStream(len(sources)), AmountStream(grounded)),  # type: ignore[operator,misc]
        None,
    )
