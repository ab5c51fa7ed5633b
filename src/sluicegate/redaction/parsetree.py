"""The standard library's regex parser, read for what a detector's paths can do (reach.py: how far; alphabet.py:
over which characters).

Why: the `regex` package has no width or alphabet query, and its syntax is close enough to the standard one for
the detectors' patterns once property classes and fuzzy-constraint braces are dealt with, which each caller does
its own way with `TOKEN` and `REPEAT`. The parser is not in the typed stubs, hence `Any`.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterator
from typing import Any

parser: Any = importlib.import_module("re._parser")
constants: Any = importlib.import_module("re._constants")

# An escape (a `\\p{...}`, `\\P{...}` or `\\N{...}` whole, so an escaped backslash before a `p` is not read as
# one), or a brace group: one that is not a repeat count may be a fuzzy constraint (`{e<=1}`), which reads more
# than the pattern shows.
TOKEN = re.compile(r"\\(?:[pPN]\{[^}]*\}|.)|\{[^}]*\}?", re.S)
REPEAT = re.compile(r"\{[0-9]*(?:,[0-9]*)?\}")


def subpatterns(av: Any) -> Iterator[Any]:
    """The parsed sub-patterns inside a node's argument, however deeply it nests them in tuples and lists."""
    if isinstance(av, parser.SubPattern):
        yield av
    elif isinstance(av, (tuple, list)):
        for x in av:
            yield from subpatterns(x)
