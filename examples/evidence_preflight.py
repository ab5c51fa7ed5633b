"""The layers before the model, framework-free and offline: refusal rules, then retrieval and the evidence
threshold. Each refusal is a fixed text and costs no retrieval (pattern) or no model call (either).

    pip install sluicegate
    python examples/evidence_preflight.py
"""

from __future__ import annotations

from _preflight_show import QUESTIONS, SOURCES

from sluicegate.evidence import InMemoryRetriever, Preflight, RefusalRules

retriever = InMemoryRetriever(SOURCES, corpus="examples/_show.py")
rules = RefusalRules(entries={"fees": {"en": [r"\b(?:her|his)\s+(?:rates?|fees?)\b"]}}, aliases={"Ada Lovelace": "she"})
preflight = Preflight(retriever, rules=rules)

if __name__ == "__main__":
    model_calls = 0
    for label, question in [*QUESTIONS, ("user category via alias", "What are Ada Lovelace's rates?")]:
        before = retriever.calls
        decision = preflight.run(question, language="en")
        if decision.allowed:
            model_calls += 1  # here the app would call the model with decision.sources
        print(f"{label}: {question!r}")
        print(f"  refused: {decision.refused}  category: {decision.category}  route: {decision.route}")
        print(f"  shown: {decision.text!r}" if decision.refused else f"  sources for the model: {decision.sources}")
        print(f"  retrievals: {retriever.calls - before}  log: {decision.log()}")
    print(f"model calls: {model_calls}")
