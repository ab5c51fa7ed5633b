"""Server-side tool blocks (web search, code execution, MCP...) passed to the client as the upstream sent them.

The provider ran these tools itself: nothing for the client to run, nothing the tool-call path validates. The
readers buffer them as `Kind.OTHER` and drop them; this module takes them from the same upstream events and
hands them to the encoder whole (one block's or item's events from its start to its stop), in the upstream's
order relative to the text around them.

The order needs care because the text filter holds text back (the redactor its last word, the gate its
unfinished sentence). A block is therefore a *mark* at a position in the raw text stream (the characters fed to
the filter before it began); `MarkedFilter` wraps the filter and records, for each release, which raw span it
settled. A mark is written once the filter has settled all the text before it: between the two halves of the
release that crosses it when that release begins with the raw text up to the mark (no replacement straddles
it), else right after that release. The same mechanism carries Anthropic's text-block boundaries (so text
blocks mirror the upstream's, each with its own citations) and `citations_delta`s. Marks depend only on the
upstream events, so the frames stay the same for every cut of the upstream bytes.

A citation's `cited_text` is the one place a web page's own words reach the client in the clear (search
results are encrypted), next to the answer's text: it passes a fresh redactor, whole (`quote_redactor`).
"""

from __future__ import annotations

import contextlib
import json
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .._stream import Step, StreamFilter

#: Anthropic block types the tool-call path or the text encoder own; every other type is a server block.
ANTHROPIC_OWN = frozenset({"text", "tool_use", "thinking", "redacted_thinking"})
#: Responses item types the tool-call path or the text encoder own.
RESPONSES_OWN = frozenset({"message", "function_call", "reasoning"})


@dataclass(frozen=True)
class Mark:
    """Something to write once the text before `at` (raw characters fed to the filter) is settled.

    `kind`: "block" (a server block's or item's events, start to stop), "boundary" (an upstream text block or
    message item begins; `data` says whether it carries citations), "citation" (one Anthropic citation),
    "final" (the server items as Responses' `response.completed` lists them), "annotations" (a finished
    Responses message's text and its `url_citation`/`file_citation` annotations), "reasoning" (reasoning ops the
    relay shows, `_reasoning.Op`s, held behind the marks before them)."""

    at: int
    kind: str
    data: Any


@dataclass(frozen=True)
class Release:
    """One non-empty release of the filter: its text, and the raw span [start, end) it settled."""

    text: str
    start: int
    end: int
    raw: str


class MarkedFilter:
    """Wraps the text filter: counts the raw characters fed and records what each release settled.

    Behaves as the filter it wraps (same steps, same stop); `held` is the filter's own count of characters
    received and not yet released or dropped (0 for a filter that does not say: marks are then written at
    once, after the text released so far)."""

    def __init__(self, inner: StreamFilter) -> None:
        self.inner = inner
        self.fed = 0
        self._raw = ""  # raw text from `_base` on (what is not settled yet, and the last release's span)
        self._base = 0
        self._flushed = False
        self.releases: deque[Release] = deque()

    @property
    def stopped(self) -> bool:
        return self.inner.stopped

    @property
    def held(self) -> int:
        return 0 if self._flushed else int(getattr(self.inner, "held", 0) or 0)

    @property
    def settled(self) -> int:
        """Raw characters the filter has released or dropped."""
        return max(self._base, self.fed - self.held)

    def feed(self, piece: str) -> Step:
        start = self.settled
        self.fed += len(piece)
        self._raw += piece
        return self._record(self.inner.feed(piece), start)

    def flush(self, *, truncated: bool = False) -> Step:
        start = self.settled
        step = self.inner.flush(truncated=truncated)
        self._flushed = True
        return self._record(step, start)

    def _record(self, step: Step, start: int) -> Step:
        end = self.settled
        if step.text:
            self.releases.append(Release(step.text, start, end, self._raw[start - self._base : end - self._base]))
        self._raw = self._raw[end - self._base :]
        self._base = end
        return step

    def take(self, text: str) -> Release | None:
        """The record of the release shown as `text` (releases are shown in order, one `Show` each)."""
        while self.releases:
            release = self.releases.popleft()
            if release.text == text:
                return release
        return None


def split_release(release: Release | None, text: str, marks: deque[Mark]) -> list[str | Mark]:
    """`text` with the due marks in place: before it those settled already, inside it those its raw span
    crosses (where its text begins with the raw text up to the mark), after it those it reaches."""
    out: list[str | Mark] = []
    if release is None:
        return [text]
    rest, consumed = text, release.start
    while marks and marks[0].at <= release.end:
        mark = marks.popleft()
        if mark.at > consumed:
            prefix = release.raw[consumed - release.start : mark.at - release.start]
            if rest.startswith(prefix):
                if prefix:
                    out.append(prefix)
                rest, consumed = rest[len(prefix) :], mark.at
            else:  # a replacement straddles the mark: the rest of this release first, the mark after it
                if rest:
                    out.append(rest)
                rest, consumed = "", release.end
        out.append(mark)
    if rest:
        out.append(rest)
    return out


class AnthropicBlocks:
    """Collects Anthropic server blocks (whole, start to stop), text-block boundaries and citations."""

    def __init__(self) -> None:
        self._open: dict[int, list[dict[str, Any]]] = {}
        self._types: dict[int, str] = {}

    def observe(self, p: Mapping[str, Any], at: int) -> list[Mark]:
        try:
            return self._observe(p, at)
        except (AttributeError, TypeError):  # a malformed event: the reader fails the generation on it
            return []

    def _observe(self, p: Mapping[str, Any], at: int) -> list[Mark]:
        kind, index = p.get("type"), p.get("index")
        if kind == "content_block_start" and isinstance(index, int):
            block = p.get("content_block") or {}
            btype = str(block.get("type"))
            self._types[index] = btype
            if btype == "text":
                return [Mark(at, "boundary", "citations" in block)]
            if btype not in ANTHROPIC_OWN:
                self._open[index] = [dict(p)]
            return []
        if kind == "content_block_delta" and isinstance(index, int):
            if index in self._open:
                self._open[index].append(dict(p))
                return []
            delta = p.get("delta") or {}
            if self._types.get(index) == "text" and delta.get("type") == "citations_delta":
                citation = delta.get("citation")
                return [Mark(at, "citation", citation)] if isinstance(citation, Mapping) else []
            return []
        if kind == "content_block_stop" and index in self._open:
            return [Mark(at, "block", [*self._open.pop(index), dict(p)])]
        return []


class ResponsesItems:
    """Collects Responses server items (`output_item.added` to `.done`, with their own progress events) and
    message-item boundaries."""

    def __init__(self) -> None:
        self._open: dict[int, list[dict[str, Any]]] = {}
        self._ids: dict[str, int] = {}
        self._seen: set[int] = set()  # sequence numbers: a replayed event is passed once (the reader drops it too)

    def observe(self, p: Mapping[str, Any], at: int) -> list[Mark]:
        seq = p.get("sequence_number")
        if isinstance(seq, int):
            if seq in self._seen:
                return []
            self._seen.add(seq)
        try:
            return self._observe(p, at)
        except (AttributeError, TypeError):
            return []

    def _observe(self, p: Mapping[str, Any], at: int) -> list[Mark]:
        kind = p.get("type")
        index = p.get("output_index")
        if kind == "response.completed":  # its output is the items' last copy: the one the SDK hands out
            output = (p.get("response") or {}).get("output")
            finals = [i for i in output or [] if isinstance(i, Mapping) and is_server_item(i)]
            return [Mark(at, "final", finals)] if finals else []
        if kind == "response.output_item.done" and (p.get("item") or {}).get("type") == "message":
            parts = [c for c in p["item"].get("content") or [] if isinstance(c, Mapping)]
            texts = [c for c in parts if c.get("type") == "output_text"]
            notes = [a for c in texts for a in c.get("annotations") or [] if isinstance(a, Mapping)]
            if len(texts) == 1 and notes and isinstance(texts[0].get("text"), str):
                return [Mark(at, "annotations", (texts[0]["text"], notes))]
            return []
        if kind == "response.output_item.added":
            item = p.get("item") or {}
            if item.get("type") == "message":
                return [Mark(at, "boundary", False)]
            if isinstance(index, int) and is_server_item(item):
                self._open[index] = [dict(p)]
                if isinstance(item.get("id"), str):
                    self._ids[item["id"]] = index
            return []
        if not isinstance(index, int) or index not in self._open:
            index = self._ids.get(p.get("item_id"), -1)  # type: ignore[arg-type]
        if index not in self._open:
            return []
        if kind == "response.output_item.done":
            return [Mark(at, "block", [*self._open.pop(index), dict(p)])]
        self._open[index].append(dict(p))  # the item's own progress: searching, code deltas, partial images...
        return []


def is_server_item(item: Mapping[str, Any]) -> bool:
    """An output item the provider ran itself (the reader buffers it as `other`): not the client's to run."""
    from ..lifecycle._readers.openai_responses import CLIENT_CALLS, HOSTED_ITEMS, _client_call

    kind = item.get("type")
    if kind in RESPONSES_OWN:
        return False
    return kind in HOSTED_ITEMS or (kind in CLIENT_CALLS and not _client_call(item))


def anthropic_block(events: list[dict[str, Any]]) -> dict[str, Any]:
    """The block the SDK's `MessageStream` accumulates from a server block's events (for the message body)."""
    block: dict[str, Any] = dict(events[0].get("content_block") or {})  # shallow: values are replaced, not mutated
    if isinstance(block.get("citations"), list):
        block["citations"] = list(block["citations"])
    buffer = ""
    for event in events[1:]:
        delta = event.get("delta") or {}
        dtype = delta.get("type")
        if dtype == "input_json_delta":
            buffer += str(delta.get("partial_json") or "")
        elif dtype == "text_delta":
            block["text"] = str(block.get("text") or "") + str(delta.get("text") or "")
        elif dtype == "citations_delta":
            block.setdefault("citations", []).append(delta.get("citation"))
        else:  # a delta this module does not know (`compaction_delta`...): strings extend, the rest is set
            for name, value in delta.items():
                if name == "type":
                    continue
                before = block.get(name)
                block[name] = before + value if isinstance(before, str) and isinstance(value, str) else value
    if buffer:
        with contextlib.suppress(ValueError):  # unparsable: the start's input stays (never invented)
            block["input"] = json.loads(buffer)
    return block


def quote_redactor(
    *,
    redact: bool = True,
    redactor_options: Mapping[str, Any] | None = None,
    redactor: Callable[[], StreamFilter] | None = None,
) -> Callable[[str], str]:
    """What a citation's quoted text becomes before the client sees it: the whole string through a fresh
    `Redactor` with the operator's options (`redact=False`: unchanged, as the answer's text). `redactor`: a
    maker of fresh redactors (`Redactor.factory(...)`, the detectors compiled once per server) in place of
    `redactor_options`."""
    if not redact:
        return lambda text: text
    options = dict(redactor_options or {})
    seen: dict[str, str] = {}  # the same passage is often cited twice; a redactor costs about 0.2 ms to build

    def run(text: str) -> str:
        if not text or text in seen:
            return seen.get(text, text)
        if redactor is not None:
            fresh: StreamFilter = redactor()
        else:
            from ..redaction import Redactor

            fresh = Redactor(**options)
        first = fresh.feed(text)
        # An unsettled value (a key block that never ends): nothing of it is shown, as in the answer's text.
        out = first.text + ("" if first.stopped else fresh.flush().text)
        if len(seen) < 256:
            seen[text] = out
        return out

    return run


def redacted_citation(citation: Mapping[str, Any], quotes: Callable[[str], str]) -> dict[str, Any]:
    out = dict(citation)
    if isinstance(out.get("cited_text"), str):
        out["cited_text"] = quotes(out["cited_text"])
    return out
