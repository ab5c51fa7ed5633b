"""Read recorded answers, one JSON object a line, into `ReplayRecord`s; a bad line becomes a `LineError`, never a stop.

Why tolerant: a replay file is production data, and one malformed line must not hide the other thousand. Each
problem is reported with its line number (counted from 1) and the run goes on. Why strict on each line: a
record with a missing field or an unknown language cannot be replayed faithfully, so it is reported, never
guessed (an answer replayed through the English lists would count false stops that do not exist).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from .._errors import SluicegateError
from .._gate.person import SUPPORTED_LANGUAGES

EXPECTED = ("release", "stop", "refuse")

# For `--format sse`: turns a record's recorded SSE reads into (text pieces, cut short by the provider?).
SSEExtractor = Callable[[Mapping[str, Any]], "tuple[list[str], bool]"]


class RecordError(SluicegateError, ValueError):
    """A record that cannot be replayed; the message says which field and why."""


@dataclass(frozen=True)
class ReplayRecord:
    """One recorded answer, ready to replay. `chunks` is the recorded chunking (one piece for a whole `answer`)."""

    line: int
    id: str | int
    question: str
    language: str
    sources: tuple[str, ...]
    chunks: tuple[str, ...]
    expected: str | None = None
    truncated: bool = False
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def answer(self) -> str:
        return "".join(self.chunks)


@dataclass(frozen=True)
class LineError:
    """A line that was not replayed, and why."""

    line: int
    message: str
    id: str | int | None = None


def language_code(language: object) -> str:
    """The gate's reading of a language tag ("fr-CA" is French); an unknown one is a `RecordError`."""
    if not isinstance(language, str) or not language.strip():
        raise RecordError(f"'language' must be a language code such as \"en\", got {language!r}")
    code = language.strip().replace("_", "-").split("-", 1)[0].casefold()
    if code not in SUPPORTED_LANGUAGES:
        raise RecordError(f"unknown language {language!r} (supported: {', '.join(SUPPORTED_LANGUAGES)})")
    return code


def _string_list(obj: Mapping[str, Any], key: str) -> list[str]:
    value = obj[key]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise RecordError(f"'{key}' must be a list of strings")
    return value


def _text_chunks(obj: Mapping[str, Any]) -> tuple[list[str], bool]:
    """The recorded chunking of a JSONL record: `chunks`, or `answer` as one piece (both: they must agree)."""
    has_answer, has_chunks = "answer" in obj, "chunks" in obj
    if not has_answer and not has_chunks:
        raise RecordError("missing field 'answer' (or 'chunks')")
    if has_answer and not isinstance(obj["answer"], str):
        raise RecordError("'answer' must be a string")
    if has_chunks:
        chunks = _string_list(obj, "chunks")
        if has_answer and "".join(chunks) != obj["answer"]:
            raise RecordError("'chunks' do not concatenate to 'answer'")
        return chunks, False
    return [obj["answer"]], False


def parse_record(obj: object, line: int, extract: SSEExtractor | None = None) -> ReplayRecord:
    """Validate one decoded line. `extract` reads the text pieces from recorded SSE (`--format sse`)."""
    if not isinstance(obj, dict):
        raise RecordError(f"a record must be a JSON object, got {type(obj).__name__}")
    for key in ("id", "question", "language", "sources"):
        if key not in obj:
            raise RecordError(f"missing field {key!r}")
    rid = obj["id"]
    if isinstance(rid, bool) or not isinstance(rid, (str, int)) or rid == "":
        raise RecordError("'id' must be a non-empty string or an integer")
    if not isinstance(obj["question"], str):
        raise RecordError("'question' must be a string")
    language = language_code(obj["language"])
    sources = _string_list(obj, "sources")
    expected = obj.get("expected")
    if expected is not None and expected not in EXPECTED:
        raise RecordError(f"'expected' must be one of {', '.join(EXPECTED)}, got {expected!r}")
    truncated = obj.get("truncated", False)
    if not isinstance(truncated, bool):
        raise RecordError("'truncated' must be true or false")
    chunks, cut = extract(obj) if extract is not None else _text_chunks(obj)
    return ReplayRecord(
        line=line,
        id=rid,
        question=obj["question"],
        language=language,
        sources=tuple(sources),
        chunks=tuple(chunks),
        expected=expected,
        truncated=truncated or cut,
        raw=obj,
    )


def read_records(
    lines: Iterable[str | bytes], extract: SSEExtractor | None = None
) -> Iterator[ReplayRecord | LineError]:
    """Records and line errors in file order. Blank lines are skipped; a repeated id is an error on its line.

    Lines may be bytes (read from a file in binary): a line that is not UTF-8 is an error on that line only."""
    seen: dict[str, int] = {}
    for number, line in enumerate(lines, start=1):
        if isinstance(line, bytes):
            try:
                text = line.decode("utf-8")
            except UnicodeDecodeError as exc:
                yield LineError(number, f"not UTF-8 (byte {exc.start + 1} of the line)")
                continue
        else:
            text = line
        if number == 1:
            text = text.removeprefix("\ufeff")  # a BOM some editors write: not part of the first record
        if not text.strip():
            continue
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            yield LineError(number, f"invalid JSON: {exc.msg} (column {exc.colno})")
            continue
        except (ValueError, RecursionError) as exc:  # a number over 4300 digits, nesting deeper than the stack
            yield LineError(number, f"invalid JSON: {type(exc).__name__}: {str(exc)[:120]}")
            continue
        rid = obj.get("id") if isinstance(obj, dict) else None
        rid = rid if isinstance(rid, (str, int)) and not isinstance(rid, bool) else None
        try:
            record = parse_record(obj, number, extract)
        except RecordError as exc:
            yield LineError(number, str(exc), rid)
            continue
        key = str(record.id)
        if key in seen:
            yield LineError(number, f"id {record.id!r} already used on line {seen[key]}", record.id)
            continue
        seen[key] = number
        yield record
