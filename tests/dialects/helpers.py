"""Running one request through the sans-I/O relay: upstream bytes (cut as given) in, client bytes out."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from sluicegate.call import CallModel, Refuse
from sluicegate.dialects import Relay, build_call, encoder_for, parse_request


def relay(
    dialect: str,
    body: dict[str, Any],
    upstream: bytes,
    cuts: Sequence[int] = (),
    *,
    reasoning: dict[str, Any] | None = None,
    **call_options: Any,
) -> tuple[bytes, Relay]:
    """The client's bytes for `upstream` read in pieces cut at `cuts`; stops reading at a stop, as the proxy.
    `reasoning`: show reasoning text through a redactor with these options (None: never shown)."""
    request = parse_request(dialect, json.dumps(body).encode())
    call = build_call(request, **call_options)
    action = call.start()
    r = Relay(call, encoder_for(request, answer_id="sg_fixed", created=1), dialect, reasoning=reasoning)
    if isinstance(action, Refuse):
        return r.refuse(action.text), r
    assert isinstance(action, CallModel)
    bounds = [0, *cuts, len(upstream)]
    out = b""
    for start, end in zip(bounds, bounds[1:], strict=False):
        out += r.feed(upstream[start:end])
        if r.ended:
            break
    out += r.close()
    return out, r


def body_of(
    dialect: str, body: dict[str, Any], upstream: bytes, *, reasoning: dict[str, Any] | None = None
) -> tuple[int, bytes]:
    _, r = relay(dialect, {**body, "stream": False}, upstream, reasoning=reasoning)
    status, payload = r.body()
    return status, json.dumps(payload).encode()
