import asyncio

from _show import PLANTED
from agents import Runner
from openai_agents import PROMPT, agent_answering, make_filter  # the example's offline model and filter

from sluicegate_openai_agents import guarded_stream


async def main() -> None:
    result = Runner.run_streamed(agent_answering(PLANTED), PROMPT.user)
    stream = guarded_stream(result, make_filter())
    async for chunk in stream:
        print(repr(chunk))
    print(stream.outcome.reason, result.is_complete, result.final_output)  # the run was cancelled mid-turn
    print(stream.usage.output_tokens, stream.usage.source, result.context_wrapper.usage.output_tokens)


asyncio.run(main())
