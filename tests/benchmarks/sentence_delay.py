"""Issue 24 part 3: how far behind the gate alone the gate-then-redactor pipeline shows each sentence.

    python tests/benchmarks/sentence_delay.py [--answers 60] [--repeats 5] [--no-nemo]

Pieces are LLM-like tokens (`corpus.tokens_of`: leading whitespace plus a word or one punctuation mark). For each
sentence the gate releases, its *delay* is the number of pieces between the step at which the gate alone shows
it and the step at which the pipeline shows it whole (redacted: the whole-string redaction of the gate's text up
to that sentence's end). "before" is the pipeline as it was (the Redactor fed the gate's text without the gate's
lookahead), "now" is `Pipeline(SentenceGate(...), Redactor())` as `gate_from(..., redact=True)` builds it.

Tables:
1. the delay of each sentence's last word, per corpus: answers without values, answers with values (e-mail,
   phone, IBAN, card, IP, keys) at sentence ends and mid-sentence in six languages; and the share of steps at
   which the screen shows a half sentence (what Stop would leave there);
2. first visible text and first whole sentence on the scripted answer (ttft.py's, at 50 tokens/s virtual time):
   gate alone, pipeline before and now, the pipeline through sluicegate_nemo, and NeMo Guardrails' output rail
   streaming (its real `RollingBuffer`, chunk_size 200, context_size 50, stream_first False);
3. the cost: µs per piece of the pipeline before and now on the valued corpus (median of repeats, side by side).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import random
import re
import statistics
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
for _sub in ("integrations", "src"):
    sys.path.insert(0, str(ROOT / _sub))

from corpus import SCRIPT_SOURCES, scripted_answer, tokens_of  # noqa: E402
from measure import percentile, repeat, sample  # noqa: E402

from sluicegate import Pipeline, Redactor, SentenceGate, Step  # noqa: E402

TOKENS_PER_S = 50.0

TEMPLATES = {
    "en": ["The library opens at 9:00 on weekdays [S1].", "Write to {v} [S1].", "The code {v} is on the card [S1]."],
    "fr": ["La bibliothèque ouvre à 9 h en semaine [S1].", "Écrivez à {v} [S1].", "Le code {v} figure au dos [S1]."],
    "de": ["Die Bibliothek öffnet werktags um 9 Uhr [S1].", "Schreiben Sie an {v} [S1].", "Die Nummer {v} gilt [S1]."],
    "ru": ["Библиотека открыта по будням с 9:00 [S1].", "Пишите на {v} [S1].", "Номер {v} указан на карте [S1]."],
    "es": ["La biblioteca abre a las 9:00 [S1].", "Escriba a {v} [S1].", "El número {v} figura en la tarjeta [S1]."],
    "zh": ["图书馆工作日9:00开门[S1]。", "请写信到 {v} [S1]。", "卡号 {v} 印在背面[S1]。"],
}
VALUES = [
    "jane.doe@example.com",
    "+1 415 555 2671",
    "DE89 3704 0044 0532 0130 00",
    "AKIAIOSFODNN7EXAMPLE",
    "4111 1111 1111 1111",
    "192.168.1.10",
    "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8",
]
_MARKER = re.compile(r"\s*\[S\d+\]")


class Blind:
    """The Redactor as the pipeline fed it before: its `feed` takes no lookahead, so none is handed to it."""

    def __init__(self) -> None:
        self.inner = Redactor()

    @property
    def stopped(self) -> bool:
        return self.inner.stopped

    def feed(self, piece: str) -> Step:
        return self.inner.feed(piece)

    def flush(self, *, truncated: bool = False) -> Step:
        return self.inner.flush(truncated=truncated)


@dataclass
class Answer:
    text: str
    sources: list[str]
    language: str


def valued(count: int, *, seed: int = 5, sentences: int = 6) -> list[Answer]:
    """Answers in six languages whose sentences carry a value at their end or in their middle (each grounded)."""
    rng = random.Random(seed)
    out: list[Answer] = []
    for _ in range(count):
        language = rng.choice(sorted(TEMPLATES))
        parts = [rng.choice(TEMPLATES[language]).replace("{v}", rng.choice(VALUES)) for _ in range(sentences)]
        text = parts[0] + "".join(rng.choice((" ", " ", "\n", "\n\n")) + p for p in parts[1:])
        out.append(Answer(text, [" ".join(_MARKER.sub("", p) for p in parts)], language))
    return out


def clean(count: int) -> list[Answer]:
    from corpus import grounded

    return [Answer(g.answer_s, g.sources, "en") for g in grounded(count)]


def _redacted(text: str) -> str:
    r = Redactor()
    return r.feed(text).text + r.flush().text


def run_steps(make: Callable[[], object], pieces: Sequence[str]) -> list[str]:
    """What the reader has seen after each piece (and after the flush, last)."""
    f = make()
    shown = ""
    out: list[str] = []
    for piece in pieces:
        step = f.feed(piece)  # type: ignore[attr-defined]
        shown += step.text
        out.append(shown)
        if step.stopped:
            return out
    out.append(shown + f.flush().text)  # type: ignore[attr-defined]
    return out


@dataclass
class Delays:
    delays: list[int]
    half_steps: int  # steps after which the screen ends inside a sentence
    steps: int


def delays(answers: Sequence[Answer], blind: bool) -> Delays:
    got: list[int] = []
    half = total = 0
    for a in answers:
        pieces = tokens_of(a.text)
        alone = run_steps(lambda a=a: SentenceGate(a.sources, language=a.language), pieces)  # type: ignore[misc]
        stage = Blind if blind else Redactor
        pipe = run_steps(
            lambda a=a, stage=stage: Pipeline(SentenceGate(a.sources, language=a.language), stage()),  # type: ignore[misc]
            pieces,
        )
        ends = sorted({len(g) for g in alone if g})  # the gate's text ends after each release: sentence ends
        whole = {len(_redacted(alone[-1][:e])) for e in ends}
        for e in ends:
            g_step = next(k for k, g in enumerate(alone) if len(g) >= e)
            target = len(_redacted(alone[-1][:e]))
            p_step = next(k for k, p in enumerate(pipe) if len(p) >= target)
            got.append(p_step - g_step)
        for p in pipe[:-1]:
            total += 1
            half += bool(p) and len(p) not in whole
    return Delays(got, half, total)


def delay_table(answers_n: int) -> None:
    print("### 1. Delay of each sentence's last word behind the gate alone (pieces = LLM-like tokens)\n")
    print(
        "| corpus | pipeline | sentences | delay median | mean | p90 | max | sentences at 0 | steps showing a half "
        "sentence |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for name, answers in (
        (f"{answers_n} grounded answers, no values (en)", clean(answers_n)),
        (f"{answers_n} answers with values at sentence ends and inside (en fr de ru es zh)", valued(answers_n)),
    ):
        for label, blind in (("before (no lookahead)", True), ("now (gate lookahead)", False)):
            d = delays(answers, blind)
            s = sorted(d.delays)
            at0 = sum(x == 0 for x in s)
            print(
                f"| {name} | {label} | {len(s)} | {statistics.median(s):g} | {statistics.mean(s):.1f} | "
                f"{percentile(s, 90):g} | {max(s)} | {at0 / len(s):.0%} | {d.half_steps}/{d.steps} "
                f"({d.half_steps / d.steps:.0%}) |"
            )
    print()


# -- 2. first visible text ----------------------------------------------------------------------------------------


def _first_sentence() -> str:
    text, _ = scripted_answer(blocked=False)
    return _MARKER.sub("", text.split(". ")[0]) + "."


def _firsts(shown_after: Sequence[tuple[int, str]]) -> tuple[int | None, int | None]:
    """(tokens produced at the first visible text, at the first whole sentence) from (produced, shown) pairs."""
    sentence = _first_sentence()
    first = next((n for n, s in shown_after if s), None)
    whole = next((n for n, s in shown_after if sentence in _MARKER.sub("", s)), None)  # NeMo shows the markers
    return first, whole


def ours(make: Callable[[], object]) -> tuple[int | None, int | None]:
    text, _ = scripted_answer(blocked=False)
    pieces = tokens_of(text)
    steps = run_steps(make, pieces)
    return _firsts([(min(k + 1, len(pieces)), s) for k, s in enumerate(steps)])


def via_nemo(make: Callable[[], object]) -> tuple[int | None, int | None] | str:
    os.environ.setdefault("NEMO_GUARDRAILS_NO_USAGE_STATS", "1")
    try:
        from nemoguardrails import LLMRails

        import sluicegate_nemo as sn
    except ImportError as exc:
        return f"not available: {exc}"
    rails = LLMRails(sn.sluicegate_config())
    sn.install(rails, None)
    text, _ = scripted_answer(blocked=False)

    async def run() -> list[tuple[int, str]]:
        produced = 0

        async def upstream():  # type: ignore[no-untyped-def]
            nonlocal produced
            for token in tokens_of(text):
                produced += 1
                yield token

        shown = ""
        out: list[tuple[int, str]] = []
        stream = sn.guarded_stream(
            rails, messages=[{"role": "user", "content": "hi"}], generator=upstream(), filter=make()
        )
        async for chunk in stream:
            if sn.parse_error_frame(chunk) is not None:
                break
            shown += chunk
            out.append((produced, shown))
        return out

    return _firsts(asyncio.run(run()))


def nemo_rail(chunk_size: int = 200, context_size: int = 50) -> tuple[int | None, int | None] | str:
    """NeMo's own output rail streaming, as ttft.py sets it up: a number check on each judged window."""
    os.environ.setdefault("NEMO_GUARDRAILS_NO_USAGE_STATS", "1")
    try:
        from nemoguardrails import LLMRails, RailsConfig
        from nemoguardrails.actions.rail_outcome import RailOutcome
        from ttft import _COLANG, _NUMBER, _YAML, _grounded_numbers
    except ImportError as exc:
        return f"not available: {exc}"
    grounded = _grounded_numbers()

    async def number_check(text: str | None = None, **_: object) -> RailOutcome:
        bad = [m.group(0) for m in _NUMBER.finditer(text or "") if m.group(0) not in grounded]
        return RailOutcome.block(reason="ungrounded number") if bad else RailOutcome.allow()

    config = RailsConfig.from_content(
        colang_content=_COLANG, yaml_content=_YAML.format(chunk=chunk_size, ctx=context_size, first=False)
    )
    rails = LLMRails(config)
    rails.register_action(number_check, name="number_check")
    text, _ = scripted_answer(blocked=False)

    async def run() -> list[tuple[int, str]]:
        produced = 0

        async def upstream():  # type: ignore[no-untyped-def]
            nonlocal produced
            for token in tokens_of(text):
                produced += 1
                yield token

        shown = ""
        out: list[tuple[int, str]] = []
        async for chunk in rails.stream_async(messages=[{"role": "user", "content": "hi"}], generator=upstream()):
            if isinstance(chunk, str) and chunk.startswith('{"error"'):
                break
            shown += chunk
            out.append((produced, shown))
        return out

    return _firsts(asyncio.run(run()))


def _cell(tokens: int | None) -> str:
    return "never" if tokens is None else f"{tokens} tok / {tokens / TOKENS_PER_S:.2f} s"


def first_text_table(with_nemo: bool) -> None:
    text, _ = scripted_answer(blocked=False)
    print("### 2. First visible text and first whole sentence (scripted answer, 50 tokens/s virtual time)\n")
    print(f"{len(tokens_of(text))} tokens; first sentence: {_first_sentence()!r}\n")
    print("| configuration | first visible text | first whole sentence |")
    print("|---|---|---|")
    gate = lambda: SentenceGate(SCRIPT_SOURCES)  # noqa: E731
    before = lambda: Pipeline(SentenceGate(SCRIPT_SOURCES), Blind())  # noqa: E731
    now = lambda: Pipeline(SentenceGate(SCRIPT_SOURCES), Redactor())  # noqa: E731
    rows: list[tuple[str, tuple[int | None, int | None] | str]] = [
        ("sluicegate SentenceGate alone (1 token per feed)", ours(gate)),
        ("gate + Redactor, before (no lookahead)", ours(before)),
        ("gate + Redactor, now (gate lookahead)", ours(now)),
    ]
    if with_nemo:
        rows += [
            ("gate + Redactor (now) via sluicegate_nemo (chunk_size 1, context_size 0)", via_nemo(now)),
            ("NeMo output rail streaming, chunk_size 200, context_size 50, stream_first False", nemo_rail()),
        ]
    for label, got in rows:
        if isinstance(got, str):
            print(f"| {label} | {got} | |")
        else:
            print(f"| {label} | {_cell(got[0])} | {_cell(got[1])} |")
    print()


# -- 3. cost ------------------------------------------------------------------------------------------------------


def cost_table(answers_n: int, repeats: int) -> None:
    """Feeding and flushing only (the filters are built before the clock starts), both pipelines interleaved so
    that they see the same machine load; the Redactor stage alone is fed what the gate released."""
    answers = valued(answers_n, seed=9)
    tokens = [tokens_of(a.text) for a in answers]
    n = sum(len(t) for t in tokens)
    releases: list[list[tuple[str, str]]] = []
    for a, pieces in zip(answers, tokens, strict=True):
        gate = SentenceGate(a.sources, language=a.language)
        steps = [gate.feed(p) for p in pieces] + [gate.flush()]
        releases.append([(s.text, s.lookahead) for s in steps if s.text])
    sentences = sum(len(r) for r in releases)

    def pipelines(blind: bool) -> float:
        built = [
            Pipeline(SentenceGate(a.sources, language=a.language), Blind() if blind else Redactor()) for a in answers
        ]

        def run() -> None:
            for p, pieces in zip(built, tokens, strict=True):
                for piece in pieces:
                    p.feed(piece)
                p.flush()

        return repeat(run, 1)[0][0]

    def redactor(blind: bool) -> float:
        built = [Redactor() for _ in answers]

        def run() -> None:
            for r, steps in zip(built, releases, strict=True):
                for text, ahead in steps:
                    r.feed(text) if blind else r.feed(text, lookahead=ahead)
                r.flush()

        return repeat(run, 1)[0][0]

    print(f"### 3. Cost: {answers_n} valued answers, {n} pieces, {sentences} releases (median of {repeats}, min–max)\n")
    print("| what | before (no lookahead) | now (gate lookahead) | ratio now / before (medians) |")
    print("|---|---|---|---|")
    for label, fn, per in (
        ("gate + Redactor, µs per piece", pipelines, n),
        ("Redactor stage alone, µs per release (a sentence)", redactor, sentences),
    ):
        before: list[float] = []
        now: list[float] = []
        for _ in range(repeats):
            before.append(fn(True) / per * 1e6)
            now.append(fn(False) / per * 1e6)
        b, w = sample(before), sample(now)
        print(f"| {label} | {b.fmt(1)} | {w.fmt(1)} | {w.median / b.median:.2f} |")
    print()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--answers", type=int, default=60)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--no-nemo", action="store_true", help="leave out the NeMo rows")
    args = ap.parse_args()
    print(f"Machine: {platform.machine()} {os.cpu_count()} CPUs, Python {platform.python_version()}\n")
    delay_table(args.answers)
    first_text_table(not args.no_nemo)
    cost_table(args.answers, args.repeats)


if __name__ == "__main__":
    main()
