"""Checksums and format rules that turn a regex candidate into a finding (or drop it).

Each takes the candidate as it appears in the detection view and returns True to keep it. Where a small,
well-kept library exists we use it: `ipaddress` (standard library) for IP addresses and `phonenumbers`
(libphonenumber's metadata) for phone numbers. Luhn, mod-97, base58check and bech32 are a few lines each
over `hashlib` and need no dependency.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import ipaddress
import json
import re
from functools import lru_cache

import phonenumbers

# False: no shortcut before a library's own answer (tests/benchmarks/redactor_settle_ab.py measures them against it).
SHORTCUTS = True
# False: the plain loops of issue 27's stop 33 in place of the C-speed forms below (stop 34; the same answers,
# tests/redact/test_whole_lean.py compares the two).
FAST = True

# False: `jwt` always parses its header with `json.loads`, `iban` always converts character by character (stop 35's
# shortcuts, which decide the same: tests/redact/test_validators_exact.py compares them over every input class).
JWT_FLAT = True
IBAN_TABLE = True

_NOT_DIGITS = re.compile("[^0-9]+")
# A digit's byte to the byte of the digit of its double (less 9 above 9), for `luhn`.
_DOUBLED = bytes.maketrans(b"0123456789", b"0246813579")


def digits_of(value: str) -> str:
    if FAST:  # (one C call: a card's window is checked many times while its run is read)
        return _NOT_DIGITS.sub("", value)
    return "".join(ch for ch in value if "0" <= ch <= "9")


def luhn(number: str) -> bool:
    """The Luhn mod-10 check over the digits of `number`."""
    if FAST and number.isascii() and number.isdigit():  # (the same sum, over bytes: a third of the loop's time)
        data = number.encode("ascii")
        kept, doubled = data[-1::-2], data[-2::-2].translate(_DOUBLED)
        return (sum(kept) + sum(doubled) - 48 * len(data)) % 10 == 0
    total = 0
    for i, ch in enumerate(reversed(number)):
        d = ord(ch) - 48
        if i % 2:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


def credit_card(value: str) -> bool:
    """13-19 digits, an issuer's first digit (2-6: Mastercard, Amex/Diners/JCB, Visa, Mastercard,
    Discover/UnionPay), Luhn."""
    digits = digits_of(value)
    return 13 <= len(digits) <= 19 and digits[0] in "23456" and luhn(digits)


# An ASCII letter or digit to its base-36 value as decimal text (`str(int(ch, 36))`), for `iban`'s one translate.
_BASE36 = {ord(c): str(int(c, 36)) for c in "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"}


def iban(value: str) -> bool:
    """ISO 13616 mod-97: move the first four characters to the end, letters to numbers, remainder must be 1."""
    compact = value.replace(" ", "").replace("-", "").upper()
    moved = compact[4:] + compact[:4]
    if IBAN_TABLE and moved.isascii() and moved.isalnum():  # (one translate: `int(ch, 36)` of each, as text)
        return int(moved.translate(_BASE36)) % 97 == 1
    number = "".join(str(int(ch, 36)) for ch in moved)
    return int(number) % 97 == 1


# An octet as `ipaddress` reads one: ASCII digits, at most 255, no leading zero (the stdlib `re`: 0.3 µs a call
# where the split and a loop over the parts took 1.1, and a log line holds an address).
_OCTET = "(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9][0-9]|[0-9])"
_QUAD = re.compile(rf"{_OCTET}(?:\.{_OCTET}){{3}}", re.ASCII)


def _dotted_quad(value: str) -> bool:
    """True only where `ipaddress.IPv4Address(value)` accepts: four ASCII decimal octets of at most three digits,
    none with a leading zero, each at most 255 (its own rules, which tests/redact/test_settle_short.py checks against
    it). False says nothing: the caller asks `ipaddress`. A quarter of its cost, and a log line holds one. By one
    match where `FAST`, else `_dotted_quad_parts` (the same answer: test_whole_lean.py, test_settle_round2.py)."""
    if FAST:
        return _QUAD.fullmatch(value) is not None
    return _dotted_quad_parts(value)


def _dotted_quad_parts(value: str) -> bool:
    """`_dotted_quad` by a split and a loop over the parts (stop 33's form)."""
    parts = value.split(".")
    if len(parts) != 4:
        return False
    for part in parts:
        if not (0 < len(part) <= 3 and part.isascii() and part.isdigit()) or (part[0] == "0" and len(part) > 1):
            return False
        if int(part) > 255:
            return False
    return True


def ip_address(value: str) -> bool:
    """Parses as IPv4 or IPv6 (with a zone, `%eth0`); an IPv6 candidate also needs a decimal digit before any zone
    or prefix ('a::b' is C++/Rust, not an address); a prefix length fits the family (/0-/32, /0-/128)."""
    if SHORTCUTS and (_QUAD.fullmatch(value) is not None if FAST else _dotted_quad(value)):  # (FAST: no frame)
        return True
    value, slash, prefix = value.partition("/")
    try:
        address = ipaddress.ip_address(value)
    except ValueError:
        return False
    if slash and not (prefix.isascii() and prefix.isdigit() and int(prefix) <= address.max_prefixlen):
        return False
    return ":" not in value or any("0" <= ch <= "9" for ch in value.partition("%")[0])


def _regions() -> tuple[str, ...]:
    from .detector import data_lines

    return tuple(data_lines("phone_regions.txt"))


# Regions tried for national numbers written with a leading trunk 0 (international numbers carry their own).
NATIONAL_REGIONS = _regions()
_MOBILE = (phonenumbers.PhoneNumberType.MOBILE, phonenumbers.PhoneNumberType.FIXED_LINE_OR_MOBILE)


@lru_cache(maxsize=4096)
def phone_number(value: str) -> bool:
    """libphonenumber validity: `+CC` numbers as written, `(415) 555-2671` as US, `0…` in the regions of
    data/redact/phone_regions.txt, a compact `1[3-9]…` as a Chinese mobile. A number written without any
    separator must be a mobile number there: a compact landline is too easily an id or an amount."""
    compact = value.isdigit()
    if value.startswith("+"):
        regions: tuple[str | None, ...] = (None,)
    elif value.lstrip("(").startswith("0"):
        regions = NATIONAL_REGIONS
    elif compact and len(value) == 11 and value[0] == "1":
        regions = ("CN",)
    else:
        regions = ("US",)
    for region in regions:
        try:
            parsed = phonenumbers.parse(value, region)
        except phonenumbers.NumberParseException:
            continue
        if phonenumbers.is_valid_number(parsed) and (not compact or phonenumbers.number_type(parsed) in _MOBILE):
            return True
    return False


# Published sample numbers (Woolworth wallet card, advertising) that Presidio also rejects.
_SAMPLE_SSNS = frozenset({"123456789", "987654320", "078051120"})


def us_ssn(value: str) -> bool:
    """Presidio's invalidation rules: same delimiter, not all one digit, area not 000/666, group not 00,
    serial not 0000, not a published sample number."""
    digits = digits_of(value)
    delimiters = {ch for ch in value if not ("0" <= ch <= "9")}
    if len(digits) != 9 or len(delimiters) > 1:
        return False
    if len(set(digits)) == 1 or digits in _SAMPLE_SSNS:
        return False
    return digits[:3] not in ("000", "666") and digits[3:5] != "00" and digits[5:] != "0000"


def mac_address(value: str) -> bool:
    """Rejects the all-zero and broadcast addresses (placeholders, not identifiers)."""
    hexdigits = "".join(ch for ch in value.lower() if ch in "0123456789abcdef")
    return len(hexdigits) == 12 and hexdigits not in ("000000000000", "ffffffffffff")


_B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
_B58_INDEX = {ch: i for i, ch in enumerate(_B58)}


def base58check(value: str) -> bool:
    """Bitcoin legacy address: 25 bytes, version 0x00 (P2PKH) or 0x05 (P2SH), double-SHA256 checksum."""
    number = 0
    for ch in value:
        if ch not in _B58_INDEX:
            return False
        number = number * 58 + _B58_INDEX[ch]
    pad = len(value) - len(value.lstrip("1"))
    raw = b"\x00" * pad + number.to_bytes((number.bit_length() + 7) // 8, "big")
    if len(raw) != 25 or raw[0] not in (0x00, 0x05):
        return False
    return hashlib.sha256(hashlib.sha256(raw[:-4]).digest()).digest()[:4] == raw[-4:]


_BECH32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
_BECH32_CONSTANTS = (1, 0x2BC830A3)  # BIP-173 bech32, BIP-350 bech32m


def _polymod(values: list[int]) -> int:
    generator = (0x3B6A57B2, 0x26508E6D, 0x1EA119FA, 0x3D4233DD, 0x2A1462B3)
    chk = 1
    for v in values:
        top = chk >> 25
        chk = (chk & 0x1FFFFFF) << 5 ^ v
        for i in range(5):
            chk ^= generator[i] if (top >> i) & 1 else 0
    return chk


def bech32(value: str) -> bool:
    """Bitcoin segwit address (`bc1…`): bech32 or bech32m checksum over the human-readable part 'bc'."""
    lowered = value.lower()
    hrp, sep, data = lowered.rpartition("1")
    if not sep or hrp != "bc" or len(data) < 7 or any(ch not in _BECH32 for ch in data):
        return False
    values = [ord(ch) >> 5 for ch in hrp] + [0] + [ord(ch) & 31 for ch in hrp] + [_BECH32.index(ch) for ch in data]
    return _polymod(values) in _BECH32_CONSTANTS


def bitcoin(value: str) -> bool:
    return bech32(value) if value.lower().startswith("bc1") else base58check(value)


def credential_token(value: str) -> bool:
    """A Bearer/Basic credential: 12+ characters with a digit or a symbol, or 20+ letters (not a prose word)."""
    return not value.isalpha() or len(value) >= 20


# A flat JSON object of printable-ASCII strings without escapes, integers of at most 18 digits (never near `int`'s
# digit limit), true, false and null, with JSON's own whitespace: every such byte string is one `json.loads` reads as
# a dict (ASCII with no NUL or BOM, so it decodes it as UTF-8; nothing nested, so no recursion). A JOSE header is one:
# `{"alg":"HS256","typ":"JWT"}`. Anything else is parsed, as before.
_WS = rb"[ \t\n\r]*"
_STR = rb'"[\x20\x21\x23-\x5b\x5d-\x7e]*"'
_VALUE = rb"(?:" + _STR + rb"|-?(?:0|[1-9][0-9]{0,17})|true|false|null)"
_MEMBER = _WS + _STR + _WS + rb":" + _WS + _VALUE + _WS
_FLAT_OBJECT = re.compile(_WS + rb"\{(?:" + _MEMBER + rb"(?:," + _MEMBER + rb")*|" + _WS + rb")\}" + _WS)


def jwt(value: str) -> bool:
    """The first part must be base64url-encoded JSON object (a JOSE header)."""
    header = value.split(".", 1)[0]
    try:
        decoded = base64.urlsafe_b64decode(header + "=" * (-len(header) % 4))
        if JWT_FLAT and _FLAT_OBJECT.fullmatch(decoded) is not None:  # (a dict to `json.loads`, without parsing)
            return True
        parsed = json.loads(decoded)
    except (binascii.Error, ValueError):
        return False
    except RecursionError:
        # Nested deeper than the parser recurses (a crafted 2 KB header): still an object if it opens as one,
        # and redacting it is the safe side. Bad input gets a result, never a crash.
        return decoded.lstrip()[:1] == b"{"
    return isinstance(parsed, dict)
