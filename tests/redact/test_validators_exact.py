"""Stop 35's validator shortcuts (issue 27's settling feeds) decide exactly as the forms they stand in front of.

- `validators.JWT_FLAT`: a JWT header that decodes to a flat JSON object (`_FLAT_OBJECT`) is taken as one without
  `json.loads`. Claim: every byte string `_FLAT_OBJECT` accepts, `json.loads` reads as a dict; so `jwt` answers
  the same with the shortcut on and off, on every input (flat, nested, escaped, non-ASCII, control characters,
  BOMs, NULs, huge integers, whitespace JSON does not know, random bytes).
- `validators.IBAN_TABLE`: an ASCII alphanumeric IBAN converted by one `str.translate` to the digits
  `str(int(ch, 36))` gives each character; anything else (a non-ASCII digit `int` reads, a letter it does not, a
  stray symbol) by the loop, as before: the same answer or the same exception.

Then the stream: the Redactor with both on, both off and the pure path, byte for byte (Steps, held, flush) on the
byte-identity files' corpora and suites (test_feed_lean's cuts).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sluicegate.redaction import Redactor, validators

from .sameness import Call, corpus_cuts, corpus_texts, suite_cuts
from .sameness import run as _run


@contextmanager
def _off() -> Iterator[None]:
    validators.JWT_FLAT = validators.IBAN_TABLE = False
    try:
        yield
    finally:
        validators.JWT_FLAT = validators.IBAN_TABLE = True


def _answer(fn: Callable[[str], bool], value: str) -> Any:
    try:
        return fn(value)
    except Exception as e:  # the same exception type (a stray symbol in an IBAN: int() fails either way)
        return type(e)


def _both(fn: Callable[[str], bool], value: str) -> tuple[Any, Any]:
    on = _answer(fn, value)
    with _off():
        off = _answer(fn, value)
    return on, off


# JSON-ish pieces: what a header is made of, and what the shortcut must not accept by mistake.
_ATOMS = [
    '"alg"', '"HS256"', '"typ"', '"JWT"', '"kid"', '""', '"a\\"b"', '"\\u00e9"', '"é"', '"\x01"', '"\x7f"', "0", "-0",
    "12", "01", "1.5", "1e3", "-", "9" * 19, "9" * 4400, "true", "false", "null", "True", "NaN", "Infinity", "[]",
    "[1]", "{}", '{"a":1}', ",", ":", "{", "}", " ", "\t", "\n", "\r", "\x0b", "\x0c", "\xa0", "\u2028", "\x00",
    "\ufeff",
]  # fmt: skip


@st.composite
def _objects(draw: st.DrawFn) -> bytes:
    """Flat objects in every layout, nested ones, and near misses (a piece dropped, doubled or foreign)."""
    ws = st.sampled_from(["", " ", "  ", "\t", "\n", "\r\n", "\x0b", "\xa0"])
    member = st.tuples(ws, st.sampled_from(_ATOMS), ws, st.sampled_from([":", "", "::"]), ws, st.sampled_from(_ATOMS))
    members = draw(st.lists(member, max_size=4))
    sep = draw(st.sampled_from([",", ", ", ",,", ""]))
    body = sep.join("".join(m) for m in members)
    text = draw(ws) + draw(st.sampled_from(["{", "[", "", "{{"])) + body + draw(ws)
    text += draw(st.sampled_from(["}", "]", "", "}}", "},"])) + draw(ws)
    encoding = draw(st.sampled_from(["utf-8", "utf-8-sig", "utf-16", "utf-16-le", "utf-32", "latin-1"]))
    try:
        return text.encode(encoding)
    except UnicodeEncodeError:
        return text.encode("utf-8")


def _token(header: bytes) -> str:
    return base64.urlsafe_b64encode(header).decode().rstrip("=") + ".eyJzdWIiOiIxIn0.c2ln"


@settings(max_examples=3000, deadline=None)
@given(_objects())
def test_a_flat_object_is_a_dict_to_json_loads(header: bytes) -> None:
    if validators._FLAT_OBJECT.fullmatch(header) is not None:
        assert isinstance(json.loads(header), dict), header
    on, off = _both(validators.jwt, _token(header))
    assert on == off, header


@settings(max_examples=2000, deadline=None)
@given(st.binary(max_size=64) | st.text(max_size=40).map(str.encode))
def test_jwt_decides_the_same_on_any_header(header: bytes) -> None:
    on, off = _both(validators.jwt, _token(header))
    assert on == off, header
    on, off = _both(validators.jwt, header.decode("latin-1") + ".x.y")  # and as written: whatever the part holds
    assert on == off, header


def test_the_shortcut_is_taken_and_its_edges_are_parsed() -> None:
    # Not vacuous: the usual headers take the shortcut; a nested, escaped or huge one is parsed, with json's answer.
    for header in [b'{"alg":"HS256","typ":"JWT"}', b'{"alg": "RS256", "kid": "k-1"}', b" {} ", b'{"n":-12}']:
        assert validators._FLAT_OBJECT.fullmatch(header) is not None and validators.jwt(_token(header))
    for header, want in [
        (b'{"a":{"b":1}}', True),
        (b'{"a":"\\u00e9"}', True),
        (b'{"a":' + b"9" * 4400 + b"}", False),  # past int's digit limit: json.loads raises ValueError
        (b'{"a":1,}', False),
        (b'\xef\xbb\xbf{"a":1}', True),
        (b'{"a"\x0c:1}', False),
        (b"[1]", False),
    ]:
        assert validators._FLAT_OBJECT.fullmatch(header) is None, header
        assert _both(validators.jwt, _token(header)) == (want, want), header


_IBAN_CHARS = st.sampled_from(list("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdz -./_") + ["٣", "５", "é", "ß", "Ⅻ", "ǅ"])


@settings(max_examples=3000, deadline=None)
@given(st.text(_IBAN_CHARS, min_size=1, max_size=40))
def test_iban_decides_the_same_on_any_text(value: str) -> None:
    on, off = _both(validators.iban, value)
    assert on == off, value


def test_iban_on_real_numbers() -> None:
    good = ["GB82 WEST 1234 5698 7654 32", "DE89370400440532013000", "fr1420041010050500013m02606", "BE71096123456769"]
    for value in good:
        assert _both(validators.iban, value) == (True, True)
        assert _both(validators.iban, value[:-1] + ("0" if value[-1] != "0" else "1")) == (False, False)


def _compare(calls: list[Call], max_hold: int = 8192) -> None:
    on = Redactor.factory(max_hold=max_hold)
    pure = type("Pure", (Redactor,), {"_NATIVE": False, "_COMPILED": False}).factory(max_hold=max_hold)
    got = _run(on, calls)
    with _off():
        assert _run(on, calls) == got, calls
        assert _run(pure, calls) == got, calls
    assert _run(pure, calls) == got, calls


class _Counted:
    """`_FLAT_OBJECT` with its accepted matches counted (so the comparison below is not vacuous)."""

    def __init__(self, pattern: Any) -> None:
        self.pattern, self.taken = pattern, 0

    def fullmatch(self, data: bytes) -> Any:
        m = self.pattern.fullmatch(data)
        self.taken += m is not None
        return m


class _CountedTable(dict[int, str]):
    looked = 0

    def __getitem__(self, key: int) -> str:
        type(self).looked += 1
        return super().__getitem__(key)


@pytest.mark.parametrize("seed", [35])
def test_the_stream_is_the_same_with_the_shortcuts_off_and_on_the_pure_path(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    flat = _Counted(validators._FLAT_OBJECT)
    monkeypatch.setattr(validators, "_FLAT_OBJECT", flat)
    monkeypatch.setattr(validators, "_BASE36", _CountedTable(validators._BASE36))
    for calls in corpus_cuts(corpus_texts(), seed):
        _compare(calls)
    for calls, max_hold in suite_cuts(seed):
        _compare(calls, max_hold)
    assert flat.taken > 10 and _CountedTable.looked > 100
