"""What every example streams: three numbered sources, a grounded answer and one with a planted value.

The planted answer adds a sentence whose figure ("2 euros") is in no source, between two grounded ones; the
last sentence carries an e-mail address (in source [S3]) that the Redactor replaces where it is used.
"""

from __future__ import annotations

SOURCES = [
    "The library opens at nine on weekdays and at ten on Saturdays.",
    "Late fees were abolished in 2019.",
    "Questions go to the front desk at help.desk@citylib.example.",
]
QUESTION = "When is the library open, and whom do I ask?"
GROUNDED = (
    "The library opens at nine on weekdays [S1]. Late fees were abolished in 2019 [S2]. "
    "Write to help.desk@citylib.example with questions [S3]."
)
PLANTED = GROUNDED.replace(" Write to", " It also rents out bicycles for 2 euros an hour [S1]. Write to")


def pieces(text: str, size: int) -> list[str]:
    """`text` cut into `size`-character pieces, the way a model streams it (an e-mail lands across pieces)."""
    return [text[i : i + size] for i in range(0, len(text), size)]
