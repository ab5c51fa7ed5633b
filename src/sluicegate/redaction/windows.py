"""Choosing the value inside a run of digit groups: `4111 1111 1111 1111 12/27`, `Step 2 4111111111111111`,
two cards side by side, `123-45-6780 1 time`, `415-555-2671 2 times`.

A regex cannot both find a run and pick the validated window inside it, so the card and SSN patterns match
the whole (bounded) run and these functions pick windows aligned to group boundaries, as Presidio's
group-shaped patterns do: a window never starts or ends inside a group, and a window must pass its
checksum or format rules. Among overlapping valid windows the most card-like layout wins, so a stray
counter or expiry month next to a card is left as text. Each function takes the run as it appears in the
detection view (ASCII digits; ' ', '-', '.', a tab or a middle dot between groups) and returns (start, end) spans in it.
"""

from __future__ import annotations

import re

import regex

from . import validators
from .detector import data_lines

_GROUP = regex.compile(r"[0-9]+")

# Group layouts printed on cards or by payment forms: 4-4-4-4 (most), 4-4-4-4-3 (19 digits), 4-6-5 (Amex),
# 4-6-4 (Diners), 4-4-5 (13-digit Visa). A single compact group of 13-19 digits is also a layout.
_CARD_LAYOUTS = frozenset({(4, 4, 4, 4), (4, 4, 4, 4, 3), (4, 6, 5), (4, 6, 4), (4, 4, 5)})


def _groups(run: str) -> list[tuple[int, int]]:
    return [m.span() for m in _GROUP.finditer(run)]


def _card_rank(sizes: tuple[int, ...], whole: bool) -> int | None:
    """0: a card layout; 1: the whole run, however grouped (as written, e.g. 4-8-4 once a zero-width
    character is dropped); 2: other groups of 4+ digits. None: not a plausible card window (it would take
    a stray short group such as '2' or '12' along)."""
    if len(sizes) == 1 or sizes in _CARD_LAYOUTS:
        return 0
    if whole:
        return 1
    if min(sizes) >= 4:
        return 2
    return None


def _pick(candidates: list[tuple[int, int, int]]) -> list[tuple[int, int]]:
    """Non-overlapping windows: best rank first, then earliest, then longest."""
    chosen: list[tuple[int, int]] = []
    for _, a, b in sorted(candidates, key=lambda c: (c[0], c[1], c[1] - c[2])):
        if all(b <= x or a >= y for x, y in chosen):
            chosen.append((a, b))
    return sorted(chosen)


def card_windows(run: str) -> list[tuple[int, int]]:
    """Luhn-valid windows of 13-19 digits aligned to groups. A run led by '+' is a phone number first: no
    window starts at its country code."""
    chosen = _pick(_card_candidates(run, _groups(run)))
    return chosen if _only_strays_left(run, chosen) else []


def _card_candidates(run: str, groups: list[tuple[int, int]]) -> list[tuple[int, int, int]]:
    """(rank, start, end) of each Luhn-valid window of 13-19 digits of `run` aligned to its digit `groups`."""
    last = len(groups) - 1
    # Dots also separate versions and decimals (10.0.19041.1234): a dotted run must show a card layout.
    dotted = "." in run or "\u00b7" in run
    candidates: list[tuple[int, int, int]] = []
    for i in range(1 if run.startswith("+") else 0, len(groups)):
        digits = 0
        for j in range(i, len(groups)):
            digits += groups[j][1] - groups[j][0]
            if digits > 19:
                break
            if digits < 13:
                continue
            sizes = tuple(y - x for x, y in groups[i : j + 1])
            rank = _card_rank(sizes, i == 0 and j == last)
            if dotted and rank != 0:
                continue
            a, b = groups[i][0], groups[j][1]
            if rank is not None and validators.credit_card(run[a:b]):
                candidates.append((rank, a, b))
    return candidates


# The most digits a stretch of a run outside the cards may hold: a counter, a month, a year.
_STRAY_DIGITS = 4


def _only_strays_left(run: str, chosen: list[tuple[int, int]]) -> bool:
    """True if the digits outside the chosen windows are short strays (<= 4 digits between two windows or at
    either end; the leading phone number of a '+' run is not counted). Otherwise the run is a longer
    number (an account or reference number) that merely contains a Luhn-valid window, and no card is read."""
    bounds = [0, *(x for span in chosen for x in span), len(run)]
    for k, (x, y) in enumerate(zip(bounds[::2], bounds[1::2], strict=False)):
        if x == y or (k == 0 and run.startswith("+")):  # (an empty stretch holds no digit)
            continue
        if sum(ch.isdigit() for ch in run[x:y]) > _STRAY_DIGITS:
            return False
    return True


def ssn_windows(run: str) -> list[tuple[int, int]]:
    """Three consecutive groups of 3, 2 and 4 digits with one separator, valid by Presidio's rules."""
    if validators.FAST and run.isascii() and run.isdigit():  # (one group: a plain number; JSON has many)
        return []
    groups = _groups(run)
    if len(groups) < 3 and validators.FAST:  # (no window, as `_pick([])`)
        return []
    candidates: list[tuple[int, int, int]] = []
    for i in range(len(groups) - 2):
        (a, x), (y, z), (w, b) = groups[i : i + 3]
        if (x - a, z - y, b - w) == (3, 2, 4) and run[x:y] == run[z:w] and validators.us_ssn(run[a:b]):
            candidates.append((0, a, b))
    return _pick(candidates)


def phone_window(run: str) -> list[tuple[int, int]]:
    """The longest prefix ending at a group boundary that libphonenumber accepts: in '415-555-2671 2 times'
    the stray number is not part of it. Windows start at the match only: trying later starts too made
    sub-windows of other numbers valid somewhere ('0044 0532 0130 00' holds an Italian-looking number).
    What follows the number must be a short stray or a card, not the rest of a longer number. A run that
    starts with a group of 1-3 digits and a separator before a US-shaped number (`1-800-555-0199`,
    `91-415-555-0132`) is read as an international number whose '+' was left out."""
    ends = [len(run)] + [i for i in range(len(run) - 1, 0, -1) if run[i] in " .-" and run[i - 1] in "0123456789)"]
    code = _COUNTRY_CODE.match(run)
    for end in ends:
        window = run[:end]
        if validators.phone_number(window) or (code is not None and validators.phone_number("+" + window)):
            rest = run[end:]
            # A stray counter, or a card written after the number; not the rest of a longer number.
            if sum(ch.isdigit() for ch in rest) <= _STRAY_DIGITS or validators.credit_card(rest):
                return [(0, end)]
            return []
    return []


# A country code written without its '+' before a US-shaped number (the run's first group, then `(415) ` or
# `415-`): `1-800-555-0199`.
_COUNTRY_CODE = regex.compile(r"[1-9][0-9]{0,2}[ .\-](?:\([0-9]{3}\)|[0-9]{3}[ .\-])[0-9]{3}[ .\-][0-9]{4}")


_IBAN_LENGTHS = {c: int(n) for c, n in (line.split() for line in data_lines("iban_lengths.txt"))}


def iban_window(run: str) -> list[tuple[int, int]]:
    """The IBAN at the start of the run (see `_first_iban`), then each further IBAN that starts right after a
    separator: two IBANs in one run of four-character groups (`BE71 0961 2345 6769 BE71 …`) are both values."""
    found: list[tuple[int, int]] = []
    at = 0
    while at < len(run):
        window = _first_iban(run[at:])
        if not window:
            break
        end = at + window[0][1]
        found.append((at, end))
        at = end + 1  # past the separator
    return found


def _first_iban(run: str) -> list[tuple[int, int]]:
    """The IBAN at the start of the run: its country's exact length in letters and digits, ending at the end of
    the run or before a separator (never inside a group), in one case, with valid mod-97 check digits."""
    length = _IBAN_LENGTHS.get(run[:2].upper())
    if length is None:
        return []
    seen = 0
    for i, ch in enumerate(run):
        if ch.isalnum():
            seen += 1
            if seen == length:
                end = i + 1
                if end < len(run) and run[end].isalnum():
                    return []
                value = run[:end]
                if not (value.isupper() or value.islower() or value[2:].replace(" ", "").replace("-", "").isdigit()):
                    return []
                return [(0, end)] if validators.iban(value) else []
    return []


# The digit groups by the stdlib engine (the same spans as `_GROUP`: ASCII digits in both), for the lean form below.
_GROUP_RE = re.compile(r"[0-9]+")


def card_windows_lean(run: str) -> list[tuple[int, int]]:
    """`card_windows(run)`, with less Python per call (issue 27, stop 35: on 64 KB of logs its 19 runs cost a
    fifth of the one pass's choice of findings): the groups found by the stdlib engine, and a lone candidate window
    taken as `_pick` would take it (the windows and the strays' check are `card_windows`'s own).
    The same answer for every string (tests/redact/test_whole_quick.py compares the two)."""
    candidates = _card_candidates(run, [m.span() for m in _GROUP_RE.finditer(run)])
    chosen = [(candidates[0][1], candidates[0][2])] if len(candidates) == 1 else _pick(candidates)
    return chosen if _only_strays_left(run, chosen) else []
