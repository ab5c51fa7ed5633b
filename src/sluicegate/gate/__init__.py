"""Deprecated module path, kept so old imports still run: each name read here warns and comes from
`sluicegate._gate`, which is private (import from sluicegate; docs/api.md)."""

from .._deprecation import moved_module

__getattr__ = moved_module(__name__, "sluicegate._gate", "sluicegate")
