"""`PassThrough`: a filter that releases every piece as it comes, for an adapter whose gating an endpoint takes
over.

Behind `gated_sse_route`, a LangChain `SourceGate` or a LlamaIndex `GatedSynthesizer` still numbers the sources
and owns (and closes) the model stream, but the *endpoint* runs the gate, so that a stop becomes a `guard`
frame and a `done` with reason `stopped`, rather than a notice inside the text. Give the adapter
`filter_factory=lambda texts: PassThrough()` and build the real gate from the same texts for the endpoint.
Never use it as the only filter in front of a reader: it checks nothing.
"""

from __future__ import annotations

from .._stream import EMPTY_STEP, Step, check_piece


class PassThrough:
    """Releases each piece unchanged; never stops."""

    stopped = False

    def feed(self, piece: str) -> Step:
        return Step(text=check_piece(piece)) if piece else EMPTY_STEP

    def flush(self, *, truncated: bool = False) -> Step:
        return EMPTY_STEP
