"""What the layers before the model decided, in a form that can be logged without the question's text."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from ._scores import Score, ScoreKind

if TYPE_CHECKING:
    from ._ordinal import FollowUp

Route = Literal["refusal", "overview", "evidence"]
MatchedOn = Literal["question", "alias", "follow_up", "brief"]  # brief: the overview fallback for the subject

NO_EVIDENCE = "no_evidence"  # category of an evidence-threshold refusal
NO_RECORDS = "no_records"  # category of an overview question whose records callable returned nothing


@dataclass(frozen=True)
class Passage:
    """A retrieved passage: an id for logs, its text, and the retriever's score(s) with their kind.

    `score` is the similarity with the question as asked; `joined_score` (a follow-up) with the question
    joined to the previous one. A bare float takes the kind the gate was configured with. `None` means the
    retriever had no similarity (the embedding service was down, or a keyword-only leg): keyword coverage,
    which the gate computes itself, then decides alone.
    """

    id: str
    text: str
    score: Score | float | None = None
    joined_score: Score | float | None = None
    metadata: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)


@dataclass(frozen=True)
class Record:
    """One of the site's own entries for the overview route (a CV entry, a project, an article)."""

    id: str
    text: str
    date: dt.date | None = None  # dated entries are ordered newest first
    end: dt.date | None = None
    metadata: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)


@dataclass(frozen=True)
class Decision:
    """The outcome of a layer before the model.

    `refused` with `text` (a fixed localized text, never the model's words) and `category` (a code such as
    "instructions", "tasks", a user category, "no_evidence"); or allowed, with the passages or records the
    model may be given. `score`, `kind` and `passage_id` record the best evidence; `log()` gives all of it
    except texts. `follow_up`: for an ordinal follow-up, the item it names (tell the model: `item`), or why
    none could be read.
    """

    refused: bool
    route: Route
    language: str
    category: str | None = None
    text: str | None = None
    matched_on: MatchedOn | None = None
    score: float | None = None
    kind: ScoreKind | None = None
    passage_id: str | None = None
    passages: tuple[Passage, ...] = field(default=(), repr=False)
    records: tuple[Record, ...] = field(default=(), repr=False)
    follow_up: FollowUp | None = field(default=None, repr=False)  # what an ordinal follow-up refers to

    @property
    def allowed(self) -> bool:
        """Not refused: the model may be called with `sources`."""
        return not self.refused

    @property
    def sources(self) -> list[str]:
        """The texts the model (and after it the sentence gate) gets: records on the overview route, else passages."""
        if self.refused:
            return []
        if self.route == "overview":
            return [record_text(r) for r in self.records]
        return [p.text for p in self.passages]

    def log(self) -> dict[str, Any]:
        """A log record: codes, the best score, its kind and passage id; never the question or a passage text."""
        return {
            "refused": self.refused,
            "route": self.route,
            "language": self.language,
            "category": self.category,
            "matched_on": self.matched_on,
            "score": self.score,
            "kind": self.kind.value if self.kind is not None else None,
            "passage_id": self.passage_id,
            "passages": len(self.passages),
            "records": len(self.records),
            "follow_up": self.follow_up.reason if self.follow_up is not None else None,
        }


def record_text(record: Record) -> str:
    """A record as a source: its dates first (ISO, as precise as given), so the gate can check them literally."""
    if record.date is None:
        return record.text
    span = record.date.isoformat() if record.end is None else f"{record.date.isoformat()} – {record.end.isoformat()}"
    return f"{span}: {record.text}"
