"""The layers before the model as NeMo rails: an input rail for the refusal rules, and the evidence threshold
as an input rail (the app hands the passages in the context message: NeMo's "general" mode, which never runs
retrieval rails) and as a retrieval rail (dialog mode: after `retrieve_relevant_chunks`, before the bot
message is generated). A refusal is NeMo's own `bot ...` + `stop`, with the fixed localized text as the bot
message, so the model is never asked.

Why not NeMo's regex rail: it matches raw text (no normalization, so Persian with a ZWNJ or Arabic letter
forms slips through) and answers with one generic message; and NeMo has no evidence threshold at all.

Registered from the rail folder (`EVIDENCE_RAIL_PATH` under `import_paths:`; its `actions.py` is loaded by
NeMo), configured by `custom_data: {sluicegate: {evidence: {...}}}` in config.yml, or in code by
`install_evidence(rails, rules=..., evidence=...)`.
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nemoguardrails import LLMRails
from nemoguardrails.actions.rail_outcome import RailOutcome

from sluicegate.evidence import Decision, EvidenceGate, Overview, Passage, RefusalRules, Score, ScoreKind, score_kind

from .session import current_session

EVIDENCE_RAIL_PATH = str(Path(__file__).with_name("evidence_rail"))
REFUSE_FLOW = "sluicegate refuse"
EVIDENCE_INPUT_FLOW = "sluicegate evidence"
EVIDENCE_RETRIEVAL_FLOW = "sluicegate evidence retrieval"
REFUSED_KEY = "sluicegate_refused"  # set by the flows before `bot sluicegate refusal`, so no rail judges it again


@dataclass
class EvidenceRails:
    """What the two actions use: the refusal rules, the evidence gate, the default language, the score kind."""

    rules: RefusalRules
    evidence: EvidenceGate
    language: str = "en"
    score_kind: ScoreKind = ScoreKind.COSINE_0_1
    overview: Overview | None = None

    async def refuse(
        self, text: str | None = None, context: dict[str, Any] | None = None, **kwargs: Any
    ) -> RailOutcome:
        """Input rail: block a question the refusal rules refuse (metadata carries the fixed text)."""
        context = context or {}
        question = text if isinstance(text, str) else str(context.get("user_message") or "")
        previous = _previous(context, kwargs.get("events"))
        decision = self.rules.check(question, language=_language(context, self.language), previous=previous)
        return _outcome(decision, context)

    async def check_evidence(
        self, text: str | None = None, context: dict[str, Any] | None = None, **kwargs: Any
    ) -> RailOutcome:
        """Input or retrieval rail: block when no passage in the context reaches the threshold."""
        context = context or {}
        if context.get(REFUSED_KEY):
            return RailOutcome.allow()  # our own refusal's bot message passing through the retrieval rails
        question = text if isinstance(text, str) else str(context.get("user_message") or "")
        language = _language(context, self.language)
        if self.overview is not None and self.overview.matches(question, language=language):
            return RailOutcome.allow(metadata={"route": "overview"})  # records, not similarity: no threshold
        previous = _previous(context, kwargs.get("events"))
        passages = self.passages(context)
        return _outcome(self.evidence.decide(question, passages, language=language, previous=previous), context)

    def passages(self, context: Mapping[str, Any]) -> list[Passage]:
        """The passages in the NeMo context: `sources` (str, or {"id", "text", "score"}), else NeMo's chunks."""
        raw: Any = context.get("sources")
        if raw is None:
            raw = context.get("relevant_chunks_sep") or (
                [context["relevant_chunks"]] if context.get("relevant_chunks") else []
            )
        if isinstance(raw, str):
            raw = [raw]
        out: list[Passage] = []
        for i, item in enumerate(raw, start=1):
            if isinstance(item, Mapping):
                value = item.get("score")
                score = None if value is None else Score(float(value), ScoreKind(item.get("kind") or self.score_kind))
                out.append(Passage(str(item.get("id") or f"c{i}"), str(item.get("text") or ""), score))
            else:
                out.append(Passage(f"c{i}", str(item), None))
        return out


def _outcome(decision: Decision, context: Mapping[str, Any]) -> RailOutcome:
    if not decision.refused:
        return RailOutcome.allow(metadata=decision.log())
    session = current_session(context)
    if session is not None:
        # A guarded stream: NeMo streams the refusal (our fixed text, no model output) through the output
        # rail, which blocks any text the filter never saw. This text needs no filter: vouch for it.
        session.gated = True
    return RailOutcome.block(
        reason=f"sluicegate: {decision.category}", metadata={**decision.log(), "text": decision.text}
    )


def _language(context: Mapping[str, Any], default: str) -> str:
    value = context.get("language")
    return value if isinstance(value, str) and value else default


def _previous(context: Mapping[str, Any], events: Sequence[Mapping[str, Any]] | None) -> str | None:
    """The previous question: `sluicegate_previous` when the context sets it (`""` or null marks a new
    question, judged alone), else the user message before this one in the conversation."""
    if "sluicegate_previous" in context:
        value = context["sluicegate_previous"]
        return value if isinstance(value, str) and value else None
    return _previous_user_message(events)


def _previous_user_message(events: Sequence[Mapping[str, Any]] | None) -> str | None:
    """The user turn before the current one, from NeMo's event history (for follow-ups)."""
    if not events:
        return None
    said = [e.get("text") for e in events if e.get("type") == "UserMessage" and isinstance(e.get("text"), str)]
    return said[-2] if len(said) >= 2 else None


_INSTALLED: weakref.WeakKeyDictionary[LLMRails, EvidenceRails] = weakref.WeakKeyDictionary()


def install_evidence(
    rails: LLMRails,
    *,
    rules: RefusalRules | None = None,
    evidence: EvidenceGate | None = None,
    overview: Overview | None = None,
    language: str = "en",
    score_kind: ScoreKind | str = ScoreKind.COSINE_0_1,
) -> EvidenceRails:
    """Register `sluicegate_refuse` and `sluicegate_evidence` on `rails` (replacing those from config.yml)."""
    ours = EvidenceRails(
        rules or RefusalRules(),
        evidence or EvidenceGate(score_kind=score_kind),
        language,
        _kind(score_kind),
        overview,
    )
    rails.register_action(ours.refuse, name="sluicegate_refuse")
    rails.register_action(ours.check_evidence, name="sluicegate_evidence")
    _INSTALLED[rails] = ours
    return ours


def from_custom_data(custom_data: Mapping[str, Any] | None) -> EvidenceRails:
    """Build the rails from `custom_data.sluicegate.evidence` (all keys optional):

    `language`, `threshold`, `score_kind`, `categories` (shipped ones), `rules` (a path: directory or JSON of the
    user's categories), `aliases` (name -> pronoun), `min_matches`.
    """
    spec = ((custom_data or {}).get("sluicegate") or {}).get("evidence") or {}
    if not isinstance(spec, Mapping):
        raise ValueError("custom_data.sluicegate.evidence must be a mapping")
    kind = _kind(spec.get("score_kind", ScoreKind.COSINE_0_1))
    rules = RefusalRules(spec.get("categories"), path=spec.get("rules"), aliases=spec.get("aliases"))
    gate = EvidenceGate(
        float(spec.get("threshold", 0.35)), score_kind=kind, min_matches=int(spec.get("min_matches", 2))
    )
    return EvidenceRails(rules, gate, str(spec.get("language", "en")), kind)


_FROM_CONFIG: dict[int, tuple[Any, EvidenceRails]] = {}


def configured(config: Any) -> EvidenceRails:
    """The rails for a RailsConfig (built once per config object) — used by the rail folder's actions."""
    held = _FROM_CONFIG.get(id(config))
    if held is None or held[0] is not config:  # the config is kept with its rails, so its id is not reused
        held = (config, from_custom_data(getattr(config, "custom_data", None)))
        _FROM_CONFIG[id(config)] = held
    return held[1]


def _kind(kind: ScoreKind | str) -> ScoreKind:
    return score_kind(kind)  # rrf / bm25_raw refused when the rails are configured
