"""Streaming sentence splitter: finds where a claim ends while tokens are still arriving.

Lossless: the sentences it returns and its tail concatenate to the exact input. A sentence carries its
terminator, closing quotes, the reference markers after it and the whitespace up to the next sentence, so
`"It opens at nine [S1]. "` and `"Late fees ended [S1][S2]\\n\\n"` are sentences.

Every decision depends only on the text, never on how it was cut into pieces: a boundary is final only once a
character arrives that is neither whitespace nor a marker, and a rule that needs to see further (an
abbreviation's second part, a German month name, a list marker) waits for those few characters. Each
character is scanned once per sentence; the buffer never holds more than the current sentence plus a few
characters of lookahead, and a sentence is cut at `cap` characters (at the last space) when no boundary comes.
A decision that waits for more text remembers how far its scan got, so a long run of spaces, markers or
ellipsis dots fed piece by piece is not rescanned from its start.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache, lru_cache

import regex

from .._data import list_names, word_list
from .._stream import check_piece

TERMINATORS = ".!?…؟۔。！？।॥"
CJK_TERMINATORS = "。！？"
PARENS = ")）"
CLOSERS = "\"'”’»›」』】〉》" + PARENS
# After a non-CJK terminator, the German closing quotes `“` (of `„…“`) and `«` (of `»…«`) close too: glued to
# a terminator they cannot open a quotation. A CJK terminator keeps `“` as an opening quote.
LATIN_CLOSERS = CLOSERS + "“«"
# French sets its closing guillemet off with a (no-break) space: `livraisons. »`.
GUILLEMET_SPACES = " \u00a0\u202f"
BULLETS = "•⁃"
DASHES = "–—"
COMMAS = ",，、"
OPEN_QUOTES = "“「『《〈"  # quotations and title marks: a CJK terminator inside them does not end the sentence
CLOSE_QUOTES = "”」』》〉"
DEFAULT_CAP = 1000

_CANDIDATE = re.compile("[" + re.escape(TERMINATORS + "\r\n" + OPEN_QUOTES + CLOSE_QUOTES + BULLETS) + "]")
# A list marker at the start of a sentence or line, then a space or tab: `1.`, `1.)`, `2)`, `a.`, `a)`, `-`, `*`,
# `•`, `⁃`, and a bullet before a number (`• 9.`, `⁃10.`).
_LIST_MARKER = regex.compile(r"(?:\d{1,3}\.\)?|\d{1,3}\)|[a-z]\.\)?|[a-z]\)|[-*])[ \t]")
_BULLET = regex.compile(r"[•⁃][ \t]{0,3}")  # a bullet, then at most a few spaces before what it carries
# An initial: one capital letter, any script, not the pronoun `I` (`E.` in `Jonas E. Smith`, `И.` in `А. И. Семенов`).
_INITIAL = regex.compile(r"(?<![\w.])(?!I\Z)\p{Lu}\Z")
# What makes it an initial: a capitalised name before it, or another initial (`А. И`); not `E.U` (`the E.U. How`).
_BEFORE_INITIAL = regex.compile(r"(?:\p{Lu}\p{Ll}+|(?<![\w.])\p{Lu}\.)\s\p{Lu}\Z")
_LINE_END = re.compile(r"\r\n?|\n")  # CRLF, a lone CR and LF all end a line
_DAY = re.compile(r"(?<![\w.,])(?:0?[1-9]|[12]\d|3[01])\Z")

# Decision kinds for a candidate character.
_NEED = 0  # the text so far cannot decide; wait for more
_SKIP = 1  # not a boundary; resume scanning at the given position
_BOUNDARY = 2  # the next sentence starts at the given position
_CAP = 3  # no boundary can come within the cap


class _Abbreviations:
    """The lists compiled for the two questions a period asks: does the text end with an abbreviation, and
    does it end with the first part of a multi-part one (`z.` of `z. B.`) whose rest may follow?"""

    def __init__(self, abbreviations: Iterable[str]) -> None:
        whole: list[str] = []
        heads: list[str] = []
        self.rests: dict[str, list[regex.Pattern[str]]] = {}
        for abbr in sorted(set(abbreviations), key=len, reverse=True):
            parts = [p for p in re.split(r"(?<=\.)\s*", abbr.strip()) if p]
            if not parts or not parts[-1].endswith("."):
                raise ValueError(f"an abbreviation must end with a period: {abbr!r}")
            whole.append(r"\s?".join(re.escape(p) for p in parts))
            for t in range(1, len(parts)):
                heads.append(r"\s?".join(re.escape(p) for p in parts[:t]))
                rest = regex.compile(r"\s?" + r"\s?".join(regex.escape(p) for p in parts[t:]), regex.IGNORECASE)
                self.rests.setdefault(self.key("".join(parts[:t])), []).append(rest)
        never = r"(?!)"
        self.ends = re.compile(r"(?<!\w)(?:" + ("|".join(whole) or never) + r")\Z", re.IGNORECASE)
        self.heads = re.compile(r"(?<!\w)(?:" + ("|".join(heads) or never) + r")\Z", re.IGNORECASE)

    @staticmethod
    def key(head: str) -> str:
        return "".join(head.split()).casefold()


@lru_cache(maxsize=32)
def _compiled(abbreviations: tuple[str, ...]) -> _Abbreviations:
    """Compiled once per list: a gate builds a splitter per stream, and compiling is most of that cost."""
    return _Abbreviations(abbreviations)


@cache
def _country_abbreviations() -> re.Pattern[str]:
    """`U.S.`, `U.K.`...: they end sentences, except before a listed noun (`data/abbreviation_nouns/`)."""
    heads = sorted(word_list("abbreviation_nouns/abbreviations.txt"), key=len, reverse=True)
    return re.compile(r"(?<![\w.])(?:" + "|".join(re.escape(h) for h in heads) + r")\Z")


@cache
def default_abbreviations(folder: str = "abbreviations") -> tuple[str, ...]:
    """The union of every shipped per-language list (`data/abbreviations/<lang>.txt`; `data/before_numbers/` holds
    the abbreviations that are kept only before a digit, like `No. 5`)."""
    return tuple(a for lang in list_names(folder) for a in word_list(f"{folder}/{lang}.txt"))


class SentenceSplitter:
    """Split a stream into sentences: `feed(piece) -> [sentences now final]`, `flush() -> tail`.

    Rules (seed 000): terminators `. ! ? …`, `؟ ۔`, `。！？`, `। ॥`, a run of them is one boundary; whitespace
    must follow, except after `。！？`; a period before a lowercase letter, after a listed abbreviation, after an
    initial in a name, or after the day of a German date is not a boundary; markers after the terminator belong
    to the sentence before; after `?»`/`."` only an uppercase letter or a newline ends the sentence, after `.)`
    only a newline or a marker; inside a quotation a CJK terminator ends the sentence where the quotation
    closes, and not at all when a comma follows. A list marker at the start of a sentence begins it; a line
    break before a list marker, a bullet after a space and a blank line are boundaries too. Where the seed is
    silent: German `“`/`«` and a French spaced `»` after a terminator close a quotation; listed abbreviations
    in `data/before_numbers/` are kept before a digit; a dash and a lowercase word continue the sentence.
    Past `cap` characters without a boundary, the sentence is cut at its last space (or at the cap).
    """

    def __init__(
        self,
        *,
        cap: int = DEFAULT_CAP,
        abbreviations: Iterable[str] | None = None,
        before_numbers: Iterable[str] | None = None,
    ) -> None:
        if cap < 16:
            raise ValueError("cap must be at least 16 characters")
        self._cap = cap
        self._abbreviations = _compiled(tuple(default_abbreviations() if abbreviations is None else abbreviations))
        numbered = default_abbreviations("before_numbers") if before_numbers is None else before_numbers
        self._before_numbers = _compiled(tuple(numbered))
        self._months = frozenset(m.casefold() for m in word_list("months/de.txt"))
        self._country_nouns = frozenset(m.casefold() for m in word_list("abbreviation_nouns/nouns.txt"))
        self._countries = _country_abbreviations()
        self._reset()

    def _reset(self) -> None:
        self._buf = ""
        self._base = 0  # where the current sentence starts in `_buf` (compacted after each feed)
        self._limit = self._cap  # `_base + cap`: no boundary may lie past it
        self._pos = 0  # every candidate before this position is decided: not a boundary
        self._depth = 0  # open CJK quotations in the current sentence, up to `_pos`
        self._started = False  # the start-of-sentence list-marker check is done
        self._content = 0  # where the current sentence's first non-space character is
        self._resume: tuple[tuple[int, bool], int, int, bool] | None = None  # see `_skip`
        self._run_resume: tuple[int, int] | None = None  # see `_terminator`

    @property
    def held(self) -> int:
        """Characters received but not yet returned (the current sentence and its lookahead)."""
        return len(self._buf) - self._base

    def feed(self, piece: str) -> list[str]:
        """Add a piece; return the sentences whose boundary became final, in order."""
        check_piece(piece)
        if not piece:
            return []
        if self._base:
            self._buf = self._buf[self._base :]
            self._pos -= self._base
            self._content -= self._base
            self._base = 0
            self._limit = self._cap
        self._buf += piece
        return self._scan()

    def flush(self) -> str:
        """End of stream: return what is left (the last, unterminated or undecided sentence), "" if none."""
        tail = self._buf[self._base :]
        self._reset()
        return tail

    # -- scanning -------------------------------------------------------------------------------------------

    def _scan(self) -> list[str]:
        out: list[str] = []
        while True:
            buf = self._buf
            if not self._started:
                start = self._start_of_sentence(buf)
                if start == _NEED:
                    break
                if start == _CAP:
                    self._cut(out)
                    continue
                self._started = True
            limit = min(len(buf), self._limit)
            found = _CANDIDATE.search(buf, self._pos, limit) if self._pos < limit else None
            if found is None:
                if len(buf) > self._limit:
                    self._cut(out)
                    continue
                self._pos = max(self._pos, limit)
                break
            i = found.start()
            ch = buf[i]
            if ch in OPEN_QUOTES:
                self._depth += 1
                self._pos = i + 1
                continue
            if ch in CLOSE_QUOTES:
                self._depth = max(0, self._depth - 1)
                self._pos = i + 1
                continue
            if ch in BULLETS:  # a bullet after a space, inside a line, starts a new item: `item one • item two`
                if i > self._content and buf[i - 1] in " \t":
                    self._emit(out, i)
                else:
                    self._pos = i + 1
                continue
            kind, at = self._newline(buf, i) if ch in "\r\n" else self._terminator(buf, i)
            if kind == _NEED:
                self._pos = i
                break
            if kind == _SKIP:
                self._pos = at
            elif kind == _BOUNDARY:
                self._emit(out, at)
            else:
                self._cut(out)
        return out

    def _emit(self, out: list[str], at: int) -> None:
        out.append(self._buf[self._base : at])
        self._base = self._pos = self._content = at
        self._limit = at + self._cap
        self._resume = self._run_resume = None
        self._depth = 0
        self._started = False

    def _cut(self, out: list[str]) -> None:
        """The cap: cut at the last whitespace within `cap` characters, or at the cap where there is none."""
        window = self._buf[self._base : self._limit]
        at = self._cap
        for index in range(len(window) - 1, 0, -1):
            if window[index].isspace():
                if not window[:index].isspace():
                    at = index + 1
                break
        self._emit(out, self._base + at)

    def _start_of_sentence(self, buf: str) -> int:
        """Skip a list marker that opens the sentence (`1. First item`): it is not a sentence of its own."""
        s = self._skip_space(buf, self._base)
        if s < 0:
            return _NEED if s == -1 else _CAP
        self._content = s
        end = _list_marker(buf, s)
        if end == -1:
            return _NEED
        self._pos = end if end > 0 else self._base
        return _SKIP

    def _skip_space(self, buf: str, at: int) -> int:
        """Index of the next non-space character; -1 if the text ends first, -2 if it lies past the cap."""
        return self._skip(buf, at, markers=False)[0]

    def _skip_space_and_markers(self, buf: str, at: int) -> tuple[int, int, bool]:
        """Skip whitespace and `[S<n>]` markers: (next position or -1/-2 as in `_skip_space`, newlines, saw marker)."""
        return self._skip(buf, at, markers=True)

    def _skip(self, buf: str, at: int, *, markers: bool) -> tuple[int, int, bool]:
        """The scan behind both skips. When the text ends first, how far it got is remembered (relative to the
        sentence start), so the next piece resumes there instead of rescanning the run from its start."""
        cap = self._limit
        n = len(buf)
        key = (at - self._base, markers)
        newlines = 0
        marker = False
        if self._resume is not None and self._resume[0] == key:
            _, reached, newlines, marker = self._resume
            at = reached + self._base
        while True:
            while at < n and at <= cap and buf[at].isspace():
                c = buf[at]
                newlines += c == "\r" or (c == "\n" and not (at > 0 and buf[at - 1] == "\r"))  # CRLF, CR, LF
                at += 1
            if at > cap:
                return -2, newlines, marker
            if at == n:
                self._resume = (key, at - self._base, newlines, marker)
                return -1, newlines, marker
            if not markers or buf[at] != "[":
                return at, newlines, marker
            end = self._marker_end(buf, at)
            if end == -1:
                self._resume = (key, at - self._base, newlines, marker)
            if end < 0:
                return end, newlines, marker
            if end == at:
                return at, newlines, marker
            marker = True
            at = end

    def _marker_end(self, buf: str, at: int) -> int:
        """End of a `[S<digits>]` marker at `at`; `at` if there is none; -1/-2 if undecidable before end/cap."""
        n = len(buf)
        j = at + 1
        if j >= n:
            return -1
        if buf[j] != "S":
            return at
        j += 1
        digits = 0
        while j < n and j <= self._limit and buf[j].isdigit() and buf[j].isascii():
            j += 1
            digits += 1
        if j > self._limit:
            return -2
        if j == n:
            return -1
        return j + 1 if digits and buf[j] == "]" else at

    # -- decisions -------------------------------------------------------------------------------------------

    def _terminator(self, buf: str, i: int) -> tuple[int, int]:
        n = len(buf)
        j = i
        if self._run_resume is not None and self._run_resume[0] == i - self._base:
            j = self._run_resume[1] + self._base  # a long run fed piece by piece is scanned once
        while j < n and j <= self._limit:
            if buf[j] in TERMINATORS:
                j += 1
            elif buf[j] == " " and buf[j - 1] == ".":  # a spaced ellipsis `. . .` is one run
                if j + 1 == n:
                    self._run_resume = (i - self._base, j - self._base)
                    return _NEED, 0
                if buf[j + 1] != ".":
                    break
                j += 2
            else:
                break
        cjk = buf[j - 1] in CJK_TERMINATORS
        closing = CLOSERS if cjk else LATIN_CLOSERS
        k = j
        while k < n and k <= self._limit and buf[k] in closing:
            k += 1
        if not cjk and k < n and buf[k] in GUILLEMET_SPACES and k + 2 <= self._limit:
            # French `livraisons. »`: a spaced `»` before a space or punctuation closes (German `. »Komm` opens)
            if k + 1 < n and buf[k + 1] != "»":
                pass
            elif k + 2 >= n:
                self._run_resume = (i - self._base, j - self._base)
                return _NEED, 0
            elif not buf[k + 2].isalnum():
                k += 2
                while k < n and k <= self._limit and buf[k] in closing:
                    k += 1
        if k > self._limit:
            return _CAP, 0
        if k == n:
            self._run_resume = (i - self._base, j - self._base)
            return _NEED, 0
        closers = buf[j:k]
        if cjk:
            if closers:
                if buf[k] in COMMAS:
                    return _SKIP, j
            elif self._depth > 0:
                return _SKIP, j
            m, _, _ = self._skip_space_and_markers(buf, k)
            return self._boundary_at(m)
        if buf[k] == "[":  # a marker glued to the terminator stands in for the space: `nine.[S1] Next`
            end = self._marker_end(buf, k)
            if end < 0:
                return self._boundary_at(end)
            if end == k:
                return _SKIP, j
        elif not buf[k].isspace():
            return _SKIP, j
        m, newlines, marker = self._skip_space_and_markers(buf, k)
        if m < 0:
            return self._boundary_at(m)
        c = buf[m]
        if marker and newlines == 0 and c in TERMINATORS:  # `632 A.D. [S1][S2].`: the period is this sentence's
            return _SKIP, m
        if closers:
            if any(ch in PARENS for ch in closers):
                ends = newlines > 0 or marker
            else:
                ends = c.isupper() or newlines > 0
            return (_BOUNDARY, m) if ends else (_SKIP, j)
        if newlines >= 2:
            return _BOUNDARY, m
        if c.islower():
            return _SKIP, j
        if c in DASHES and newlines == 0:  # dialogue: `«Ты готов? – спросила мама.`: the author's words go on
            e = m + 1 if m + 1 < n and buf[m + 1] != " " else m + 2
            if e >= n:
                return _NEED, 0
            if buf[e].islower():
                return _SKIP, j
        if newlines == 0 and buf[i:j] == ".":
            kept = self._period_kept(buf, i, m)
            if kept is not None:
                return kept
        return _BOUNDARY, m

    @staticmethod
    def _boundary_at(m: int) -> tuple[int, int]:
        if m == -1:
            return _NEED, 0
        if m == -2:
            return _CAP, 0
        return _BOUNDARY, m

    def _period_kept(self, buf: str, i: int, m: int) -> tuple[int, int] | None:
        """A lone period followed by a space and a non-lowercase letter: abbreviation, initial or date?"""
        lookback = max(self._base, i - 24)
        before = buf[lookback : i + 1]  # only the current sentence is visible, however the text was cut
        if self._abbreviations.ends.search(before):
            return _SKIP, i + 1
        head = self._abbreviations.heads.search(before)
        if head is not None:
            for rest in self._abbreviations.rests[_Abbreviations.key(head.group())]:
                hit = rest.match(buf, i + 1, partial=True)
                if hit is not None:
                    return (_NEED, 0) if hit.partial else (_SKIP, i + 1)
        if buf[m].isdigit() and self._before_numbers.ends.search(before):
            return _SKIP, i + 1
        word_before = before[:-1]
        if buf[m].isupper() and _INITIAL.search(word_before):
            if _BEFORE_INITIAL.search(word_before):
                return _SKIP, i + 1
            if m == i + 2:  # a first initial before a second one: `А. И. Семенов`
                if m + 1 == len(buf):
                    return _NEED, 0
                if buf[m + 1] == ".":
                    return _SKIP, i + 1
        if buf[m].isupper() and _DAY.search(word_before):
            found = self._next_word_in(buf, m, self._months)
            if found is not None:
                return found if found[0] == _NEED else (_SKIP, i + 1)
        if buf[m].isupper() and self._countries.search(before):  # `the U.S. Senate`
            found = self._next_word_in(buf, m, self._country_nouns)
            if found is not None:
                return found if found[0] == _NEED else (_SKIP, i + 1)
        return None

    @staticmethod
    def _next_word_in(buf: str, m: int, words: frozenset[str]) -> tuple[int, int] | None:
        """Is the word at `m` in `words`? (_NEED, 0) while the text could still become one, (_SKIP, m) if it is."""
        e = m
        while e < len(buf) and buf[e].isalpha():
            e += 1
        word = buf[m:e].casefold()
        if e == len(buf) and any(w.startswith(word) for w in words):
            return _NEED, 0
        return (_SKIP, m) if word in words else None

    def _newline(self, buf: str, i: int) -> tuple[int, int]:
        """A line break not right after a terminator: a blank line, or a list marker on the next line, ends it."""
        if i < self._content:
            return _SKIP, i + 1
        m = self._skip_space(buf, i)
        if m < 0:
            return self._boundary_at(m)
        if len(_LINE_END.findall(buf, i, m)) >= 2:
            return _BOUNDARY, m
        end = _list_marker(buf, m)
        if end == 0:
            return _SKIP, m
        return (_NEED, 0) if end == -1 else (_BOUNDARY, m)


def _list_marker(buf: str, at: int) -> int:
    """End of the list marker at `at` (`1.`, `2)`, `a.`, `-`, `•`, `• 9.`, `⁃10.`); 0 if there is none, -1 if the
    text ends before that is decided. A bullet is a marker on its own; a number marker may follow it."""
    bullet = _BULLET.match(buf, at)
    start = bullet.end() if bullet is not None else at
    if bullet is not None and start == len(buf) and len(bullet.group()) < 4:
        return -1
    hit = _LIST_MARKER.match(buf, start, partial=True)
    if hit is not None and hit.partial:
        return -1
    if hit is not None:
        return hit.end()
    return start if bullet is not None else 0
