"""What a detector is: an entity name, a regex in the `regex` package's syntax, and an optional validator.

Rules a pattern must follow so that streaming can prove a match settled (the built-ins follow them; custom
detectors should too):
- no `^`/`\\A`/`$`/`\\Z` anchors and no positive lookahead (a lookahead that fails only because the text
  stopped short would drop a match the whole string has);
- lookbehind at most `LOOKBEHIND` characters (the filter keeps that much context after releasing text);
- a named group `v`, when present, is the span replaced; the rest of the match is context (a label);
- or a `locate` function, when present, picks the values inside the match (a run of digit groups may hold a
  card next to a stray number): it returns non-overlapping (start, end) spans relative to the match, already
  validated, so the pattern can stay a simple bounded run and the choice of window is plain Python.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib import resources

import regex

from .alphabet import stop_pattern
from .reach import before_behind, behind_split
from .reach import reach as pattern_reach

LOOKBEHIND = 80
Validator = Callable[[str], bool]
Locator = Callable[[str], Sequence[tuple[int, int]]]


@dataclass(frozen=True)
class Detector:
    """One kind of sensitive value. `opener`, if set, marks an unbounded block (a PEM key): once the opener
    is complete, the block is a secret even if its end never arrives, so the stream fails closed."""

    entity: str
    pattern: str
    validate: Validator | None = None
    opener: str | None = None
    locate: Locator | None = None
    # A character class every match starts with (e.g. "[+0-9]"): prefixed as a lookahead, it lets the `regex`
    # engine skip ahead at C speed instead of trying the pattern's lookbehinds at every position (10x on prose).
    # It must be implied by the pattern (tests/redact/test_incremental.py checks the built-ins over the BMP).
    first: str | None = None
    # A distinctive prefix (`AKIA` and one more key character, `ghp_…`, a JWT's header and dot): if the stream is
    # cut short (`flush(truncated=True)`) while a value of this detector is still open where this matches, the
    # open value is replaced rather than released. A named group `v` marks where the value starts (a label stays).
    prefix: str | None = None
    # True when where a match may start depends on the text before it (a positive lookbehind, like the label
    # before a `LABELED_SECRET` value): the starters table cannot learn such a detector from one character,
    # so it is asked on every check (its `first` class keeps that cheap).
    context: bool = False
    # For a block detector: kinds of block that, once open with their opener whole, stay as they are over any
    # text without their trigger characters, as (opener regex, triggers, k, complete triggers): a partial match
    # stays partial over text without `triggers`, and a complete match whose block is still open (an END line
    # waiting for its newline) stays so over text without `complete triggers` (None: no such claim), with
    # nothing pending (a lookahead after a trigger) reading more than k characters. The compiled feed
    # (_native.c) then skips re-matching a held block on every check; tests/redact/test_steady.py checks each
    # built-in's claim against the engine.
    steady: tuple[tuple[str, str, int, str | None], ...] = ()
    # For a label detector: the (ASCII) characters at which every start needs a label word (labels.py) ending in
    # the `LOOKBEHIND` characters before it; the compiled feed then skips such a candidate with no label tail
    # there (`labels.label_near`) once more than `near_k` characters follow it (fewer: the engine may report
    # the start open before its lookbehind is reached). tests/redact/test_label_near.py checks the claim.
    near: str | None = None
    compiled: regex.Pattern[str] = field(init=False, repr=False, compare=False)
    probe: regex.Pattern[str] = field(init=False, repr=False, compare=False)
    opener_rx: regex.Pattern[str] | None = field(init=False, repr=False, compare=False)
    prefix_rx: regex.Pattern[str] | None = field(init=False, repr=False, compare=False)
    # The most characters a path of the pattern reads from its start (reach.py), or None if unbounded.
    reach: int | None = field(init=False, repr=False, compare=False)
    # A reverse search for the last character no path of the pattern reads (alphabet.py), after which every open
    # start lies; None if the pattern's alphabet is not bounded.
    stop: regex.Pattern[str] | None = field(init=False, repr=False, compare=False)
    # With `near`: the most characters a path reads from a start there before its label lookbehind (reach.py).
    near_k: int | None = field(init=False, repr=False, compare=False)
    # With `near`: for the other characters of `first` at which some alternatives need a label before them and
    # others not (a reversed comparison's label comes after its value), (those characters, the most the former
    # read before their lookbehind, the latter as one pattern): a start there with no label tail before it can
    # only be a match of the latter (reach.py's `behind_split`; tests/redact/test_label_near.py checks it).
    near_rest: tuple[str, int, str] | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self.entity or not isinstance(self.entity, str):
            raise ValueError("a detector needs a non-empty entity name")
        body = f"(?={self.first})(?:{self.pattern})" if self.first else self.pattern
        try:
            compiled = regex.compile(body)
        except regex.error as exc:
            raise ValueError(f"detector {self.entity}: bad pattern: {exc}") from None
        if compiled.search("") is not None:
            raise ValueError(f"detector {self.entity}: the pattern matches the empty string")
        object.__setattr__(self, "compiled", compiled)
        # Never completes, so a partial search reports the leftmost place where some path of the pattern
        # runs into the end of the buffer, i.e. where a match could still start or grow (see settle.py).
        object.__setattr__(self, "probe", regex.compile(f"(?:{body})(?!)"))
        object.__setattr__(self, "opener_rx", regex.compile(self.opener) if self.opener else None)
        object.__setattr__(self, "prefix_rx", regex.compile(self.prefix) if self.prefix else None)
        object.__setattr__(self, "reach", pattern_reach(body, compiled.flags))
        object.__setattr__(self, "stop", stop_pattern(body, compiled.flags))
        near_k = None
        if self.near is not None:
            near_k = before_behind(self.pattern, compiled.flags, self.near)
            if near_k is None or not self.near.isascii():
                raise ValueError(f"detector {self.entity}: a start at {self.near!r} need not reach a lookbehind")
        object.__setattr__(self, "near_k", near_k)
        rest = None
        others = "".join(sorted(set(first_chars(self.first) or "") - set(self.near or "")))
        if self.near is not None and others.isascii() and others:
            split = behind_split(self.pattern, compiled.flags, others)
            rest = None if split is None else (others, *split)
        object.__setattr__(self, "near_rest", rest)

    @property
    def has_value_group(self) -> bool:
        return "v" in self.compiled.groupindex


def first_chars(first: str | None) -> str | None:
    """The characters of a `first` class written as a plain list (`[,("]`), or None for any other form."""
    if first is None or not (first.startswith("[") and first.endswith("]")):
        return None
    body = first[1:-1]
    return None if not body or set(body) & set("^-\\[]") else body


def custom_detector(spec: object) -> Detector:
    """Accept a `Detector`, `(entity, pattern)` or `(entity, pattern, validator)`."""
    if isinstance(spec, Detector):
        return spec
    if isinstance(spec, tuple) and len(spec) in (2, 3):
        entity, pattern, *rest = spec
        if not isinstance(entity, str) or not isinstance(pattern, str):
            raise TypeError("a custom detector is (entity: str, pattern: str[, validator])")
        validate = rest[0] if rest else None
        if validate is not None and not callable(validate):
            raise TypeError("a custom detector's validator must be callable")
        return Detector(entity, pattern, validate)
    raise TypeError(f"a custom detector is a Detector or an (entity, pattern[, validator]) tuple, got {spec!r}")


def data_lines(name: str) -> list[str]:
    """Non-comment lines of `sluicegate/data/redact/<name>`."""
    text = resources.files("sluicegate").joinpath(f"data/redact/{name}").read_text(encoding="utf-8")
    return [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]
