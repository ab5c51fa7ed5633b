from _show import PLANTED, SOURCES, pieces  # the examples' three sources and an answer with a planted figure

from sluicegate import Outcome, SentenceGate, drive_text, redact  # redact is a function: sluicegate.redact(text)
from sluicegate.sources import format_sources, gate_factory, gate_from

print(format_sources(SOURCES[:2]))  # the prompt's context block, numbered like the gate's [S1]..[Sn]
gate = gate_factory(redact=True)(SOURCES)  # SentenceGate over the texts, then the Redactor
out = Outcome()
shown = "".join(drive_text(pieces(PLANTED, 4), gate, outcome=out))
print(repr(shown))  # released text, then the notice a paragraph apart
print(out.reason, out.guard.reasons, len(out.events), out.stopped)  # how it ended, the codes, Guard + Done
print([v.code for v in out.violations])  # server side only: details may quote the blocked sentence
print(out.usage.output_tokens, out.usage.source, out.usage.pieces)  # an estimate unless the provider reported
print(out.released == shown[: len(out.released)], out.error)  # what the filter released; an upstream error
print(redact("Write to jane.doe@example.com"))
print(type(gate_from("sources")({"sources": SOURCES})).__name__)  # per request: a mapping with the sources
print(SentenceGate(SOURCES).refusal_text)  # shown alone for an answer that is the refusal token
