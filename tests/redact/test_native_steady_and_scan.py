"""Independent review of issue 17's latest changes (steady phases, compiled Steps, the quad cache, the pure
scan prefilter, atomic PEM/SSH2 END lines): each test compares the changed part with a reference that does not
share its code (the Python feed, the engine over every position, the pattern before the change)."""

from __future__ import annotations

import copy
import dataclasses
import pickle
import sys
import tracemalloc

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from sluicegate._stream import EMPTY_STEP, Step
from sluicegate.redaction import Redactor
from sluicegate.redaction import prefilter as _pf
from sluicegate.redaction import secrets as secrets_module
from sluicegate.redaction.registry import BUILTIN
from sluicegate.redaction.scan import _VARIANTS, Scan
from sluicegate.redaction.starters import BUILTIN_IDS

from .corpus import ENGLISH, FUZZ_VALUES
from .corpus import feed_steps as _steps


class _NoNative(Redactor):
    _NATIVE = False


class _Pure(Redactor):
    _COMPILED = False


class _PureNoScan(Redactor):
    _COMPILED = False

    def __init__(self, **opts: object) -> None:
        super().__init__(**opts)  # type: ignore[arg-type]
        self._engine.scan = None


def _split(text: str, cuts: list[int]) -> list[str]:
    bounds = [0, *sorted(c % (len(text) + 1) for c in cuts), len(text)]
    return [text[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]


# --- 1a. Detector.steady phases in the compiled feed, against the Python feed ------------------------------

_OPENERS = [
    "-----BEGIN RSA PRIVATE KEY-----\n",
    "-----BEGIN PRIVATE KEY-----",
    "---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\n",
    "PuTTY-User-Key-File-2: ssh-rsa\n",
]
_BLOCK_BITS = [
    *_OPENERS,
    "MIIEpAIBAAKCAQEA" * 3,
    "abc+/=",
    "-",
    "--",
    "-----",
    "-----END",
    "-----end",
    "-----EN",
    "-----END RSA PRIVATE KEY",
    "-----END RSA PRIVATE KEY-----",
    "-----END PRIVATE KEY-----",
    "---- END",
    "---- end x",
    "---- END SSH2 ENCRYPTED PRIVATE KEY ----",
    "Private-MAC: 0a9f",
    "\n",
    " ",
    "x" * 40,
    "é谢",
    "END",
    "KEY",
    "-----END ",
    "RSA ",
    "PRIVATE KEY",
    "PRIVATE KEY-----",
    " BLOCK-----",
    "---- END SSH2 ENCRYPTED PRIVATE KEY ",
    "----",
]
_BLOCK_TEXT = st.lists(st.sampled_from(_BLOCK_BITS), max_size=30).map("".join)


@settings(max_examples=300, deadline=None)
@given(_BLOCK_TEXT, st.lists(st.integers(0, 10_000), max_size=20), st.sampled_from([8192, 200, 64]))
def test_steady_blocks_give_the_same_steps_with_and_without_the_compiled_feed(
    text: str, cuts: list[int], max_hold: int
) -> None:
    pieces = _split(text, cuts)
    assert _steps(lambda: Redactor(max_hold=max_hold), pieces) == _steps(lambda: _NoNative(max_hold=max_hold), pieces)


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(_OPENERS),
    st.sampled_from(["-----END RSA PRIVATE KEY", "-----end", "---- end x", "-----EN"]),
    st.integers(1, 40),
    st.sampled_from(["\n", "-", "-----", "x", " \n", "y-"]),
)
def test_a_waiting_end_line_fed_character_by_character_matches_the_python_feed(
    opener: str, end: str, run: int, closer: str
) -> None:
    # Phase 2: an END line waiting for its newline, then text without '\n' or '-' a character at a time (each
    # check takes the steady shortcut), then the character that decides.
    pieces = ["Key:\n", opener, *("MIIEpAIBAAKCAQEA" * 6), *end, *("z" * run), *closer, *"after the key. " * 3]
    assert _steps(Redactor, pieces) == _steps(_NoNative, pieces)


@pytest.mark.parametrize(
    ("opener", "end"),
    [
        ("-----BEGIN RSA PRIVATE KEY-----\n", "-----END " + "RSA " * 5 + "PRIVATE KEY-----"),
        ("-----BEGIN PRIVATE KEY-----", "-----END PRIVATE KEY BLOCK-----"),
        ("---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\n", "---- END SSH2 ENCRYPTED PRIVATE KEY ----"),
    ],
)
@pytest.mark.parametrize("body", [20, 120, 400])
def test_a_well_formed_end_completed_by_its_dashes_closes_the_block_in_the_compiled_feed(
    opener: str, end: str, body: int
) -> None:
    # Phase 2 while the END line grows without a '-' ("-----END RSA RSA ... PRIVATE KEY", complete through the
    # malformed-line alternative, still open); its closing dashes complete the well-formed alternative, which
    # closes the block: the compiled feed must see them (its '-' complete-phase trigger; fails without it).
    pieces = ["Key:\n", opener, *("MIIE" * (body // 4)), *end, *" after text", "\n", *"more words"]
    assert _steps(Redactor, pieces) == _steps(_NoNative, pieces)


# --- 1b. Steps made by the compiled feed --------------------------------------------------------------------


def _native_step(text: str) -> Step:
    r = Redactor()
    got = r.feed(text)
    assert got.text  # released by the compiled feed
    return got


def test_a_compiled_step_pickles_copies_and_replaces_like_a_python_step() -> None:
    got, made = _native_step("Hello there, plain prose. "), Step("Hello there, plain prose. ")
    assert got == made and hash(got) == hash(made) and repr(got) == repr(made)
    assert vars(got) == vars(made) and list(vars(got)) == list(vars(made))
    back = pickle.loads(pickle.dumps(got))
    assert back == made and type(back) is Step
    assert copy.copy(got) == made and copy.deepcopy(got) == made
    assert dataclasses.replace(got, stopped=True) == Step(made.text, True)
    assert type(got.events) is tuple and not got.events
    assert {got, made} == {made}


def test_compiled_steps_leak_nothing() -> None:
    r = Redactor()
    piece = "plain words go by "
    for _ in range(2000):  # warm caches
        r.feed(piece)
    empty_refs = sys.getrefcount(EMPTY_STEP)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        released = sum(bool(r.feed(piece).text) for _ in range(20_000))  # each a Step made by the C code
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert released == 20_000 and sys.getrefcount(EMPTY_STEP) == empty_refs
    word = Redactor()
    steps = [word.feed("a") for _ in range(1000)]  # a growing word: most feeds release nothing
    assert all(s is EMPTY_STEP for s in steps if not s.text) and sum(not s.text for s in steps) > 100
    del steps
    assert sys.getrefcount(EMPTY_STEP) == empty_refs
    # 20 000 leaked Steps (or their texts) would be well over a megabyte; the held text is bounded.
    assert grown < 200_000, grown


# --- 1c. The quad cache: colliding ASCII keys must not answer for each other ---------------------------------


def _slot(key: str) -> int:
    k = 0
    for j, c in enumerate(key):
        k |= ord(c) << (7 * j)
    return ((k * 2654435761) & 0xFFFFFFFF) >> 19


def _colliding(target: str, count: int) -> list[str]:
    import random

    rng = random.Random(17)
    want, out = _slot(target), []
    alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 _-.:@"
    while len(out) < count:
        k = "".join(rng.choice(alphabet) for _ in range(4))
        if k != target and _slot(k) == want:
            out.append(k)
    return out


def test_colliding_quad_keys_give_the_same_steps_as_the_python_feed() -> None:
    secrets = ["AKIAIOSFODNN7EXAMPLE", "ghp_" + "a1B2" * 9, "xoxb-1234-5678-abcdefghijkl", "sk-ant-" + "x" * 40]
    for value in secrets:
        target = " " + value[:3]  # the key read for a candidate at the value's first character
        others = _colliding(target, 6)
        text = "".join(f"{o} then {value} and {o}{o} more. " for o in others)
        for size in (1, 3, 7, 50):
            pieces = [text[i : i + size] for i in range(0, len(text), size)]
            assert _steps(Redactor, pieces) == _steps(_NoNative, pieces), (value, size)


# --- 2. scan.py: exactly the trigger's occurrences, and no leak on the whole-text path -----------------------

SCAN = Scan(BUILTIN, BUILTIN_IDS)
_TRIGGERS = _pf._triggers()


def _reference_spans(view: str, lo: int, entity: str) -> list[tuple[int, int]]:
    """Every occurrence of every trigger of `entity` in encode(view[lo:]), found by trying each start and end."""
    data = _pf.encode(view[lo:])
    spans = []
    for pattern, k, shortest, longest in _TRIGGERS[entity]:
        rx = regex.compile(pattern.encode("ascii"))
        for u in range(len(data)):
            for e in range(u + shortest, min(len(data), u + longest) + 1):
                if rx.fullmatch(data, u, e):
                    spans.append((lo + u - k, lo + e - shortest))
    return _pf._merge(spans, lo)


_SCAN_BITS = [
    *list("0123456789abcdefABCDEF:.-_ \n"),
    "：",
    "·",
    "ſ",
    "K",
    "İ",
    "٤",
    "０",
    "．",
    "DE89",
    "de44",
    "fe80::",
    "::",
    "1.2.3.",
    "255.255.",
    "00:1A:2b:",
    "0a1b.0c2d.",
    "aB" * 13,
    "-_" * 13,
    "x" * 25,
    "9" * 7,
    # whole values, so that complete matches are common
    "GB82WEST12345698765432",
    "DE89 3704 0044 0532 0130 00",
    "10.0.0.1",
    "2001:db8::8a2e:370:7334",
    "00:1A:2B:3C:4D:5E",
    "001a.2b3c.4d5e",
    "MTIzNDU2Nzg5MDEyMzQ1Njc4.GaBcDe.abcdefghijklmnopqrstuvwxyz0",
]
_SCAN_TEXT = st.lists(st.one_of(st.sampled_from(_SCAN_BITS), st.text(max_size=3)), max_size=60).map("".join)


@settings(max_examples=300, deadline=None)
@given(_SCAN_TEXT, st.integers(0, 30))
def test_scan_spans_are_exactly_the_trigger_occurrences(text: str, lo: int) -> None:
    lo = min(lo, len(text))
    got = SCAN.hits(text, lo)
    for i, d in enumerate(BUILTIN):
        if d.entity in _VARIANTS and i in got:
            assert got[i] == _reference_spans(text, lo, d.entity), (d.entity, text, lo)


def _every_match_is_a_candidate(text: str, lo: int) -> None:
    got = SCAN.hits(text, lo)
    for i, d in enumerate(BUILTIN):
        if d.entity not in _VARIANTS or i not in got:
            continue
        for q in range(lo, len(text)):
            if d.compiled.match(text, q) is not None:
                assert any(a <= q <= b for a, b in got[i]), (d.entity, text, q, got[i])


@settings(max_examples=300, deadline=None)
@given(_SCAN_TEXT, st.integers(0, 30))
def test_every_position_a_covered_detector_matches_at_is_a_candidate(text: str, lo: int) -> None:
    # Stronger than finditer's matches: every q where the engine matches (finditer from any earlier point).
    _every_match_is_a_candidate(text, min(lo, len(text)))


def test_every_edge_value_glued_to_anything_is_a_candidate_at_every_position() -> None:
    for v in _EDGE_VALUES:
        for glue in ("", " ", "\n", "：", ":", ".", "-", "x", "7", "é", "ſ"):
            text = "see " + glue + v + glue + v + glue + " ok"
            for lo in (0, 3, 4, 5):
                _every_match_is_a_candidate(text, lo)


_EDGE_VALUES = [
    "DE89 3704 0044 0532 0130 00",
    "GB82WEST12345698765432",
    "192.168.100.200",
    "2001:0db8:85a3:0000:0000:8a2e:0370:7334",
    "fe80::1ff:fe23:4567:890a",
    "00:1A:2B:3C:4D:5E",
    "00-1a-2b-3c-4d-5e",
    "001a.2b3c.4d5e",
    "１９２．１６８．１．１",
    "００：１Ａ：２Ｂ：３Ｃ：４Ｄ：５Ｅ",
    "ＤＥ８９ ３７０４ ００４４ ０５３２ ０１３０ ００",
    "fe80::1ff:fe23:4567:890a" + "\u200b",
    "MTIzNDU2Nzg5MDEyMzQ1Njc4.GaBcDe.abcdefghijklmnopqrstuvwxyz0",
    *FUZZ_VALUES,
]


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(_EDGE_VALUES), st.integers(-40, 40), st.sampled_from([8192, 16384])),
        min_size=1,
        max_size=4,
    ),
    st.sampled_from(["prose", "digits", "hex"]),
)
def test_values_at_the_whole_text_slice_edges_are_found_with_the_scan(
    placed: list[tuple[str, int, int]], filler: str
) -> None:
    base = {"prose": ENGLISH, "digits": "12 34. 56:78 ", "hex": "ab:cd ef-01 23.45 "}[filler]
    chars = list((base * (20_000 // len(base) + 1))[:20_000])
    for value, shift, edge in placed:
        at = max(0, edge + shift - len(value) // 2)
        chars[at : at + len(value)] = " " + value + " "
    text = "".join(chars)
    assert _Pure()._engine.scan is not None  # the whole text is settled through the scan
    whole = _steps(_Pure, [text])
    assert whole == _steps(_PureNoScan, [text])
    # Any chunking gives the same released text and events as the whole string (the contract).
    chunked = _steps(_NoNative, [text[i : i + 4000] for i in range(0, len(text), 4000)])
    assert _joined(whole) == _joined(chunked)


def _joined(steps: list[tuple[str, bool, tuple, int]]) -> tuple[str, bool, tuple]:
    return "".join(s[0] for s in steps), any(s[1] for s in steps), tuple(e for s in steps for e in s[2])


# --- 3. Atomic END alternatives: only the text after a well-formed END line changes --------------------------

_OLD = regex.compile(
    rf"{secrets_module._PEM_OPEN}(?:[^\-]++|-(?!----(?i:end)))*+(?:{secrets_module._PEM_END})"
    rf"|{secrets_module._SSH2_OPEN}(?:[^\-]++|-(?!--- (?i:end)))*+(?:{secrets_module._SSH2_END})"
    rf"|{secrets_module._PUTTY_OPEN}(?:[^P]++|P(?!rivate-MAC: ))*+Private-MAC: [0-9A-Fa-f]++"
)
_PK = next(d for d in BUILTIN if d.entity == "PRIVATE_KEY")
_WELL_FORMED = regex.compile(
    r"(?:-----END (?:[0-9A-Z]+ )*PRIVATE KEY(?: BLOCK)?-----|---- END SSH2 ENCRYPTED PRIVATE KEY ----)\Z"
)


@settings(max_examples=500, deadline=None)
@given(_BLOCK_TEXT)
def test_atomic_end_lines_only_stop_a_well_formed_end_from_running_to_the_newline(text: str) -> None:
    for q in range(len(text)):
        new, old = _PK.compiled.match(text, q), _OLD.match(text, q)
        assert (new is None) == (old is None), (text, q)
        if new is None or old is None or new.end() == old.end():
            continue
        assert new.end() < old.end() and _WELL_FORMED.search(text, q, new.end()), (text, q)
        assert "\n" not in text[new.end() : old.end()], (text, q)


@settings(max_examples=150, deadline=None)
@given(_BLOCK_TEXT, st.lists(st.integers(0, 10_000), max_size=8))
def test_a_truncated_stream_releases_no_part_of_an_open_block(text: str, cuts: list[int]) -> None:
    text = "Intro. " + text
    for make in (Redactor, _NoNative):
        r = make()
        out = "".join(r.feed(p).text for p in _split(text, cuts)) + r.flush(truncated=True).text
        m = regex.compile(_PK.opener).search(text) if _PK.opener is not None else None
        if m is None:
            continue
        # Once an opener is whole, nothing from the end of its BEGIN line onwards may be released verbatim
        # unless a complete match closed it first: then the block is replaced.
        full = _PK.compiled.match(text, m.start())
        if full is None:
            body = text[m.end() : m.end() + 12]
            if len(body) == 12 and body not in text[: m.start() + 12]:  # not also said before the block
                assert body not in out, (text, out)
