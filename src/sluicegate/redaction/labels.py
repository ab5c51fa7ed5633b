"""Secret labels (`password:`, `API Key =`, `mot de passe :`, `пароль:`, `密码：`) read from data files, shared by
the `LABELED_SECRET` pattern and the compiled prefilter's triggers, and the check that drops prose values.

Why data files: the words for "password" differ per language and are edited by people who do not read regex.
`secret_labels.txt` holds the technical names (`api_key`, `access_token`, …); `password_words/<lang>.txt`
the word for "password" in each of the project's ten languages.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

import regex

from .detector import data_lines

_LANGS = ("en", "de", "fr", "es", "pt", "ru", "fa", "ar", "hi", "zh")


@lru_cache(maxsize=1)
def words() -> tuple[tuple[str, bool], ...]:
    """(word, a suffix may follow) for every label, longest first (so `api_key` wins over `key`-like words)."""
    found: dict[str, bool] = {}
    lines = list(data_lines("secret_labels.txt"))
    root = resources.files("sluicegate").joinpath("data").joinpath("redact").joinpath("password_words")
    for lang in _LANGS:
        text = root.joinpath(f"{lang}.txt").read_text(encoding="utf-8")
        lines += [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]
    for line in lines:
        word, suffix = (line[:-1], True) if line.endswith("*") else (line, False)
        found[word.casefold()] = found.get(word.casefold(), False) or suffix
    return tuple(sorted(found.items(), key=lambda item: (-len(item[0]), item[0])))


def word_pattern(word: str) -> str:
    """`api_key` also matches `api-key`, `API Key` and `apikey`; so does a space in `mot de passe`."""
    parts = regex.split(r"[_ \-]", word)
    return r"[_\- ]?".join(regex.escape(p) for p in parts)


def alternation() -> str:
    """The labels as one case-insensitive alternation; words allowing a suffix take `_prod`, `-v2`, …"""
    out = []
    for word, suffix in words():
        body = word_pattern(word)
        out.append(body + (r"(?:[_\-][0-9A-Za-z]{1,16}+){0,2}+" if suffix else ""))
    return "|".join(out)


# Characters that `regex` matches case-insensitively to an ASCII letter (see prefilter.FOLD): a label may start
# with them too.
_FOLDS = {"s": "\u017f", "k": "\u212a", "i": "\u0130"}


def first_class(camel_initials: str) -> str:
    """A character class holding every character a label can start with, in any case (for `Detector.first`,
    which lets the engine skip ahead at C speed; test_incremental.py checks it against the pattern)."""
    chars: set[str] = set(camel_initials)
    for word, _ in words():
        ch = word[0]
        chars |= {ch, ch.lower(), ch.upper(), ch.casefold()}
        if ch.lower() in _FOLDS:
            chars.add(_FOLDS[ch.lower()])
    return "[" + "".join(regex.escape(c) for c in sorted(chars)) + "]"


def ascii_words() -> list[str]:
    return [w for w, _ in words() if w.isascii()]


def longest_non_ascii() -> int:
    """The longest label with a non-ASCII letter (the prefilter cannot see those and anchors on the separator)."""
    return max((len(w) for w, _ in words() if not w.isascii()), default=0)


_PLACEHOLDER = regex.compile(r"<[^<>]*>?|\$\{.*|\{\{.*|%\(.*|\$[A-Z_][A-Z0-9_]*|[*xX.•]{3,}|[\W_]+", regex.V1)


@lru_cache(maxsize=1)
def _prose() -> frozenset[str]:
    return frozenset(w.casefold() for w in data_lines("label_prose_values.txt"))


def secret_value(value: str) -> bool:
    """False for prose (`password: required`) and placeholders (`<your password>`, `${DB_PASS}`, `****`)."""
    if value.casefold().strip("()[]{}.,;:!?") in _prose():
        return False
    return _PLACEHOLDER.fullmatch(value) is None
