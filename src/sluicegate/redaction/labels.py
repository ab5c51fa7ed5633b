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


def lookbehind_alternation(*, suffixes: bool = True) -> str:
    """`alternation()`'s language factored by common endings, for use inside a lookbehind only. Why: the `regex`
    engine matches a lookbehind right to left and tries a flat alternation's ~140 words one by one (each a
    separate part of the compiled pattern, so in a stream, where other detectors ran in between, mostly a cache
    miss); factored, it first tells ~40 endings apart: a `LABELED_SECRET` match at a JSON `:` that names no label
    9 -> 5 µs in a loop, its probe in a stream's slowest feeds 39 -> 21 µs (docs/performance.md, stop 36). Only
    inside a lookbehind: the assertion asks whether some word ends there, not which, where a forward match's first
    matching word decides where it ends (`api_key_a_b` with a suffix). tests/redact/test_label_trie.py compares
    the engine's answers with the flat form's."""
    root: _Trie = {}
    for word, suffix in words():
        atoms = [_JOINT if ch in "_ -" else regex.escape(ch) for ch in _joined(word)]
        if suffix and suffixes:
            atoms.append(SUFFIX)
        node = root
        for atom in reversed(atoms):
            node = node.setdefault(atom, {})
        node[_END] = {}
    return _emit(root)


_Trie = dict[str, "_Trie"]  # an atom -> what comes before it (a word read from its end)
_JOINT = r"[_\- ]?+"  # (what `word_pattern` puts between a word's parts)
_END = ""  # (a trie key no atom is: a word ends here)


def _joined(word: str) -> str:
    """The word's parts joined by one `_` (a part never holds `_`, `-` or a space: `word_pattern` splits there)."""
    return "_".join(regex.split(r"[_ \-]", word))


def _emit(node: _Trie) -> str:
    """The reversed trie as a regex: each branch is what comes before its atom, then the atom."""
    branches = [_emit(child) + atom for atom, child in node.items() if atom != _END]
    if _END in node:
        branches.append("")
    return branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"


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


# Label words matched case-sensitively after a lowercase letter or digit (`githubToken`, `dbPassword`).
CAMEL_WORDS = ("Token", "Secret", "Password", "Passwd", "Pwd")
# A label word's tail: the last up to this many characters of its last part (parts are joined by `[_\- ]?+`).
TAIL = 4
# The compiled feed's set of tails: one bit per hash of a lowercased ASCII gram (a collision only keeps more).
NEAR_BITS = 1 << 20


@lru_cache(maxsize=1)
def tails() -> frozenset[str]:
    """The lowercased tails of every label word in each of its forms (`_key` and `ikey` of `api_key`, `asse` of
    `mot de passe`, `oken` of `Token`): a label word occurs in a text only where one of them does (ASCII text
    lowercased; a non-ASCII character is taken to match anything). Why: `label_near` rules out a candidate start
    of `LABELED_SECRET` without asking the engine, whose label lookbehind is its most expensive part."""
    got: set[str] = set()
    for word in [w for w, _ in words()] + [w.casefold() for w in CAMEL_WORDS]:
        parts = [p for p in regex.split(r"[_ \-]", word) if p]
        # The last TAIL characters of every form (`word_pattern` joins the parts by one of `_`, `-`, a space or
        # nothing), so a short last part carries the end of the one before: `x id`, `axid` of `tax id`, not `id`.
        ends = {parts[-1]}
        for part in reversed(parts[:-1]):
            if min(len(e) for e in ends) >= TAIL:
                break
            ends = {part + joint + e for e in ends for joint in _JOINTS}
        got.update(e[-TAIL:].lower() for e in ends)
    return frozenset(got)


_JOINTS = ("", "_", "-", " ")


def gram_hash(gram: str) -> int:
    """The bit of an ASCII gram in `near_tables()` (the compiled feed computes the same)."""
    h = len(gram)
    for ch in gram:
        h = (h * 131 + ord(ch)) & 0xFFFFFFFF
    return h & (NEAR_BITS - 1)


def near_tables() -> bytes:
    """`tails()` as the compiled feed reads them: `NEAR_BITS` bits, set at `gram_hash` of each ASCII tail; a tail
    holding a non-ASCII character sets none (the feed keeps every window with a non-ASCII character)."""
    bits = bytearray(NEAR_BITS // 8)
    for t in tails():
        if t.isascii():
            key = gram_hash(t)
            bits[key >> 3] |= 1 << (key & 7)
    return bytes(bits)


def label_near(view: str, v: int, window: int) -> bool:
    """Whether a label word may end in `view[v - window : v]` (the reference of the compiled feed's check): some
    tail occurs there, or there is a non-ASCII character (whose case folding is not worth mirroring)."""
    s = view[max(0, v - window) : v]
    if not s.isascii():
        return True
    s = s.lower()
    got = tails()
    return any(s[j : j + n] in got for n in range(1, TAIL + 1) for j in range(len(s) - n + 1))


@lru_cache(maxsize=1)
def forms() -> dict[str, tuple[str, ...]]:
    """Every form of every label word (`word_pattern` joins its parts by one of `_`, `-`, a space or nothing),
    lowercased, by its tail (the key: one of `tails()`); a form that is not ASCII as its longest ASCII suffix
    (`numéro de passeport` as `ro de passeport`). Why: a tail is met in text by words that only end like a label
    (`export` holds `port` of `passport`); the compiled feed checks the form behind a tail it meets
    (`label_word_near`). Why the suffix: the check is made on an ASCII window, where a form that is not ASCII
    can end only with its non-ASCII character before the window (or matched by an ASCII letter, as the Kelvin
    sign is by `k`): its ASCII suffix is then in the window or begins before it, and either answers "a word may
    end here", whatever the detectors' gap (a form left out would need its non-ASCII character within the
    window, a margin nothing enforces)."""
    got: dict[str, set[str]] = {}
    for word in [w for w, _ in words()] + [w.casefold() for w in CAMEL_WORDS]:
        parts = [p for p in regex.split(r"[_ \-]", word) if p]
        ends = [parts[0]]
        for part in parts[1:]:
            ends = [e + joint + part for e in ends for joint in _JOINTS]
        for e in ends:
            e = e.lower()
            last = max((i for i, c in enumerate(e) if not c.isascii()), default=-1)
            suffix = e[last + 1 :]
            if last < 0 or len(suffix) >= TAIL:  # (else its tail is not ASCII: never met in an ASCII window)
                got.setdefault(e[-TAIL:], set()).add(suffix)
    return {t: tuple(sorted(fs)) for t, fs in got.items()}


def label_word_near(view: str, v: int, window: int, gap: int | None) -> bool:
    """Whether a label word may end within `gap` characters before v (the reference of the compiled feed's
    sharper check): some ASCII form of one (`forms()`) ends at e in [v - gap, v] inside `view[v - window : v]`,
    or some form ending there would begin before that window, or the window holds a non-ASCII character (as
    `label_near`). `gap` None: anywhere in the window. A label detector's match at v needs its word to end at
    or after v - `wholedb.label_gap` (tests/redact/test_label_word.py checks the claim against the engine)."""
    lo = max(0, v - window)
    s = view[lo:v]
    if not s.isascii():
        return True
    s = s.lower()
    least = 0 if gap is None else v - gap - lo  # the least end e (relative to lo)
    for tail, fs in forms().items():
        k = s.find(tail)
        while k >= 0:
            e = k + len(tail)
            if e >= least:
                for f in fs:
                    if e - len(f) < 0 or s[e - len(f) : e] == f:
                        return True
            k = s.find(tail, k + 1)
    return False
