"""Values a sentence must not invent: numbers, URLs and email addresses, in one canonical form.

Why canonical: "20.00" and "20" are one value, "2,5" is 2.5 (a comma that does not group thousands is a
decimal comma) and "1,200" is 1200. Why an index: sources are scanned once, at construction, into sets, so
the per-sentence cost depends on the sentence, never on the size of the sources.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import regex

from .._data import word_list
from .normalize import normalize

_SEPARATOR = regex.compile(r"[.,]")
# Every link has a dot followed by a letter (its top-level domain), or "://": a fast test before the URL pattern
# (a decimal such as 3.14 does not pass it).
_URL_HINT = re.compile(r"\.[^\W\d_]|://|(?i:www\.)")
_SEPARATOR_KEPT = regex.compile(r"([.,])")

# Scripts written without spaces between words: a value glued to them ("请访问evil.com了解") still starts and
# ends where the script changes.
CJK = r"\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}\u3005\u30fc"
_CJK_RUN_START = regex.compile(rf"[{CJK}]+(?=[^\W{CJK}_])")
_CJK_RUN_END = regex.compile(rf"(?<=[^\W{CJK}_])[{CJK}]+\Z")
# Punctuation that is never part of a link: CJK and danda terminators, closing and opening brackets and quotes.
_PUNCT = "。！？，、；：「」『』【】〈〉《》（）｛｝［］।॥‘’‹›"


def _tlds() -> str:
    """The top-level domains of a bare host: ASCII and IDN lists (longest first), and any punycode TLD."""
    names = {t.casefold() for t in word_list("tlds.txt")} | {normalize(t).casefold() for t in word_list("tlds_idn.txt")}
    listed = "|".join(regex.escape(t) for t in sorted(names, key=len, reverse=True))
    return rf"(?:{listed}|xn--[a-z0-9-]{{2,59}})"


_LABEL = r"(?>[\p{L}\p{M}\p{N}]+(?:-+[\p{L}\p{M}\p{N}]+)*)"  # any script; atomic, so a long run is scanned once
_NOT_AFTER_TLD = rf"(?!(?![{CJK}])[\p{{L}}\p{{M}}\p{{N}}_-])"  # CJK text may follow a host with no space
# At most 127 domain labels, as for a host (an unbounded repeat was quadratic: 0.57 s on 100 KB of "x@a.a.a…").
# Like a host, an address may be followed by CJK text with no space ("x@y.com价格999元"): the letters of its
# top-level domain stop before the CJK run, else a digit in that run would make the whole address unmatched.
EMAIL_RE = regex.compile(
    r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+){0,126}\.(?:xn--[a-z0-9-]{2,59}|[^\W\d_]{2,})" + _NOT_AFTER_TLD,
    regex.IGNORECASE,
)
_HOST_CHARS = rf"""[^\s/?#<>"'“”«»\[\]{{}}|\\^`{_PUNCT}]*"""
_PATH_CHARS = rf"""[^\s<>"'“”«»\[\]{{}}|\\^`{_PUNCT}{CJK}]*"""
_URL_TAIL = rf"{_HOST_CHARS}(?:[/?#]{_PATH_CHARS})?"
# A bare host starts after anything but a letter, digit, '@' (addresses are read first), '.' or '-'; after a
# run of '.' or '-' too when no letter or digit comes before the run: `.evil.com`, `--evil.com`, `_evil.com` and
# `a/evil.com` show a host as well (they passed unchecked). Not inside a dotted run ("a.a.a…"), and at most 127
# labels (DNS's limit): an unbounded repeat backtracked label by label (1.1 s on 100 KB of "a.").
# A run of '.'/'-' after a letter is inside a label (`xn--…`); a run of 16 is punctuation, whatever came before.
_HOST_START = r"(?:(?<![\p{L}\p{M}\p{N}@.\-])|(?<=(?<![\p{L}\p{M}\p{N}.\-])[.\-]{1,16})|(?<=[.\-]{16}))"
URL_RE = regex.compile(
    rf"(?i)(?:(?<![\w@.-])|(?<=[{CJK}]))(?:[a-z][a-z0-9+.-]*://|www\.){_URL_TAIL}"
    rf"|{_HOST_START}(?:{_LABEL}\.){{1,127}}{_tlds()}{_NOT_AFTER_TLD}(?:/{_PATH_CHARS})?"
    # a host with a path is a link whatever its top-level domain ("bit.ly/abc")
    rf"|{_HOST_START}(?:{_LABEL}\.){{1,127}}[\p{{L}}\p{{M}}]{{2,24}}/{_PATH_CHARS}"
)
# Digits with single separators between them: "3.14", "1,200,000", "2,5". Digit boundaries on both sides.
NUMBER_RE = regex.compile(r"(?<![0-9])[0-9]+(?:[.,][0-9]+)*")
_URL_TRAILING = ".,;:!?)]}'\"»”’…،؛؟۔" + _PUNCT
_SCHEME = regex.compile(r"(?i)^[a-z][a-z0-9+.-]*://")


@dataclass(frozen=True)
class Values:
    """The canonical numbers, URLs and emails found in one text."""

    numbers: frozenset[str]
    urls: frozenset[str]
    emails: frozenset[str]

    def __bool__(self) -> bool:
        return bool(self.numbers or self.urls or self.emails)


def _int(digits: str) -> str:
    return digits.lstrip("0") or "0"


def _decimal(whole: str, fraction: str) -> str:
    fraction = fraction.rstrip("0")
    return f"{_int(whole)}.{fraction}" if fraction else _int(whole)


def _grouped(groups: list[str]) -> bool:
    return len(groups) >= 2 and 1 <= len(groups[0]) <= 3 and all(len(g) == 3 for g in groups[1:])


def canonical_number(token: str) -> str:
    """The canonical form of a number token ("1,200.50" -> "1200.5", "2,5" -> "2.5", "007" -> "7")."""
    parts = _SEPARATOR_KEPT.split(token)
    groups, seps = parts[0::2], parts[1::2]
    if not seps:
        return _int(token)
    kinds = set(seps)
    if len(kinds) == 1:
        if len(groups) == 2 and (seps[0] == "." or not _grouped(groups)):
            return _decimal(groups[0], groups[1])  # 3.14, 2,5 (a comma that does not group thousands)
        if _grouped(groups):
            return _int("".join(groups))  # 1,200 and 1.200.000
    elif len(set(seps[:-1])) == 1 and seps[-1] != seps[0] and _grouped(groups[:-1]):
        return _decimal("".join(groups[:-1]), groups[-1])  # 1,234.56 and 1.234,56
    return "".join(_int(g) if i % 2 == 0 else g for i, g in enumerate(parts))  # 1.2.3, 17.09.2026


def canonical_url(url: str) -> str:
    """Case-folded, without scheme, leading "www." or trailing slash: the form two mentions of a URL share."""
    url = _SCHEME.sub("", url.casefold())
    if url.startswith("www."):
        url = url[4:]
    host, sep, rest = url.partition("/")
    if "xn--" in host:
        host = ".".join(_unpunycode(label) for label in host.split("."))
    return (host + sep + rest).rstrip("/")


def _unpunycode(label: str) -> str:
    """`xn--p1ai` -> `рф`: an IDN label compares in its Unicode form, however the text wrote it."""
    if not label.startswith("xn--"):
        return label
    try:
        return label[4:].encode("ascii").decode("punycode").casefold()
    except (UnicodeError, ValueError):
        return label  # not valid punycode: compared as written


def _trim_cjk(value: str) -> str:
    """Cut CJK text glued to a value at the script change: "请访问evil.com" -> "evil.com". A label written
    wholly in CJK ("例子.中国") is kept as written: where it starts in glued text cannot be known (fail closed)."""
    head = _CJK_RUN_START.match(value)
    if head is not None:
        value = value[head.end() :]
    return _CJK_RUN_END.sub("", value)


def _strip_url(url: str) -> str:
    while url and url[-1] in _URL_TRAILING:
        if url[-1] == ")" and url.count("(") >= url.count(")"):
            break
        url = url[:-1]
    return url


def _scan(text: str) -> tuple[list[str], list[str], list[str]]:
    """Emails, then URLs, then numbers, each masked out before the next (no number inside a URL)."""
    emails: list[str] = []
    urls: list[str] = []

    def take_email(m: regex.Match[str]) -> str:
        local, _, domain = m.group().casefold().partition("@")
        emails.append(f"{_trim_cjk(local + '@')[:-1]}@{_trim_cjk(domain)}")
        return " "

    def take_url(m: regex.Match[str]) -> str:
        raw = m.group()
        url = _trim_cjk(_strip_url(raw))
        if url:
            urls.append(url)
        return " "

    if "@" in text:  # cheap necessary conditions first: most sentences hold neither an address nor a link
        text = EMAIL_RE.sub(take_email, text)
    if _URL_HINT.search(text):
        text = URL_RE.sub(take_url, text)
    return emails, urls, NUMBER_RE.findall(text)


def extract(text: str, *, normalized: bool = False) -> Values:
    """The values a sentence states, canonical. `text` is normalized here (same normalization as sources)
    unless the caller says it already is."""
    emails, urls, numbers = _scan(text if normalized else normalize(text))
    return Values(
        numbers=frozenset(canonical_number(n) for n in numbers),
        urls=frozenset(canonical_url(u) for u in urls),
        emails=frozenset(emails),
    )


def index_source(text: str) -> Values:
    """Every value a source can support. Built once per source.

    Besides each whole value, each digit group is indexed on its own: "14.52" supports 14 and 52, and
    "1,200" supports 200 (a documented blind spot: a separator counts as a digit boundary). A URL also
    supports its bare host.
    """
    emails, urls, numbers = _scan(normalize(text))
    nums: set[str] = set()
    for token in numbers:
        nums.add(canonical_number(token))
        nums.update(_int(g) for g in _SEPARATOR.split(token))
    hosts: set[str] = set()
    for url in urls:
        canon = canonical_url(url)
        hosts.add(canon)
        hosts.add(canon.split("/", 1)[0])
    return Values(numbers=frozenset(nums), urls=frozenset(hosts), emails=frozenset(emails))


def unsupported(values: Values, cited: list[Values]) -> list[str]:
    """The sentence's values that no cited source's index contains, in a stable order."""
    missing: list[str] = []
    for kind in ("numbers", "urls", "emails"):
        for value in sorted(getattr(values, kind)):
            if not any(value in getattr(index, kind) for index in cited):
                missing.append(value)
    return missing
