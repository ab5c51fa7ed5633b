"""`sluicegate conform URL`: does a streaming endpoint leak a value split across frames? A wire-level check.

The command starts a scripted upstream (sluicegate.cli._upstream) on `--serve-upstream PORT` and prints its URL:
configure the target (a guarding proxy, a gateway, a framework's server) to forward to it, then the command
sends the target prompts whose scripted answers plant values our Redactor redacts (an email, a phone number,
API keys, an IBAN, a card number) split at every offset, in the OpenAI Chat Completions dialect (`--dialect
responses` / `anthropic` / `all` for the others). The upstream finds each script by a `[replay:KEY]` mark in
the prompt, so a gateway that renames the model still reaches the right one. Per value it reports whether any
frame showed a run of at least N characters of it (N = `--min-prefix`, 4 unless set; 12 for the long key
block), whether the streamed text equals the non-streamed one and is the same at every split, and whether
anything arrived after a stop. Exit 1 on any leak or anything after a stop, 2 when the target could not be
checked (errors only), else 0. `URL` = `upstream` checks the scripted upstream itself (a baseline that leaks).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any
from urllib.parse import urlsplit

from ._conform_checks import Case, Seen, cases, leak, read_stream, read_whole
from ._upstream import APIS, Pace, UpstreamApp

PATHS = {"chat": "/chat/completions", "responses": "/responses", "anthropic": "/messages"}
KEY_PREFIX = "conform"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("url", help="the target's base URL (its /v1 is added unless given), or 'upstream'")
    parser.add_argument("--serve-upstream", type=int, default=0, metavar="PORT", help="port of the scripted upstream")
    parser.add_argument("--upstream-host", default="127.0.0.1", help="address the scripted upstream binds")
    parser.add_argument("--serve-only", action="store_true", help="only serve the scripted upstream until Ctrl-C")
    parser.add_argument("--dialect", choices=[*APIS, "all"], action="append", help="chat (default), responses, …")
    parser.add_argument("--model", default="conform", help="the model name sent to the target")
    parser.add_argument("--api-key", default="conform", help="sent as Authorization: Bearer and x-api-key")
    parser.add_argument("--header", action="append", default=[], metavar="NAME:VALUE", help="an extra header")
    parser.add_argument("--extra", default="{}", metavar="JSON", help="merged into every request body")
    parser.add_argument("--min-prefix", type=int, default=None, metavar="N", help="shortest run counted as a leak")
    parser.add_argument("--interval", type=float, default=0.005, help="seconds between upstream SSE events")
    parser.add_argument("--concurrency", type=int, default=8, help="requests in flight at once")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per request")
    parser.add_argument("--wait", type=float, default=10.0, help="seconds to wait for the target to listen")
    parser.add_argument("--quick", action="store_true", help="a few offsets per value instead of every one")
    parser.add_argument("--strict", action="store_true", help="also fail on stream/non-stream differences")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")


@dataclass
class Row:
    """One value in one dialect: every split's stream and the non-streamed answer, judged."""

    dialect: str
    entity: str
    kind: str
    value_chars: int
    min_prefix: int
    streams: int = 0
    leaked_streams: int = 0
    longest_run: int = 0
    longest_prefix: int = 0
    leaking_splits: list[str] = field(default_factory=list)
    leaked_sample: str = ""
    whole_run: int = 0
    after_stop: int = 0
    stopped: int = 0
    consistent: bool = True  # every split showed the same text
    matches_whole: bool = True  # ... and it is the non-streamed text
    intact: bool | None = None  # control: the scripted text arrived unchanged
    errors: int = 0
    error_sample: str = ""

    @property
    def leaked(self) -> bool:
        if self.kind == "control":  # text meant to arrive: what it shows is `intact`
            return False
        return self.longest_run >= self.min_prefix or self.whole_run >= self.min_prefix

    @property
    def verdict(self) -> str:
        if self.leaked:
            return "LEAK"
        if self.after_stop:
            return "AFTER STOP"
        if self.errors and self.errors >= self.streams + 1:
            return "ERROR"
        if self.intact is False:
            return "ALTERED"
        if not (self.consistent and self.matches_whole):
            return "DIFFERS"
        return "ok"


def run(args: argparse.Namespace) -> int:
    try:
        import httpx  # noqa: F401
        import uvicorn
    except ModuleNotFoundError as exc:
        print(f"sluicegate conform needs {exc.name}: pip install 'sluicegate[conform]'", file=sys.stderr)
        return 2
    try:
        extra = json.loads(args.extra)
        headers = dict(_header(h) for h in args.header)
    except ValueError as exc:
        print(f"sluicegate conform: {exc}", file=sys.stderr)
        return 2
    if not isinstance(extra, dict):
        print("sluicegate conform: --extra must be a JSON object", file=sys.stderr)
        return 2
    all_cases = cases(args.min_prefix)
    app = UpstreamApp(Pace(interval=max(0.0, args.interval)))
    for case in all_cases:
        for label, script in _splits(case, args.quick):
            app.add(_key(case, label), script)
        app.add(_key(case, "whole"), case.whole())
    server = uvicorn.Server(
        uvicorn.Config(
            app,
            host=args.upstream_host,
            port=args.serve_upstream,
            log_level="warning",
            lifespan="off",
            access_log=False,
        )
    )
    thread = threading.Thread(target=server.run, name="conform-upstream", daemon=True)
    thread.start()
    try:
        upstream = _started(server, args.upstream_host)
        print(f"scripted upstream: {upstream}/v1  (configure it as the target's upstream)", file=sys.stderr, flush=True)
        if args.serve_only:
            return _serve_forever(thread)
        target = upstream if args.url == "upstream" else args.url
        if not _wait_listening(target, args.wait):
            print(f"sluicegate conform: nothing listens at {target}", file=sys.stderr)
            return 2
        dialects = (
            list(APIS) if "all" in (args.dialect or []) else sorted(set(args.dialect or ["chat"]), key=APIS.index)
        )
        rows = asyncio.run(_check(target, dialects, all_cases, args, headers, extra))
    finally:
        server.should_exit = True
        thread.join(timeout=10)
    report = _report(target, upstream, rows, args)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        _print_table(report, rows)
    return int(report["exit"])


def _header(raw: str) -> tuple[str, str]:
    name, sep, value = raw.partition(":")
    if not sep or not name.strip():
        raise ValueError(f"--header wants NAME:VALUE, got {raw!r}")
    return name.strip(), value.strip()


def _key(case: Case, label: str) -> str:
    return f"{KEY_PREFIX}/{case.entity}/{label}"


def _splits(case: Case, quick: bool) -> list[tuple[str, Any]]:
    splits = list(case.splits())
    if not quick or len(splits) <= 6:
        return splits
    picks = {0, 1, len(splits) // 2, len(splits) - 3, len(splits) - 2, len(splits) - 1}
    return [s for i, s in enumerate(splits) if i in picks]


def _started(server: Any, host: str, timeout: float = 10.0) -> str:
    deadline = time.monotonic() + timeout
    while not server.started:
        if time.monotonic() > deadline:
            raise RuntimeError("the scripted upstream did not start")
        time.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    return f"http://{host}:{port}"


def _serve_forever(thread: threading.Thread) -> int:
    try:
        while thread.is_alive():
            thread.join(timeout=0.5)
    except KeyboardInterrupt:
        pass
    return 0


def _wait_listening(url: str, timeout: float) -> bool:
    parts = urlsplit(url if "://" in url else f"http://{url}")
    port = parts.port or (443 if parts.scheme == "https" else 80)
    deadline = time.monotonic() + timeout
    while True:
        try:
            with socket.create_connection((parts.hostname or "127.0.0.1", port), timeout=0.5):
                return True
        except OSError:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.1)


def _base(url: str) -> str:
    base = url.rstrip("/")
    return base if base.endswith("/v1") else base + "/v1"


def _body(dialect: str, key: str, model: str, stream: bool, extra: dict[str, Any]) -> dict[str, Any]:
    prompt = f"sluicegate conform check: answer as scripted [replay:{key}]"
    body: dict[str, Any]
    if dialect == "chat":
        body = {"model": model, "messages": [{"role": "user", "content": prompt}]}
        if stream:
            body["stream_options"] = {"include_usage": True}
    elif dialect == "responses":
        body = {"model": model, "input": prompt}
    else:
        body = {"model": model, "max_tokens": 1024, "messages": [{"role": "user", "content": prompt}]}
    return {**body, "stream": stream, **extra}


async def _check(
    target: str,
    dialects: Sequence[str],
    all_cases: Sequence[Case],
    args: argparse.Namespace,
    headers: dict[str, str],
    extra: dict[str, Any],
) -> list[Row]:
    import httpx

    from ..sse import SSEParser

    sent_headers = {
        "authorization": f"Bearer {args.api_key}",
        "x-api-key": args.api_key,
        "anthropic-version": "2023-06-01",
        **headers,
    }
    limits = httpx.Limits(max_connections=args.concurrency, max_keepalive_connections=args.concurrency)
    gate = asyncio.Semaphore(max(1, args.concurrency))
    base = _base(target)

    async with httpx.AsyncClient(timeout=args.timeout, limits=limits, headers=sent_headers) as client:

        async def stream(dialect: str, key: str) -> Seen:
            async with gate:
                events: list[tuple[str, str]] = []
                try:
                    body = _body(dialect, key, args.model, True, extra)
                    async with client.stream("POST", base + PATHS[dialect], json=body) as r:
                        if r.status_code != 200:
                            return Seen(error=f"HTTP {r.status_code}: {(await r.aread())[:200]!r}")
                        parser = SSEParser()
                        async for chunk in r.aiter_raw():
                            events += [(e.event, e.data) for e in parser.feed(chunk)]
                        events += [(e.event, e.data) for e in parser.close()]
                except (httpx.HTTPError, ValueError) as exc:
                    seen = read_stream(dialect, events)
                    seen.error = seen.error or f"{type(exc).__name__}: {exc}"
                    return seen
                return read_stream(dialect, events)

        async def whole(dialect: str, key: str) -> Seen:
            async with gate:
                try:
                    r = await client.post(base + PATHS[dialect], json=_body(dialect, key, args.model, False, extra))
                    if r.status_code != 200:
                        return Seen(error=f"HTTP {r.status_code}: {r.content[:200]!r}")
                    return read_whole(dialect, r.json())
                except (httpx.HTTPError, ValueError) as exc:
                    return Seen(error=f"{type(exc).__name__}: {exc}")

        async def one(dialect: str, case: Case) -> Row:
            labels = [label for label, _ in _splits(case, args.quick)]
            streams = await asyncio.gather(*(stream(dialect, _key(case, label)) for label in labels))
            body = await whole(dialect, _key(case, "whole"))
            return _row(dialect, case, list(zip(labels, streams, strict=True)), body)

        return list(await asyncio.gather(*(one(d, c) for d in dialects for c in all_cases)))


def _row(dialect: str, case: Case, streams: list[tuple[str, Seen]], body: Seen) -> Row:
    row = Row(dialect, case.entity, case.kind, len(case.value), case.min_prefix, streams=len(streams))
    texts = set()
    for label, seen in streams:
        if seen.error:
            row.errors += 1
            row.error_sample = row.error_sample or seen.error
        run_, prefix = leak(case, seen)
        if run_ >= case.min_prefix and case.kind != "control":
            row.leaked_streams += 1
            if len(row.leaking_splits) < 8:
                row.leaking_splits.append(label)
        if run_ > row.longest_run:
            row.leaked_sample = _sample(case.value, seen)
        row.longest_run = max(row.longest_run, run_)
        row.longest_prefix = max(row.longest_prefix, prefix)
        row.after_stop += seen.after_stop
        row.stopped += seen.stop is not None and seen.stop in {"content_filter", "refusal", "incomplete", "failed"}
        texts.add(seen.text)
    if body.error:
        row.errors += 1
        row.error_sample = row.error_sample or body.error
    row.whole_run = leak(case, body)[0]
    row.consistent = len(texts) <= 1
    row.matches_whole = texts <= {body.text}
    if case.kind == "control":
        row.intact = texts == {case.text} and body.text == case.text
    return row


def _sample(value: str, seen: Seen) -> str:
    """The longest run of the value that was shown, clipped for the table."""
    shown = [seen.text, seen.after_stop_text, *seen.strings]
    best = ""
    for t in shown:
        for start in range(len(value)):
            length = len(best) + 1
            while start + length <= len(value) and value[start : start + length] in t:
                best = value[start : start + length]
                length += 1
            if len(best) >= 40:
                return best[:40] + "…"
    return best


def _report(target: str, upstream: str, rows: list[Row], args: argparse.Namespace) -> dict[str, Any]:
    leaks = sum(r.leaked for r in rows)
    after = sum(r.after_stop for r in rows)
    differs = sum(r.verdict in ("DIFFERS", "ALTERED") for r in rows)
    unchecked = all(r.verdict == "ERROR" for r in rows)
    failed = leaks or after or (args.strict and differs)
    exit_code = 1 if failed else 2 if unchecked else 0
    return {
        "target": target,
        "upstream": upstream + "/v1",
        "min_prefix": rows[0].min_prefix if rows else None,
        "leak_rule": "a run of at least min_prefix consecutive characters of a planted value in any frame",
        "streams": sum(r.streams for r in rows),
        "leaks": leaks,
        "after_stop": after,
        "differs": differs,
        "errors": sum(r.errors for r in rows),
        "exit": exit_code,
        "rows": [{**asdict(r), "leaked": r.leaked, "verdict": r.verdict} for r in rows],
    }


def _print_table(report: dict[str, Any], rows: list[Row]) -> None:
    try:
        from rich.console import Console
        from rich.table import Table
    except ModuleNotFoundError:
        for r in rows:
            print(
                f"{r.dialect:9} {r.entity:16} {r.leaked_streams}/{r.streams} leaked  run {r.longest_run}  {r.verdict}"
            )
    else:
        table = Table(title=f"sluicegate conform {report['target']}")
        cols = (
            "dialect",
            "value",
            "streams",
            "leaked",
            "longest run",
            "stops",
            "after stop",
            "stream = whole",
            "verdict",
        )
        for col in cols:
            table.add_column(col)
        for r in rows:
            same = "yes" if r.consistent and r.matches_whole else "no"
            if r.intact is not None:
                same += "" if r.intact else " (altered)"
            table.add_row(
                r.dialect,
                r.entity,
                str(r.streams),
                str(r.leaked_streams) + (" + whole" if r.leaked and r.whole_run >= r.min_prefix else ""),
                "-" if r.kind == "control" else f"{r.longest_run}/{r.value_chars}",
                str(r.stopped),
                str(r.after_stop),
                same,
                r.verdict,
            )
        Console(file=sys.stdout, width=120).print(table)
    for r in rows:
        if r.intact is False:
            print(f"ALTERED {r.dialect}: the control text (no value in it) did not arrive unchanged")
        if r.leaked:
            where = ", ".join(r.leaking_splits) + ("…" if r.leaked_streams > len(r.leaking_splits) else "")
            print(f"LEAK {r.dialect} {r.entity}: splits {where or '(whole only)'}; shown {r.leaked_sample!r}")
        if r.errors:
            print(f"ERROR {r.dialect} {r.entity}: {r.errors} failed, e.g. {r.error_sample}")
    print(
        f"{report['leaks']} leaking values, {report['after_stop']} frames after a stop, {report['streams']} streams; "
        f"a leak is {report['min_prefix']}+ consecutive characters of a value (12+ for the key block)"
    )
