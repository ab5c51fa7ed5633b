"""Layer 2: the evidence threshold. Below it, a fixed refusal, and the model is never called.

Why the best of two bounded scores per passage: a cosine similarity misses exact names and numbers that a
whole-word match finds, and keyword coverage misses paraphrases that the embedding finds; both are 0..1, so
the higher one is a fair reading of "does this passage support the question". Why never a fused score: see
`scores`. Why the threshold still applies with the embedding down: a missing leg must not turn into a pass.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from .._notices import notice
from ._coverage import MIN_MATCHES, PassageWords, content_words, coverage
from ._decision import NO_EVIDENCE, Decision, Passage
from ._normalize import normalize_question
from ._ordinal import FollowUp
from ._retriever import joined_query
from ._scores import Score, ScoreKind, score_kind

DEFAULT_THRESHOLD = 0.35  # the seed's design default, checked on a substitute embedding: not a calibration


@dataclass(frozen=True)
class Evidence:
    """The best score over the passages, its kind, and the passage that set it (None when nothing scored)."""

    score: float
    kind: ScoreKind | None
    passage_id: str | None


class EvidenceGate:
    """Compare the best bounded score over the retrieved passages with a threshold.

    `score_kind` declares what the retriever's bare float scores are (a `Score` on a passage carries its own
    kind); "rrf" and "bm25_raw" raise `UnusableScoreError` here. A score equal to the threshold passes.
    `keywords=False` turns keyword coverage off (cosine only); `min_matches` is the distinct content words
    that must match before coverage counts. `text` overrides the refusal text per language.
    """

    def __init__(
        self,
        threshold: float = DEFAULT_THRESHOLD,
        *,
        score_kind: ScoreKind | str = ScoreKind.COSINE_0_1,
        keywords: bool = True,
        min_matches: int = MIN_MATCHES,
        text: Mapping[str, str] | None = None,
    ) -> None:
        if not 0.0 <= float(threshold) <= 1.0:
            raise ValueError(f"the threshold compares 0..1 scores: got {threshold!r}")
        if min_matches < 1:
            raise ValueError("min_matches must be at least 1")
        self.threshold = float(threshold)
        self.score_kind = _kind(score_kind)
        self.keywords = keywords
        self.min_matches = min_matches
        self._text = dict(text or {})

    def decide(
        self,
        question: str,
        passages: Iterable[Passage],
        *,
        language: str,
        previous: str | None = None,
        follow_up: FollowUp | None = None,
    ) -> Decision:
        """Allowed when the best score reaches the threshold; else refused with the fixed text (no model call)."""
        kept = tuple(passages)
        best = self.best(question, kept, language=language, previous=previous, follow_up=follow_up)
        allowed = best.kind is not None and best.score >= self.threshold
        return Decision(
            refused=not allowed,
            route="evidence",
            language=language,
            category=None if allowed else NO_EVIDENCE,
            text=None if allowed else self.text(language),
            score=best.score if best.kind is not None else None,
            kind=best.kind,
            passage_id=best.passage_id,
            passages=kept if allowed else (),
            follow_up=follow_up if follow_up is not None and follow_up.position is not None else None,
        )

    def best(
        self,
        question: str,
        passages: Iterable[Passage],
        *,
        language: str,
        previous: str | None = None,
        follow_up: FollowUp | None = None,
    ) -> Evidence:
        """The best evidence: per passage the higher of its cosine(s) and coverage(s), then the best passage.

        For a follow-up, the question joined to the previous one is scored too (coverage here, and the
        passage's `joined_score` if the retriever gave one) and the higher reading counts. Ties keep the first
        passage and prefer the cosine. An ordinal `follow_up` joins the item it names (or the start of the
        previous answer) to that reading, and a follow-up that says nothing but the item ("tell me more about
        the second one") is also read as the item's own words.
        """
        units = [content_words(normalize_question(question), language)]
        joined = joined_query(question, previous, follow_up)
        if joined != question:
            units.append(content_words(normalize_question(joined), language))
        if follow_up is not None and follow_up.item and follow_up.only_item:
            units.append(content_words(normalize_question(follow_up.item), language))
        best = Evidence(0.0, None, None)
        for passage in passages:
            for value, kind in self._scores(passage, units):
                if best.kind is None or value > best.score:
                    best = Evidence(value, kind, passage.id)
        return best

    def text(self, language: str) -> str:
        """The fixed text of a below-threshold refusal."""
        return self._text[language] if language in self._text else notice(language, "refusal")

    def _scores(self, passage: Passage, units: list[frozenset[str]]) -> list[tuple[float, ScoreKind]]:
        out: list[tuple[float, ScoreKind]] = []
        for raw in (passage.score, passage.joined_score):
            if raw is None:
                continue
            score = raw if isinstance(raw, Score) else Score(float(raw), self.score_kind)
            out.append((score.unit(), score.kind))
        if self.keywords:
            words = PassageWords.of(passage.text)
            value = max(coverage(u, words, min_matches=self.min_matches) for u in units)
            if value > 0.0 or not out:
                out.append((value, ScoreKind.KEYWORD_COVERAGE))
        return out


def _kind(kind: ScoreKind | str) -> ScoreKind:
    return score_kind(kind)
