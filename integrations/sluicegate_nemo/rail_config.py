"""The `sluicegate output` rail: its settings check, its action, and the helpers that build or amend a config.

NeMo can only allow or block a streamed window (TRANSFORM is ignored while streaming), so the rail never
judges streamed text itself: the filter already ran upstream, and the rail blocks exactly the `""` sentinel
(app-owned stream) or the error frame (`GatedLLM`) that follows a stop. Non-streaming `generate_async` runs
the whole Colang flow, and there the action filters the whole answer: block, or rewrite `$bot_message`.
"""

from __future__ import annotations

import json
import logging
import weakref
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from nemoguardrails import LLMRails, RailsConfig
from nemoguardrails.actions.rail_outcome import RailOutcome, TransformTarget

from sluicegate import StreamFilter, drive
from sluicegate.host import load_factory

from .session import current_session

log = logging.getLogger(__name__)

FLOW_NAME = "sluicegate output"
ACTION_NAME = "sluicegate_check"
RAIL_PATH = str(Path(__file__).with_name("rail"))
# The only streaming settings under which the client sees exactly the filter's output (see docs/nemo.md).
REQUIRED_STREAMING: dict[str, Any] = {"enabled": True, "chunk_size": 1, "context_size": 0, "stream_first": False}

FilterFactory = Callable[[Mapping[str, Any]], StreamFilter]
_INSTALLED: weakref.WeakKeyDictionary[LLMRails, SluicegateRail] = weakref.WeakKeyDictionary()


class UnsafeStreamingConfig(ValueError):
    """The config would let NeMo show text sluicegate has not released (or drop text it has)."""


_WHY = {
    "stream_first": "NeMo would send each batch to the client before the rail ran on it (unvalidated text)",
    "chunk_size": "a batch would mix released text with the stop signal, and NeMo counts deltas, not tokens",
    "context_size": "windows would overlap and re-judge text that was already sent",
}


def check_streaming(config: RailsConfig) -> None:
    """Raise `UnsafeStreamingConfig` naming the setting if streaming could show unvalidated text."""
    if config.colang_version != "1.0":
        raise UnsafeStreamingConfig(
            f"colang_version is {config.colang_version!r}: NeMo's chunked streaming output rails work with "
            'Colang 1.0 only; set colang_version: "1.0"'
        )
    if FLOW_NAME not in config.rails.output.flows:
        raise UnsafeStreamingConfig(f"rails.output.flows must list {FLOW_NAME!r} (sluicegate_config() adds it)")
    streaming = config.rails.output.streaming
    if streaming is None or not streaming.enabled:
        return  # non-streaming only: NeMo itself refuses stream_async() with output rails and no streaming
    for key in ("stream_first", "chunk_size", "context_size"):
        got, want = getattr(streaming, key), REQUIRED_STREAMING[key]
        if got != want:
            raise UnsafeStreamingConfig(
                f"rails.output.streaming.{key} is {json.dumps(got)}, must be {json.dumps(want)}: {_WHY[key]}. "
                f"Fix: set rails.output.streaming = {json.dumps(REQUIRED_STREAMING)} in config.yml, or build the "
                "config with sluicegate_nemo.sluicegate_config()"
            )
    if getattr(config.rails.output, "parallel", False):
        raise UnsafeStreamingConfig("rails.output.parallel must be false with the sluicegate rail")


def _is_error_frame(text: str) -> bool:
    try:
        frame = json.loads(text)
    except (TypeError, ValueError):
        return False
    return isinstance(frame, dict) and isinstance(frame.get("error"), dict)


class SluicegateRail:
    """The `sluicegate_check` action, bound to a filter factory (called with the rail's NeMo context)."""

    def __init__(self, make_filter: FilterFactory | None = None) -> None:
        self.make_filter = make_filter

    async def check(
        self, text: str | None = None, context: dict | None = None, events: list | None = None, **kwargs: Any
    ) -> RailOutcome:
        context = context or {}
        if text is None:
            text = str(context.get("bot_message") or "")
        # NeMo's Colang runtime passes `events` (we ask for it by name); its streaming path never does.
        if events is None:
            return self._window(text, context)
        return self._whole(text, context)

    def _window(self, text: str, context: Mapping[str, Any]) -> RailOutcome:
        session = current_session(context)
        if session is None:
            log.error("sluicegate: streamed window without a session; blocking (use guarded_stream)")
            return RailOutcome.block(reason="sluicegate: no stream session")
        if not session.gated:
            # The text did not come through gated()/GatedLLM: no filter saw it, and the rail cannot judge it.
            log.error("sluicegate: streamed window the filter never saw; blocking (generator= or GatedLLM)")
            session.blocked = True
            return RailOutcome.block(reason="sluicegate: stream not gated")
        if session.stopped and (text == "" or _is_error_frame(text)):
            session.blocked = True
            return RailOutcome.block(reason="sluicegate: " + ",".join(session.reasons or ("stopped",)))
        return RailOutcome.allow()  # released text (already judged), or a NeMo error frame passed on untouched

    def _whole(self, text: str, context: Mapping[str, Any]) -> RailOutcome:
        session = current_session(context)
        if session is not None and session.gated:
            # NeMo's own full-text pass after a gated stream: the text is the gate's output, already judged;
            # NeMo discards this verdict, and judging gate output again would be wrong (markers are gone).
            return RailOutcome.allow()
        if self.make_filter is None:
            log.error("sluicegate: no filter configured; blocking (sluicegate_nemo.install or config.yml)")
            return RailOutcome.block(reason="sluicegate: no filter configured")
        filt = self.make_filter(context)
        released = "".join(step.text for step in drive([text], filt))
        if filt.stopped:
            return RailOutcome.block(reason="sluicegate: stopped")
        if released != text:
            return RailOutcome.transform([(TransformTarget.BOT_MESSAGE, released)])
        return RailOutcome.allow()


def install(rails: LLMRails, make_filter: FilterFactory | None) -> SluicegateRail:
    """Check `rails.config` and register `sluicegate_check` on `rails` (replacing an earlier one)."""
    check_streaming(rails.config)
    rail = SluicegateRail(make_filter)
    rails.register_action(rail.check, name=ACTION_NAME)
    _INSTALLED[rails] = rail
    return rail


def installed(rails: LLMRails) -> SluicegateRail:
    rail = _INSTALLED.get(rails)
    if rail is None:
        raise RuntimeError("sluicegate is not installed on this LLMRails: call sluicegate_nemo.install(rails, ...)")
    return rail


def rail_colang() -> str:
    return Path(RAIL_PATH, "rails.co").read_text(encoding="utf-8")


def sluicegate_config(config: RailsConfig | None = None) -> RailsConfig:
    """A config with the sluicegate rail and the required streaming settings (amends `config` if given)."""
    yaml = json.dumps({"rails": {"output": {"flows": [FLOW_NAME], "streaming": REQUIRED_STREAMING}}})
    ours = RailsConfig.from_content(colang_content=rail_colang(), yaml_content=yaml)
    merged = ours if config is None else config + ours
    check_streaming(merged)
    return merged


def init_from_config(app: LLMRails) -> None:
    """What the rail folder's `config.py:init(app)` does when NeMo loads it.

    NeMo re-raises what this raises as "Failed to initialize configuration module at <path>" (the cause is
    chained, printed above it), so the reason is also logged at ERROR first: with no logging configured,
    Python prints it to stderr before the traceback, and it is the first line a user reads.
    """
    spec = (app.config.custom_data or {}).get("sluicegate") or {}
    path = spec.get("filter") if isinstance(spec, dict) else None
    try:
        install(app, load_factory(path, setting="custom_data.sluicegate.filter") if path else None)
    except Exception as exc:
        log.error("sluicegate cannot load this NeMo config: %s", exc)
        raise
