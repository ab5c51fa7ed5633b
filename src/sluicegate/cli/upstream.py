"""Deprecated module path (docs/conform.md named it), kept so old imports still run: each name read here warns
and comes from `sluicegate.cli._upstream`, which is private; `sluicegate conform --serve-upstream` runs it."""

from .._deprecation import moved_module

__getattr__ = moved_module(__name__, "sluicegate.cli._upstream", "sluicegate.cli._upstream (private)")
