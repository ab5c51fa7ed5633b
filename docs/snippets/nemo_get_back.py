import asyncio
import logging

from nemo_gate import PLANTED, QUESTION, SOURCES, app_stream  # the offline example's scripted app stream
from nemoguardrails import LLMRails

import sluicegate_nemo as sn
from sluicegate import notice_chunk
from sluicegate.sources import format_sources, gate_from

logging.getLogger("nemoguardrails").setLevel(logging.CRITICAL)
logging.getLogger("sluicegate").setLevel(logging.ERROR)


async def main() -> None:
    rails = LLMRails(sn.sluicegate_config())
    sn.install(rails, gate_from("sources"))
    messages = [{"role": "context", "content": {"sources": SOURCES}}, {"role": "user", "content": QUESTION}]
    prompt = f"Answer from these sources:\n{format_sources(SOURCES)}\n\nQuestion: {QUESTION}"
    s = sn.guarded_stream(rails, messages=messages, generator=app_stream(prompt, PLANTED))
    chunks = [c async for c in s]
    frame = sn.parse_error_frame(chunks[-1])  # NeMo's block frame: the last chunk after a stop
    released = "".join(chunks[:-1])
    print(repr(released))  # NeMo sends no notice text: an app shows the gate's notice on the block frame
    print(repr(released + notice_chunk(s.outcome, released=bool(released))))  # as every other adapter shows it
    print(s.blocked, frame["type"], frame["code"])  # blocked: NeMo sent the block frame
    print(s.outcome.reason, s.outcome.guard.reasons, list(s.session.reasons))  # a sluicegate.Outcome
    print([v.code for v in s.session.violations])  # server side only


asyncio.run(main())
