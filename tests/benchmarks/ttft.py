"""Item 5: time to first visible text for a scripted answer streamed at 50 tokens/s, ours vs NeMo output rails.

Virtual time, not sleeps: the answer is a list of tokens; "when" something is visible is the number of tokens the
upstream had produced when the first character reached the client, and seconds = tokens / 50. NeMo runs for real
(`LLMRails.stream_async(generator=...)`, llmrails.py:1427-1436, so only the output rails run), with its real
`RollingBuffer`; only the clock is simulated. The filters' own CPU time is negligible next to 20 ms per token
(see the per-piece table), so it is left out of the virtual seconds.

The NeMo rail is the same deterministic judgement as our gate's number check, applied to NeMo's window: block the
window if it states a number that no source states. It is a registered action returning `RailOutcome`
(actions/rail_outcome.py), the 0.24 contract.
"""

from __future__ import annotations

import asyncio
import os
import re
from dataclasses import dataclass

from corpus import SCRIPT_SOURCES, scripted_answer, tokens_of

TOKENS_PER_S = 50.0
_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.]\d)")


@dataclass
class Ttft:
    config: str
    first_tokens: int | None  # tokens produced upstream when the first text reached the client (clean answer)
    blocked_shown: int | None  # characters of the blocked sentence that reached the client (blocked answer)
    blocked_first_tokens: int | None  # first visible text on the blocked answer
    note: str = ""

    @property
    def first_seconds(self) -> float | None:
        return None if self.first_tokens is None else self.first_tokens / TOKENS_PER_S


def _grounded_numbers() -> set[str]:
    return {m.group(0) for s in SCRIPT_SOURCES for m in _NUMBER.finditer(s)}


def _shown_of_blocked(client: str, sentence: str) -> int:
    """How many leading characters of the blocked sentence appear in the client text (its start is unique)."""
    core = re.sub(r"\s*\[S\d+\]", "", sentence).strip()
    k = 0
    while k < len(core) and core[: k + 1] in client:
        k += 1
    return k


def ours() -> Ttft:
    """Our SentenceGate fed one token at a time."""
    try:
        from sluicegate import SentenceGate  # type: ignore[attr-defined]
    except ImportError:
        return Ttft(
            "sluicegate SentenceGate",
            None,
            None,
            None,
            "not available: sluicegate.SentenceGate is not on this branch yet",
        )

    def run(text: str) -> tuple[int | None, str]:
        gate = SentenceGate(SCRIPT_SOURCES)
        first = None
        out: list[str] = []
        for i, token in enumerate(tokens_of(text), 1):
            step = gate.feed(token)
            if step.text:
                out.append(step.text)
                if first is None:
                    first = i
            if step.stopped:
                break
        else:
            tail = gate.flush().text
            out.append(tail)
            if tail and first is None:
                first = len(tokens_of(text))
        return first, "".join(out)

    clean, _ = scripted_answer(blocked=False)
    bad, span = scripted_answer(blocked=True)
    first, _ = run(clean)
    bfirst, client = run(bad)
    assert span is not None
    return Ttft(
        "sluicegate SentenceGate (1 token per feed)", first, _shown_of_blocked(client, bad[span[0] : span[1]]), bfirst
    )


def ours_via_nemo(make_filter=None) -> Ttft:  # type: ignore[no-untyped-def]
    """Our SentenceGate upstream of NeMo through the adapter (`sluicegate_nemo.guarded_stream`), its settings."""
    label = "sluicegate SentenceGate via sluicegate_nemo (chunk_size 1, context_size 0, stream_first False)"
    if make_filter is None:
        try:
            from sluicegate import SentenceGate  # type: ignore[attr-defined]
        except ImportError:
            return Ttft(label, None, None, None, "not available: sluicegate.SentenceGate is not on this branch yet")
        make_filter = lambda: SentenceGate(SCRIPT_SOURCES)  # noqa: E731
    os.environ.setdefault("NEMO_GUARDRAILS_NO_USAGE_STATS", "1")
    try:
        from nemoguardrails import LLMRails

        import sluicegate_nemo as sn
    except ImportError as exc:
        return Ttft(label, None, None, None, f"not available: {exc}")
    rails = LLMRails(sn.sluicegate_config())
    sn.install(rails, None)

    async def run(text: str) -> tuple[int | None, str]:
        produced = 0

        async def upstream():  # type: ignore[no-untyped-def]
            nonlocal produced
            for token in tokens_of(text):
                produced += 1
                yield token

        first = None
        shown: list[str] = []
        stream = sn.guarded_stream(
            rails, messages=[{"role": "user", "content": "hi"}], generator=upstream(), filter=make_filter()
        )
        async for chunk in stream:
            if sn.parse_error_frame(chunk) is not None:
                break
            if chunk:
                shown.append(chunk)
                if first is None:
                    first = produced
        return first, "".join(shown)

    clean, _ = scripted_answer(blocked=False)
    bad, span = scripted_answer(blocked=True)
    assert span is not None
    first, _ = asyncio.run(run(clean))
    bfirst, client = asyncio.run(run(bad))
    return Ttft(label, first, _shown_of_blocked(client, bad[span[0] : span[1]]), bfirst)


_YAML = """
rails:
  output:
    flows:
      - number check
    streaming:
      enabled: True
      chunk_size: {chunk}
      context_size: {ctx}
      stream_first: {first}
"""
_COLANG = """
define flow number check
  $outcome = execute number_check(text=$bot_message)
  if $outcome.is_blocked
    bot refuse to respond
    stop
"""


def nemo(stream_first: bool, *, chunk_size: int = 200, context_size: int = 50) -> Ttft:
    label = f"NeMo output rails chunk_size {chunk_size}, context_size {context_size}, stream_first {stream_first}"
    os.environ.setdefault("NEMO_GUARDRAILS_NO_USAGE_STATS", "1")
    try:
        from nemoguardrails import LLMRails, RailsConfig
        from nemoguardrails.actions.rail_outcome import RailOutcome
    except ImportError as exc:
        return Ttft(label, None, None, None, f"not available: nemoguardrails not installed ({exc})")
    import nemoguardrails

    label = label.replace("NeMo", f"NeMo {nemoguardrails.__version__}")
    grounded = _grounded_numbers()

    async def number_check(text: str | None = None, **_: object) -> RailOutcome:
        bad = [m.group(0) for m in _NUMBER.finditer(text or "") if m.group(0) not in grounded]
        return RailOutcome.block(reason="ungrounded number") if bad else RailOutcome.allow()

    config = RailsConfig.from_content(
        colang_content=_COLANG, yaml_content=_YAML.format(chunk=chunk_size, ctx=context_size, first=stream_first)
    )
    rails = LLMRails(config)
    rails.register_action(number_check, name="number_check")

    async def run(text: str) -> tuple[int | None, str]:
        produced = 0

        async def upstream():  # type: ignore[no-untyped-def]
            nonlocal produced
            for token in tokens_of(text):
                produced += 1
                yield token

        first = None
        shown: list[str] = []
        async for chunk in rails.stream_async(messages=[{"role": "user", "content": "hi"}], generator=upstream()):
            if isinstance(chunk, str) and chunk.startswith('{"error"'):
                break
            if chunk:
                shown.append(chunk)
                if first is None:
                    first = produced
        return first, "".join(shown)

    clean, _ = scripted_answer(blocked=False)
    bad, span = scripted_answer(blocked=True)
    assert span is not None
    first, client_clean = asyncio.run(run(clean))
    note = "" if client_clean == clean else "client text differs from the answer"
    bfirst, client = asyncio.run(run(bad))
    # NeMo shows upstream items verbatim, so what reached the client is a prefix of the answer: count by position.
    shown = (
        max(0, min(len(client), span[1]) - span[0])
        if bad.startswith(client)
        else _shown_of_blocked(client, bad[span[0] : span[1]])
    )
    return Ttft(label, first, shown, bfirst, note)


def all_rows() -> list[Ttft]:
    # The last row is not a default: the smallest window NeMo allows, to show what shrinking it trades away.
    return [ours(), ours_via_nemo(), nemo(False), nemo(True), nemo(False, chunk_size=1, context_size=0)]


def answer_facts() -> str:
    clean, _ = scripted_answer(blocked=False)
    bad, span = scripted_answer(blocked=True)
    assert span is not None
    tokens_before = len(tokens_of(bad[: span[0]]))
    return (
        f"scripted answer: {len(tokens_of(clean))} tokens, {len(clean)} chars; the blocked variant's 6th sentence "
        f"({span[1] - span[0]} chars, starting at token {tokens_before + 1}) states figures no source has"
    )
