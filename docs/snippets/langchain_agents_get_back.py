from langchain.agents import create_agent
from langchain_agent import QUESTION, SOURCES, ScriptedAgentModel, opening_hours

from sluicegate_langchain import GateMiddleware

outcomes = []
agent = create_agent(
    ScriptedAgentModel(), [opening_hours], middleware=[GateMiddleware(SOURCES, on_outcome=outcomes.append)]
)
state = agent.invoke({"messages": [("user", QUESTION)]})
call, answer = state["messages"][1], state["messages"][-1]
print(call.tool_calls[0]["name"], call.tool_calls[0]["args"])  # validated, after the terminal event
print(repr(answer.text))  # released text, then the notice a paragraph apart
print(answer.response_metadata["finish_reason"])  # content_filter: the gate stopped this turn
print([(o.reason, [v.code for v in o.violations]) for o in outcomes])  # one Outcome per model call
