"""NeMo Guardrails, offline: the refusal input rail and the evidence input rail from sluicegate's rail folder
(import_paths), before a GatedLLM; the model is scripted and counts its calls.

    pip install "sluicegate[nemo]"
    python examples/nemo_preflight.py
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from pathlib import Path

os.environ.setdefault("NEMO_GUARDRAILS_NO_USAGE_STATS", "1")

from _preflight_show import ANSWER, QUESTIONS, SOURCES  # noqa: E402
from _show import pieces  # noqa: E402
from nemoguardrails import LLMRails, RailsConfig  # noqa: E402
from nemoguardrails.types import LLMResponse, LLMResponseChunk  # noqa: E402

import sluicegate_nemo as sn  # noqa: E402
from sluicegate.sources import gate_from  # noqa: E402

CONFIG = f"""
import_paths:
  - {sn.RAIL_PATH}
  - {sn.EVIDENCE_RAIL_PATH}
custom_data:
  sluicegate:
    evidence: {{language: en, threshold: 0.35}}
rails:
  input:
    flows: [sluicegate refuse, sluicegate evidence]
  output:
    flows: [sluicegate output]
    streaming: {{enabled: true, chunk_size: 1, context_size: 0, stream_first: false}}
"""


class ScriptedModel:
    model_name, provider_name, provider_url = "scripted", "demo", None
    calls = 0

    async def generate_async(self, prompt, *, stop=None, **kwargs) -> LLMResponse:
        self.calls += 1
        return LLMResponse(content=ANSWER)

    async def stream_async(self, prompt, *, stop=None, **kwargs):
        self.calls += 1
        for piece in pieces(ANSWER, 4):
            yield LLMResponseChunk(delta_content=piece)


async def main() -> None:
    folder = Path(tempfile.mkdtemp())
    (folder / "config.yml").write_text(CONFIG, encoding="utf-8")
    model = ScriptedModel()
    rails = LLMRails(RailsConfig.from_path(str(folder)), llm=sn.GatedLLM(model))
    sn.install(rails, gate_from("sources"))  # the output gate: SentenceGate over each request's sources
    for label, question in QUESTIONS:
        messages = [{"role": "context", "content": {"sources": SOURCES}}, {"role": "user", "content": question}]
        before = model.calls
        stream = sn.guarded_stream(rails, messages=messages)
        seen = "".join([c async for c in stream if sn.parse_error_frame(c) is None])
        print(f"{label}: {question!r}")
        print(f"  reader sees: {seen!r}")
        print(f"  model calls: {model.calls - before}")


if __name__ == "__main__":
    asyncio.run(main())
