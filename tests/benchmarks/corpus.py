"""Deterministic benchmark corpora: multilingual prose with planted secrets, benign prose, grounded answers.

Everything is generated from a seed so every filter (ours and the peers) sees the same bytes in one run and
across runs. No data is downloaded. The planted values are *valid* (Luhn cards, mod-97 IBANs, well-formed JWTs,
phone numbers libphonenumber accepts) so a checksum-validating detector has no excuse to skip them.
"""

from __future__ import annotations

import base64
import json
import random
import re
import string
from dataclasses import dataclass, field

# Small vocabularies: enough variety that prose is not one repeated line; not meant to be linguistics.
EN_WORDS = [
    "the",
    "report",
    "covers",
    "our",
    "quarterly",
    "results",
    "and",
    "the",
    "plan",
    "for",
    "next",
    "year",
    "while",
    "the",
    "team",
    "reviews",
    "every",
    "open",
    "question",
    "about",
    "delivery",
    "schedules",
    "budgets",
    "hiring",
    "and",
    "the",
    "migration",
    "of",
    "older",
    "systems",
    "to",
    "the",
    "new",
    "platform",
    "customers",
    "asked",
    "for",
    "clearer",
    "invoices",
    "faster",
    "support",
    "and",
    "a",
    "simpler",
    "way",
    "to",
    "export",
    "their",
    "data",
    "so",
    "we",
    "added",
    "a",
    "dashboard",
    "that",
    "shows",
    "usage",
    "per",
    "month",
    "with",
    "notes",
    "from",
    "the",
    "service",
    "desk",
    "and",
    "links",
    "to",
    "the",
    "main",
    "documents",
]
FA_WORDS = [
    "گزارش",
    "این",
    "فصل",
    "نتایج",
    "مالی",
    "و",
    "برنامه",
    "سال",
    "آینده",
    "را",
    "نشان",
    "می",
    "دهد",
    "تیم",
    "ما",
    "همه",
    "پرسش",
    "ها",
    "درباره",
    "زمان",
    "تحویل",
    "بودجه",
    "استخدام",
    "و",
    "انتقال",
    "سامانه",
    "های",
    "قدیمی",
    "به",
    "بستر",
    "جدید",
    "را",
    "بررسی",
    "می",
    "کند",
    "مشتریان",
    "فاکتور",
    "روشن",
    "تر",
    "پشتیبانی",
    "سریع",
    "تر",
    "و",
    "راه",
    "ساده",
    "تری",
    "برای",
    "خروجی",
    "گرفتن",
    "از",
    "داده",
    "های",
    "خود",
    "خواستند",
]
ZH_CHARS = (
    "本季度报告涵盖我们的财务结果和明年的计划团队正在审查关于交付时间预算招聘以及旧系统迁移到新平台的所有问题"
    "客户要求更清晰的发票更快的支持和更简单的数据导出方式因此我们增加了一个显示每月使用情况的仪表板"
)

# Where a value sits in each language: label before it, punctuation after it (non-ASCII neighbours on purpose).
CONTEXTS = {
    "en": ("You can reach it at {v} today. ", "The value is {v}, see above. ", "Use {v} for this. "),
    "fa": ("مقدار آن {v} است. ", "لطفا از {v} استفاده کنید. "),
    "zh": ("请使用 {v} 完成。", "联系方式：{v}。"),
}


@dataclass
class Corpus:
    """A text plus the planted values in it (verbatim), by kind."""

    text: str
    planted: list[tuple[str, str]] = field(default_factory=list)  # (kind, value)

    @property
    def size(self) -> int:
        return len(self.text.encode("utf-8"))


def _luhn_complete(digits: str) -> str:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2 == 0:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return digits + str((10 - total % 10) % 10)


def _iban(rng: random.Random) -> str:
    bban = "".join(rng.choice(string.digits) for _ in range(18))
    numeric = "".join(str(int(c, 36)) for c in bban + "DE00")
    check = 98 - int(numeric) % 97
    return f"DE{check:02d}{bban}"


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _alnum(rng: random.Random, n: int, alphabet: str = string.ascii_letters + string.digits) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def make_value(kind: str, rng: random.Random) -> str:
    """One valid value of `kind`."""
    if kind == "email":
        return f"{rng.choice(['maria', 'li.wei', 'reza', 'j.smith', 'ops'])}.{rng.randint(10, 9999)}@example-mail.com"
    if kind == "card":
        d = _luhn_complete("4" + "".join(rng.choice(string.digits) for _ in range(14)))
        return " ".join(d[i : i + 4] for i in range(0, 16, 4))
    if kind == "iban":
        iban = _iban(rng)
        return " ".join(iban[i : i + 4] for i in range(0, len(iban), 4)) if rng.random() < 0.5 else iban
    if kind == "jwt":
        head = _b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
        body = _b64url(json.dumps({"sub": str(rng.randint(10**6, 10**7)), "name": "user", "iat": 1700000000}).encode())
        return f"{head}.{body}.{_b64url(rng.randbytes(32))}"
    if kind == "pem":
        body = base64.b64encode(rng.randbytes(48 * 8)).decode()
        lines = "\n".join(body[i : i + 64] for i in range(0, len(body), 64))
        return f"-----BEGIN PRIVATE KEY-----\n{lines}\n-----END PRIVATE KEY-----"
    if kind == "apikey":
        choice = rng.randrange(3)
        if choice == 0:
            return "sk-" + _alnum(rng, 48)
        if choice == 1:
            return "AKIA" + _alnum(rng, 16, string.ascii_uppercase + string.digits)
        return "ghp_" + _alnum(rng, 36)
    if kind == "phone":
        return rng.choice(
            ["+1 415 392 {:04d}", "+44 20 7946 {:04d}", "+49 30 9018 {:04d}", "+33 1 42 68 {:04d}"]
        ).format(rng.randint(0, 9999))
    if kind == "ip":
        return f"{rng.choice([81, 203, 198, 62])}.{rng.randint(1, 254)}.{rng.randint(1, 254)}.{rng.randint(1, 254)}"
    raise ValueError(kind)


KINDS = ("email", "card", "iban", "jwt", "pem", "apikey", "phone", "ip")


def _sentence(lang: str, rng: random.Random) -> str:
    if lang == "en":
        words = [rng.choice(EN_WORDS) for _ in range(rng.randint(8, 20))]
        return " ".join(words).capitalize() + ". "
    if lang == "fa":
        return " ".join(rng.choice(FA_WORDS) for _ in range(rng.randint(8, 18))) + ". "
    return "".join(rng.choice(ZH_CHARS) for _ in range(rng.randint(12, 30))) + "。"


def prose(size: int, *, seed: int = 1) -> str:
    """Benign prose in English, Persian and Chinese paragraphs, about `size` UTF-8 bytes (no planted values)."""
    rng = random.Random(seed)
    out: list[str] = []
    n = 0
    while n < size:
        lang = rng.choice(("en", "en", "fa", "zh"))
        para = "".join(_sentence(lang, rng) for _ in range(rng.randint(2, 5))) + "\n\n"
        out.append(para)
        n += len(para.encode("utf-8"))
    return "".join(out)


def planted(size: int, *, seed: int = 7, every: int = 600) -> Corpus:
    """Prose with one planted value about every `every` bytes, in all three languages, cycling through KINDS."""
    rng = random.Random(seed)
    out: list[str] = []
    values: list[tuple[str, str]] = []
    n = 0
    k = 0
    since = 0
    while n < size:
        lang = rng.choice(("en", "en", "fa", "zh"))
        piece = _sentence(lang, rng)
        since += len(piece.encode("utf-8"))
        if since >= every:
            kind = KINDS[k % len(KINDS)]
            k += 1
            value = make_value(kind, rng)
            piece += rng.choice(CONTEXTS[lang]).format(v=value)
            values.append((kind, value))
            since = 0
        if rng.random() < 0.15:
            piece += "\n\n"
        out.append(piece)
        n += len(piece.encode("utf-8"))
    return Corpus("".join(out), values)


# --- grounded answers for the sentence gate (item 6) ------------------------------------------------------------

GROUNDED_FACTS = (
    ("The library opens at {a} on weekdays", "The library opens at {a} on weekdays and closes at {b}."),
    ("Late fees were {a} euros per day", "Late fees were {a} euros per day until the board dropped them."),
    ("The reading room seats {a} people", "The reading room seats {a} people on two floors."),
    ("The annual budget is {a} dollars", "The annual budget is {a} dollars, set in March."),
    ("Members can borrow {a} books at once", "Members can borrow {a} books at once for three weeks."),
)


@dataclass
class Grounded:
    """One grounded answer: sources, the answer with [S<n>] markers, and the same answer with [n] markers."""

    sources: list[str]
    answer_s: str
    answer_n: str


def grounded(count: int, *, seed: int = 3, sentences: int = 8) -> list[Grounded]:
    """`count` answers whose every number appears in the cited source (so a correct gate releases all of it)."""
    rng = random.Random(seed)
    out: list[Grounded] = []
    for _ in range(count):
        facts = []
        for claim, source in rng.sample(GROUNDED_FACTS, len(GROUNDED_FACTS)):
            a, b = str(rng.randint(2, 90)), str(rng.randint(91, 99))
            facts.append((claim.format(a=a), source.format(a=a, b=b)))
        parts_s: list[str] = []
        parts_n: list[str] = []
        for _ in range(sentences):
            idx = rng.randrange(len(facts))
            parts_s.append(f"{facts[idx][0]} [S{idx + 1}]. ")
            parts_n.append(f"{facts[idx][0]} [{idx + 1}]. ")
        out.append(Grounded([f for _, f in facts], "".join(parts_s).rstrip(), "".join(parts_n).rstrip()))
    return out


# --- the scripted answer for time to first visible text (item 5) ------------------------------------------------

SCRIPT_SOURCES = [
    "The library opens at 9 on weekdays and closes at 18.",
    "Late fees were 2 euros per day until the board dropped them in 2021.",
]


def scripted_answer(*, blocked: bool, sentences: int = 40) -> tuple[str, tuple[int, int] | None]:
    """A grounded answer of `sentences` sentences; with `blocked`, sentence 6 states a figure no source has.

    Returns the text and the (start, end) character span of the blocked sentence (None when clean).
    """
    good = (
        "The library opens at 9 on weekdays [S1]. ",
        "It closes at 18 in the evening [S1]. ",
        "Late fees were 2 euros per day [S2]. ",
        "The board dropped late fees in 2021 [S2]. ",
    )
    parts: list[str] = []
    span = None
    pos = 0
    for i in range(sentences):
        s = good[i % len(good)]
        if blocked and i == 5:
            s = "Fines rose to 7 euros in 2019 [S2]. "
            span = (pos, pos + len(s))
        parts.append(s)
        pos += len(s)
    return "".join(parts).rstrip(), span


def tokens_of(text: str) -> list[str]:
    """Split like an LLM stream: a token is leading whitespace plus a word or one punctuation mark (lossless)."""
    return re.findall(r"\s*(?:\w+|[^\w\s])|\s+\Z", text)
