"""Candidate starts per detector for a whole text, from one hyperscan pass with shapes close to each detector's
(extra `[fast]`): what whole.py asks the `regex` engine about instead of running each detector's `finditer`.

Why: the stream's prefilter (prefilter.py) has short triggers (a digit group, `:`, `"`), which are so dense in
logs, JSON and code that it declines those texts, and whole.py then ran every detector's own `finditer` over the
whole view (~0.1 µs a character each for IP, phone, card, MAC, SSN). Here each dense built-in detector has a
*sound superset* expression instead: a prefix of the shape every match of the detector begins with, its
lookarounds left out (they only forbid), a negative lookbehind of one character class written as that class's
complement before it (or the start of the text), every class that the detector's pattern lets match a non-ASCII
character widened by `?` (the text is encoded one byte per character, anything else as `?`). A match of the
detector at q then holds a hit whose leftmost start f <= q and whose end e >= q + the shortest core, so q lies in
[f, e - shortest]; the detector is asked only there (`prefilter.matches_in`). The other built-ins keep their
prefilter triggers (matched on the prefilter's own encoding, with its case folds). A detector with more hits
than one per `prefilter.HIT_BUDGET` characters gets no entry and whole.py falls back to its `finditer` for it
alone. tests/redact/test_whole_candidates.py checks the covering property against the engine on the corpora,
the suites' cases and generated texts.

Label detectors are not in it (their starts are `:`, `"`, `,`: one every few characters in JSON). The same pass
finds every label word instead (`label_words`: each form, every case of each character spelled out, so in any
script), and whole.py asks a label detector only at its first characters within `LOOKBEHIND` after a word's
tail; and the closing quote and operator of a reversed comparison (`_opens`), the one form that needs no label
before it. An ASCII view is scanned once for all of it; another view once per encoding.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import regex

from . import fastpath as _fp
from . import labels
from . import prefilter as _pf
from .detector import Detector
from .labelgap import label_gap as label_gap  # (moved: its own source key in shapecache.py)

# entity -> (hyperscan expression over the text encoded as ASCII with '?' for anything else, the fewest
# characters of the detector's match the expression's hit holds after the match's start). Each expression
# starts with the detector's leading negative lookbehind as "the start of the text or one character outside
# it", so the hit's leftmost start is that character or the match's own first one.
SHAPES: dict[str, tuple[tuple[str, int], ...]] = {
    "IP_ADDRESS": (
        # (the last octet is followed by no digit, so one hit per address, not one per length of that octet)
        (r"(?:^|[^0-9A-Za-z.])[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}(?:[^0-9]|$)", 7),
        (r"(?:^|[^0-9A-Za-z.])[0-9A-Fa-f]{1,4}:[0-9A-Fa-f]{0,4}:", 3),
        (r"(?:^|[^0-9A-Za-z.])::", 2),
    ),
    "PHONE_NUMBER": (
        (r"(?:^|[^0-9A-Za-z+])\+[0-9](?:(?:[ .\-]|[ ]?\(|\)[ ]?)?[0-9]){6}", 8),
        (r"(?:^|[^0-9A-Za-z+])(?:[0-9]{1,3}[ .\-])?(?:\([0-9]{3}\)[ ]?|[0-9]{3}[ .\-])[0-9]{3}[ .\-][0-9]{4}", 12),
        (r"(?:^|[^0-9A-Za-z+])0[0-9]{1,4}(?: [0-9]{2,4}){2}", 8),
        (r"(?:^|[^0-9A-Za-z+])0[0-9]{1,4}(?:-[0-9]{2,4}){2}", 8),
        (r"(?:^|[^0-9A-Za-z+])0[ \-](?:\([0-9]{3}\)[ ]?|[0-9]{3}[ \-])[0-9]{3}", 9),
        (r"(?:^|[^0-9A-Za-z+])0[0-9]{1,2}-[0-9]{7}", 10),
        (r"(?:^|[^0-9A-Za-z+])0[0-9]{9}", 10),
        (r"(?:^|[^0-9A-Za-z+])1[3-9][0-9]{9}", 11),
        (r"[a-z][0-9]{3}-[0-9]{3}-[0-9]{4}", 12),
    ),
    # (the middle dot between groups is a non-ASCII separator: `?`)
    "CREDIT_CARD": ((r"(?:^|[^0-9A-Za-z])\+?[0-9](?:[ \t.\-?]?[0-9]){12}", 13),),
    "US_SSN": ((r"(?:^|[^0-9A-Za-z])[0-9](?:[ \-]?[0-9]){8}", 9),),
    "MAC_ADDRESS": (
        (r"(?:^|[^0-9A-Za-z])[0-9A-Fa-f]{2}[:\-](?:[0-9A-Fa-f]{2}[:\-]){4}[0-9A-Fa-f]{2}", 17),
        (r"(?:^|[^0-9A-Za-z])[0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4}", 14),
    ),
    "DISCORD_BOT_TOKEN": ((r"(?:^|[^0-9A-Za-z_\-])[0-9A-Za-z_\-]{24,26}\.[0-9A-Za-z_\-]{6}\.[0-9A-Za-z_\-]{27}", 59),),
    "IBAN_CODE": (
        (r"(?:^|[^0-9A-Za-z])[A-Za-z]{2}[0-9]{2}(?:[0-9A-Za-z]{11}|[ \-][0-9A-Za-z]{4}[ \-][0-9A-Za-z]{4})", 14),
    ),
    "CRYPTO": (
        (r"(?:^|[^0-9A-Za-z])[13][1-9A-HJ-NP-Za-km-z]{25}", 26),
        (r"(?:^|[^0-9A-Za-z])bc1[ac-hj-np-z02-9]{8}", 11),
    ),
    "TELEGRAM_BOT_TOKEN": ((r"(?:^|[^0-9])[0-9]{5,16}:[0-9A-Za-z_\-]{35}", 41),),
    "TWILIO_KEY": ((r"(?:^|[^0-9A-Za-z])(?:AC|SK)[0-9a-z]{32}", 34),),
    # (unbounded where the detector's parts are bounded: hyperscan refuses SOM on 256-character repeats)
    "URL_CREDENTIALS": ((r"(?:^|[^0-9A-Za-z+.\-])[A-Za-z][0-9A-Za-z+.\-]{1,20}://[^\s/#@:\"'`<>]*:[^\s@\"'`<>]*@", 8),),
}

# The forms of a label detector that need no label before them (`Detector.near_rest`, whole.py `_rest_rx`): a
# reversed comparison `"…" == password`. Where its pattern begins with `_REST_BEGINS`, `_CLOSE` finds each
# closing quote and operator (no leftmost start: on JSON that cost a millisecond), and the value's opening quote
# is the last quote before the closing one (the value holds none); else whole.py searches the whole view.
_REST_BEGINS = r"\"(?P<v>[^\"\s]{1,256}+)\"[ \t]{0,3}(?:===|!==|==|!=)"
_CLOSE = r'"[ \t]{0,3}[=!]='

# Detectors whose start is `near` a label (label spans, whole.py), never in the database.
_LABELS = frozenset({"LABELED_SECRET"})


class Candidates:
    """`candidates(view, window)`: (`hits`, `label_spans`) of one view, from one hyperscan pass per encoding
    the view needs (built once per detector selection, `shared`)."""

    def __init__(self, detectors: Sequence[Detector], builtin_ids: frozenset[int]) -> None:
        hs = _pf._hs
        assert hs is not None
        table = _pf._triggers()
        plain: list[tuple[bytes, tuple[int, int, int]]] = []  # on the plain encoding
        folded: list[tuple[bytes, tuple[int, int, int]]] = []  # on the prefilter's encoding
        self.covered: set[int] = set()
        self.rests: set[int] = set()  # label detectors whose `rest` has candidates (`_opens`)
        self._narrow: dict[int, tuple[int, Any]] = {}
        gaps: list[int | None] = []
        for i, d in enumerate(detectors):
            if id(d) not in builtin_ids:
                continue
            if d.entity in _LABELS:
                if d.near_rest is not None and d.near_rest[2].startswith(_REST_BEGINS):
                    self.rests.add(i)
                gaps.append(_fp._label_gap(d))  # (once a process, from shapecache.py's file where it can)
                continue
            if d.entity in SHAPES:
                for pattern, shortest in SHAPES[d.entity]:
                    # (a shape that begins with its lookbehind's character: the match starts after it)
                    lead = _AFTER if pattern.startswith(("(?:^|[^", "[a-z]")) else 0
                    plain.append((pattern.encode("ascii"), (i, lead, shortest)))
                self.covered.add(i)
            elif d.entity in table:
                triggers = table[d.entity]
                for pattern, k, lo, _ in triggers:
                    folded.append((pattern.encode("ascii"), (i, k, lo)))
                self.covered.add(i)
                if len(triggers) == 1 and triggers[0][1] >= _pf._NARROW_K and d.stop is not None:
                    self._narrow[i] = (triggers[0][1], d.stop.search)
        close = [(_CLOSE.encode("ascii"), (_CLOSE_KIND, 0, 0))] if self.rests else []
        words = label_words()
        found = [(e.encode("ascii"), (_WORD_KIND, 0, t)) for e, t in words] if words is not None else []
        self.knows_labels = words is not None
        # How far after a label word's end a label detector's match may start (`label_gap`), if known for all.
        self.gap: int | None = max(g for g in gaps if g is not None) if gaps and None not in gaps else None
        self._last: (
            tuple[str, int, tuple[dict[int, list[tuple[int, int]]], list[tuple[int, int]] | None] | None] | None
        ) = None
        # An ASCII view is the same bytes in all three encodings: one pass of everything. Otherwise each part
        # on its own encoding (the shapes with `?` for any other character, the triggers with the prefilter's
        # folds, the label words as UTF-8); the first two are the same bytes unless the view holds one of the
        # characters the prefilter folds or stands in for.
        self.triggered = frozenset(i for _, (i, _k, _m) in folded)  # covered by the prefilter's own triggers
        # (`_collected`: a slot per detector index, then the label words' and the closing quotes')
        self._slots = len(detectors) + 2
        self._packed: dict[int, tuple[list[tuple[int, int, int]], bytes]] = {}
        self._ascii = _compile(plain + folded + close + found)
        self._same = _compile(plain + folded + close)  # a view whose two encodings are the same bytes
        self._plain = _compile(plain + close)
        self._folded = _compile(folded)
        self._words = _compile(found)

    def candidates(
        self, view: str, window: int
    ) -> tuple[dict[int, list[tuple[int, int]]], list[tuple[int, int]] | None] | None:
        """(`hits`, `label_spans`), from one pass where the view is ASCII, remembered for `remembered`; None if
        a scan failed (e.g. another thread is using the shared scratch): the caller then takes the pure path."""
        try:
            got = self._candidates(view, window)
        except _pf._hs.error:
            got = None
        self._last = (view, window, got)
        return got

    def remembered(
        self, view: str, window: int
    ) -> tuple[dict[int, list[tuple[int, int]]], list[tuple[int, int]] | None] | None:
        """`candidates` of the view the last call was about (whole.py's `certified` after its `matches`)."""
        last = self._last
        if last is not None and last[0] is view and last[1] == window:
            return last[2]
        return self.candidates(view, window)

    def _candidates(
        self, view: str, window: int
    ) -> tuple[dict[int, list[tuple[int, int]]], list[tuple[int, int]] | None]:
        helper = _fp.wholec if NATIVE_COLLECT else None
        if helper is not None:
            return self._collected(view, window, helper)
        raw: dict[int, list[tuple[int, int]]] = {i: [] for i in self.covered}
        words: list[tuple[int, int]] = []  # (end, tail length); byte offsets in UTF-8 until converted
        closes: list[int] = []
        if view.isascii():
            data = view.encode("ascii")
            _scan(self._ascii, data, raw, words, closes)
        else:
            folded = _pf.encode(view)
            if any(c in view for c in _pf._SPECIAL):
                _scan(self._plain, view.encode("ascii", "replace"), raw, words, closes)
                _scan(self._folded, folded, raw, words, closes)
            else:  # (no character the prefilter folds or stands in for: the same bytes)
                _scan(self._same, folded, raw, words, closes)
            utf8 = view.encode("utf-8", "surrogatepass")
            _scan(self._words, utf8, raw, words, closes)
            words.sort()
            at = chars = 0
            for j, (b, t) in enumerate(words):  # byte offsets to characters
                chars += len(utf8[at:b].decode("utf-8", "surrogatepass"))
                at = b
                words[j] = (chars, t)
        for i, (k, stop) in self._narrow.items():
            # (as `Prefilter.hits`: a start before the hit reads every character up to it)
            spans = raw[i]
            for j, (a, b) in enumerate(spans):
                f = a + k
                c = stop(view, a if a > 0 else 0, f)
                if c is not None:
                    spans[j] = (c.end(), b)
        budget = 64 + len(view) // _pf.HIT_BUDGET
        hits = {i: merge(spans, 0) if spans else spans for i, spans in raw.items() if len(spans) <= budget}
        if self.rests:
            opens = _opens(view, closes)
            hits.update((-1 - i, opens) for i in self.rests)
        gap = self.gap
        ends = [(e, e - t + window if gap is None else min(e + gap, e - t + window)) for e, t in words]
        labelled = merge(ends, 0) if self.knows_labels else None
        return hits, labelled

    def _collected(
        self, view: str, window: int, helper: Any
    ) -> tuple[dict[int, list[tuple[int, int]]], list[tuple[int, int]] | None]:
        """`_candidates` with the hits kept by the compiled `Collector` (`NATIVE_COLLECT`): the same scans, each
        hit's pair made in C, and each detector's merged there (but those `_narrow` moves first)."""
        col = helper.Collector(self._slots)
        words_at, closes_at = self._slots - 2, self._slots - 1
        if view.isascii():
            self._scan_into(self._ascii, view.encode("ascii"), col)
            words = col.pairs(words_at)
        else:
            folded = _pf.encode(view)
            if any(c in view for c in _pf._SPECIAL):
                self._scan_into(self._plain, view.encode("ascii", "replace"), col)
                self._scan_into(self._folded, folded, col)
            else:
                self._scan_into(self._same, folded, col)
            utf8 = view.encode("utf-8", "surrogatepass")
            self._scan_into(self._words, utf8, col)
            words = col.pairs(words_at)
            words.sort()
            at = chars = 0
            for j, (b, t) in enumerate(words):  # byte offsets to characters
                chars += len(utf8[at:b].decode("utf-8", "surrogatepass"))
                at = b
                words[j] = (chars, t)
        budget = 64 + len(view) // _pf.HIT_BUDGET
        hits: dict[int, list[tuple[int, int]]] = {}
        for i in self.covered:
            narrow = self._narrow.get(i)
            if narrow is None:
                count = col.count(i)
                if count <= budget:
                    hits[i] = col.merged(i, 0) if count else []
                continue
            k, stop = narrow
            spans = col.pairs(i)
            for j, (a, b) in enumerate(spans):
                f = a + k
                c = stop(view, a if a > 0 else 0, f)
                if c is not None:
                    spans[j] = (c.end(), b)
            if len(spans) <= budget:
                hits[i] = merge(spans, 0) if spans else spans
        if self.rests:
            opens = _opens(view, [e for e, _ in col.pairs(closes_at)])
            hits.update((-1 - i, opens) for i in self.rests)
        gap = self.gap
        ends = [(e, e - t + window if gap is None else min(e + gap, e - t + window)) for e, t in words]
        labelled = merge(ends, 0) if self.knows_labels else None
        return hits, labelled

    def _scan_into(self, compiled: tuple[Any, list[tuple[int, int, int]]] | None, data: bytes, col: Any) -> None:
        if compiled is None or not data:
            return
        db, meta = compiled
        packed = self._packed.get(id(meta))
        if packed is None or packed[0] is not meta:
            packed = self._packed[id(meta)] = (meta, _pack(meta, self._slots))
        col.use(packed[1])
        db.scan(data, match_event_handler=col)

    def hits(self, view: str) -> dict[int, list[tuple[int, int]]]:
        """Per detector index i, merged closed ranges of where its matches can start (no entry: too dense, or
        not covered), and at -1 - i where the `rest` of label detector i can (`_opens`)."""
        return self._candidates(view, 0)[0]

    def label_spans(self, view: str, window: int) -> list[tuple[int, int]] | None:
        """Merged closed ranges [e, min(e + gap, a + window)] over every occurrence of a label word in any of its
        forms (`label_words`) ending at e, whose tail starts at a (None: not known here; `gap`: `label_gap` of
        the label detectors, the larger, where known). A label detector's match
        starts within `LOOKBEHIND` characters after a label word's tail (the claim whole.py `_label_spans`
        rests on, tests/redact/test_label_near.py), and a word occurs only where its tail does, so these
        ranges lie inside the tails' and are fewer (a JSON `export` holds `port` of `passport`, not
        `passport`); matched on UTF-8 with every case of each character spelled out, so they hold in any
        script, where the tails' check is made on ASCII views only."""
        return self._candidates(view, window)[1]


def _opens(view: str, closes: list[int]) -> list[tuple[int, int]]:
    """Where a reversed comparison can start: the last quote before each quote c that `_CLOSE` finds (a hit
    ending at e has its operator at e - 2, after at most three spaces: c in [e - 6, e - 3])."""
    got: set[int] = set()
    for e in closes:
        for c in range(max(0, e - 6), e - 2):
            if view[c] == '"':
                s = view.rfind('"', 0, c)
                if s >= 0:
                    got.add(s)
    return [(s, s) for s in sorted(got)]


# False: `merge` is `prefilter._merge` in Python, not the compiled `_wholec.merge` (tests/redact/test_whole_quick.py
# compares the two and the one pass with each).
NATIVE_MERGE = True


# False: `Candidates` keeps its hits with a Python handler (`_scan`), not the compiled `_wholec.Collector`
# (tests/redact/test_whole_quick.py compares the two and the one pass with each).
NATIVE_COLLECT = True


def _pack(meta: list[tuple[int, int, int]], slots: int) -> bytes:
    """`Collector.use`'s meta for a compiled database's (detector index or kind, K, shortest) per expression."""
    out = array("i")
    for i, k, mn in meta:
        if i >= 0:
            out.extend((i, 1 if k == _AFTER else 0, 0 if k == _AFTER else k, mn))
        elif i == _WORD_KIND:
            out.extend((slots - 2, 2, 0, mn))
        else:
            out.extend((slots - 1, 3, 0, 0))
    assert out.itemsize == 4
    return out.tobytes()


def merge(spans: list[tuple[int, int]], lo: int) -> list[tuple[int, int]]:
    """`prefilter._merge(spans, lo)`, by the compiled helper where it is built (`NATIVE_MERGE`)."""
    helper = _fp.wholec if NATIVE_MERGE else None
    if helper is not None:
        try:
            return helper.merge(spans, lo)  # type: ignore[no-any-return]
        except (TypeError, OverflowError):
            pass
    return _pf._merge(spans, lo)


_RANGE_KIND, _WORD_KIND, _CLOSE_KIND = 0, -1, -2
_AFTER = -1  # as K: a match starts after the hit's leftmost start (but at 0)


@lru_cache(maxsize=1)
def label_words() -> tuple[tuple[str, int], ...] | None:
    """Each label word (`labels.words()`, `labels.CAMEL_WORDS` lowercased) as a hyperscan expression over UTF-8
    bytes of every form `labels.word_pattern` accepts (its parts joined by one of `_`, `-`, a space or
    nothing), each character as the alternation of every character the `regex` engine matches to it
    case-insensitively (`all_cases`: `k` is also the Kelvin sign), and the length of its tail (`labels.TAIL`,
    or the whole word when shorter). None where the engine does not say its cases."""
    out: dict[str, int] = {}
    for word in [w for w, _ in labels.words()] + [w.lower() for w in labels.CAMEL_WORDS]:
        parts = [p for p in regex.split(r"[_ \-]", word) if p]
        body = []
        for part in parts:
            chars = []
            for ch in part:
                cases = all_cases(ch)
                if cases is None:
                    return None
                alts = sorted("".join(f"\\x{b:02x}" for b in c.encode("utf-8")) for c in cases)
                chars.append(alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")")
            body.append("".join(chars))
        out["[_\\- ]?".join(body)] = min(labels.TAIL, len("".join(parts)))
    return tuple(sorted(out.items()))


def all_cases(ch: str) -> frozenset[str] | None:
    """Every character that `(?i)` + `ch` matches in the `regex` package (the labels' flags), from the engine's
    own table; None if this version of the package does not offer it. tests/redact/test_whole_candidates.py
    checks it against a search over every code point."""
    try:
        from regex import _regex

        get: Any = getattr(_regex, "get_all_cases")  # noqa: B009 - not in the package's stubs
        got = get(regex.IGNORECASE | regex.UNICODE | regex.V0, ord(ch))
    except (ImportError, AttributeError, TypeError):  # pragma: no cover - depends on the package's internals
        return None
    return frozenset(chr(c) for c in got) | {ch}


def _compile(exprs: list[tuple[bytes, tuple[int, int, int]]]) -> tuple[Any, list[tuple[int, int, int]]] | None:
    """A block-mode database of these expressions, each with its (detector index or kind, K, shortest);
    leftmost starts for the ranges only (the label words' and the closing quotes' ends are enough)."""
    hs = _pf._hs
    if not exprs:
        return None
    db = hs.Database(mode=hs.HS_MODE_BLOCK)
    flags = [hs.HS_FLAG_SOM_LEFTMOST if m[0] >= 0 else 0 for _, m in exprs]
    db.compile(expressions=[e for e, _ in exprs], ids=list(range(len(exprs))), elements=len(exprs), flags=flags)
    return db, [m for _, m in exprs]


def _scan(
    compiled: tuple[Any, list[tuple[int, int, int]]] | None,
    data: bytes,
    raw: dict[int, list[tuple[int, int]]],
    words: list[tuple[int, int]],
    closes: list[int],
) -> None:
    if compiled is None or not data:
        return
    db, meta = compiled

    def on(expr: int, start: int, to: int, _flags: int, _ctx: object) -> bool:
        i, k, mn = meta[expr]
        if i >= 0:
            # (`_AFTER`: the hit's first character is the one before the match, unless it starts the text)
            raw[i].append(((start + 1 if start else 0) if k == _AFTER else start - k, to - mn))
        elif i == _WORD_KIND:
            words.append((to, mn))
        else:
            closes.append(to)
        return False

    db.scan(data, match_event_handler=on)


def shared(detectors: tuple[Detector, ...]) -> Candidates | None:
    """One set of databases per detector selection, or None without the extra (or where hyperscan cannot
    compile them). Remembered by the selection's identity too (`_BY_ID`; a tuple, so it cannot change under that
    identity): the one pass asks twice per text, and the cache's key hashes each detector (a frozen dataclass:
    ~0.3 µs each)."""
    if _pf._hs is None:
        return None
    got = _BY_ID.get(id(detectors)) if BY_ID else None
    if got is not None and got[0] is detectors:
        return got[1]
    out = _shared(detectors)
    if BY_ID and len(_BY_ID) < 64:
        _BY_ID[id(detectors)] = (detectors, out)  # (the selection kept alive: its id is not reused meanwhile)
    return out


# False: `shared` is not remembered by identity (tests/redact/test_whole_quick.py compares).
BY_ID = True
_BY_ID: dict[int, tuple[tuple[Detector, ...], Candidates | None]] = {}


@lru_cache(maxsize=32)
def _shared(detectors: tuple[Detector, ...]) -> Candidates | None:
    from .starters import BUILTIN_IDS

    try:
        return Candidates(detectors, BUILTIN_IDS)
    except _pf._hs.error:  # pragma: no cover - platform dependent
        return None
