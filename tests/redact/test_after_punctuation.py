"""Values right after punctuation: `a:203.53.233.42`, `ip=…`, `(…`, `联系方式：…` (fullwidth colon) must be
found exactly as after a space. A start guard that refuses ':' (to keep an IPv6 or MAC run from being
tried at every group) once let an IPv4 address after a colon through unredacted.
"""

from __future__ import annotations

import ipaddress

import pytest

from sluicegate.redaction import Redactor, redact
from sluicegate.redaction.normalize import normalize
from sluicegate.testing import assert_chunk_invariant

VALUES = {
    "IP_ADDRESS": ["203.53.233.42", "2001:db8::8a2e:370:7334", "fe80::1"],
    "MAC_ADDRESS": ["00:1A:2B:3C:4D:5E", "00-1A-2B-3C-4D-5E", "001a.2b3c.4d5e"],
    "EMAIL_ADDRESS": ["jane.doe@example.com"],
    "CREDIT_CARD": ["4111 1111 1111 1111", "4111111111111111"],
    "PHONE_NUMBER": ["+1 415 555 2671", "(415) 555-2671"],
}
PREFIXES = ["a:", "ip:", "mac:", "abcde:", "x=", "a/", "a(", "a：", "联系方式：", "联系方式: ", ":", "=", "/", "("]
CASES = [(p, e, v) for e, vs in VALUES.items() for v in vs for p in PREFIXES]


@pytest.mark.parametrize(("prefix", "entity", "value"), CASES, ids=[f"{p}{v}" for p, _, v in CASES])
def test_value_right_after_punctuation_is_replaced(prefix: str, entity: str, value: str) -> None:
    want = f"{prefix}<{entity}>"
    if entity == "IP_ADDRESS" and ":" in value and _is_ipv6(normalize(prefix + value)):
        want = f"<{entity}>"  # `a:fe80::1` is itself an IPv6 address: the whole of it goes
    assert redact(f"{prefix}{value} b") == f"{want} b"
    assert redact(f"{prefix}{value}。") == f"{want}。"


def _is_ipv6(text: str) -> bool:
    try:
        ipaddress.IPv6Address(text)
    except ValueError:
        return False
    return True


@pytest.mark.parametrize(
    "text",
    ["联系方式：203.53.233.42。ip:10.0.0.1, mac:00:1A:2B:3C:4D:5E (fe80::1) x=2001:db8::1/64 a:001a.2b3c.4d5e"],
)
def test_after_punctuation_is_chunk_invariant(text: str) -> None:
    assert "." not in redact(text).replace("。", "").replace("<IP_ADDRESS>", "").replace("<MAC_ADDRESS>", "")
    assert_chunk_invariant(Redactor, text, max_size=8, random_runs=50)


NOT_VALUES = [
    "at 10:30:45 and 12:00",
    "std::vector a::b c:d:e",
    "v:1.2.3 and 1:2:3:4:5:6:7 groups",
    "00:1A:2B:3C:4D:5E:6F is seven groups",
    "10:20:30:40:50:60:70 is seven groups",
]


@pytest.mark.parametrize("text", NOT_VALUES)
def test_runs_that_are_not_values_stay_untouched(text: str) -> None:
    assert redact(text) == text
