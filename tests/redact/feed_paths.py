"""The feed paths every redactor test can run on (fastpath.py chooses one per Redactor): the compiled feed
(`_native.c`, the default where it was built) and the pure-Python one, which is the oracle. A test module takes
both with the `feed_path` context manager; on a machine where the extension was not built the compiled path is a
failure, not a skip (the test machines have a C compiler)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from unittest import mock

import pytest

from sluicegate.redaction import Redactor, fastpath

FEED_PATHS = ("compiled", "python")


@contextmanager
def feed_path(name: str) -> Iterator[None]:
    """Within it, a new Redactor (and subclass) takes the named path of `feed`."""
    if name == "compiled":
        if fastpath.native is None:
            pytest.fail("the compiled feed is not built: python setup.py build_ext --inplace")
        with mock.patch.object(Redactor, "_NATIVE", True):
            assert Redactor()._quick_native is not None
            yield
    else:
        with mock.patch.object(Redactor, "_NATIVE", False):
            assert Redactor()._quick_native is None
            yield
