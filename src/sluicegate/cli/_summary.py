"""The replay report as data: per-record rows, whole counts, the false stops, and the diff against a baseline.

Everything here is plain JSON-ready dicts, so `--json`, the terminal table and the HTML report all read the
same numbers. Counts are integers (no rates): a replay counts a gate's errors on one file of answers, it does
not estimate how often a live model invents.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .._errors import SluicegateError
from ..redaction import redact
from ._records import LineError
from ._replayer import ReplayResult

FORMAT_VERSION = 1


class BaselineError(SluicegateError, ValueError):
    """The `--baseline` file cannot be read as a previous `--json` report."""


def _detail(violation: Any) -> dict[str, str]:
    code = getattr(violation, "code", type(violation).__name__)
    detail = getattr(violation, "detail", str(violation))
    # Server-side details may quote the blocked text: secrets in it are redacted before it reaches a report.
    return {"code": str(code), "detail": redact(str(detail))}


def record_row(result: ReplayResult) -> dict[str, Any]:
    """One record's line of the report. `server_side` holds what the reader never saw."""
    rec, main = result.record, result.main
    row: dict[str, Any] = {
        "id": rec.id,
        "line": rec.line,
        "language": rec.language,
        "outcome": result.outcome,
        "codes": list(result.codes),
        "shown_chars": result.shown_chars,
        "chunk_dependent": result.chunk_dependent,
        "differs_at": list(result.differs),
        "truncated": rec.truncated,
        "expected": rec.expected,
        "verdict": result.verdict,
        "pieces": len(rec.chunks),
        "answer_chars": len(rec.answer),
        "shown": main.released,
        "notice": result.notice,
    }
    if main.error is not None:
        row["error"] = redact(main.error)  # an exception message can quote the text it was fed
    row["server_side"] = {
        "blocked_sentence": redact(result.blocked_sentence) if result.blocked_sentence is not None else None,
        "violations": [_detail(v) for v in main.violations],
    }
    if result.chunk_dependent:
        row["chunkings"] = {
            run.label: {
                "outcome": run.reason,
                "shown_chars": len(run.released),
                "events": [repr(e) for e in run.events],
            }
            for run in result.runs
        }
    return row


def totals(results: Sequence[ReplayResult], errors: Sequence[LineError]) -> dict[str, Any]:
    outcomes = Counter(r.outcome for r in results)
    by_code: Counter[str] = Counter(c for r in results if r.outcome == "stopped" for c in r.codes)
    by_language: dict[str, Counter[str]] = {}
    for r in results:
        by_language.setdefault(r.record.language, Counter())[r.outcome] += 1
    verdicts = Counter(r.verdict for r in results if r.verdict is not None)
    shown_before_stop = [r.shown_chars for r in results if r.outcome == "stopped"]
    return {
        "records": len(results),
        "invalid_lines": len(errors),
        "released": outcomes["released"],
        "stopped": outcomes["stopped"],
        "refused": outcomes["refused"],
        "truncated": outcomes["truncated"],
        "errors": outcomes["error"],
        "stopped_by_code": dict(sorted(by_code.items())),
        "by_language": {lang: dict(sorted(c.items())) for lang, c in sorted(by_language.items())},
        "chunk_dependent": sum(r.chunk_dependent for r in results),
        "labelled": sum(verdicts.values()),
        "as_expected": verdicts["ok"],
        "false_stops": verdicts["false_stop"],
        "false_refusals": verdicts["false_refusal"],
        "missed_stops": verdicts["missed_stop"],
        "missed_refusals": verdicts["missed_refusal"],
        "shown_chars_before_stop_max": max(shown_before_stop, default=0),
    }


def report(
    results: Sequence[ReplayResult],
    errors: Sequence[LineError],
    *,
    source: str,
    filter_name: str,
    chunkings: Sequence[str],
) -> dict[str, Any]:
    """The whole `--json` document."""
    return {
        "format": FORMAT_VERSION,
        "file": source,
        "filter": filter_name,
        "chunkings": ["recorded", *chunkings],
        "records": [record_row(r) for r in results],
        "invalid": [{"line": e.line, "id": e.id, "error": e.message} for e in errors],
        "totals": totals(results, errors),
        "false_stops": [r.record.id for r in results if r.verdict == "false_stop"],
        "chunk_dependent": [r.record.id for r in results if r.chunk_dependent],
    }


def load_baseline(path: str) -> dict[str, Any]:
    """A previous `--json` report. Raises `BaselineError` with a one-line reason."""
    try:
        data = json.loads(Path(path).read_text("utf-8"))
    except OSError as exc:
        raise BaselineError(f"cannot read baseline {path}: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BaselineError(f"baseline {path} is not a JSON report: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("false_stops"), list):
        raise BaselineError(f"baseline {path} is not a `sluicegate replay --json` report (no 'false_stops' list)")
    return data


def compare(current: dict[str, Any], baseline: dict[str, Any]) -> dict[str, Any]:
    """New and fixed false stops, and every record whose outcome changed, by id."""
    before = {str(i) for i in baseline["false_stops"]}
    now = {str(i) for i in current["false_stops"]}
    old_rows = {str(r.get("id")): r for r in baseline.get("records", []) if isinstance(r, dict)}
    changed = []
    for row in current["records"]:
        old = old_rows.get(str(row["id"]))
        if old is not None and (old.get("outcome"), old.get("codes")) != (row["outcome"], row["codes"]):
            changed.append({"id": row["id"], "was": old.get("outcome"), "now": row["outcome"], "codes": row["codes"]})
    return {
        "new_false_stops": [i for i in current["false_stops"] if str(i) not in before],
        "fixed_false_stops": [i for i in baseline["false_stops"] if str(i) not in now],
        "changed": changed,
    }
