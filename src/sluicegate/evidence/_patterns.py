"""Pattern entries (regular expressions or phrases) compiled to match a normalized question.

Why two syntaxes: English and Persian questions are matched with hand-written regular expressions, which can
say "an imperative verb at the start, after an optional please"; for the eight other languages a phrase list is
easier to keep, and each phrase is compiled to a whole-word regular expression. In either syntax an entry for
Persian treats a ZWNJ as an optional space, so every Persian entry accepts the joined (میگیرد) and the split
(می‌گیرد, می گیرد) spelling: the question's own ZWNJ has become a space by then.

Phrase syntax: words separated by spaces match those words in order, with any punctuation or spaces between
them and never inside a word ("art" does not match "départ"); a lone `*` allows up to three words between its
neighbours; `word*` matches any word that starts with `word`; a leading `^` anchors the phrase at the start of
the question; `a|b` (no spaces) matches either alternative, and a hyphen or apostrophe inside a word matches
any separator ("tu-peux" matches "tu peux"). Chinese characters match without word boundaries. `re:` before an
entry makes it a regular expression in any language. In a file, `@name = regex` defines a macro that later
entries of the same file use as `{@name}` (a shared prefix such as "please, can you").
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path

import regex

from .._errors import SluicegateError
from .._gate.normalize import normalize
from ._normalize import APOSTROPHES, has_han, normalize_question

REGEX_LANGUAGES: frozenset[str] = frozenset({"en", "fa"})
ZWNJ = "\u200c"
_W = r"[\p{L}\p{M}\p{Nd}]"
_SEP = r"[^\p{L}\p{M}\p{Nd}]+"
_SOFT = r"[^\p{L}\p{M}\p{Nd}]*"
_GAP = rf"(?:{_SEP}{_W}+){{0,3}}"
_HAN_GAP = r"[^。？！?!.]{0,10}?"  # Chinese has no word separators: a gap is up to ten characters
_WORD_SPLIT = regex.compile(r"[^\p{L}\p{M}\p{Nd}]+")

Entries = Mapping[str, Mapping[str, Sequence[str]]]  # category -> language -> entries


class PatternError(SluicegateError, ValueError):
    """An entry that does not compile; the message names where it came from."""


@dataclass(frozen=True)
class Pattern:
    """One compiled entry and where it came from (for error messages and tests, never shown to a reader)."""

    category: str
    language: str
    source: str
    compiled: regex.Pattern[str]


def compile_entry(entry: str, language: str, *, origin: str = "") -> regex.Pattern[str]:
    """Compile one entry for `language` (a regex for en/fa or with `re:`, otherwise a phrase)."""
    try:
        if entry.startswith("re:"):
            return _compile_regex(entry[3:], language)
        if language in REGEX_LANGUAGES:
            return _compile_regex(entry, language)
        return regex.compile(_phrase(entry, language))
    except (regex.error, ValueError) as exc:
        where = f" ({origin})" if origin else ""
        raise PatternError(f"pattern {entry!r} for {language!r}{where} does not compile: {exc}") from None


def phrase_source(entry: str, language: str) -> str:
    """The regular expression source of a phrase entry, in any language (for data that embeds it, such as the
    ordinals' `{n}` slot)."""
    try:
        return _phrase(entry, language)
    except ValueError as exc:
        raise PatternError(f"phrase {entry!r} for {language!r} does not compile: {exc}") from None


def _compile_regex(source: str, language: str) -> regex.Pattern[str]:
    if language == "fa":
        source = source.replace(ZWNJ, " ?")
    # Letter forms, digits and apostrophes as the question has them. Not case-folded (that would turn \S into
    # \s): matched case-insensitively instead, so "Hourly rate" still matches the folded "hourly rate".
    return regex.compile(normalize(source).translate(APOSTROPHES), regex.IGNORECASE | regex.FULLCASE)


def _phrase(entry: str, language: str) -> str:
    parts = entry.split()
    anchored = bool(parts) and parts[0].startswith("^")
    if anchored:
        parts[0] = parts[0][1:]
        parts = [p for p in parts if p]
    if not parts or parts[0] == "*" or parts[-1] == "*":
        raise ValueError("a phrase needs a word first and last")
    out: list[str] = []
    previous = ""  # the last character of the previous part, to join Chinese without boundaries
    first = ""
    gap = False
    for part in parts:
        if part == "*":
            gap = True
            continue
        alternatives = [_alternative(a) for a in part.split("|") if a]
        if not alternatives:
            raise ValueError(f"no word in {part!r}")
        head = alternatives[0][1]
        first = first or head
        if out:
            han = has_han(previous) or has_han(head)
            if gap:
                out.append(_HAN_GAP if han else f"{_GAP}{_SEP}")
            else:
                out.append(_SOFT if han else _SEP)
        compiled = [a[0] for a in alternatives]
        out.append(compiled[0] if len(compiled) == 1 else "(?:" + "|".join(compiled) + ")")
        previous, gap = alternatives[0][2], False
    open_end = parts[-1].endswith("*")
    left = rf"^{_SOFT}" if anchored else ("" if has_han(first) else rf"(?<!{_W})")
    right = "" if has_han(previous) or open_end else rf"(?!{_W})"
    return left + "".join(out) + right


def _alternative(word: str) -> tuple[str, str, str]:
    """One alternative of a phrase part: (regex, its first character, its last character)."""
    prefix = word.endswith("*")
    pieces = [w for w in _WORD_SPLIT.split(normalize_question(word.rstrip("*"))) if w]
    if not pieces:
        raise ValueError(f"no word in {word!r}")
    inner = _SOFT if has_han(word) else _SEP
    text = inner.join(regex.escape(w) for w in pieces) + (rf"{_W}*" if prefix else "")
    return text, pieces[0][:1], pieces[-1][-1:]


def entries_from_path(path: str | Path) -> dict[str, dict[str, list[str]]]:
    """Read user entries: a directory of `<category>/<language>.txt` files, or a JSON file
    `{"category": {"language": ["entry", ...]}}`. Text files have one entry a line, `#` comments."""
    base = Path(path)
    if base.is_dir():
        found: dict[str, dict[str, list[str]]] = {}
        for file in sorted(base.glob("*/*.txt")):
            found.setdefault(file.parent.name, {})[file.stem] = _lines(file.read_text("utf-8"))
        if not found:
            raise ValueError(f"{base} holds no <category>/<language>.txt file")
        return found
    if base.suffix == ".json":
        raw = json.loads(base.read_text("utf-8"))
        if not isinstance(raw, dict) or not all(
            isinstance(langs, dict) and all(isinstance(v, list) for v in langs.values()) for langs in raw.values()
        ):
            raise ValueError(f"{base}: expected {{category: {{language: [entries]}}}}")
        return {str(c): {str(lang): [str(e) for e in es] for lang, es in langs.items()} for c, langs in raw.items()}
    raise ValueError(f"{base}: pass a directory of <category>/<language>.txt files or a .json file")


def _lines(text: str) -> list[str]:
    return [s for s in (line.strip() for line in text.splitlines()) if s and not s.startswith("#")]


@cache
def shipped(kind: str) -> dict[str, dict[str, tuple[str, ...]]]:
    """Entries shipped under `data/<kind>/<category>/<language>.txt`."""
    base = resources.files("sluicegate").joinpath("data").joinpath(kind)
    found: dict[str, dict[str, tuple[str, ...]]] = {}
    for folder in sorted(base.iterdir(), key=lambda p: p.name):
        if not folder.is_dir():
            continue
        for file in sorted(folder.iterdir(), key=lambda p: p.name):
            if file.name.endswith(".txt"):
                found.setdefault(folder.name, {})[file.name[:-4]] = tuple(_lines(file.read_text("utf-8")))
    return found


def compile_all(entries: Entries, *, origin: str) -> list[Pattern]:
    """Compile every entry (errors name the category, language and origin)."""
    out: list[Pattern] = []
    for category, languages in entries.items():
        for language, lines in languages.items():
            macros: dict[str, str] = {}
            for line in lines:
                where = f"{origin}: {category}/{language}"
                name, sep, body = line.partition(" = ")
                if line.startswith("@") and sep:
                    macros[name.strip()] = _expand(body.strip(), macros)
                    continue
                entry = _expand(line, macros)
                out.append(Pattern(category, language, line, compile_entry(entry, language, origin=where)))
    return out


def with_users(patterns: list[Pattern], path: str | Path | None, entries: Entries | None) -> list[Pattern]:
    """`patterns` plus the user's own, from a file and then from code.

    Why one helper: the refusal rules and the overview route take user patterns the same way."""
    if path is not None:
        patterns = patterns + compile_all(entries_from_path(path), origin=str(path))
    if entries is not None:
        patterns = patterns + compile_all(entries, origin="entries")
    return patterns


def by_language(patterns: Iterable[Pattern]) -> dict[str, list[Pattern]]:
    """The patterns grouped by language, each group in the given order."""
    groups: dict[str, list[Pattern]] = {}
    for pattern in patterns:
        groups.setdefault(pattern.language, []).append(pattern)
    return groups


def _expand(line: str, macros: Mapping[str, str]) -> str:
    """Replace `{@name}` with an earlier `@name = ...` line of the same file (a shared regex prefix)."""
    for name, body in macros.items():
        line = line.replace("{" + name + "}", body)
    if "{@" in line:
        raise ValueError(f"undefined macro in {line!r}")
    return line


def first_match(patterns: Iterable[Pattern], text: str) -> Pattern | None:
    """The first pattern that matches `text` (a normalized question), in the given order."""
    for pattern in patterns:
        if pattern.compiled.search(text):
            return pattern
    return None
