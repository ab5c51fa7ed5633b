"""The optional compiled prefilter (`redaction/prefilter.py`, extra `[fast]`) changes nothing but speed.

- Covering: every position where a built-in detector has a complete match, or a probe path still open at the
  end of the buffer, lies in one of the prefilter's candidate ranges (so a skipped region can never hold a
  match, whole or partial), on random texts full of near-values and look-alike characters.
- Differential: the Redactor with the prefilter (asked on every check, and at its default threshold) gives the
  same Step (text, stop flag, events) and the same `held` after every feed as the pure-`regex` path, for random
  texts, chunkings and `max_hold` values, and on long prose with planted values.

These run whenever `hyperscan` is importable; without it there is only the pure path (test_incremental.py and
the rest of the suite).
"""

from __future__ import annotations

import functools
from itertools import pairwise
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("hyperscan", reason="the optional [fast] extra (hyperscan) is not installed")

import regex  # noqa: E402

from sluicegate.redaction import (
    Redactor,  # noqa: E402
    prefilter,  # noqa: E402
)
from sluicegate.redaction.registry import BUILTIN  # noqa: E402
from sluicegate.redaction.settle import Engine  # noqa: E402

from .corpus import CHINESE, CUSTOM_DETECTORS, ENGLISH, FUZZ_VALUES, JAPANESE, JWT_2K, PERSIAN  # noqa: E402
from .corpus import feed_steps as _steps


class PureRedactor(Redactor):
    _COMPILED = False


CUSTOM = CUSTOM_DETECTORS
_VALUES = FUZZ_VALUES
# Near-values: pieces of every trigger, separators, look-alikes that case-fold to ASCII (ſ, K, İ), and
# characters the view normalizes (NBSP, zero-width space, fullwidth colon and at sign).
_BITS = list("ab@.-:/=(_ 0123456789+AKIAghp_sk-eyJxoxSGMNO13bc\n\u00a0\u200b：＠谢ſKİé?") + [
    "-----BEGIN ",
    "-----END ",
    "PRIVATE KEY-----",
    "---- BEGIN SSH2",
    "PuTTY-User-Key-File-2: ",
    "sk-ant-",
    "ghp_",
    "AKIA",
    "A3TX",
    "eyJ",
    "xoxb-",
    "password: ",
    "PAſſWORD=",
    "API_KEY=",
    "aws_secret=",
    "https://",
    "user:pw@",
    "fe80::",
    "::1",
    "00:1A:",
    "00-1A-",
    "0a1b.",
    "4111 ",
    "+1 ",
    "(415) ",
    "020 ",
    "DE89 ",
    "GB82",
    "order=",
    "QX",
    "12345678:",
    "12345:",
    # issue 10's formats: new prefixes, non-ASCII labels (found through their separator), separators
    "glffct-",
    "_gitlab_session=",
    "xapp-",
    "rk_test_",
    "pypi-AgENdGVzdC5weXBpLm9yZw",
    "Bearer ",
    "basic ",
    "пароль: ",
    "密码：",
    "mot de passe : ",
    "githubToken=",
    "pwd == ",
    "4111\u00b7",
    "4111.",
    "4111\t",
    "de89 ",
    "AL47-",
    "090-",
    "0912",
    "138",
    "o'b",
    "xn--",
    "\u0664",
    "SG.",
    "AC",
    "npm_",
    "AIza",
    "glpat-",
    "rk_live_",
    "bc1q",
    "1BvBMSEYstWetqTF",
    "https://hooks.slack.com/services/",
    "Mzk",
    "x" * 30,
    "0123456789" * 3,
    "+4 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1",
    "4-1-1-1-1-1-1-1-1-1-1-1-1-1-1-1",
    "GR1348941" + "a" * 20,
    "glrt-" + "a" * 20,
    "client_secret: abcdef",
    "refresh-token=abcd",
    "pwd=abcd" + " " * 16,
    "4222222222222 ",
    "01234 56 78",
    "::1",
    "1.2",
    "5 3 6 2 2 1 2 3 4",
    "x" * 63 + "@",
    "s" * 20 + "+x://u:p@h",
    "h" + "s" * 20 + "://u:p@h ",
]
_PIECE = st.one_of(st.sampled_from(_BITS), st.sampled_from(_VALUES), st.text(max_size=3))
_TEXT = st.lists(_PIECE, max_size=40).map("".join)


def _same(pieces: list[str], *, everywhere: bool, **opts: object) -> None:
    pure = _steps(functools.partial(PureRedactor, **opts), pieces)
    with mock.patch.object(prefilter, "MIN_RANGE", 0 if everywhere else prefilter.MIN_RANGE):
        made = []

        def make() -> Redactor:
            r = Redactor(**opts)
            made.append(r)
            return r

        compiled = _steps(make, pieces)
    assert made[0]._engine.prefilter is not None  # the compiled path really ran
    assert compiled == pure


def _cut(text: str, cuts: list[int]) -> list[str]:
    bounds = [0, *sorted(cuts), len(text)]
    return [text[a:b] for a, b in pairwise(bounds)]


def test_every_builtin_detector_is_covered() -> None:
    pf = Engine(BUILTIN).prefilter
    assert pf is not None
    assert sorted(pf.covered) == list(range(len(BUILTIN)))


def test_fold_table_lists_every_non_ascii_character_regex_matches_to_an_ascii_letter() -> None:
    letter = regex.compile("(?i:[a-z])")
    found = {cp: chr(cp).casefold() for cp in range(128, 0x110000) if letter.fullmatch(chr(cp))}
    assert set(found) == set(prefilter.FOLD)
    for cp, ascii_letter in prefilter.FOLD.items():
        assert regex.fullmatch(f"(?i:{ascii_letter})", chr(cp)), hex(cp)


def test_the_placeholder_for_other_characters_starts_no_trigger() -> None:
    pf = Engine(BUILTIN).prefilter
    assert pf is not None
    text = "?" * 300 + "谢" * 300
    assert all(spans == [(len(text) - pf.covered[i], len(text) - 1)] for i, spans in pf.ranges(text, 0).items())


def _inside(spans: list[tuple[int, int]], s: int) -> bool:
    return any(a <= s <= b for a, b in spans)


def _assert_covered(text: str, lo: int) -> None:
    pf = Engine(BUILTIN).prefilter
    assert pf is not None
    with mock.patch.object(prefilter, "HIT_BUDGET", 0):  # dense texts must be covered too, not handed back
        spans = pf.ranges(text, lo)
        hits = pf.hits(text, lo)  # settling asks complete matches only here: each holds its trigger
    assert spans is not None and hits is not None
    for i, d in enumerate(BUILTIN):
        for s in range(lo, len(text)):
            complete = d.compiled.match(text, s) is not None
            still_open = d.probe.match(text, s, partial=True) is not None
            if complete or still_open:
                assert _inside(spans[i], s), (d.entity, s, text[s : s + 40], "open" if still_open else "match")
            if complete:
                assert _inside(hits[i], s), (d.entity, s, text[s : s + 40], "match outside the hits")


@pytest.mark.parametrize("glue", ["", " ", "x", "谢", "：", "+"])
def test_every_value_and_near_value_cut_at_every_length_is_covered(glue: str) -> None:
    # A value cut short at the end of the buffer is exactly where a probe path is open: every cut is checked.
    for value in [*_VALUES[:-2], *_BITS]:
        if len(value) > 300:
            value = value[:120]
        for k in range(1, len(value) + 1):
            _assert_covered("ab" + glue + value[:k], 0)
        _assert_covered(glue + value + glue + value, 0)


@settings(max_examples=150)
@given(_TEXT, st.data())
def test_skipped_regions_hold_no_match_and_no_open_start(text: str, data: st.DataObject) -> None:
    _assert_covered(text, data.draw(st.integers(0, len(text))))


@settings(max_examples=150)
@given(_TEXT, st.data(), st.sampled_from([8192, 64, 300, 1000]))
def test_compiled_path_equals_pure_path_feed_by_feed(text: str, data: st.DataObject, max_hold: int) -> None:
    pieces = _cut(text, data.draw(st.lists(st.integers(0, len(text)), max_size=20)))
    _same(pieces, everywhere=True, max_hold=max_hold)
    _same(pieces, everywhere=True, max_hold=max_hold, custom=CUSTOM)
    _same([text], everywhere=True, max_hold=max_hold)
    _same(list(text), everywhere=True, max_hold=max_hold)


def _prose_with_values() -> str:
    parts = []
    for i, v in enumerate(_VALUES * 3):
        prose = (ENGLISH, CHINESE, JAPANESE, PERSIAN)[i % 4]
        cut = (i * 37) % len(prose)
        glue, end = (" ", "", "：", ":")[i % 4], (" ", "。", "", ", ")[i % 3]
        parts.append(prose[:cut] + glue + v + end + prose[cut : cut + 40])
    return "\n".join(parts) + "\n" + JWT_2K + " and -----BEGIN RSA PRIVATE KEY-----\nMIIE"


@pytest.mark.parametrize("size", [1, 7, 600, 5_000, None])
@pytest.mark.parametrize("everywhere", [False, True])
def test_compiled_path_equals_pure_path_on_long_prose_with_values(size: int | None, everywhere: bool) -> None:
    text = _prose_with_values()
    assert len(text) > 20 * prefilter.MIN_RANGE
    size = size or len(text)
    pieces = [text[i : i + size] for i in range(0, len(text), size)]
    _same(pieces, everywhere=everywhere)
    _same(pieces, everywhere=everywhere, max_hold=1000)


@pytest.mark.parametrize("size", [600, None])
def test_over_budget_scans_fall_back_to_the_pure_path(size: int | None) -> None:
    # A budget of 64 hits per scan: the long prose exceeds it in most slices, which then take the pure path.
    text = _prose_with_values()
    size = size or len(text)
    pieces = [text[i : i + size] for i in range(0, len(text), size)]
    pf = Engine(BUILTIN).prefilter
    assert pf is not None
    with mock.patch.object(prefilter, "HIT_BUDGET", 10**9):
        assert pf.ranges(text, 0) is None
        _same(pieces, everywhere=True)


def test_a_failing_scan_falls_back_to_the_pure_path() -> None:
    import hyperscan

    class Busy:
        def scan(self, *_args: object, **_kwargs: object) -> None:
            raise hyperscan.ScratchInUseError("in use")

    pf = Engine(BUILTIN).prefilter
    assert pf is not None
    with mock.patch.object(pf, "_db", Busy()):
        assert pf.ranges(ENGLISH + "a@b.co", 0) is None
        _same([_prose_with_values()], everywhere=True)


def test_concurrent_streams_share_the_prefilter_safely() -> None:
    from concurrent.futures import ThreadPoolExecutor

    text = _prose_with_values()
    want = _steps(PureRedactor, [text])
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda _: _steps(Redactor, [text]), range(8)))
    assert all(g == want for g in got)


def test_without_hyperscan_the_pure_path_runs() -> None:
    with mock.patch.object(prefilter, "_hs", None):
        assert Engine(BUILTIN).prefilter is None
        assert Redactor()._engine.prefilter is None
