"""GatedSynthesizer gives the LLM sluicegate's prompt by default, in the gate's language with its token."""

from __future__ import annotations

from li_fakes import NODES, ScriptedLLM, make_index
from llama_index.core import get_response_synthesizer
from llama_index.core.prompts import PromptTemplate

from sluicegate.prompts import system_prompt
from sluicegate.sources import gate_factory
from sluicegate.testing import pieces_of
from sluicegate_llamaindex import GATED_QA_TEMPLATE, GatedSynthesizer, gated_qa_template

INDEX = make_index()
GOOD = "Revenue was 5 million in 2018 [S1]. Headcount was 42 [S2]."


def _ask(synth: GatedSynthesizer, llm: ScriptedLLM) -> str:
    response = INDEX.as_query_engine(llm=llm, similarity_top_k=2, response_synthesizer=synth).query("How is it?")
    "".join(response.response_gen)
    return llm.record.prompts[0]


def test_the_default_inner_template_becomes_the_gates_prompt() -> None:
    llm = ScriptedLLM(pieces=pieces_of(GOOD, 4))
    inner = get_response_synthesizer(llm=llm, streaming=True, response_mode="compact")  # LlamaIndex's default
    synth = GatedSynthesizer(inner, filter_factory=gate_factory(language="fr", refusal_token="AUCUNE"), subject="ACME")
    prompt = _ask(synth, llm)
    assert "réponds exactement AUCUNE" in prompt and "NO_ANSWER" not in prompt and "ACME" in prompt
    assert "Sources :" in prompt and "Question : How is it?" in prompt
    for i, text in enumerate(NODES.values(), start=1):
        assert f"[S{i}] " in prompt and text in prompt


def test_a_template_the_user_chose_is_kept_or_installed() -> None:
    llm = ScriptedLLM(pieces=pieces_of(GOOD, 4))
    own = PromptTemplate("Mine. {context_str}\nQ: {query_str}\nA: ")
    inner = get_response_synthesizer(llm=llm, streaming=True, response_mode="compact", text_qa_template=own)
    assert _ask(GatedSynthesizer(inner), llm).startswith("Mine. [S1]")
    llm = ScriptedLLM(pieces=pieces_of(GOOD, 4))
    inner = get_response_synthesizer(llm=llm, streaming=True, response_mode="compact")
    assert _ask(GatedSynthesizer(inner, text_qa_template=own), llm).startswith("Mine. [S1]")


def test_the_exported_template_is_the_english_prompt() -> None:
    text = GATED_QA_TEMPLATE.format(context_str="[S1] x", query_str="q?")
    assert system_prompt("en") in text and "[S1] x" in text and "Question: q?" in text
    assert "Quellen:" in gated_qa_template(language="de").format(context_str="", query_str="")
