"""Issue 27, stop 34: what `redact(text)`'s one pass does after its candidates, lean against the reference.

Each lean step has a switch, and the output with every switch on must be the output with every switch off, and
the stream's (`feed(text)` + `flush()`), byte for byte, with the counts:
- `whole.LEAN`: `whole.chosen` and `Redactor._render_chosen` in place of `whole.findings` and `Redactor._render`;
- `normalize.DISTINCT`: `plain_view` reads a long piece's characters from the compiled `distinct` (_wholec.c) in
  place of `set(piece)`;
- `validators.FAST`: the validators' C-speed forms (`_dotted_quad` as one `re` match, `digits_of`, `luhn`), and
  `windows.ssn_windows`' answer for a run of fewer than three digit groups;
- `whole.SPLIT_OPENERS`: `certified` searches a block opener's top-level alternatives one by one;
- `Redactor._LAZY_STREAM`: `redact()` makes the stream's tracker and compiled feed only where the one pass
  declines (the texts that stop or hold a block, and every option, compared with it off and with the stream).
Run with the `[fast]` prefilter and without it (hyperscan switched off as test_invariance.py does), on the four
corpora of tests/benchmarks/corpora27.py, issue 17's texts, every case of the five suites strung together, texts
whose view drops characters (a position map), every operator, an allow-list, custom detectors, subclasses that
override `_keep` or `_render` (which must keep the reference path), and Hypothesis texts.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from unittest import mock

import pytest
import regex
from hypothesis import example, given, settings
from hypothesis import strategies as st

from sluicegate.redaction import Hash, Redactor, fastpath, normalize, prefilter, redact, validators, whole, windows
from sluicegate.redaction.registry import select
from tests.benchmarks import corpora27
from tests.benchmarks import corpus as corpus17

from . import suite_cases
from .corpus import LABELED, PEM, POSITIVES

SWITCHES = ((whole, "LEAN"), (normalize, "DISTINCT"), (validators, "FAST"), (whole, "SPLIT_OPENERS"))


@contextlib.contextmanager
def all_set(switches: tuple[tuple[object, str], ...], on: bool) -> Iterator[None]:
    """Every (module, name) of `switches` set to `on` for the block, then put back (test_whole_quick's too)."""
    old = [getattr(mod, name) for mod, name in switches]
    for mod, name in switches:
        setattr(mod, name, on)
    try:
        yield
    finally:
        for (mod, name), value in zip(switches, old, strict=True):
            setattr(mod, name, value)


def switched(on: bool) -> contextlib.AbstractContextManager[None]:
    return all_set(SWITCHES, on)


class Pure(Redactor):
    _COMPILED = False


class OwnKeep(Redactor):
    def _keep(self, detector, value):  # type: ignore[no-untyped-def]
        return super()._keep(detector, value) and not value.startswith("4")


class OwnRender(Redactor):
    def _render(self, cut, findings):  # type: ignore[no-untyped-def]
        return super()._render(cut, findings).replace(">", "]")


def _classes() -> list[type[Redactor]]:
    return [Pure, Redactor] if prefilter.available() else [Pure]


def _hide(entity: str, raw: str) -> str:
    return f"<{entity}:{len(raw)}:{raw[:1]}>"


def streamed(cls: type[Redactor], text: str, **kw: object) -> tuple[str, dict[str, int]]:
    r = cls(**kw)  # type: ignore[arg-type]
    a = r.feed(text)
    b = a if a.stopped else r.flush()
    out = a.text + (b.text if b is not a else "") + (r._notice if a.stopped or b.stopped else "")
    return out, r.counts


def one_pass(cls: type[Redactor], text: str, **kw: object) -> tuple[str | None, dict[str, int]]:
    r = cls(**kw)  # type: ignore[arg-type]
    return r._redact_whole(text), r.counts


def check(text: str, cls: type[Redactor], *, taken: bool = False, **kw: object) -> None:
    """Switches on == switches off == the stream, text and counts (where the one pass is taken)."""
    with switched(True):
        on = one_pass(cls, text, **kw)
    with switched(False):
        off = one_pass(cls, text, **kw)
    assert on == off
    if taken:
        assert on[0] is not None, "the one pass declined a text it should certify"
    if on[0] is not None:
        assert on == streamed(cls, text, **kw)


CORPORA = {name: make(32 * 1024) for name, make in corpora27.CORPORA.items()}
CORPORA["issue17-planted"] = corpus17.planted(32 * 1024).text
CORPORA["issue17-prose"] = corpus17.prose(32 * 1024)
# A view that drops characters (zero-width, a soft hyphen, a variation selector) and maps others (no-break and
# ideographic spaces, fullwidth and Arabic-Indic digits, a minus sign) around and inside values.
DROPPING = (
    "card 4111\u200b1111\u00a01111 1111, phone +1\u2212415\u2212555\u22122671, ssn \uff11\uff12\uff13-45-6789 "
    "mail a\u00adb@example.com \u0664\u0661\u0661\u0661 \u0661\u0661\u0661\u0661 \u0661\u0661\u0661\u0661 "
    "\u0661\u0661\u0661\u0661 password: s3cr\ufe0fet-value\u3000ok "
) * 200


@pytest.mark.parametrize("name", sorted(CORPORA))
def test_corpora(name: str) -> None:
    for cls in _classes():
        check(CORPORA[name], cls, taken=True)
        check(CORPORA[name], cls, operator=_hide)


def test_a_view_that_drops_and_maps_characters() -> None:
    text = CORPORA["multilingual"][:8000] + DROPPING
    assert normalize.plain_view(text) is None  # (a position map: the other branch of `_render_chosen`)
    for cls in _classes():
        for operator in ("replace", "mask", _hide):
            check(text, cls, taken=True, operator=operator)


def test_operators_allow_lists_custom_detectors_and_subclasses() -> None:
    text = CORPORA["json"][:12000] + CORPORA["logs"][:12000] + DROPPING[:3000]
    allow = ["user@example.com", "10.0.0.1", "4111 1111 1111 1111", "s3cret-value"]
    custom = [("TICKET", r"\bT-[0-9]{5}\b"), ("ORDER", r"\bORD[0-9]{6}\b", lambda v: v[-1] != "0")]
    text += " T-12345 ORD123457 ORD123450 " * 40
    for cls in [*_classes(), OwnKeep, OwnRender]:
        check(text, cls, operator=Hash(key=b"k" * 32), allow=allow)
        check(text, cls, operator="mask", custom=custom)
        check(text, cls, operator=_hide, allow=allow, custom=custom, entities=["EMAIL_ADDRESS", "IP_ADDRESS"])
    with switched(True):
        assert one_pass(OwnRender, text)[0] == streamed(OwnRender, text)[0]
        assert "]" in streamed(OwnRender, text)[0]  # (its override ran: the reference path was kept)


@pytest.mark.parametrize("suite", suite_cases.NAMES)
def test_every_suite_strung_together(suite: str) -> None:
    joined = "\n".join(c["text"] for c in suite_cases.load(suite))
    for cls in _classes():
        check(joined, cls, operator=_hide)
        check(joined, cls, max_hold=512)


_VALUES = [v for values in POSITIVES.values() for v in values] + [t for t, _, _ in LABELED]
_PIECES = st.sampled_from(
    list("ab@.-:= \"'\n0123456789xyz,{}[]()<>")
    + ["\u00a0", "\u200b", "\u00ad", "\ufe0f", "\u3000", "\uff11", "\u0661", "\u2212", "\u00e9", "\u0436"]
    + ["\U0001f600", "\u4e2d", "password: ", 'api_key = "', "10.0.0.", "192.168.1.1"]
    + _VALUES
)


@settings(max_examples=80, deadline=None)
@given(st.lists(_PIECES, max_size=200).map("".join), st.sampled_from(["replace", "mask", "hash"]))
def test_hypothesis_texts(text: str, operator: str) -> None:
    op = Hash(key=b"h" * 32) if operator == "hash" else operator
    for cls in _classes():
        check(text, cls, operator=op, allow=["10.0.0.1"])


def test_the_compiled_helper_is_built() -> None:
    """The machines that run these tests have a C compiler (setup.py builds _wholec.c), as test_native.py says
    of _native.c: its absence is a failure, not a skip, unless the pure path was asked for."""
    assert fastpath.wholec is not None or os.environ.get("SLUICEGATE_PURE")


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300) | st.lists(_PIECES, max_size=100).map("".join))
def test_distinct_is_the_set_of_characters_not_ascii_in_order_of_first_sight(text: str) -> None:
    if fastpath.wholec is None:
        return
    got = fastpath.wholec.distinct(text)
    want = list(dict.fromkeys(ch for ch in text if not ch.isascii()))
    assert list(got) == want
    assert fastpath.wholec.distinct(text) == got  # (its memory of the characters seen is cleared after a call)


def test_distinct_on_every_code_point_and_wrong_arguments() -> None:
    if fastpath.wholec is None:
        return
    every = "".join(map(chr, range(0x110000)))
    assert fastpath.wholec.distinct(every) == every[128:]
    assert fastpath.wholec.distinct("abc") == "" and fastpath.wholec.distinct("") == ""
    with pytest.raises(TypeError):
        fastpath.wholec.distinct(b"bytes")


@settings(max_examples=200, deadline=None)
@given(st.text(min_size=60, max_size=400) | st.lists(_PIECES, min_size=30, max_size=200).map("".join))
def test_plain_view_with_and_without_distinct(text: str) -> None:
    with switched(True):
        on = normalize.plain_view(text)
    with switched(False):
        off = normalize.plain_view(text)
    assert on == off
    assert on is None or on == normalize.normalize(text)


OPENERS = [d.opener_rx for d in select(None) if d.opener_rx is not None] + [
    regex.compile(p)
    for p in (r"BEGIN [|] KEY|END\|x|(?:a|b)c", r"[]|]x|y[^]|]z|q", r"(k|l)|m(?:n|(o|p))|r", "-----BEGIN|PuTTY")
]
_OPENER_PIECES = st.sampled_from(
    ["-----BEGIN ", "RSA ", "OPENSSH ", "PRIVATE KEY", " BLOCK", "-----", "---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----"]
    + ["PuTTY-User-Key-File-", "2", ": ", "BEGIN | KEY", "END|x", "ac", "bc", "]x", "|x", "yaz", "y]z", "q", "k"]
    + ["mo", "mn", "r", " ", "x", "\n", "-", "A"]
)


def test_the_openers_split_into_their_alternatives() -> None:
    builtin = [rx for rx in OPENERS[:-4]]
    assert builtin and all(whole._alternatives(rx.pattern, rx.flags) for rx in builtin)
    got = whole._alternatives(r"BEGIN [|] KEY|END\|x|(?:a|b)c", 0)
    assert got is not None and [p.pattern for p in got] == ["BEGIN [|] KEY", r"END\|x", "(?:a|b)c"]
    got = whole._alternatives(r"[]|]x|y[^]|]z|q", 0)
    assert got is not None and [p.pattern for p in got] == ["[]|]x", "y[^]|]z", "q"]
    for unsplit in ("(?i)a|b", "ab", "(a|b)", "a|b(", r"a\|b"):
        assert whole._alternatives(unsplit, 0) is None, unsplit
    assert whole._alternatives("a|b", regex.VERBOSE) is None and whole._alternatives("a|b", regex.V1) is None


@settings(max_examples=300, deadline=None)
@given(st.lists(_OPENER_PIECES, max_size=30).map("".join))
def test_has_opener_is_the_openers_search(text: str) -> None:
    for rx in OPENERS:
        assert whole._has_opener(rx, text) == (rx.search(text) is not None), (rx.pattern, text)


def test_has_opener_on_the_corpora_and_key_blocks() -> None:
    texts = [*CORPORA.values(), PEM, "x" + PEM[5:], "key:\n" + PEM + " and more", DROPPING[:500]]
    for rx in OPENERS:
        for text in texts:
            assert whole._has_opener(rx, text) == (rx.search(text) is not None)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(["234", "56", "7891", "-", " ", ".", "1", "0000", "a", "12", "00", "\u0663"]), max_size=12)
)
@example(["234", "-", "56", "-", "7891"])
@example(["234", "\u0663", "56", "\u0663", "7891"])  # (every character a digit, not one group of ASCII ones)
@example(["234", " ", "56", " ", "7891", " ", "1"])
def test_ssn_windows_of_fewer_than_three_groups(pieces: list[str]) -> None:
    run = "".join(pieces)
    got = windows.ssn_windows(run)
    validators.FAST = False
    try:
        assert windows.ssn_windows(run) == got
    finally:
        validators.FAST = True


@settings(max_examples=500, deadline=None)
@given(st.text(st.sampled_from(list("0123456789 -.٣５a\u00b7")), max_size=24))
def test_luhn_digits_of_and_card_windows_fast_and_plain(value: str) -> None:
    got = (
        validators.luhn(value),
        validators.digits_of(value),
        validators.credit_card(value),
        windows.card_windows(value),
    )
    validators.FAST = False
    try:
        want = (
            validators.luhn(value),
            validators.digits_of(value),
            validators.credit_card(value),
            windows.card_windows(value),
        )
    finally:
        validators.FAST = True
    assert got == want


@settings(max_examples=1000, deadline=None)
@given(
    st.one_of(
        st.lists(st.text(st.sampled_from(list("0123456789")), max_size=4), min_size=1, max_size=5).map(".".join),
        st.text(st.sampled_from(list("0123456789.\u0663+ -/:%a")), max_size=18),
    )
)
def test_the_dotted_quad_as_one_match_is_the_loop(value: str) -> None:
    got = (validators._dotted_quad(value), validators.ip_address(value))
    validators.FAST = False
    try:
        assert (validators._dotted_quad(value), validators.ip_address(value)) == got
    finally:
        validators.FAST = True


DECLINED = {
    "long-base64": "data " + "QUJD" * 3000 + " done",
    "unterminated-pem": "before\n" + PEM.split("-----END")[0] + "and no end line",
    "pem-whole": "key:\n" + PEM + "\nthat was it. " * 50,
    "long-labelled": "password=" + "x" * 9000,
}


@pytest.mark.parametrize("name", ["code", "json", "issue17-planted", *sorted(DECLINED)])
def test_redact_makes_the_stream_only_where_the_one_pass_declines(name: str) -> None:
    text = CORPORA.get(name) or DECLINED[name]
    kw_sets: list[dict[str, object]] = [
        {},
        {"operator": Hash(key=b"z" * 32), "allow": ["user@example.com"]},
        {"max_hold": 1000, "operator": _hide},
        {"entities": ["PRIVATE_KEY", "EMAIL_ADDRESS"], "max_hold": 64},
    ]
    for compiled in (True, False):
        for kw in kw_sets:
            with mock.patch.object(Redactor, "_COMPILED", compiled):
                with mock.patch.object(Redactor, "_LAZY_STREAM", True):
                    lazy = redact(text, **kw)  # type: ignore[arg-type]
                with mock.patch.object(Redactor, "_LAZY_STREAM", False):
                    eager = redact(text, **kw)  # type: ignore[arg-type]
                assert lazy == eager == streamed(Redactor, text, **kw)[0]


def test_redact_refuses_wrong_arguments_the_same_way_either_way() -> None:
    for lazy in (True, False):
        with mock.patch.object(Redactor, "_LAZY_STREAM", lazy):
            with pytest.raises(ValueError, match="operator"):
                redact("x", operator="nope")
            with pytest.raises(ValueError, match="max_hold"):
                redact("x", max_hold=0)
            with pytest.raises(TypeError):
                redact(b"bytes")  # type: ignore[arg-type]
            with pytest.raises(TypeError):
                redact("x", allow="one string")
