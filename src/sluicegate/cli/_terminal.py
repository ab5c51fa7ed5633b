"""What `sluicegate replay` prints: a progress bar on long runs, then a table of counts and the records to look at.

`rich` does the drawing (the `[cli]` extra); it switches itself to plain text when the output is not a
terminal, so CI logs stay readable.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import IO, Any, TypeVar

T = TypeVar("T")

PROGRESS_FROM = 50  # records: below this a replay is over before a bar is worth drawing


def progress(items: Iterable[T], total: int, *, stream: IO[str], enabled: bool) -> Iterator[T]:
    """Yield `items`, drawing a transient bar on `stream` when it is a terminal and the run is long."""
    if not enabled or total < PROGRESS_FROM or not stream.isatty():
        yield from items
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    columns = (TextColumn("replaying"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, console=Console(file=stream), transient=True) as bar:
        task = bar.add_task("replay", total=total)
        for item in items:
            yield item
            bar.advance(task)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def print_summary(doc: dict[str, Any], *, stream: IO[str], baseline: dict[str, Any] | None = None) -> None:
    """The counts table, the false stops with their rule and shown characters, and chunk-dependent records."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    # markup off: ids, codes and file names are the user's data ("[/x]" would raise, "[red]" would restyle)
    console = Console(file=stream, highlight=False, markup=False, width=None if stream.isatty() else 120)
    t = doc["totals"]
    table = Table(title=f"sluicegate replay: {doc['file']}", title_justify="left")
    table.add_column("outcome")
    table.add_column("records", justify="right")
    table.add_row("released", str(t["released"]))
    table.add_row("stopped", str(t["stopped"]))
    for code, n in t["stopped_by_code"].items():
        table.add_row(f"  {code}", str(n))
    table.add_row("refused", str(t["refused"]))
    table.add_row("truncated", str(t["truncated"]))
    if t["errors"]:
        table.add_row("filter error", str(t["errors"]))
    table.add_row("invalid lines", str(t["invalid_lines"]))
    table.add_section()
    table.add_row("chunk-dependent", str(t["chunk_dependent"]), style="bold red" if t["chunk_dependent"] else None)
    table.add_row("labelled / as expected", f"{t['labelled']} / {t['as_expected']}")
    table.add_row("false stops", str(t["false_stops"]), style="bold red" if t["false_stops"] else None)
    table.add_row("false refusals", str(t["false_refusals"]))
    table.add_row("missed stops", str(t["missed_stops"]))
    table.add_row("missed refusals", str(t["missed_refusals"]))
    console.print(table)
    console.print(f"filter: {doc['filter']}; chunkings: {', '.join(doc['chunkings'])}")

    rows = [r for r in doc["records"] if r["verdict"] not in (None, "ok")]
    if rows:
        issues = Table(title="not as expected", title_justify="left")
        for name in ("line", "id", "lang", "expected", "got", "rule", "shown chars"):
            issues.add_column(name, justify="right" if name in ("line", "shown chars") else "left", overflow="fold")
        for r in rows:
            issues.add_row(
                str(r["line"]), str(r["id"]), r["language"], r["expected"], r["outcome"],
                ", ".join(r["codes"]) or "-", str(r["shown_chars"]),
            )  # fmt: skip
        console.print(issues)
    for r in doc["records"]:
        if r["chunk_dependent"]:
            console.print(
                Text.assemble(
                    ("chunk-dependent", "bold red"),
                    f": line {r['line']} id {r['id']!s}: outcome changes at "
                    f"chunking {', '.join(r['differs_at'])} (a bug in the filter, not in the answer)",
                )
            )
    if baseline is not None:
        new, fixed = baseline["new_false_stops"], baseline["fixed_false_stops"]
        console.print(
            f"baseline: {_plural(len(new), 'new false stop')}"
            + (f" ({', '.join(map(str, new))})" if new else "")
            + f", {_plural(len(fixed), 'fixed false stop')}, {_plural(len(baseline['changed']), 'changed outcome')}"
        )
