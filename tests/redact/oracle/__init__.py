"""Test oracle: a verbatim copy of `sluicegate.redaction` as it was before issue 17's rework (commit 6a41e15).

Why: the rework must keep every output byte-identical; tests/redact/test_oracle.py feeds both the same texts at
the same chunkings. Only `..stream` became `sluicegate._stream`. Never edit it to make a test pass. Behaviour
fixes made on purpose are made here too, each pinned by its own test: the IBAN and backtick leaks (review C,
tests/redact/test_partial_value_leaks.py), a closed private key no longer holding its line (tests/redact/test_fail_closed.py), and
issue 27's changed detectors, taken from the package (recall_detectors.py; tests/redact/test_suites.py).
"""

from .detector import Detector
from .operators import Hash, Mask, Replace
from .redactor import DEFAULT_NOTICE, UNSETTLED, Redactor, redact
from .registry import ENTITIES

__all__ = ["DEFAULT_NOTICE", "Detector", "ENTITIES", "Hash", "Mask", "Redactor", "Replace", "UNSETTLED", "redact"]
