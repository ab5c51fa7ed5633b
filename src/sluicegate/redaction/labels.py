"""Secret labels (`password:`, `API Key =`, `mot de passe :`, `пароль:`, `密码：`) read from data files, shared by
the `LABELED_SECRET` pattern and the compiled prefilter's triggers, and the check that drops prose values.

Why data files: the words for "password" differ per language and are edited by people who do not read regex.
`secret_labels.txt` holds the technical names (`api_key`, `access_token`, …); `password_words/<lang>.txt`
the word for "password" in each of the project's ten languages; `personal_labels/<lang>.txt` labels of personal
data that has no format of its own (`CVV`, `Passport`, `Date of Birth`, `2FA code`), whose value is replaced the
same way.
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
    data = resources.files("sluicegate").joinpath("data").joinpath("redact")
    for folder in ("password_words", "personal_labels"):
        for lang in _LANGS:
            text = data.joinpath(folder).joinpath(f"{lang}.txt").read_text(encoding="utf-8")
            lines += [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]
    for line in lines:
        word, suffix = (line[:-1], True) if line.endswith("*") else (line, False)
        found[word.casefold()] = found.get(word.casefold(), False) or suffix
    return tuple(sorted(found.items(), key=lambda item: (-len(item[0]), item[0])))


def word_pattern(word: str) -> str:
    """`api_key` also matches `api-key`, `API Key` and `apikey`; so does a space in `mot de passe`."""
    parts = regex.split(r"[_ \-]", word)
    # Possessive (`?+`): inside a lookbehind a greedy optional that backtracks makes the `regex` package report a
    # partial match where none can be (tests/redact/test_regex_partial.py), which held text to `max_hold`.
    return r"[_\- ]?+".join(regex.escape(p) for p in parts)


def alternation(*, suffixes: bool = True) -> str:
    """The labels as one case-insensitive alternation; words allowing a suffix take `_prod`, `-v2`, … (unless
    `suffixes` is false: the caller then lets every word take one, `SUFFIX`)."""
    out = []
    for word, suffix in words():
        body = word_pattern(word)
        out.append(body + (SUFFIX if suffix and suffixes else ""))
    return "|".join(out)


# A suffix after a key name: up to two parts of up to 10 characters (`_prod`, `-v2`), so that a label, its
# quote and two spaces fit the 32 characters of context the filter keeps (the label is a lookbehind). Not
# possessive: a lookbehind is matched backwards, where a possessive suffix would swallow `_key` of `api_key`.
SUFFIX = r"(?:[_\-][0-9A-Za-z]{1,10}+){0,2}"
_SUFFIX_MAX = 22


def longest_label() -> int:
    """The most characters a label, a quote and two spaces can take before the separator."""
    return max(len(w) + (_SUFFIX_MAX if suffix else 0) for w, suffix in words()) + 3


_PLACEHOLDER = regex.compile(r"<[^<>]*>?|\$\{.*|\{\{.*|%\(.*|\$[A-Z_][A-Z0-9_]*|[*xX.•]{3,}|[\W_]+", regex.V1)


@lru_cache(maxsize=1)
def _prose() -> frozenset[str]:
    return frozenset(w.casefold() for w in data_lines("label_prose_values.txt"))


def secret_value(value: str) -> bool:
    """False for prose (`password: required`) and placeholders (`<your password>`, `${DB_PASS}`, `****`)."""
    if value.casefold().strip("()[]{}.,;:!?") in _prose():
        return False
    return _PLACEHOLDER.fullmatch(value) is None
