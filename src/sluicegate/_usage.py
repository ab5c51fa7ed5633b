"""Honest output-token accounting for one generation, including generations we stopped.

Providers report output usage in a final event that a stream closed early never reaches. What was generated
before the stop is billed all the same, so a spend cap that counts only reported usage under-counts exactly
the stopped streams. The meter sees every raw piece *before* gating; where the provider reported nothing, it
charges one token per UTF-8 byte of the received text (seed 002): an over-estimate by design, since a token
is almost always more than one byte. Reasoning tokens a model spends thinking never arrive as text, so
neither count can see them: a cap that must include them needs the provider's figure.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Usage:
    """The billed figures for one generation, and where the output figure came from."""

    output_tokens: int
    input_tokens: int | None
    source: str  # "provider" or "estimate" (one token per UTF-8 byte of received text)
    received_chars: int
    received_bytes: int
    pieces: int


class UsageMeter:
    """Sans-I/O accounting: feed it raw pieces and any usage the provider reports; read `usage` at the end."""

    def __init__(self) -> None:
        self._chars = 0
        self._bytes = 0
        self._pieces = 0
        self._output: int | None = None
        self._input: int | None = None

    def observe(self, piece: str) -> None:
        """Count one raw piece as received from the provider (before any filter saw it)."""
        self._pieces += 1
        self._chars += len(piece)
        self._bytes += len(piece.encode("utf-8", "surrogatepass"))

    def report(
        self, *, output_tokens: int | None = None, input_tokens: int | None = None, cumulative: bool = False
    ) -> None:
        """Record provider usage. Incremental figures (LangChain chunks) add up; cumulative ones replace.

        Where the provider reported an output figure it wins; the estimate only fills the gap it left.
        """
        for name, value in (("output_tokens", output_tokens), ("input_tokens", input_tokens)):
            if value is not None and (not isinstance(value, int) or value < 0):
                raise ValueError(f"{name} must be a non-negative int, got {value!r}")
        if output_tokens is not None and (output_tokens or self._output is not None):
            # A first output figure of 0 is a placeholder (Anthropic's message_start), not a count: it must not
            # turn the byte estimate of text we did receive into a provider figure of nothing.
            self._output = output_tokens if cumulative or self._output is None else self._output + output_tokens
        if input_tokens is not None:
            self._input = input_tokens if cumulative or self._input is None else self._input + input_tokens

    @property
    def usage(self) -> Usage:
        return self._figure()

    def _figure(self) -> Usage:
        if self._output is not None:
            return Usage(self._output, self._input, "provider", self._chars, self._bytes, self._pieces)
        return Usage(self._bytes, self._input, "estimate", self._chars, self._bytes, self._pieces)


class RunMeter(UsageMeter):
    """A meter over a run of several model responses (an agent's turns), each billed as `UsageMeter` bills one.

    Why: an agent run makes one model call per turn, and the provider's figure for a turn arrives only at that
    turn's end. One `UsageMeter` would let the first turn's reported figure hide the bytes of a later turn that
    was stopped before its end. `next_response()` starts a new response; `usage` adds every response's figure
    (the provider's where it reported one, else the byte estimate of that response's received text).
    """

    def __init__(self) -> None:
        super().__init__()
        self._done: list[Usage] = []

    def next_response(self) -> None:
        """A new model response starts: close the books of the current one (if it received anything)."""
        if self._received_any():
            self._done.append(self._figure())
        UsageMeter.__init__(self)

    def _received_any(self) -> bool:
        return bool(self._pieces) or self._output is not None or self._input is not None

    @property
    def responses(self) -> tuple[Usage, ...]:
        """Each response's usage, in order (the current one last, if it received anything)."""
        current = (self._figure(),) if self._received_any() or not self._done else ()
        return (*self._done, *current)

    @property
    def usage(self) -> Usage:
        parts = self.responses
        inputs = [u.input_tokens for u in parts if u.input_tokens is not None]
        return Usage(
            sum(u.output_tokens for u in parts),
            sum(inputs) if inputs else None,
            "provider" if all(u.source == "provider" for u in parts) else "estimate",
            sum(u.received_chars for u in parts),
            sum(u.received_bytes for u in parts),
            sum(u.pieces for u in parts),
        )
