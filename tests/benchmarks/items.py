"""The six tables of issue 7, each a function returning markdown. Every row degrades to "not available" with a
reason when its filter or peer is missing, so the harness runs on any branch and in any environment."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import corpus as C
import subjects as S
from measure import Sample, fit_prefix, percentile, repeat, sample

NA = "n/a"


@dataclass
class Config:
    size: int = 1_000_000  # planted corpus (item 1) and the small side of the scaling pair (item 4)
    scale_factor: int = 8  # item 4: big = size * scale_factor
    prose: int = 262_144  # benign prose for the held tail (item 2)
    per_piece: int = 262_144  # planted prefix used for per-piece cost (item 3)
    answers: int = 200  # grounded answers (items 2, 3, 6)
    repeats: int = 5
    budget: float = 8.0  # seconds one timed run may take before a peer is measured on a prefix
    peers: bool = True


def table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    out = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(out)


def _pieces(text: str, size: int | None) -> Sequence[str]:
    if size is None:
        return [text]
    if size == 1:
        return text  # a str is a sequence of its 1-character pieces: no list of millions of objects
    return [text[i : i + size] for i in range(0, len(text), size)]


@dataclass
class Cell:
    mbps: Sample | None
    out: str
    used: int  # characters of the input actually run
    error: str | None = None


def _throughput(subject: S.Subject, text: str, piece: int | None, cfg: Config) -> Cell:
    """MB/s of `subject` over `text` cut into `piece`-character pieces (None: whole text), budget-limited."""
    if piece is None:

        def run_on(n: int) -> str:
            return subject.whole(text[:n])

    else:
        all_pieces = _pieces(text, piece)

        def run_on(n: int) -> str:
            return subject.stream(all_pieces[: max(1, n // piece)])

    try:
        n = fit_prefix(run_on, len(text), cfg.budget)
        if piece is not None:
            n = min(len(text), max(1, n // piece) * piece)
        prefix = text[:n]
        nbytes = len(prefix.encode("utf-8"))
        if piece is None:
            fn: Callable[[], str] = lambda: subject.whole(prefix)  # noqa: E731
        else:
            sliced = all_pieces[: max(1, n // piece)]
            fn = lambda: subject.stream(sliced)  # noqa: E731
        times, out = repeat(fn, cfg.repeats)
        return Cell(sample([nbytes / t / 1e6 for t in times]), str(out), n)
    except Exception as exc:  # noqa: BLE001 - a crashing peer is a finding, reported in the table
        return Cell(None, "", 0, f"{type(exc).__name__}: {str(exc)[:80]}")


def _leaks(out: str, values: list[tuple[str, str]]) -> tuple[int, int, dict[str, int]]:
    kinds: dict[str, int] = {}
    for kind, value in values:
        if value in out:
            kinds[kind] = kinds.get(kind, 0) + 1
    return sum(kinds.values()), len(values), kinds


def _in_prefix(corpus: C.Corpus, n: int) -> list[tuple[str, str]]:
    """Planted values that lie wholly inside the first `n` characters."""
    head = corpus.text[:n]
    return [(k, v) for k, v in corpus.planted if v in head]


def _fmt_mbps(cell: Cell, total: int) -> str:
    if cell.error:
        return f"error ({cell.error})"
    assert cell.mbps is not None
    s = cell.mbps.fmt(2 if cell.mbps.median < 100 else 0)
    if cell.used < total:
        s += f" ¹ first {cell.used // 1024} KiB"
    return s


# --- item 1 ---------------------------------------------------------------------------------------------------------


def redaction_subjects(cfg: Config) -> list[S.Subject]:
    subs = [S.our_redactor()]
    if cfg.peers:
        subs += [S.Safestream(), S.link_stream(), S.Presidio()]
    return subs


def item1(cfg: Config) -> tuple[str, dict[str, float]]:
    corpus = C.planted(cfg.size)
    text = corpus.text
    rows = []
    medians: dict[str, float] = {}
    for sub in redaction_subjects(cfg):
        if sub.reason:
            rows.append([sub.name, NA, NA, NA, NA, NA, sub.reason])
            continue
        whole = _throughput(sub, text, None, cfg)
        cells = {"whole": whole}
        if sub.streaming:
            cells["4-char"] = _throughput(sub, text, 4, cfg)
            cells["1-char"] = _throughput(sub, text, 1, cfg)
        for mode, cell in cells.items():
            if cell.mbps is not None:
                medians[f"{sub.name}|{mode}"] = cell.mbps.median
        leak_txt = []
        same = []
        kinds_all: dict[str, int] = {}
        for mode, cell in cells.items():
            if cell.error:
                leak_txt.append(f"{mode}: {NA}")
                continue
            leaked, total, kinds = _leaks(cell.out, _in_prefix(corpus, cell.used))
            leak_txt.append(f"{mode} {leaked}/{total}")
            for k, v in kinds.items():
                kinds_all[k] = max(kinds_all.get(k, 0), v)
            if mode != "whole":
                ref = whole.out if cell.used == whole.used else sub.whole(text[: cell.used])
                same.append(f"{mode} {'yes' if cell.out == ref else 'NO'}")
        note = ("leaked kinds: " + ", ".join(f"{k} {v}" for k, v in sorted(kinds_all.items()))) if kinds_all else ""
        rows.append(
            [
                sub.name,
                _fmt_mbps(whole, len(text)),
                _fmt_mbps(cells["4-char"], len(text)) if "4-char" in cells else "whole text only",
                _fmt_mbps(cells["1-char"], len(text)) if "1-char" in cells else "whole text only",
                "; ".join(leak_txt),
                "; ".join(same) if same else NA,
                note,
            ]
        )
    headers = [
        "filter",
        "whole MB/s",
        "4-char MB/s",
        "1-char MB/s",
        "planted values leaked",
        "streamed == whole",
        "note",
    ]
    kinds = sorted({k for k, _ in corpus.planted})
    intro = (
        f"Corpus: {corpus.size / 1e6:.2f} MB of English/Persian/Chinese prose with {len(corpus.planted)} planted "
        f"values ({', '.join(kinds)}). MB/s = UTF-8 MB per second, median (min–max) of {cfg.repeats} runs."
    )
    ratios = _ratios(
        medians, "sluicegate Redactor (defaults)", "safestream-redactor 0.4.0 (defaults)", ("whole", "4-char", "1-char")
    )
    return "\n\n".join(x for x in [intro, table(headers, rows), ratios] if x), medians


def _ratios(medians: dict[str, float], ours: str, peer: str, modes: Sequence[str]) -> str:
    parts = []
    for mode in modes:
        a, b = medians.get(f"{ours}|{mode}"), medians.get(f"{peer}|{mode}")
        if a and b:
            parts.append(f"{mode} {a / b:.1f}x")
    return f"Ratio ours / {peer.split(' (')[0]} (median MB/s): " + ", ".join(parts) if parts else ""


# --- item 2 ---------------------------------------------------------------------------------------------------------


def _held_row(name: str, traces: list[S.Trace], consumed_total: int) -> list[str]:
    held = sorted(h for t in traces for h in t.held)
    firsts = [t.first_out_consumed for t in traces]
    shown = [f for f in firsts if f is not None]
    if len(traces) == 1:
        first = str(shown[0]) if shown else f"nothing before the end ({consumed_total})"
    else:
        first = f"median {sorted(shown)[len(shown) // 2]} (max {max(shown)})" if shown else "nothing"
    return [name, f"{percentile(held, 50):.0f}", f"{percentile(held, 99):.0f}", f"{max(held) if held else 0}", first]


def item2(cfg: Config) -> tuple[str, dict[str, int]]:
    prose = C.prose(cfg.prose)
    rows = []
    held_max: dict[str, int] = {}
    for sub in redaction_subjects(cfg):
        if sub.reason:
            rows.append([sub.name, NA, NA, NA, sub.reason])
            continue
        if not sub.streaming:
            rows.append(
                [sub.name, "whole text", "whole text", f"{len(prose)}", f"the whole input ({len(prose)}): batch only"]
            )
            continue
        pieces = _pieces(prose, 4)
        n = fit_prefix(lambda k: sub.trace(pieces[: k // 4]), len(prose), cfg.budget)  # noqa: B023
        trace = sub.trace(pieces[: max(1, n // 4)])
        name = sub.name + (f" ¹ first {n // 1024} KiB" if n < len(prose) else "")
        rows.append(_held_row(name, [trace], n))
        held_max[sub.name] = max(trace.held, default=0)
    answers = C.grounded(cfg.answers)
    for make in _gate_makers(cfg):
        probe = make(answers[0].sources)
        if probe.reason:
            rows.append([probe.name, NA, NA, NA, probe.reason])
            continue
        traces = []
        for a in answers:
            text = a.answer_s if probe.name.startswith("sluicegate") else a.answer_n
            traces.append(make(a.sources).trace(_pieces(text, 4)))
        rows.append(_held_row(probe.name + " (grounded answers)", traces, 0))
    headers = ["filter", "held p50 (chars)", "held p99", "held max", "input consumed before first output byte"]
    intro = (
        f"4-character pieces. Redactors on {len(prose.encode()) / 1e3:.0f} kB of benign prose "
        f"(English/Persian/Chinese, no values); gates on {len(answers)} grounded answers, each its own stream "
        "(first output: median over answers). "
        "Held = characters fed but not yet released after each piece."
    )
    return intro + "\n\n" + table(headers, rows), held_max


def _gate_makers(cfg: Config) -> list[Callable[[list[str]], S.Subject]]:
    makers: list[Callable[[list[str]], S.Subject]] = [S.our_gate]
    if cfg.peers:
        makers += [S.citation_stream, S.amount_stream, S.citation_amount_chain]
    return makers


# --- item 3 ---------------------------------------------------------------------------------------------------------


def _piece_stats(traces: list[S.Trace]) -> tuple[Sample, Sample, Sample, Sample]:
    p50s, p99s, maxes, means = [], [], [], []
    for t in traces:
        ns = sorted(t.piece_ns)
        p50s.append(percentile(ns, 50) / 1e3)
        p99s.append(percentile(ns, 99) / 1e3)
        maxes.append(ns[-1] / 1e3)
        means.append(sum(ns) / len(ns) / 1e3)
    return sample(p50s), sample(p99s), sample(maxes), sample(means)


def _cost_row(name: str, traces: list[S.Trace]) -> list[str]:
    p50, p99, mx, mean = _piece_stats(traces)
    streams = 1e6 / (100 * mean.median) if mean.median > 0 else float("inf")
    return [name, p50.fmt(1), p99.fmt(1), mx.fmt(0), mean.fmt(1), f"{streams:,.0f}"]


def item3(cfg: Config) -> tuple[str, dict[str, float]]:
    corpus = C.planted(cfg.per_piece, seed=11)
    text = corpus.text
    rows = []
    p99: dict[str, float] = {}
    for sub in redaction_subjects(cfg):
        if sub.reason:
            rows.append([sub.name, NA, NA, NA, NA, sub.reason])
            continue
        if not sub.streaming:
            rows.append([sub.name, "no streaming API", "", "", "", ""])
            continue
        pieces = _pieces(text, 4)
        n = fit_prefix(lambda k: sub.trace(pieces[: k // 4]), len(text), cfg.budget)  # noqa: B023
        traces = [sub.trace(pieces[: max(1, n // 4)]) for _ in range(cfg.repeats)]
        name = sub.name + (f" ¹ first {n // 1024} KiB" if n < len(text) else "")
        rows.append(_cost_row(name, traces))
        p99[sub.name] = _piece_stats(traces)[1].median
    answers = C.grounded(cfg.answers, seed=5)
    for make in _gate_makers(cfg):
        probe = make(answers[0].sources)
        if probe.reason:
            rows.append([probe.name, NA, NA, NA, NA, probe.reason])
            continue
        traces = []
        for _ in range(cfg.repeats):
            merged = S.Trace("", False, [], [], None)
            for a in answers:
                txt = a.answer_s if probe.name.startswith("sluicegate") else a.answer_n
                merged.piece_ns += make(a.sources).trace(_pieces(txt, 4)).piece_ns
            traces.append(merged)
        rows.append(_cost_row(probe.name + " (grounded answers)", traces))
        p99[probe.name] = _piece_stats(traces)[1].median
    headers = ["filter", "p50 µs/piece", "p99 µs/piece", "max µs", "CPU µs/token (mean)", "100 tok/s streams per core"]
    intro = (
        f"4-character pieces (about one token each): redactors on {len(text.encode()) / 1e3:.0f} kB of the planted "
        f"corpus, gates on {len(answers)} grounded answers. Wall time per `feed` call (pull-style peers: time between "
        f"two pulls), median (min–max) over {cfg.repeats} runs. Streams per core = 10^6 / (100 × mean µs per token)."
    )
    return intro + "\n\n" + table(headers, rows), p99


# --- item 4 ---------------------------------------------------------------------------------------------------------


def item4(cfg: Config) -> tuple[str, dict[str, float]]:
    small, big = cfg.size, cfg.size * cfg.scale_factor
    ratios: dict[str, float] = {}
    rows = []
    red_small, red_big = C.planted(small).text, C.planted(big).text
    one = C.grounded(1, seed=9, sentences=max(8, small // 36))[0]
    one_big = C.grounded(1, seed=9, sentences=max(8, big // 36))[0]
    jobs: list[tuple[S.Subject, str, str]] = [(S.our_redactor(), red_small, red_big)]
    gate_small, gate_big = S.our_gate(one.sources), S.our_gate(one_big.sources)
    jobs.append((gate_small, one.answer_s, one_big.answer_s))
    if cfg.peers:
        jobs.append((S.Safestream(), red_small, red_big))
    for sub, a, b in jobs:
        if sub.reason:
            rows.append([sub.name, NA, NA, NA, sub.reason])
            continue
        per_byte = []
        for text in (a, b):
            s2 = sub if text is a or sub is not gate_small else gate_big
            times, _ = repeat(lambda: s2.stream(text), cfg.repeats)  # noqa: B023
            per_byte.append(sample([t / len(text.encode()) * 1e9 for t in times]))
        ratio = per_byte[1].median / per_byte[0].median
        ratios[sub.name] = ratio
        rows.append([sub.name, per_byte[0].fmt(0), per_byte[1].fmt(0), f"{ratio:.2f}", ""])
    headers = ["filter", f"ns/byte at {small / 1e6:g} MB", f"ns/byte at {big / 1e6:g} MB", "ratio big/small", "note"]
    intro = (
        f"1-character pieces, one stream per size (redactors: planted corpus; gate: one grounded answer of that size). "
        f"Median (min–max) of {cfg.repeats} runs. A ratio near 1 means no quadratic rescans."
    )
    return intro + "\n\n" + table(headers, rows), ratios


# --- item 5 ---------------------------------------------------------------------------------------------------------


def item5(cfg: Config) -> tuple[str, list]:  # type: ignore[type-arg]
    import ttft

    rows_data = ttft.all_rows() if cfg.peers else [ttft.ours(), *_nemo_if_importable()]
    rows = []
    for r in rows_data:
        if r.note.startswith("not available"):
            rows.append([r.config, NA, NA, NA, r.note])
            continue
        first = f"{r.first_tokens} tok / {r.first_seconds:.2f} s" if r.first_tokens is not None else "never"
        bfirst = f"{r.blocked_first_tokens} tok" if r.blocked_first_tokens is not None else "nothing shown"
        rows.append([r.config, first, bfirst, str(r.blocked_shown), r.note])
    headers = [
        "configuration",
        "first visible text (clean answer)",
        "first visible text (blocked answer)",
        "blocked-sentence chars shown",
        "note",
    ]
    intro = (
        "Virtual clock: 50 tokens/s, seconds = tokens produced upstream when the first character reached the "
        "client / 50 "
        f"(no real sleeping; NeMo runs for real). {ttft.answer_facts()}."
    )
    ours = rows_data[0]
    nemo_off = next(
        (
            r
            for r in rows_data
            if r.config.startswith("NeMo") and "chunk_size 200" in r.config and "stream_first False" in r.config
        ),
        None,
    )
    extra = ""
    if ours.first_tokens and nemo_off:
        sooner = nemo_off.first_tokens / ours.first_tokens
        extra = f"\n\nFirst visible text, NeMo stream_first false / ours: {sooner:.1f}x sooner."
    return intro + "\n\n" + table(headers, rows) + extra, rows_data


def _nemo_if_importable() -> list:  # type: ignore[type-arg]
    import ttft

    try:
        import nemoguardrails  # noqa: F401
    except ImportError:
        return []
    return [ttft.ours_via_nemo(), ttft.nemo(False), ttft.nemo(True), ttft.nemo(False, chunk_size=1, context_size=0)]


# --- item 6 ---------------------------------------------------------------------------------------------------------


def _answers_run(
    make: Callable[[list[str]], S.Subject], answers: list[C.Grounded], piece: int | None, ours: bool
) -> Callable[[], list[bool]]:
    texts = [
        (
            a.sources,
            _pieces(a.answer_s if ours else a.answer_n, piece) if piece else [a.answer_s if ours else a.answer_n],
        )
        for a in answers
    ]

    def run() -> list[bool]:
        stops = []
        for src, p in texts:
            sub = make(src)
            sub.stream(p)
            stops.append(sub.last_stopped)
        return stops

    return run


def item6(cfg: Config) -> tuple[str, dict[str, float]]:
    answers = C.grounded(cfg.answers, seed=13)
    rows = []
    medians: dict[str, float] = {}
    nbytes = {
        True: sum(len(a.answer_s.encode()) for a in answers),
        False: sum(len(a.answer_n.encode()) for a in answers),
    }
    for make in _gate_makers(cfg):
        probe = make(answers[0].sources)
        if probe.reason:
            rows.append([probe.name, NA, NA, NA, NA, probe.reason])
            continue
        ours = probe.name.startswith("sluicegate")
        cols = []
        stopped = 0
        for piece in (None, 4):
            times, outs = repeat(_answers_run(make, answers, piece, ours), cfg.repeats)
            s = sample([nbytes[ours] / t / 1e6 for t in times])
            medians[f"{probe.name}|{piece or 'whole'}"] = s.median
            cols.append(s.fmt(2))
            if piece == 4:
                stopped = sum(outs)  # type: ignore[arg-type]
        traces = []
        for _ in range(cfg.repeats):
            merged = S.Trace("", False, [], [], None)
            for a in answers:
                merged.piece_ns += make(a.sources).trace(_pieces(a.answer_s if ours else a.answer_n, 4)).piece_ns
            traces.append(merged)
        p50, p99, _, _ = _piece_stats(traces)
        rows.append([probe.name, cols[0], cols[1], p50.fmt(1), p99.fmt(1), f"{stopped}/{len(answers)} answers stopped"])
    headers = ["filter", "whole MB/s", "4-char MB/s", "p50 µs/piece", "p99 µs/piece", "false stops (grounded corpus)"]
    intro = (
        f"{len(answers)} grounded answers ({nbytes[True] / 1e3:.0f} kB with [S<n>] markers for ours, [n] markers for "
        "CitationStream), a fresh filter per answer, setup included. Every figure is grounded, so any stop is a "
        "false one."
    )
    ours_name = "sluicegate SentenceGate"
    parts = []
    for peer in ("llm-stream-guards Chain(Citation, Amount)", "llm-stream-guards AmountStream"):
        for mode in ("whole", 4):
            a, b = medians.get(f"{ours_name}|{mode}"), medians.get(f"{peer}|{mode}")
            if a and b:
                parts.append(f"vs {peer.split(' ', 1)[1]} {mode if mode == 'whole' else '4-char'}: {a / b:.1f}x")
    extra = ("\n\nThroughput ratio ours / peer: " + "; ".join(parts)) if parts else ""
    return intro + "\n\n" + table(headers, rows) + extra, medians
