"""Read the word lists shipped in `sluicegate/data` (one entry a line, `#` comments)."""

from __future__ import annotations

from functools import cache
from importlib import resources


@cache
def word_list(relative: str) -> tuple[str, ...]:
    """Entries of `data/<relative>`: stripped, non-empty, not comments; in file order."""
    path = resources.files("sluicegate").joinpath(f"data/{relative}")
    lines = path.read_text(encoding="utf-8").splitlines()
    return tuple(s for s in (line.strip() for line in lines) if s and not s.startswith("#"))


@cache
def list_names(folder: str) -> tuple[str, ...]:
    """The `.txt` lists in `data/<folder>`, by stem (for example the languages that have an abbreviation list)."""
    base = resources.files("sluicegate").joinpath(f"data/{folder}")
    return tuple(sorted(p.name[:-4] for p in base.iterdir() if p.name.endswith(".txt")))
