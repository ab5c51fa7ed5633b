from llama_index.core.instrumentation import get_dispatcher
from llamaindex_gate import engine, llm  # the offline example's scripted LLM and query engine

from sluicegate_llamaindex import UsageEventHandler

usage = UsageEventHandler()
get_dispatcher().add_event_handler(usage)
response = engine.query("When is the library open?")
text = "".join(response.response_gen)
print(repr(text))
g = response.guard  # a sluicegate.Outcome, filled in as the answer streams
print(g.reason, g.guard.reasons, g.guard.notice == text.split("\n\n")[-1], [v.code for v in g.violations])
print(g.usage.output_tokens, g.usage.source)  # "provider" when raw["usage"] had completion/output_tokens
print(response.source_nodes[0].node.node_id)  # [S1] is source_nodes[0]
call = usage.calls[0]
print(call.ended, call.usage.output_tokens, call.usage.source, usage.output_tokens, llm.produced)
