"""The pure-Python prefilter for long ranges (`redaction/scan.py`) changes nothing but speed.

- Covering: every complete match of a covered detector (IBAN, IP, MAC, Discord token) that starts at or after
  the scan's start lies in one of its candidate ranges, on random texts full of near-values and look-alikes,
  and on every value and near-value glued to prose.
- Differential: the Redactor without the hyperscan prefilter, with the scan on every long settle and with it
  off, gives the same Step and `held` after every feed; the Python path is also compared with the frozen oracle
  in test_oracle.py ("python" pair, which now takes the scan).
"""

from __future__ import annotations

import functools
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from sluicegate.redaction import Redactor
from sluicegate.redaction import settle as settle_module
from sluicegate.redaction.registry import BUILTIN
from sluicegate.redaction.scan import _VARIANTS, Scan
from sluicegate.redaction.starters import BUILTIN_IDS
from tests.benchmarks import corpus as bench_corpus

from .corpus import CHINESE, ENGLISH, FUZZ_VALUES, PERSIAN
from .corpus import feed_steps as _steps
from .test_incremental import _BITS as _SHARED_BITS

# Near-values of the covered detectors' triggers, with separators and characters the view maps or the
# encoding folds (fullwidth digits and colon, the middle dot, look-alikes), beside the shared near-values.
_BITS = [
    *_SHARED_BITS,
    *list("0123456789abcdefABCDEF:.-_ \n：·ſKİ٤"),
    "DE89",
    "de89 ",
    "GB82",
    "AL47-",
    "fe80::",
    "::1",
    "1.2.",
    "10.0.0.1",
    "00:1A:",
    "00-1A-",
    "0a1b.",
    "0a1b.0c2d.",
    "x" * 24 + ".",
    "MTIz" * 6 + ".",
    "ab12",
    "12:",
    "255.",
    "9" * 5,
    "a" * 30,
]
_PIECE = st.one_of(st.sampled_from(_BITS), st.sampled_from(FUZZ_VALUES), st.text(max_size=3))
_TEXT = st.lists(_PIECE, max_size=40).map("".join)

SCAN = Scan(BUILTIN, BUILTIN_IDS)
COVERED = {i for i, d in enumerate(BUILTIN) if d.entity in _VARIANTS}


class _NoPrefilter(Redactor):
    _COMPILED = False


class _NoScan(Redactor):
    _COMPILED = False

    def __init__(self, **opts: object) -> None:
        super().__init__(**opts)  # type: ignore[arg-type]
        self._engine.scan = None


def _covered(view: str, lo: int) -> None:
    got = SCAN.hits(view, lo)
    for i in COVERED:
        if i not in got:  # over budget: the caller scans with finditer
            continue
        d = BUILTIN[i]
        for m in d.compiled.finditer(view, lo):
            assert any(a <= m.start() <= b for a, b in got[i]), (d.entity, view, m.start(), got[i])


def test_every_variant_names_a_covered_builtin() -> None:
    assert (
        {BUILTIN[i].entity for i in COVERED}
        == set(_VARIANTS)
        == {
            "IBAN_CODE",
            "IP_ADDRESS",
            "MAC_ADDRESS",
            "DISCORD_BOT_TOKEN",
        }
    )


@settings(max_examples=400)
@given(_TEXT, st.integers(0, 8))
def test_every_complete_match_of_a_covered_detector_is_in_its_candidates(text: str, lo: int) -> None:
    _covered(text, min(lo, len(text)))


def test_every_value_and_near_value_glued_to_prose_is_covered() -> None:
    for v in [*FUZZ_VALUES, *_BITS]:
        for glue in ("", " ", "：", ":", "x", "7", "-", "."):
            for prose in (ENGLISH[:60], CHINESE[:20], PERSIAN[:40]):
                _covered(prose + glue + v + glue + prose, 0)
                _covered(v + glue + v, 0)


def test_the_planted_corpus_is_covered_and_dense_digits_fall_back() -> None:
    _covered(bench_corpus.planted(60_000).text, 0)
    dense = "0123456789:" * 3000 + "DE89 3704 0044 0532 0130 00 " + "ab12" * 2000
    got = SCAN.hits(dense, 0)
    assert BUILTIN.index(next(d for d in BUILTIN if d.entity == "IP_ADDRESS")) not in got  # too many hits
    _covered(dense, 0)


def _same(pieces: list[str], **opts: object) -> None:
    with mock.patch.object(settle_module, "_SCAN", 0):  # the scan on every settle, long or short
        made: list[Redactor] = []

        def make() -> Redactor:
            r = _NoPrefilter(**opts)
            made.append(r)
            return r

        scanned = _steps(make, pieces)
    assert made[0]._engine.scan is not None  # the scan really ran
    assert scanned == _steps(functools.partial(_NoScan, **opts), pieces)


@settings(max_examples=150)
@given(_TEXT, st.data(), st.sampled_from([8192, 64, 300]))
def test_the_scan_changes_no_step(text: str, data: st.DataObject, max_hold: int) -> None:
    cuts = sorted(data.draw(st.lists(st.integers(0, len(text)), max_size=12)))
    bounds = [0, *cuts, len(text)]
    _same([text[a:b] for a, b in zip(bounds, bounds[1:], strict=False)], max_hold=max_hold)
    _same([text], max_hold=max_hold)


def test_the_scan_changes_nothing_on_the_benchmark_corpora_whole() -> None:
    for text in (bench_corpus.planted(80_000, seed=5).text, bench_corpus.prose(40_000)):
        _same([text])
        _same([text[i : i + 3000] for i in range(0, len(text), 3000)])
        assert _steps(_NoPrefilter, [text]) == _steps(_NoScan, [text])  # at the default threshold too
