"""Optional compiled prefilter (the `hyperscan` package, extra `[fast]`): one pass finds where each built-in
detector could start, so the `regex` detectors are asked only there.

Each built-in detector has triggers: (hyperscan regex over ASCII, K, minlen, maxlen) with the property that
every complete match starting at q, and every path of its probe starting at q that reads `reach = K + maxlen`
characters, contains an occurrence [u, u+len) of a trigger with q <= u <= q + K. Hyperscan reports each hit
with its leftmost start f <= u (HS_FLAG_SOM_LEFTMOST) and its end e >= u + minlen, so a match (or an open
path) can only start in [f - K, e - minlen] for some hit, or, for a path still open at the end of the buffer
before its trigger is complete, in the last `reach` characters. Everything else is skipped. Triggers are matched on the
view encoded as ASCII with every other character as '?', which no trigger contains, so offsets are characters;
the three non-ASCII characters that the `regex` engine matches case-insensitively to an ASCII letter (the labels
are `(?i:...)`) are folded to that letter first.

Hyperscan has no lookarounds, so it only narrows where to look: the `regex` detectors still decide every match
and every open start, at the candidate positions (`matches_in`, `open_in`). tests/redact/test_prefilter.py
checks the covering property directly and compares the two paths feed by feed.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from functools import lru_cache
from typing import Any

from .detector import Detector

_hs: Any  # the hyperscan module, or None without the optional extra
try:
    import hyperscan

    _hs = hyperscan
except ImportError:  # pragma: no cover - exercised when the extra is absent
    _hs = None

# Ranges at least this long (characters to settle, or new text to probe) go through the prefilter: a whole
# string is handled in `max_hold` slices, while a streamed piece of a few characters is cheaper with one regex
# call per detector than with a hyperscan call and candidate loops. Tests set it to 0 to use it everywhere.
MIN_RANGE = 512
# More trigger hits than one per this many characters: the prefilter would cost more than it saves (0: no limit).
HIT_BUDGET = 16

# Non-ASCII characters that `regex` matches case-insensitively to an ASCII letter (checked over all code
# points in tests/redact/test_prefilter.py): folded before the ASCII encoding so `(?i:...)` triggers see them.
FOLD = {0x0130: "i", 0x017F: "s", 0x212A: "k"}
_FOLDABLE = frozenset(chr(c) for c in FOLD)

Trigger = tuple[str, int, int, int]  # (pattern, K, minlen, maxlen)


def _triggers() -> dict[str, tuple[Trigger, ...]]:
    from .pii import EMAIL_LOCAL_MAX

    return {
        "PRIVATE_KEY": ((r"-----BEGIN |---- BEGIN SSH2|PuTTY-User-Key-File-", 0, 11, 20),),
        "AWS_ACCESS_KEY": ((r"AKIA|ASIA|ABIA|ACCA|A3T", 0, 3, 4),),
        "AWS_SECRET_KEY": ((r"(?i:aws)", 0, 3, 3),),
        "GITHUB_TOKEN": ((r"gh[pousr]_|github_pat_", 0, 4, 11),),
        "GITLAB_TOKEN": (
            (r"gl(?:pat|dt|rt|ptt|ft|ffct|soat|cbt|imt|oas|agent|wt|isa)-|GR1348941|_gitlab_session=", 0, 5, 16),
        ),
        "SLACK_WEBHOOK": ((r"hooks\.slack\.com/", 8, 16, 16),),
        "SLACK_TOKEN": ((r"xox[aboprse]-|xapp-", 5, 5, 5),),  # 5: after `xoxe.`
        "STRIPE_KEY": ((r"[rs]k_(?:live|test|prod)_", 0, 8, 8),),
        "ANTHROPIC_KEY": ((r"sk-ant-", 0, 7, 7),),
        "OPENAI_KEY": ((r"sk-", 0, 3, 3),),
        "GOOGLE_API_KEY": ((r"AIza", 0, 4, 4),),
        "NPM_TOKEN": ((r"npm_", 0, 4, 4),),
        "PYPI_TOKEN": ((r"pypi-AgEIcHlwaS5vcmc|pypi-AgENdGVzdC5weXBpLm9yZw", 0, 20, 27),),
        "SENDGRID_KEY": ((r"SG\.", 0, 3, 3),),
        "TWILIO_KEY": ((r"AC|SK", 0, 2, 2),),
        "TELEGRAM_BOT_TOKEN": ((r"[0-9]{5}:", 11, 6, 6),),
        "DISCORD_BOT_TOKEN": ((r"[0-9A-Za-z_\-]{24}\.", 2, 25, 25),),
        "JWT": ((r"eyJ", 0, 3, 3),),
        "BEARER_TOKEN": ((r"(?i:bearer|basic)", 0, 5, 6),),
        # The match starts at its separator or an operator's last character, at the comma, parenthesis or `>`
        # after a label, or at a quote; the label is a lookbehind.
        "LABELED_SECRET": ((r"[:=,(>\"]", 0, 1, 1),),
        "EMAIL_ADDRESS": ((r"@", 16 + EMAIL_LOCAL_MAX, 1, 1),),
        "CREDIT_CARD": ((r"[0-9](?:[ \t.\-]?[0-9]){12}", 1, 13, 25),),
        "IBAN_CODE": ((r"[A-Za-z]{2}[0-9]{2}", 0, 4, 4),),
        # One expression per alternative, each with its own length: a hit then names one candidate start, not
        # every start the shortest alternative would allow (digit groups are dense in a planted text).
        "PHONE_NUMBER": (
            (r"\+[0-9]", 0, 2, 2),
            (r"\([0-9]{3}\)", 4, 5, 5),
            (r"[0-9]{3}[ .\-][0-9]{3}", 4, 7, 7),
            (r"0[0-9]{1,4}[ \-][0-9]{2}", 0, 5, 8),
            (r"0[ \-]\(?[0-9]{3}", 0, 5, 6),
            (r"0[0-9]{9}", 0, 10, 10),
            (r"1[3-9][0-9]{9}", 0, 11, 11),
        ),
        "US_SSN": ((r"[0-9](?:[ \-]?[0-9]){8}", 0, 9, 17),),
        "IP_ADDRESS": ((r"[0-9]{1,3}\.", 0, 2, 4), (r":", 4, 1, 1)),
        "MAC_ADDRESS": ((r"[0-9A-Fa-f]{2}[:\-]|[0-9A-Fa-f]{4}\.", 0, 3, 5),),
        "CRYPTO": ((r"[13][1-9A-HJ-NP-Za-km-z]{25}", 0, 26, 26), (r"bc1", 0, 3, 3)),
        "URL_CREDENTIALS": ((r"://", 21, 3, 3),),
    }


def available() -> bool:
    return _hs is not None


# Non-ASCII characters a pattern matches literally where a trigger needs an ASCII stand-in: the middle dot
# between card groups reads as '.' (only adds hits: no trigger needs the '?' placeholder).
_STAND_IN = {0x00B7: "."}
_ENCODE = {**FOLD, **_STAND_IN}
_SPECIAL = _FOLDABLE | frozenset(chr(c) for c in _STAND_IN)


def encode(text: str) -> bytes:
    """One byte per character: ASCII as is, the case-fold look-alikes as their letter, the middle dot as '.',
    anything else '?'."""
    if not text.isascii() and any(c in text for c in _SPECIAL):
        text = text.translate(_ENCODE)
    return text.encode("ascii", "replace")


class Prefilter:
    """Candidate start positions per detector index, from one hyperscan pass over the view."""

    def __init__(self, detectors: Sequence[Detector], builtin_ids: frozenset[int]) -> None:
        assert _hs is not None
        table = _triggers()
        exprs: list[bytes] = []
        ids: list[int] = []
        self._meta: list[tuple[int, int, int, int]] = []  # per expression id: (detector index, K, minlen, maxlen)
        self.covered: dict[int, int] = {}  # detector index -> reach
        # Detectors whose one trigger may lie far after the start (an address's '@'): index -> (K, the reverse
        # search for a character outside the detector's alphabet, alphabet.py).
        self._narrow: dict[int, tuple[int, Any]] = {}
        for i, d in enumerate(detectors):
            if id(d) not in builtin_ids or d.entity not in table:
                continue
            reach = 0
            for pattern, k, lo, hi in table[d.entity]:
                ids.append(len(self._meta))
                exprs.append(pattern.encode("ascii"))
                self._meta.append((i, k, lo, hi))
                reach = max(reach, k + hi)
            self.covered[i] = reach
            triggers = table[d.entity]
            if len(triggers) == 1 and triggers[0][1] >= _NARROW_K and d.stop is not None:
                self._narrow[i] = (triggers[0][1], d.stop.search)
        # Expressions that are one character of a set (`[:=,(>"]`, `:`, `@`): each such character in the text is a
        # hit, so counting them says in C whether the scan would go over budget, before paying a callback each.
        plain = [p.replace('\\"', '"') for p in exprs_text(table, detectors, builtin_ids)]
        assert len(plain) == len(exprs)
        sets = [p[1:-1] if p[0] == "[" else p for p in plain if _SINGLE.fullmatch(p)]
        # (byte, how many of those expressions it is a hit of)
        self._singles = tuple((ord(c), sum(c in chars for chars in sets)) for c in sorted(set("".join(sets))))
        self._db: Any = None  # a compiled hyperscan.Database once built
        if exprs:
            db = _hs.Database(mode=_hs.HS_MODE_BLOCK)
            flags = [_hs.HS_FLAG_SOM_LEFTMOST] * len(exprs)
            db.compile(expressions=exprs, ids=ids, elements=len(exprs), flags=flags)
            self._db = db

    def ranges(self, view: str, lo: int) -> dict[int, list[tuple[int, int]]] | None:
        """For each covered detector: sorted, merged closed ranges [a, b] of candidate starts >= lo, built from
        trigger hits in view[lo:] (`hits`) and the last `reach` characters (a path still open at the end).

        None when the prefilter would not pay (more than one hit per `HIT_BUDGET` characters: dense digits,
        base64) or the scan failed (e.g. the shared scratch is in use by another thread): the caller then takes
        the pure path, which gives the same answer."""
        got = self.hits(view, lo)
        if got is None:
            return None
        n = len(view)
        return {i: _merge([*spans, (self.tail(i, n), n - 1)], lo) for i, spans in got.items()}

    def tail(self, i: int, n: int) -> int:
        """Where the last `reach` characters of an `n`-character view start for detector i: a path still open at
        the end may start anywhere from there before its trigger is complete."""
        return n - self.covered[i]

    def hits(self, view: str, lo: int) -> dict[int, list[tuple[int, int]]] | None:
        """`ranges` without the last `reach` characters: every complete match starting at or after lo starts in
        one of these (its trigger occurrence lies inside it, so inside the view), and so does every open path
        that already holds its trigger. None as for `ranges`."""
        n = len(view)
        raw: dict[int, list[tuple[int, int]]] = {i: [] for i in self.covered}
        if self._db is not None and n > lo:
            meta = self._meta
            budget = [64 + (n - lo) // HIT_BUDGET if HIT_BUDGET else float("inf")]
            data = encode(view[lo:])
            # (the encoding keeps every ASCII character, so each of these bytes is a hit of its expressions)
            if HIT_BUDGET and sum(data.count(c) * k for c, k in self._singles) > budget[0]:
                return None  # the scan would stop over budget (on JSON or logs, after thousands of callbacks)

            def on(expr: int, start: int, to: int, _flags: int, _ctx: object) -> bool:
                i, k, mn, _ = meta[expr]  # the occurrence starts at or after `start`, and ends at `to`
                raw[i].append((lo + start - k, lo + to - mn))
                budget[0] -= 1
                return budget[0] < 0  # True stops the scan

            try:
                self._db.scan(data, match_event_handler=on)
            except _hs.error:  # ScanTerminated (over budget), ScratchInUseError, ...
                return None
        for i, (k, stop) in self._narrow.items():
            # A start q before the hit's leftmost start f reads every character of [q, f) on its way to the
            # trigger, so q is after the last character in [f - K, f) that no path reads.
            spans = raw[i]
            for j, (a, b) in enumerate(spans):
                f = a + k
                c = stop(view, a if a > lo else lo, f)
                if c is not None:
                    spans[j] = (c.end(), b)
        return {i: _merge(spans, lo) if spans else spans for i, spans in raw.items()}


# A trigger that is one ASCII character of a set, with no escapes or ranges.
_SINGLE = re.compile(r"\[[^\]\\^\-]+\]|[^\[\]\\.^$*+?(){}|]")


def exprs_text(
    table: dict[str, tuple[Trigger, ...]], detectors: Sequence[Detector], builtin_ids: frozenset[int]
) -> Iterator[str]:
    """The trigger expressions in the order `Prefilter` compiles them."""
    for d in detectors:
        if id(d) in builtin_ids and d.entity in table:
            for pattern, _, _, _ in table[d.entity]:
                yield pattern


def _merge(spans: list[tuple[int, int]], lo: int) -> list[tuple[int, int]]:
    """Sorted, merged closed ranges, clipped to start at lo."""
    merged: list[tuple[int, int]] = []
    for a, b in sorted(spans):
        a = max(a, lo)
        if b < a:
            continue
        if merged and a <= merged[-1][1] + 1:
            if b > merged[-1][1]:
                merged[-1] = (merged[-1][0], b)
        else:
            merged.append((a, b))
    return merged


# A trigger at least this far after the start is worth narrowing by the detector's alphabet (`Prefilter.hits`).
_NARROW_K = 16

# A merged candidate range at least this long (dense digits, base64) is searched by the engine in one call
# rather than asked position by position from Python: never slower than the pure path there.
LONG_SPAN = 256


def matches_in(
    d: Detector,
    view: str,
    spans: list[tuple[int, int]],
    first: int,
    point: int,
    match: Callable[[str, int], Any] | None = None,
) -> list[Any]:
    """What `d.compiled.finditer(view, first)` yields before `point`, asking the engine only at candidates.

    No match starts outside `spans` (`Prefilter.hits`: a complete match holds its trigger), so a position
    outside them is skipped, and `search(view, s)` (used on a long range) is remembered: it also answers every
    later `s` up to the start of the match it found. `match`: what answers `d.compiled.match(view, s)` (the
    same match, e.g. whole.py's `_quick`), where given."""
    found: list[Any] = []
    search = d.compiled.search
    if match is None:
        match = d.compiled.match
    at = first
    known_from, known = -1, None  # search(view, known_from) returned `known`
    for a, b in spans:
        if a >= point:
            break
        s = a if a > at else at
        end = b if b < point - 1 else point - 1
        while s <= end:
            if known_from >= 0 and known_from <= s and (known is None or s <= known.start()):
                m = known
            elif end - s >= LONG_SPAN:
                m = known = search(view, s)
                known_from = s
            else:
                m = match(view, s)
                if m is None:
                    s += 1
                    continue
            if m is None:
                return found  # no match starts at or after s
            if m.start() > end:
                break
            found.append(m)
            at = s = m.end()
    return found


def open_in(d: Detector, view: str, spans: list[tuple[int, int]], start: int, tail: int) -> int | None:
    """What `d.probe.search(view, start, partial=True)` finds, asking the engine only at candidates: the hit
    spans (`Prefilter.hits`) and every position from `tail` (`Prefilter.tail`).

    No open start is outside them, so a search from a candidate finds the answer: one search for a long span,
    for one that reaches the tail, and for the tail itself (usually where the answer is)."""
    match, search = d.probe.match, d.probe.search
    for a, b in spans:
        if b < start:
            continue
        if a >= tail:
            break
        s = a if a > start else start
        if b >= tail or b - s >= LONG_SPAN:
            m = search(view, s, partial=True)
            return None if m is None else m.start()
        for q in range(s, b + 1):
            if match(view, q, partial=True) is not None:
                return q
    s = tail if tail > start else start
    if s >= len(view):
        return None
    m = search(view, s, partial=True)
    return None if m is None else m.start()


def shared(detectors: Sequence[Detector]) -> Prefilter | None:
    """One compiled database per detector selection (compiling takes milliseconds; streams are many), or None
    without the extra, or if hyperscan cannot compile here (e.g. a CPU it does not support)."""
    return _shared(tuple(detectors)) if _hs is not None else None


@lru_cache(maxsize=32)
def _shared(detectors: tuple[Detector, ...]) -> Prefilter | None:
    from .starters import BUILTIN_IDS

    try:
        return Prefilter(detectors, BUILTIN_IDS)
    except _hs.error:  # pragma: no cover - platform dependent
        return None
