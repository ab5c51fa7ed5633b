"""Built-in patterns rewritten for speed (issue 27's per-feed tail) against the patterns they replaced: the same
answers from the `regex` engine, complete or partial, anchored or as a probe, at every place a stream asks.

The patterns before are data (`data/patterns_before.json`, with the commit they come from), so the oracle is the
detector as it was, not a second reading of the new one. Where the answers are the same everywhere a stream asks,
every output is: the filter is a function of those answers (and of what it derives from the pattern, compared too).
"""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Iterable
from pathlib import Path

import pytest
import regex

from sluicegate.redaction import pii, secrets
from sluicegate.redaction.detector import Detector
from tests.benchmarks.corpora27 import CORPORA

from .sameness import suite_texts

_BEFORE = json.loads((Path(__file__).parent / "data" / "patterns_before.json").read_text(encoding="utf-8"))
# By their names in the modules (the two label detectors share an entity).
_DETECTORS = {
    "PHONE_NUMBER": pii.PHONE_NUMBER,
    "LABELED_SECRET": secrets.LABELED_SECRET,
    "LABELED_IN_CODE": secrets.LABELED_IN_CODE,
}


def answers(d: Detector, view: str, pos: int) -> tuple[object, ...]:
    """What a stream asks of a detector at `pos` of `view`: the anchored match and the probe, partial allowed."""
    m = d.compiled.match(view, pos, partial=True)
    p = d.probe.search(view, pos, partial=True)
    return (
        None if m is None else (m.span(), m.partial, m.spans("v") if d.has_value_group else ()),
        None if p is None else (p.span(), p.partial),
    )


def compare(d: Detector, old: Detector, texts: Iterable[str], ahead: int = 10, far: int = 300) -> int:
    """`d` and `old` alike in what they derive from their patterns, and in their answers at every character of
    `d.first` (or every character) on views that end at each of the next `ahead` characters (a stream's views) and
    `far` on (or the text's end). Returns how many places were asked."""
    for field in ("reach", "near_k", "near_rest"):
        assert getattr(d, field) == getattr(old, field), field
    assert (d.stop is None) == (old.stop is None) and (d.stop is None or d.stop.pattern == old.stop.pattern)
    first = regex.compile(d.first or "(?s:.)")
    asked = 0
    for text in texts:
        for m in first.finditer(text):
            pos = m.start()
            for end in (*range(pos + 1, min(len(text), pos + ahead) + 1), min(len(text), pos + far)):
                view = text[:end]
                assert answers(d, view, pos) == answers(old, view, pos), (view[max(0, pos - 40) :], pos)
                asked += 1
    return asked


def phone_like(n: int, seed: int = 36) -> list[str]:
    """Runs of what phone numbers are made of (digits, `+`, separators, parentheses), in prose and in JSON."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        run = "".join(rng.choice("0123456789" * 4 + "+ .-()") for _ in range(rng.randint(6, 24)))
        out.append(rng.choice(("call {r} now", '"phone": "{r}"', "tel:{r}\n", "is{r}", "({r})")).format(r=run))
    return out


def texts() -> list[str]:
    """The corpora, the public suites' texts, phone-like runs and every label string planted in five forms."""
    from .test_label_trie import planted_labels

    return [make(1500) for make in CORPORA.values()] + suite_texts() + phone_like(600) + [planted_labels()]


@pytest.mark.parametrize("entity", sorted(_BEFORE["patterns"]))
def test_a_rewritten_pattern_answers_as_before(entity: str) -> None:
    d = _DETECTORS[entity]
    before = _BEFORE["patterns"][entity]
    assert d.pattern != before  # (else the entry has no reason to be here)
    old = dataclasses.replace(d, pattern=before)
    assert compare(d, old, texts()) > 10000


# Every form either label detector matches (each quote kind, `@"…"`, a C array, a declaration, a call, a comma,
# a space, an element, a reversed comparison): the corpora and the planted labels above hold no call, no quote
# but `"` after a comma and only two `@"` and C arrays (review of stop 36), so a broken alternative went unseen.
_SECRET_FORMS = (
    "{t}: value",
    '"{t}": value',
    "{t}=>value",
    "{t} := 'v'",
    "{t} = `v`",
    '{t} = @"v"',
    '{t} string = "v"',
    "{t}: &str = 'v'",
    '{t}[25] = "v"',
    '{t}[] = @"v"',
    "{t}[2] = 'v'",
    "'{t}' ::= 'v'",
    "<{t}>value</x>",
    '{t}\t= @ "v"',
)
_CODE_FORMS = (
    '("{t}", "v")',
    "('{t}', 'v')",
    '("x.{t}",  `v`)',
    '{t}("v")',
    "{t}.assign('v', 3)",
    '{t}(@"v")',
    "{t}( `v`)",
    '{t} "v";',
    'if ("v"!=={t}_x)',
)


def test_every_label_form_answers_as_before() -> None:
    from .test_label_trie import label_strings

    sample = label_strings()[::151]
    for entity, forms in (("LABELED_SECRET", _SECRET_FORMS), ("LABELED_IN_CODE", _CODE_FORMS)):
        d = _DETECTORS[entity]
        old = dataclasses.replace(d, pattern=_BEFORE["patterns"][entity])
        texts = [f.format(t=s) for s in sample for f in forms]
        assert compare(d, old, texts, ahead=30) > 10000
