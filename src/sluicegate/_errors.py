"""The one base of every error sluicegate raises, so a caller can catch them all with one `except`.

Each error keeps the standard base callers caught before (`ValueError`, `RuntimeError`, ...) beside this one.
"""

__all__ = ["SluicegateError"]


class SluicegateError(Exception):
    """Base of every exception the core raises (`except sluicegate.SluicegateError` catches them all)."""
