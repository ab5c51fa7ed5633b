"""Two proxy processes behind one Redis share one spend cap: what one spent, the other cannot spend again."""

from __future__ import annotations

import os
from pathlib import Path

import httpx

from tests.dialects import sdk, streams
from tests.proxy.process import proxy_process
from tests.proxy.upstream import Upstream, events_of

ROOT = Path(__file__).resolve().parents[2]
# 11 input + 23 output tokens at 1 and 2 dollars per million = 57 micro-dollars billed per answer; a reservation
# holds far more (the prompt bound and 300 output tokens), so a cap of 1000 micro-dollars admits one call in
# flight at a time and about a dozen settled answers in all.
CONFIG = """
[budget]
monthly_limit = "0.001"
store = "{redis}"
max_output_tokens = 300
scope = "{scope}"
[budget.prices]
"m" = [1.0, 2.0]
"""


def test_two_proxies_share_one_cap(redis_server: object, upstream_server: tuple[Upstream, str], tmp_path: Path) -> None:
    upstream, url = upstream_server
    config = tmp_path / "sluicegate.toml"
    config.write_text(CONFIG.format(redis=redis_server.url, scope=f"shared-{os.getpid()}"))  # type: ignore[attr-defined]
    upstream.play(events_of(streams.chat(["Hello there. "])))
    body = streams.request_body("chat")
    with proxy_process(url, config) as a, proxy_process(url, config) as b:
        answered = {a: 0, b: 0}
        refused = {a: 0, b: 0}
        for i in range(60):
            target = (a, b)[i % 2]
            r = httpx.post(target + "/v1/chat/completions", json=body, timeout=10)
            seen = sdk.chat_stream(r.content)
            if seen.end == "content_filter":
                refused[target] += 1
                if min(refused.values()) >= 2:
                    break
            else:
                assert seen.end == "stop" and not refused[target]  # once refused, refused for good
                answered[target] += 1
        assert min(refused.values()) >= 2, "the cap never refused on both"
        assert answered[a] and answered[b]
        # Once one proxy's answers filled the shared cap, the other refused at once: the first refusal on each
        # came within one round of the other's (separate caps would let each answer as many again).
        assert abs(answered[a] - answered[b]) <= 1
        assert (answered[a] + answered[b]) * 57 <= 1000  # together within the one cap (micro-dollars)
