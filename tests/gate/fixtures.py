"""Answers and sources shared by the gate's invariance tests and benchmark."""

from __future__ import annotations

SOURCES = [
    "The library opens at nine. Late fees were 20 euros until 2021. Contact desk@example.org.",
    "Die Bibliothek hat 1.234,5 Bücher pro Regal und 12 Lesesäle. https://example.org/hours",
    "کتابخانه ساعت ۹ باز می‌شود و ۳٫۱۴ متر ارتفاع دارد.",
    "图书馆有3个阅览室。Библиотека открыта с 9 до 21.",
]

# (name, language, answer)
GROUNDED = [
    ("en", "en", "It opens at nine [S1]. Late fees were 20.00 euros [S1].\n\nWrite to desk@example.org [S1]. Yes."),
    (
        "de",
        "de",
        "Die Bibliothek hat 1.234,50 Bücher pro Regal [S2]. Es gibt 12 Lesesäle [S2][S1]. "
        "Siehe https://example.org/hours [S2].",
    ),
    ("fa", "fa", "کتابخانه ساعت 9 باز می‌شود [S3]. ارتفاع آن 3.14 متر است [S3]؟ بله."),
    ("zh", "zh", "图书馆有３个阅览室[S4]。是的。好。"),
    ("ru", "ru", "Библиотека открыта с 9 до 21 [S4]. Да.\n1. Лесесаал [S2].\n2. Ещё."),
    ("list", "en", "Hours:\n\n1. It opens at nine [S1].\n2. Fees were 20 euros [S1]."),
]

VIOLATING = [
    ("value", "en", "It opens at nine [S1]. Late fees ended in 2019 [S1]. More text here."),
    ("range", "en", "It opens at nine [S1].\n\nFees are listed [S9]. Next."),
    ("missing", "fr", "Oui. La bibliothèque ouvre ses portes chaque matin à neuf heures. Suite."),
    ("person-fa", "fa", "کتابخانه باز است [S3]. من فکر می‌کنم ساعت ۹ باز است [S3]. بعدی."),
    ("person-zh", "zh", "图书馆有3个阅览室[S4]。我们认为是的。"),
    ("person-fr", "fr", "Oui [S1]. J'ai vérifié. Suite."),
]

REFUSING = [
    ("token", "en", "NO_ANSWER"),
    ("token-ws", "en", "  NO_ANSWER.\n"),
    ("token-late", "en", "It opens at nine [S1]. NO_ANSWER"),
    ("near-token", "en", "NO_ANSWERS pass. NO. Yes."),
]

ALL = GROUNDED + VIOLATING + REFUSING
