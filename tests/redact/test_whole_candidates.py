"""wholedb.py's candidates for whole text (`[fast]`): every start where a detector's pattern matches lies in its
candidate ranges, every label detector's start in the label-word spans (or, for the reversed comparison, at
one of `_opens`'s quotes), so whole.py's `matches` equals each detector's own `finditer`.

Checked against the `regex` engine itself (an overlapped search gives every start where a match exists) on the
four corpora of tests/benchmarks/corpora27.py, issue 17's texts, every case of the five suites in
tests/redact/suites/ and Hypothesis texts built from the pieces the shapes are about (digit groups, separators,
quotes and operators, label words in several scripts and cases, the characters the `regex` engine folds to
ASCII letters, the middle dot). That `redact()` then equals the stream is test_whole.py's (it runs with `[fast]`).
"""

from __future__ import annotations

import contextlib
import sys
from unittest import mock

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from sluicegate.redaction import Redactor, labels, prefilter, whole, wholedb
from sluicegate.redaction.detector import LOOKBEHIND
from tests.benchmarks import corpora27
from tests.benchmarks import corpus as corpus17

from . import suite_cases

pytestmark = pytest.mark.skipif(not prefilter.available(), reason="the optional [fast] extra is not installed")

TEXTS = {name: make(16 * 1024) for name, make in corpora27.CORPORA.items()}
TEXTS["issue17-planted"] = corpus17.planted(16 * 1024).text
TEXTS["issue17-prose"] = corpus17.prose(16 * 1024)


def _engine():  # type: ignore[no-untyped-def]
    return Redactor()._engine


def _starts(rx: regex.Pattern[str], view: str) -> list[int]:
    """Every position where `rx` has a match (an overlapped search finds the leftmost start after each one)."""
    return [m.start() for m in rx.finditer(view, overlapped=True)]


def _inside(q: int, spans: list[tuple[int, int]]) -> bool:
    return any(a <= q <= b for a, b in spans)


def check_covers(view: str) -> None:
    engine = _engine()
    db = wholedb.shared(engine.detectors)
    assert db is not None
    hits = db.hits(view)
    spans = db.label_spans(view, LOOKBEHIND)
    assert spans is not None
    for i, d in enumerate(engine.detectors):
        if i in hits:
            for q in _starts(d.compiled, view):
                assert _inside(q, hits[i]), (d.entity, q, view[max(0, q - 20) : q + 40])
        rest = whole._rest_rx(d)
        if whole._all_near(d) or rest is not None:
            opens = hits.get(-1 - i)
            if rest is not None:
                assert opens is not None
                for q in _starts(rest, view):
                    assert (q, q) in opens, (d.entity, "rest", q, view[max(0, q - 20) : q + 40])
            for q in _starts(d.compiled, view):
                ok = _inside(q, spans) or (opens is not None and (q, q) in opens)
                assert ok, (d.entity, q, view[max(0, q - 80) : q + 40])


def check_matches(text: str, *, any_length: bool = False) -> None:
    """whole.matches (the candidates' path, for a text long enough to take it, or at any length with
    `any_length`) is each detector's finditer."""
    r = Redactor()
    r._append(text)
    view = r._view
    with mock.patch.object(whole, "_SCAN", 0) if any_length else contextlib.nullcontext():
        got = {id(d): [m.span() for m in found] for d, found in whole.matches(r._engine, view)}
    for d in r._engine.detectors:
        assert got.get(id(d), []) == [m.span() for m in d.compiled.finditer(view)], d.entity


@pytest.mark.parametrize("name", sorted(TEXTS))
def test_corpora_candidates_cover_every_start(name: str) -> None:
    r = Redactor()
    r._append(TEXTS[name])
    check_covers(r._view)
    check_covers(TEXTS[name])
    check_matches(TEXTS[name])


@pytest.mark.parametrize("suite", suite_cases.NAMES)
def test_every_suite_case_is_covered(suite: str) -> None:
    texts = [case["text"] for case in suite_cases.load(suite)]
    for text in texts:
        check_covers(text)
    together = "\n".join(texts)
    check_covers(together)
    check_matches(together)


PIECES = [
    *"0123456789abcdefABCDEF",
    *" .:-/=!\"'`<>,()+@_\t\n",
    "192.168.1.",
    "10:31:07",
    "2026-12-02T",
    "::",
    "fe80::1",
    "+1 ",
    "(415) ",
    "555-0132",
    "0532 123 45 67",
    "4111 1111 1111 1111",
    "123-45-6789",
    "aa:bb:cc:dd:ee:ff",
    "DE89",
    "3704 0044 0532 0130 00",
    "MTA4NzY1NDMyMTA5ODc2NTQz",
    ".GhIjKl.",
    "x" * 27,
    "AC" + "0" * 32,
    "12345:",
    "bc1q",
    "1BoatSLRHtKNngkdXEeobR76b53LETtpyT",
    "https://",
    "user:pw@",
    "a@b.co",
    "password",
    "Password",
    "apiKey",
    "API Key",
    "api-key",
    "db_pass",
    "token",
    "Token",
    "secret",
    "пароль",
    "ПАРОЛЬ",
    "密码",
    "contraseña",
    "Contraseña",
    "mot de passe",
    "kennwort",
    "\u212a",  # Kelvin sign: matches `k` case-insensitively
    "\u017f",  # long s
    "\u0130",
    "\u00b7",  # middle dot (a card's group separator)
    "é",
    "ж",
    "\u1c80",  # a Cyrillic letter folding to в
    " == ",
    ' = "',
    '": "',
    '" != ',
    "if (",
    # the longest parts a label form may put between its word and the value (label_gap's claim)
    "api_key",
    "_prod",
    "-v2",
    "_abcdefghij",
    "12",
    ": &str",
    " string",
    " : &",
    "[0]",
    "[1234]",
    ".assign(",
    "<password",
    "</password>",
    ":::=",
    "?=",
    ".=",
    "+=",
    "!==",
    "===",
    '@"',
    "   ",
    "\t",
    "\n",
    "private-key",
    "access_key",
    "secret_key",
    "dbPassword",
    "githubToken",
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=60).map("".join))
def test_hypothesis_candidates_cover_every_start(text: str) -> None:
    check_covers(text)


LABEL_WORDS = sorted({w for w, _ in labels.words()} | set(labels.CAMEL_WORDS))
LABEL_FORM = st.tuples(
    st.sampled_from(["", " ", '"', "'", "<", "$", "(", "{"]),
    st.sampled_from(LABEL_WORDS),
    st.lists(st.sampled_from(["_prod", "-v2", "_abcdefghij", "-x"]), max_size=2).map("".join),
    st.sampled_from(["", "1", "12"]),
    st.sampled_from(["", " string", ": &str", " : &abcdefgh", "[0]", "[1234]", ".assign"]),
    st.sampled_from(["", '"', "'", "`", ">"]),
    st.sampled_from(["", " ", "  ", "\t"]),
    st.sampled_from([":", "=", ":=", "=>", "==", ":::=", "?=", ".=", "+=", "!==", "===", ",", "(", " ", ""]),
    st.sampled_from(["", " ", "   "]),
    st.sampled_from(["", "@", '"', "'", "`", '@"']),
    st.sampled_from(["hunter2xyz", "s3cr3t value", "abc", "x"]),
    st.sampled_from(["", '"', "'", "`", "<"]),
).map("".join)


@settings(max_examples=400, deadline=None)
@given(st.lists(LABEL_FORM | st.sampled_from(PIECES), min_size=1, max_size=12).map("".join))
def test_hypothesis_label_forms_start_within_the_gap(text: str) -> None:
    """Labels in the forms the label patterns read, with the longest suffix, digits, type and spacing between
    the word and the value: every start lies within `label_gap` of a word's end (`check_covers`)."""
    check_covers(text)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(PIECES), min_size=300, max_size=600).map("".join))
def test_hypothesis_matches_are_finditers(text: str) -> None:
    check_matches(text)


def test_all_cases_is_the_engines_case_insensitive_match() -> None:
    """For every character of a label word: the characters `all_cases` names are exactly those that the
    engine matches to it under the labels' flags (searched over every code point)."""
    every = "".join(chr(c) for c in range(sys.maxunicode + 1) if not 0xD800 <= c <= 0xDFFF)
    chars = {ch for w, _ in labels.words() for ch in w} | {ch for w in labels.CAMEL_WORDS for ch in w.lower()}
    for ch in sorted(chars - set("_- ")):
        want = {m.group() for m in regex.finditer(regex.escape(ch), every, flags=regex.IGNORECASE | regex.V0)}
        assert wholedb.all_cases(ch) == want, ch


def test_label_word_spans_lie_inside_the_tails_spans() -> None:
    """On ASCII texts the word spans are a subset of whole.py's tail spans (the claim test_label_near.py checks
    for the tails carries over), and fewer on the corpora."""
    db = wholedb.shared(_engine().detectors)
    assert db is not None
    for name, text in TEXTS.items():
        if not text.isascii():
            continue
        words = db.label_spans(text, LOOKBEHIND)
        tails = whole._label_spans(text)
        assert words is not None
        assert all(any(a <= x and y <= b for a, b in tails) for x, y in words), name
        assert sum(y - x for x, y in words) < sum(b - a for a, b in tails), name


def test_label_gap_is_read_for_both_label_detectors_and_refused_without_a_label() -> None:
    """Both built-in label detectors get a gap (shorter than the `LOOKBEHIND` window), and a pattern with an
    alternative that holds no label lookbehind (and is not the reversed comparison) gets none."""
    from sluicegate.redaction.detector import Detector

    label_detectors = [d for d in _engine().detectors if d.entity == "LABELED_SECRET"]
    assert len(label_detectors) == 2
    for d in label_detectors:
        gap = wholedb.label_gap(d)
        assert gap is not None and 0 < gap < LOOKBEHIND - labels.TAIL, (d.first, gap)
    word = f"(?i:{labels.alternation(suffixes=False)})"
    bounded = Detector("LABELED_SECRET", f":(?<={word}[ ]{{0,2}}:)[a-z]+|=(?<={word}=)[a-z]+")
    assert wholedb.label_gap(bounded) == 2 + 1 + 2  # two spaces and the colon, and reach.py's margin
    unlabelled = Detector("LABELED_SECRET", f":(?<={word}:)[a-z]+|=[a-z]+")
    assert wholedb.label_gap(unlabelled) is None


def test_far_shortcut_at_a_character_outside_the_alphabet_changes_no_bound() -> None:
    """whole.py's `far_of` answers at once where the character at q is outside the detector's alphabet; the
    bounds are those of its search (the shortcut switched off) at every 29th position of the corpora and suites."""
    from sluicegate.redaction.starters import BUILTIN_IDS

    detectors = _engine().detectors
    texts = [*TEXTS.values(), "\n".join(c["text"] for c in suite_cases.load("gitleaks"))]
    fast = [whole.far_of(d, id(d) in BUILTIN_IDS) for d in detectors]
    whole.far_of.cache_clear()
    try:
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(whole, "_ONE_CHAR", regex.compile(r"(?!)"))
            slow = [whole.far_of(d, id(d) in BUILTIN_IDS) for d in detectors]
    finally:
        whole.far_of.cache_clear()
    for f, g in zip(fast, slow, strict=True):
        if f is None:
            assert g is None
            continue
        assert g is not None
        for text in texts:
            for q in range(0, len(text), 29):
                assert f(text, q) == g(text, q)
