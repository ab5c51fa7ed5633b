"""The sentence gate (seeds 000/001): a streaming splitter finds settled sentences, four deterministic checks
judge each one, and only sentences that passed are released.

The modules behind this package are private; `sluicegate.SentenceGate`, `sluicegate.SentenceSplitter` and
`sluicegate.Violation` are the public names.
"""

from .checks import Violation
from .gate import SentenceGate
from .segment import SentenceSplitter

__all__ = ["SentenceGate", "SentenceSplitter", "Violation"]
