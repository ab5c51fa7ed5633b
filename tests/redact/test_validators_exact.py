"""Stop 35's validator shortcuts (issue 27's settling feeds) decide exactly as the forms they stand in front of.

- `validators.JWT_FLAT`: a JWT header that decodes to a flat JSON object (`_FLAT_OBJECT`) is taken as one without
  `json.loads`. Claim: every byte string `_FLAT_OBJECT` accepts, `json.loads` reads as a dict; so `jwt` answers
  the same with the shortcut on and off, on every input (flat, nested, escaped, non-ASCII, control characters,
  BOMs, NULs, huge integers, whitespace JSON does not know, random bytes); generated valid flat objects with one
  piece a near miss, and a fixed list of near misses of a valid header, so a shortcut that is too wide shows.
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

from .sameness import Call, corpus_cuts, corpus_texts, reference, suite_cuts
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


_JSON_WS = st.sampled_from(["", "", " ", "\t", "\n", "\r", " \r\n "])
_PLAIN = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E, exclude_characters='"\\'), max_size=6)
# Values `_FLAT_OBJECT` takes, and the near misses of each (JSON's answer is then the one).
_GOOD_VALUES = (
    _PLAIN.map(lambda t: f'"{t}"')
    | st.integers(-(10**18) + 1, 10**18 - 1).map(str)
    | st.sampled_from(["0", "-0", "true", "false", "null", "9" * 18, "-" + "9" * 18])
)
_NEAR_VALUES = st.sampled_from(
    [
        "01", "-01", "00", "-00", "0" * 18, "1.0", "1e3", "1E3", "-", "+1", "1" + "0" * 18, "-" + "9" * 19, "0x1",
        '"\\n"', '"a\\"b"', '"\\u00e9"', '"\x7f"', '"\x1f"', '"\t"', '"é"', "[]", "{}", '{"b":1}', "[1]",
        "True", "nul", "nulls", "truex", "NaN", '"a', "",
    ]
)  # fmt: skip


@st.composite
def _flat_objects(draw: st.DrawFn) -> bytes:
    """Valid flat objects (most draws) in JSON's whitespace layouts, and the same with one member's key, value
    or separator a near miss: what a wrong shortcut (e.g. `01` taken as a number) would answer differently."""
    members = []
    for _ in range(draw(st.integers(0, 4))):
        key = f'"{draw(_PLAIN)}"'
        value = draw(_GOOD_VALUES)
        members.append([draw(_JSON_WS), key, draw(_JSON_WS), ":", draw(_JSON_WS), value, draw(_JSON_WS)])
    if members and draw(st.booleans()):
        member = draw(st.sampled_from(members))
        slot = draw(st.sampled_from([1, 3, 5, 5, 5, 0]))
        near = {1: st.sampled_from(['"é"', '"\\n"', "a", '"a\x00"', "1"]), 3: st.sampled_from(["", "::", "="])}
        member[slot] = draw(near.get(slot, _NEAR_VALUES if slot == 5 else st.sampled_from(["\x0b", "\x0c", "\xa0"])))
    inner = ",".join("".join(m) for m in members) if members else draw(_JSON_WS)
    return (draw(_JSON_WS) + "{" + inner + "}" + draw(_JSON_WS)).encode()


@settings(max_examples=3000, deadline=None)
@given(_flat_objects())
def test_a_valid_flat_object_or_a_near_miss_decides_as_json_does(header: bytes) -> None:
    if validators._FLAT_OBJECT.fullmatch(header) is not None:
        assert isinstance(json.loads(header), dict), header
    on, off = _both(validators.jwt, _token(header))
    assert on == off, header


# Near misses of a valid header, each compared on against off (review 35: a shortcut that took `01` as a number
# answered True where `json.loads` raises, and the generated objects above rarely reached it).
_NEAR_HEADERS = [
    b'{"a":01}', b'{"a":-01}', b'{"a":00}', b'{"a":1.0}', b'{"a":1e3}', b'{"a":1E3}', b'{"a":-}', b'{"a":+1}',
    b'{"a":"\x7f"}', b'{"a":"\x1f"}', b'{"a":"\\"b"}', b'{"a":"\\u00e9"}', b'{"a\\n":1}',
    b'{"a":1234567890123456789}', b'{"a":-1234567890123456789}', b'{"a":123456789012345678}', b'{"a":-0}',
    b'{"a":{"b":1}}', b'{"a":[1]}', b'{"a":[]}', b'{ "a" : 1 }', b'{\r\n"a"\t:\n1\r}', b'{\x0b"a":1}',
    b'{"a":1}\x0c', b'\xc2\xa0{"a":1}', b'{"a":1,"a":2}', b'{"a":true,"b":false,"c":null}', b'{"a":True}',
    b'{"a":nul}', b'{"a":nulls}', b'{"\xc3\xa9":1}', b'{"a":"\xc3\xa9"}', b"{}", b"{ }", b"{,}", b'{"a":1,}',
    b'{"a"}', b'{"a":}', b"{:1}", b'{"a":1 "b":2}', b'{"a":1}{}', b"[]", b'\xef\xbb\xbf{"a":1}', b'{"a":1}\x00',
    b'{"a":"\\x"}', b'{"a":"\\"}', b'{"a":0}', b'{"a":-12}', b'{"a":"b","c":"d"}',
]  # fmt: skip


@pytest.mark.parametrize("header", _NEAR_HEADERS)
def test_near_misses_of_a_header_decide_as_json_does(header: bytes) -> None:
    on, off = _both(validators.jwt, _token(header))
    assert on == off, header
    try:
        want = isinstance(json.loads(header), dict)
    except ValueError:
        want = False
    assert on == want, header


def test_the_review_token_as_written() -> None:
    assert _both(validators.jwt, "eyJhIjowMX0.x.y") == (False, False)  # ({"a":01}: json.loads raises)


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
        assert _run(pure, calls) == got, calls  # (the pure path with the shortcuts off: not the cached one)
    assert got == reference(calls, False, max_hold), calls  # the pure path (once a session: sameness.py)


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
