"""Streaming redaction of personal data and secrets with a settlement-point release rule (seed 004)."""

from .._public import publish
from .detector import Detector
from .operators import Hash, Mask, Replace
from .redactor import DEFAULT_NOTICE, UNSETTLED, Redactor, redact
from .registry import ENTITIES

__all__ = ["DEFAULT_NOTICE", "Detector", "ENTITIES", "Hash", "Mask", "Redactor", "Replace", "UNSETTLED", "redact"]

publish(__name__, globals())  # one documented place per public name (docs/api.md)
