from langchain_core.callbacks import BaseCallbackHandler
from langchain_gate import ANSWER, model, pieces, prompt, retrieve  # the offline example's scripted chat model

from sluicegate_langchain import SourceGate, UsageCallbackHandler, assign


class Guards(BaseCallbackHandler):
    def on_custom_event(self, name, data, **kwargs):
        print("custom event:", name, data)  # {"reasons": [...], "notice": ...}: never the withheld text


outcomes = []
chain = assign(answer=SourceGate(prompt | model, on_outcome=outcomes.append))
usage = UsageCallbackHandler()
sources = retrieve("q")
answer = "".join(
    c.get("answer", "")
    for c in chain.stream({"question": "q", "sources": sources}, config={"callbacks": [usage, Guards()]})
)
print(repr(answer))
run = usage.runs[0]  # one per model run, stopped ones included
print(run.ended, run.usage.output_tokens, run.usage.source, run.usage.input_tokens)
print(usage.output_tokens)  # the sum over runs
o = outcomes[0]  # sluicegate.Outcome
print(o.reason, o.guard.reasons, [v.code for v in o.violations], o.usage.pieces, len(pieces(ANSWER, 5)))
