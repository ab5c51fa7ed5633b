"""The label alternation factored by endings (`labels.lookbehind_alternation`) against the flat one it replaced
inside the label lookbehinds (issue 27's per-feed tail): the same language, and the same answers from the `regex`
engine, complete or partial, at every place a stream asks.

Why the engine's answers and not only the language: the `regex` package reports false partial matches for some
shapes inside a lookbehind (test_regex_partial.py), and the factored form has new shapes (nested groups, empty
branches). Here the alternation against the flat one; test_pattern_rewrites.py compares the two label detectors
with their patterns before (the flat alternation, one lookbehind per quote) at every place a stream asks.
"""

from __future__ import annotations

import random
from functools import cache

import pytest
import regex

from sluicegate.redaction import labels, secrets

_S = secrets._SCRIPTS


def _forms(word: str) -> list[str]:
    parts = regex.split(r"[_ \-]", word)
    out = [parts[0]]
    for part in parts[1:]:
        out = [o + joint + part for o in out for joint in ("", "_", "-", " ")]
    return out


@cache
def label_strings() -> tuple[str, ...]:
    """Every label in every form, in three cases, after and before what may or may not go with it, and its near
    misses (a character dropped, doubled or changed)."""
    rng = random.Random(27)
    got: set[str] = set()
    for word, _ in labels.words():
        for form in _forms(word):
            for cased in {form, form.upper(), form.replace("k", "\u212a")}:
                for before in ("", "x", "_", "é"):
                    for after in ("", "_prod", "_a_b_c", "1", "s"):
                        got.add(before + cased + after)
            for k in range(len(form)):
                got.add(form[:k] + form[k + 1 :])
                got.add(form[:k] + form[k] + form[k:])
                got.add(form[:k] + rng.choice("aeiouxz_- ") + form[k + 1 :])
    for camel in labels.CAMEL_WORDS:
        for before in ("", "x", "db", "X", "9", "_"):
            got.update({before + camel, before + camel + "_x", before + camel.lower()})
    return tuple(sorted(got))


@cache
def bare_forms() -> tuple[str, ...]:
    return tuple(sorted({f for word, _ in labels.words() for f in _forms(word)}))


@pytest.mark.parametrize("suffixes", [True, False])
def test_the_factored_alternation_is_the_flat_one_in_a_lookbehind(suffixes: bool) -> None:
    """At the end of every label string and of every label's beginning, the factored lookbehind holds exactly where the
    flat one does; a partial search after it (the stream's question) answers alike."""
    behind = {
        name: rf"(?<![{_S}])(?i:{alt})(?![{_S}])"
        for name, alt in (
            ("factored", labels.lookbehind_alternation(suffixes=suffixes)),
            ("flat", labels.alternation(suffixes=suffixes)),
        )
    }
    at = {name: regex.compile(rf"(?<={body})") for name, body in behind.items()}
    open_ = {name: regex.compile(rf"(?:=(?<={body}=))(?!)") for name, body in behind.items()}
    held = 0
    cut = [s[:end] for s in bare_forms() for end in range(1, len(s))]  # (a label's beginnings: most are none)
    for text in (*label_strings(), *cut):
        end = len(text)
        got = [at[n].match(text, end) is not None for n in ("factored", "flat")]
        assert got[0] == got[1], (text, got)
        held += got[0]
        views = (text + "=", text + '= "v"\nmore')
        for view in views:
            a, b = (open_[n].search(view, partial=True) for n in ("factored", "flat"))
            assert (a is None) == (b is None) and (a is None or (a.span(), a.partial) == (b.span(), b.partial)), (
                view,
                a,
                b,
            )
    assert held > 1000  # (the strings hold labels: the comparison is not between two "no"s)


def planted_labels() -> str:
    """Every 40th label string in one of five forms (an assignment, a label, Go's `:=`, JSON, a reversed comparison)."""
    forms = ('{t} = "v1"\nnext', "{t}: value\nnext", '{t} := "v"\nmore', '"{t}": "v"\n', 'if ("s3cr3t!" == {t}) x')
    return "\n".join(f.format(t=s) for s, f in zip(label_strings()[::40], forms * 10**6, strict=False))
