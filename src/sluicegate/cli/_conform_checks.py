"""What `sluicegate conform` plants and how it reads what came back: the cases, frame reading per dialect, leaks.

Sans-I/O: the command (conform.py) sends the requests; this module says what to send (`cases`) and judges the
bytes (`read_stream`, `read_whole`, `leak`). A leak is any run of at least `min_prefix` consecutive characters
of a planted value in what the client was shown: the joined text deltas (a value split across frames counts),
any other string field of any frame (Responses' `output_text.done` and `response.completed` repeat the text)
or the non-streamed body. Id-like fields (`id`, `model`, `signature`...) are not read: a target's own random
ids would otherwise match short runs of digits by chance.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

from ._upstream import Script, plant

# Fields that name or sign things rather than carry answer text.
_ID_FIELDS = frozenset(
    {
        "id",
        "item_id",
        "call_id",
        "model",
        "system_fingerprint",
        "object",
        "type",
        "role",
        "finish_reason",
        "stop_reason",
        "status",
        "service_tier",
        "signature",
        "encrypted_content",
        "event",
    }
)
# Stops a guarding target uses (besides the dialect's normal ends).
FILTER_STOPS = frozenset({"content_filter", "refusal", "incomplete", "failed"})


@dataclass(frozen=True)
class Case:
    """One planted value: `before + value + after`, split at each offset in its own stream."""

    entity: str
    value: str
    before: str
    after: str
    min_prefix: int
    kind: str = "value"  # "value", "control" (must arrive intact) or "stop" (a guarding target must stop)
    split_lines: bool = False  # stream it a line per delta (the stop case) instead of at every offset

    @property
    def text(self) -> str:
        return self.before + self.value + self.after

    def splits(self) -> Iterator[tuple[str, Script]]:
        """(label, script) for each stream: every two-part split of the value, then a character per delta."""
        if self.kind == "control":
            words = self.text.split(" ")
            yield "words", Script(tuple(w + " " for w in words[:-1]) + (words[-1],))
            return
        if self.split_lines:
            lines = self.text.splitlines(keepends=True)
            yield "lines", Script(tuple(lines))
            return
        for cut in range(1, len(self.value)):
            yield str(cut), Script(plant(self.value, [cut], before=self.before, after=self.after))
        yield "chars", Script(plant(self.value, range(len(self.value) + 1), before=self.before, after=self.after))

    def whole(self) -> Script:
        return Script((self.text,))


@cache
def _data() -> dict[str, Any]:
    raw = resources.files("sluicegate").joinpath("data/conform/values.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(raw)
    return data


def pem_body(lines: int) -> str:
    """A deterministic base64 key body, 64 characters a line (what a model dumping a key would stream)."""
    blob = "".join(base64.b64encode(hashlib.sha256(str(i).encode()).digest()).decode() for i in range(lines))
    return "\n".join(blob[i : i + 64] for i in range(0, len(blob), 64))


def cases(min_prefix: int | None = None) -> list[Case]:
    """The planted values, the control text and the stop case, from data/conform/values.json."""
    data = _data()
    n = min_prefix or int(data["min_prefix"])
    out = [Case(v["entity"], v["value"], v["before"], v["after"], n) for v in data["values"]]
    out.append(Case("CONTROL", data["control"], "", "", n, kind="control"))
    stop = data["stop"]
    body = pem_body(int(stop["lines"]))
    out.append(Case(stop["entity"], body, stop["before"], stop["after"], max(n, int(stop["min_prefix"])), "stop", True))
    return out


# -- reading what came back -------------------------------------------------------------------------------------


@dataclass
class Seen:
    """One response as the client got it: the shown text, other strings, how it ended and what came after."""

    text: str = ""
    strings: list[str] = field(default_factory=list)  # every other string field of every frame
    frames: int = 0
    stop: str | None = None  # the dialect's stop reason (finish_reason, stop_reason, terminal event)
    after_stop: int = 0  # frames carrying anything but the dialect's closing frames after the stop
    after_stop_text: str = ""
    error: str | None = None  # an in-stream error event, an HTTP error, a transport failure


def _strings(value: Any, skip: Iterable[str] = ()) -> Iterator[str]:
    """Every string in a JSON value, except under id-like keys (and the given text keys, read separately)."""
    skipped = _ID_FIELDS | set(skip)
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for k, v in value.items():
            if k not in skipped:
                yield from _strings(v, skip)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v, skip)


def read_stream(api: str, events: Iterable[tuple[str, str]]) -> Seen:
    """Judge a streamed response given its SSE events as (event name, data)."""
    seen = Seen()
    ended = False  # past the point where nothing but closing frames may come
    closed = False  # past the very last frame the dialect allows
    for event, data in events:
        seen.frames += 1
        if api == "chat" and data.strip() == "[DONE]":
            if closed:
                seen.after_stop += 1
            closed = True
            continue
        try:
            payload = json.loads(data)
        except ValueError:
            seen.strings.append(data)
            seen.error = seen.error or "a frame that is not JSON"
            continue
        if not isinstance(payload, Mapping):
            continue
        text, stop, closing, terminal = _frame(api, event, payload)
        seen.strings.extend(_strings(payload, ("content", "delta", "text")) if text else _strings(payload))
        if isinstance(payload.get("error"), Mapping) or event == "error" or payload.get("type") == "error":
            seen.error = seen.error or "error event"
        if ended and not (closing and not text):
            seen.after_stop += 1
            seen.after_stop_text += text
            continue
        seen.text += text
        if stop is not None:
            seen.stop = stop
            ended = True
        if terminal:
            ended = closed = True
    return seen


def _frame(api: str, event: str, p: Mapping[str, Any]) -> tuple[str, str | None, bool, bool]:
    """(text shown, stop reason, is a closing frame allowed after the stop, ends everything)."""
    kind = str(p.get("type", event or ""))
    if api == "chat":
        text, stop = "", None
        for choice in p.get("choices") or []:
            if isinstance(choice, Mapping):
                delta = choice.get("delta") or {}
                text += str(delta.get("content") or "") if isinstance(delta, Mapping) else ""
                stop = choice.get("finish_reason") or stop
        usage_only = not p.get("choices") and "usage" in p
        return text, stop, usage_only, bool(p.get("error"))
    if api == "responses":
        if kind == "response.output_text.delta":
            return str(p.get("delta") or ""), None, False, False
        if kind in ("response.completed", "response.incomplete", "response.failed", "error"):
            return "", kind.removeprefix("response."), False, True
        return "", None, False, False
    # anthropic
    if kind == "content_block_delta":
        delta = p.get("delta") or {}
        if isinstance(delta, Mapping) and delta.get("type") == "text_delta":
            return str(delta.get("text") or ""), None, False, False
        return "", None, False, False
    if kind == "message_delta":
        delta = p.get("delta") or {}
        stop = delta.get("stop_reason") if isinstance(delta, Mapping) else None
        return "", stop, False, False
    if kind == "message_stop":
        return "", None, True, True
    if kind == "ping":
        return "", None, True, False
    if kind == "error":
        return "", "error", False, True
    return "", None, False, False


def read_whole(api: str, body: Any) -> Seen:
    """Judge a non-streamed response body."""
    seen = Seen(frames=1)
    if not isinstance(body, Mapping):
        seen.error = "the body is not a JSON object"
        return seen
    if body.get("error") or body.get("type") == "error":
        seen.error = "error body"
    if api == "chat":
        for choice in body.get("choices") or []:
            message = choice.get("message") or {} if isinstance(choice, Mapping) else {}
            seen.text += str(message.get("content") or "")
            seen.stop = choice.get("finish_reason") or seen.stop
    elif api == "responses":
        for item in body.get("output") or []:
            for part in (item.get("content") or []) if isinstance(item, Mapping) else []:
                if isinstance(part, Mapping) and part.get("type") == "output_text":
                    seen.text += str(part.get("text") or "")
        seen.stop = str(body.get("status"))
    else:
        for block in body.get("content") or []:
            if isinstance(block, Mapping) and block.get("type") == "text":
                seen.text += str(block.get("text") or "")
        seen.stop = body.get("stop_reason")
    seen.strings.extend(_strings(body))
    return seen


def longest_fragment(value: str, shown: Iterable[str]) -> tuple[int, int]:
    """(longest run of `value` found in any of `shown`, longest prefix of `value` found): in characters."""
    best = prefix = 0
    for t in (s for s in shown if s):
        prefix = max(prefix, _longest_at(value, 0, t, prefix))
        for start in range(len(value) - best):
            best = max(best, _longest_at(value, start, t, best))
    return best, prefix


def _longest_at(value: str, start: int, text: str, floor: int) -> int:
    """The longest run of `value` from `start` that occurs in `text`, if longer than `floor` (else `floor`).
    Present runs from one start are closed under shortening, so a binary search finds the longest."""
    if start + floor >= len(value) or value[start : start + floor + 1] not in text:
        return floor
    lo, hi = floor + 1, len(value) - start  # value[start:start+lo] is in text
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if value[start : start + mid] in text:
            lo = mid
        else:
            hi = mid - 1
    return lo


def leak(case: Case, seen: Seen) -> tuple[int, int]:
    """(longest fragment, longest prefix) of the case's value in what `seen` showed, text and other strings."""
    return longest_fragment(case.value, [seen.text, seen.after_stop_text, *seen.strings])
