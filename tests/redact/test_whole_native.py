"""whole.py's candidates without `[fast]` (`_native_starts`: one C pass of the detectors' shapes, the starters'
pair table and the label tails): every start where a detector's pattern matches lies in its candidate ranges, a
label detector's either there (within its label spans) or, for the reversed comparison, where the rest's shape
allows it, so whole.py's `matches` equals each detector's own `finditer`.

Checked against the `regex` engine itself (an overlapped search gives every start where a match exists) on the
texts, suites and Hypothesis pieces of test_whole_candidates.py (the `[fast]` path's test, mirrored here for the
path without it). That `redact()` then equals the stream is test_whole.py's ("regex" runs with this path,
"regex-no-native" without it).
"""

from __future__ import annotations

from collections.abc import Iterator
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sluicegate.redaction import Redactor, fastpath, whole, wholedb

from . import suite_cases
from .test_whole_candidates import LABEL_FORM, LABEL_WORDS, PIECES, TEXTS, _inside, _starts
from .test_whole_candidates import check_matches as _check_matches

# Pieces near the required characters' distances (a long word, then `.` or `:` just inside or outside k).
NEEDS = ["M" + "a" * 23 + ".", "M" + "b1" * 12 + ".abcdef.", "x" * 16 + ":", "https" + "u" * 17 + ":", "://"]

# The compiled extension is built for every install (setup.py); without a compiler there is no such path.
pytestmark = pytest.mark.skipif(fastpath.native is None, reason="the compiled extension (_native) is not built")


@pytest.fixture(autouse=True)
def no_hyperscan() -> Iterator[None]:
    with mock.patch.object(Redactor, "_COMPILED", False):
        yield


def check_covers(view: str) -> None:
    engine = Redactor()._engine
    assert engine.prefilter is None
    got = whole._native_starts(engine, view)
    assert got is not None
    known, _ = got
    for i, d in enumerate(engine.detectors):
        own = known.get(i)
        if own is None:
            continue
        rest = whole._rest_rx(d)
        near = known.get(-1 - i)
        if rest is not None and near is None:
            continue  # (whole.matches takes the label path without this pass's candidates for it)
        if rest is not None and near is not None:
            for q in _starts(rest, view):
                assert _inside(q, near), (d.entity, "rest", q, view[max(0, q - 20) : q + 40])
        for q in _starts(d.compiled, view):
            ok = _inside(q, own) or (rest is not None and near is not None and rest.match(view, q) is not None)
            assert ok, (d.entity, q, view[max(0, q - 80) : q + 40])


def check_matches(text: str) -> None:
    """whole.matches (this path, taken at any length here) is each detector's finditer."""
    _check_matches(text, any_length=True)


@pytest.mark.parametrize("name", sorted(TEXTS))
def test_corpora_candidates_cover_every_start(name: str) -> None:
    r = Redactor()
    r._append(TEXTS[name])
    check_covers(r._view)
    check_covers(TEXTS[name])
    check_matches(TEXTS[name])


def test_the_pass_gives_candidates_for_most_detectors_on_the_corpora() -> None:
    """(so that the covering checks above are about something: the path is taken)"""
    engine = Redactor()._engine
    for name, text in TEXTS.items():
        got = whole._native_starts(engine, text)
        assert got is not None
        assert len([k for k in got[0] if k >= 0]) >= len(engine.detectors) - 4, name


@pytest.mark.parametrize("suite", suite_cases.NAMES)
def test_every_suite_case_is_covered(suite: str) -> None:
    texts = [case["text"] for case in suite_cases.load(suite)]
    for text in texts:
        check_covers(text)
    together = "\n".join(texts)
    check_covers(together)
    check_matches(together)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=60).map("".join))
def test_hypothesis_candidates_cover_every_start(text: str) -> None:
    check_covers(text)


@settings(max_examples=300, deadline=None)
@given(st.lists(LABEL_FORM | st.sampled_from(PIECES), min_size=1, max_size=12).map("".join))
def test_hypothesis_label_forms_are_covered(text: str) -> None:
    check_covers(text)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(PIECES), min_size=300, max_size=600).map("".join))
def test_hypothesis_matches_are_finditers(text: str) -> None:
    check_matches(text)


# The C pass's ways (whole.NATIVE_MODE, `_native.c` WS_*): each alone and all of them. Each but 16 is exact: the
# same candidates as the pass without them (a cheaper way to the same answer); 16 adds the label detectors'
# candidates on a view that is not ASCII (checked against the engine as every other entry is).
MODES = (1, 2, 4, 8, 15, 16, 32, 63)


def check_modes(view: str) -> None:
    """`_native_starts` in every mode gives mode 0's answer, but that with 16 a view that is not ASCII has the
    label detectors' entries too (the same for 16 alone and all ways; the others as mode 0's)."""
    assert whole.NATIVE_MODE == 63
    engine = Redactor()._engine
    got = {}
    for mode in (0, *MODES):
        with mock.patch.object(whole, "NATIVE_MODE", mode):
            got[mode] = whole._native_starts(engine, view)
    for mode in MODES:
        assert got[mode] == got[16 if mode & 16 else 0], mode
    assert got[0] is not None and got[16] is not None
    assert {k: v for k, v in got[16][0].items() if k in got[0][0]} == got[0][0]
    if view.isascii():
        assert got[16] == got[0]


@pytest.mark.parametrize("name", sorted(TEXTS))
def test_every_mode_gives_the_same_candidates_on_the_corpora(name: str) -> None:
    r = Redactor()
    r._append(TEXTS[name])
    check_modes(r._view)
    check_modes(TEXTS[name])


def test_every_mode_gives_the_same_candidates_on_the_suites() -> None:
    for suite in suite_cases.NAMES:
        check_modes("\n".join(case["text"] for case in suite_cases.load(suite)))


@settings(max_examples=200, deadline=None)
@given(st.lists(LABEL_FORM | st.sampled_from(PIECES + NEEDS), max_size=40).map("".join))
def test_hypothesis_every_mode_gives_the_same_candidates(text: str) -> None:
    check_modes(text)
    check_covers(text)


def _any_case(word: str, picks: list[int]) -> str:
    """`word` with each character replaced by one the engine matches to it case-insensitively (`all_cases`:
    the Kelvin sign for k, long s for s, dotted I for i, the old Cyrillic forms of в д о с т ...)."""
    out = []
    for ch, k in zip(word, picks + [0] * len(word), strict=False):
        cases = sorted(wholedb.all_cases(ch) or {ch})
        out.append(cases[k % len(cases)])
    return "".join(out)


# A label form whose word is in any case variant, in a view that is not ASCII (the fold path, WS_FOLD).
ANY_CASE_FORM = st.builds(
    lambda pre, word, picks, rest: pre + _any_case(word, picks) + rest,
    st.sampled_from(["é ", "пароль ", "密码 ", "ß", "İ ", "\u212a"]),
    st.sampled_from(LABEL_WORDS),
    st.lists(st.integers(0, 3), max_size=24),
    st.sampled_from([": hunter2xyz", " = 's3cr3t value'", '="abc"', " : x", "=>x", ":"]),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(ANY_CASE_FORM | LABEL_FORM | st.sampled_from(PIECES), min_size=1, max_size=10).map("".join))
def test_hypothesis_label_words_of_every_script_and_case_are_covered(text: str) -> None:
    check_covers(text)
    check_modes(text)


def test_label_words_of_other_scripts_give_spans_on_a_view_that_is_not_ascii() -> None:
    """(so that the fold path is taken: the label detectors have candidates on multilingual prose)"""
    engine = Redactor()._engine
    text = "Привет. ПАРОЛЬ: hunter2xyz, contraseÑa = 's3cr3t', Ⅻ"
    got = whole._native_starts(engine, text)
    assert got is not None
    labelled = [i for i, d in enumerate(engine.detectors) if whole._all_near(d) or whole._rest_rx(d) is not None]
    assert labelled and all(i in got[0] for i in labelled)
    with mock.patch.object(whole, "NATIVE_MODE", 15):
        off = whole._native_starts(engine, text)
    assert off is not None and not any(i in off[0] for i in labelled)


def test_required_characters_are_read_off_the_shapes() -> None:
    """`shape_need_k`: Discord's token needs its `.` within 27 places, a URL's credentials `:` within 22, a
    Telegram token `:` within 17 (so WS_NEED has something to do on the corpora); the e-mail address none (a
    local part of up to 256 characters reads past the shape's places without `@`)."""
    native = fastpath.native
    assert native is not None
    got = {}
    for d in Redactor()._engine.detectors:
        shape = fastpath._shape(d.compiled.pattern, d.compiled.flags, whole._PLACES)
        if shape is not None:
            got[d.entity] = native.shape_need(shape)
    assert got["DISCORD_BOT_TOKEN"] == (".", 27)
    assert got["URL_CREDENTIALS"] == (":", 22)
    assert got["TELEGRAM_BOT_TOKEN"] == (":", 17)
    assert got["EMAIL_ADDRESS"] is None


def test_arguments_that_do_not_fit_are_refused() -> None:
    native = fastpath.native
    assert native is not None
    with pytest.raises(ValueError):
        native.whole_starts("abc", (None,) * 65, (False,) * 65, (), 32, 10, [])
    with pytest.raises(ValueError):
        native.whole_starts("abc", (None,), (False, False), (), 32, 10, [])
    with pytest.raises(ValueError):
        native.whole_starts("abc", (None,), (False,), (), 32, 10, [None, None])
    assert native.whole_starts("abc", (None,), (False,), (), 32, 10, []) == (None,)


def test_label_word_spans_are_found_in_every_form_and_case() -> None:
    """A word's parts joined by `_`, `-`, a space or nothing, in any ASCII case, give the span after it; a tail
    alone (`port` of `export`) gives none."""
    native = fastpath.native
    assert native is not None
    words = whole._ascii_words()
    assert ("api|key", 4) in words
    memo: list[object] = []
    shape = fastpath._shape(r"[:=]", 0)
    for text in ("ApiKey: x", "API_KEY: x", "api-key: x", "api key: x", "apikey = x", "PASSWORD = x"):
        got = native.whole_starts(text, (shape,), (True,), words, 32, 100, memo)
        assert got[0] is not None and _inside(text.index(":" if ":" in text else "="), got[0]), text
    got = native.whole_starts("export: x", (shape,), (True,), words, 32, 100, [])
    assert got[0] == []
    with pytest.raises(ValueError):
        native.whole_starts("abc", (shape,), (True,), (("|x", 2),), 32, 10, [])


def test_threads_sharing_the_pass_get_the_single_threaded_answers() -> None:
    """The pass calls Python for a pair it has not met (another thread may then run one with the same automata
    and tables): a fresh plan, four threads on four texts at once, each answer the one-thread answer."""
    from concurrent.futures import ThreadPoolExecutor

    from sluicegate.redaction import redact

    texts = [TEXTS[k] for k in sorted(TEXTS)][:4]
    whole._native_plan.cache_clear()
    whole._pair_table.cache_clear()
    whole._shape_pairs.cache_clear()
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(redact, texts * 2))
    with mock.patch.object(whole, "NATIVE", False):
        want = [redact(t) for t in texts * 2]
    assert got == want
