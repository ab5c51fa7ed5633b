"""Planted values and fixture texts for the redactor tests (all values are public test/example values or
made up here; checksums are computed, never pasted)."""

from __future__ import annotations

import base64
import json
import random

rng = random.Random(4)


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def alnum(n: int, alphabet: str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def make_jwt(payload_size: int = 40) -> str:
    header = b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    payload = b64url(json.dumps({"sub": "1234567890", "data": "x" * payload_size}).encode())
    return f"{header}.{payload}.{b64url(bytes(rng.randrange(256) for _ in range(32)))}"


def make_pem(kind: str = "RSA ", lines: int = 6) -> str:
    body = "\n".join(
        alnum(64, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/") for _ in range(lines)
    )
    return f"-----BEGIN {kind}PRIVATE KEY-----\n{body}\n-----END {kind}PRIVATE KEY-----"


JWT_SHORT = make_jwt()
JWT_2K = make_jwt(1500)
PEM = make_pem()

# entity -> values that must be replaced, as a reader would see them.
POSITIVES: dict[str, list[str]] = {
    "EMAIL_ADDRESS": ["user@example.com", "jane.doe+news@mail.example.co.uk", "josé@exämple.org"],
    "CREDIT_CARD": [
        "4111 1111 1111 1111",
        "4111-1111-1111-1111",
        "5555555555554444",
        "4111\u00a01111\u20091111\u202f1111",
    ],
    "IBAN_CODE": ["DE89 3704 0044 0532 0130 00", "GB82WEST12345698765432", "FR14 2004 1010 0505 0001 3M02 606"],
    "IP_ADDRESS": ["192.168.1.10", "2001:db8::8a2e:370:7334", "::ffff:192.0.2.1"],
    "PHONE_NUMBER": ["+1 415 555 2671", "(415) 555-2671", "+44 20 7946 0958", "020 7946 0958", "+49 30 901820"],
    "US_SSN": ["536-22-1234", "536 22 1234"],
    "MAC_ADDRESS": ["00:1A:2B:3C:4D:5E", "00-1a-2b-3c-4d-5e", "001a.2b3c.4d5e"],
    "CRYPTO": [
        "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa",
        "3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy",
        "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4",
    ],
    "AWS_ACCESS_KEY": ["AKIAIOSFODNN7EXAMPLE"],
    "GITHUB_TOKEN": ["ghp_" + alnum(36), "github_pat_" + alnum(40)],
    "GITLAB_TOKEN": ["glpat-" + alnum(20)],
    "SLACK_TOKEN": ["xoxb-" + alnum(10, "0123456789") + "-" + alnum(24)],
    "SLACK_WEBHOOK": ["https://hooks.slack.com/services/T" + alnum(8) + "/B" + alnum(8) + "/" + alnum(24)],
    "STRIPE_KEY": ["sk_live_" + alnum(24), "rk_live_" + alnum(24)],
    "ANTHROPIC_KEY": ["sk-ant-api03-" + alnum(40)],
    "OPENAI_KEY": ["sk-proj-" + alnum(48), "sk-" + alnum(48)],
    "GOOGLE_API_KEY": ["AIza" + alnum(35)],
    "NPM_TOKEN": ["npm_" + alnum(36)],
    "PYPI_TOKEN": ["pypi-AgEIcHlwaS5vcmc" + alnum(60)],
    "SENDGRID_KEY": ["SG." + alnum(22) + "." + alnum(43)],
    "TWILIO_KEY": ["AC" + alnum(32, "0123456789abcdef")],
    "TELEGRAM_BOT_TOKEN": ["123456789:" + alnum(35)],
    "DISCORD_BOT_TOKEN": ["M" + alnum(23) + "." + alnum(6) + "." + alnum(27)],
    "JWT": [JWT_SHORT],
    "PRIVATE_KEY": [
        PEM,
        make_pem("EC "),
        make_pem(""),
        make_pem("OPENSSH "),
        make_pem("PGP ").replace("KEY-----", "KEY BLOCK-----"),
    ],
}

# Labelled secrets: (text, the value that must disappear, its entity).
LABELED = [
    ("password: hunter2!", "hunter2!", "LABELED_SECRET"),
    ("DATABASE_PASSWORD=s3cr3t-value", "s3cr3t-value", "LABELED_SECRET"),
    ('{"api_key": "k-12345-abcdef"}', "k-12345-abcdef", "LABELED_SECRET"),
    ("Authorization: Bearer mF_9.B5f-4.1JqM-z2Yx7Tq0", "mF_9.B5f-4.1JqM-z2Yx7Tq0", "BEARER_TOKEN"),
    (
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "AWS_SECRET_KEY",
    ),
]
URL_WITH_CREDENTIALS = ("postgres://admin:Pa55word@db.internal:5432/app", "admin:Pa55word", "URL_CREDENTIALS")

# Must be left exactly as they are.
CLEAN = [
    "Request id 550e8400-e29b-41d4-a716-446655440000 was retried.",
    "Fixed in commit 9fceb02d0ae598e95dc970b74767f19372d61af8 and a1b2c3d.",
    "Use #ff5733, #FFF and rgb(12, 34, 56) for the theme.",
    "ISBN 978-3-16-148410-0 and ISBN 0-306-40615-2 are both cited.",
    "Order 4111111111111112 is not a card (Luhn fails), nor is 1234 5678 9012 3456.",
    "Upgrade from v1.2.3 to 2.10.4, then 10.0.19041 on Windows.",
    "Due 2024-01-15, or 15/01/2024, or Jan 5, 2024 at 10:30:45.",
    "It costs $1,299.99, € 45,00 or 3 000 ₽; about 12.5% off.",
    "Call me later, my number is private. The password is strong.",
    "std::vector and a::b are C++, not IPv6; fe80 is just a word.",
    "Retina icon@2x.png and logo@3x.webp ship with the app.",
    "SSN-like 000-12-3456 and 666-12-3456 and 123-45-6789 are invalid.",
    "The IBAN DE00 3704 0044 0532 0130 00 has bad check digits.",
    "MAC 00:00:00:00:00:00 and ff:ff:ff:ff:ff:ff are placeholders.",
    "Bitcoin-like 1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNb fails its checksum.",
    "A JWT-like eyJub3QganNvbg.eyJhIjoxfQ.c2ln has no JSON header.",
    "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----",
    "ABCDEFGHIJKLMNOPQRSTUVWXYZ ABCDEFGHIJKLMNOP are just capitals.",
    "Score 98.6 on page 1234; 42 items; 3.14159.",
]

ENGLISH = (
    "The committee met on Tuesday to review the proposal. After a long discussion about the budget, "
    "the members agreed that the timeline was realistic, although several of them wanted more detail on "
    "staffing. The chair thanked everyone and closed the meeting shortly before noon."
)
CHINESE = (
    "委员会周二开会审议了这项提案。经过关于预算的长时间讨论，成员们一致认为时间表是现实的，"
    "尽管其中几位希望获得更多关于人员配置的细节。主席感谢了大家，并在中午前不久结束了会议。"
)
JAPANESE = (
    "委員会は火曜日に会合を開き、提案を検討した。予算について長い議論が行われた後、メンバーは"
    "スケジュールが現実的であることに同意したが、数人は人員配置についてさらに詳しい説明を求めた。"
    "議長は全員に感謝し、正午少し前に会議を閉じた。"
)
PERSIAN = (
    "کمیته روز سه‌شنبه برای بررسی پیشنهاد تشکیل جلسه داد. پس از بحثی طولانی درباره بودجه، اعضا توافق کردند "
    "که جدول زمانی واقع‌بینانه است، هرچند چند نفر جزئیات بیشتری درباره نیروی انسانی می‌خواستند."
)


# Shared by the differential tests (incremental open point, compiled prefilter): custom detectors with a
# positive lookbehind and a word boundary, and every planted value a fuzzed text can be built from.
CUSTOM_DETECTORS = [("ORDER_ID", r"(?<=order=)[0-9]{4,}"), ("WORD_CODE", r"\bQX[0-9]{3}\b")]
FUZZ_VALUES = [v for e, vs in POSITIVES.items() if e != "PRIVATE_KEY" for v in vs]
FUZZ_VALUES += [t for t, _, _ in LABELED] + [URL_WITH_CREDENTIALS[0], PEM, JWT_SHORT, "order=12345", "QX123"]


# Issue 10: formats the providers and standards document (examples from their docs where they publish one).
NEW_FORMATS: list[tuple[str, str]] = [
    ("STRIPE_KEY", "sk_test_4eC39HqLyjWDarjtT1zdp7dc"),  # Stripe's own documented test key
    ("STRIPE_KEY", "rk_test_" + alnum(24)),
    ("STRIPE_KEY", "rk_live_" + alnum(24)),
    ("STRIPE_KEY", "rk_prod_" + alnum(24)),
    ("SLACK_TOKEN", "xapp-1-A0123456789-1234567890123-" + alnum(64, "0123456789abcdef")),
    ("SLACK_WEBHOOK", "https://hooks.slack.com/services/T0ABCDEF1/B0ABCDEF12/" + alnum(24)),
    ("SLACK_WEBHOOK", "https://hooks.slack.com/services/T0ABCDEF1/B0ABCDEF/" + alnum(24)),
    ("GITLAB_TOKEN", "glffct-" + alnum(20)),
    ("GITLAB_TOKEN", "glagent-" + alnum(50)),
    ("GITLAB_TOKEN", "gloas-" + alnum(64)),
    ("GITLAB_TOKEN", "glsoat-" + alnum(20)),
    ("GITLAB_TOKEN", "glcbt-64_" + alnum(20)),
    ("GITLAB_TOKEN", "gldt-" + alnum(20)),
    ("GITLAB_TOKEN", "_gitlab_session=" + alnum(32, "0123456789abcdef")),
    ("PYPI_TOKEN", "pypi-AgENdGVzdC5weXBpLm9yZw" + alnum(60)),  # TestPyPI
    ("DISCORD_BOT_TOKEN", "Y" + alnum(23) + "." + alnum(6) + "." + alnum(27)),
    ("DISCORD_BOT_TOKEN", "MTA" + alnum(23) + "." + alnum(6) + "." + alnum(38)),
    ("TELEGRAM_BOT_TOKEN", "12345:" + alnum(35)),
    ("TELEGRAM_BOT_TOKEN", "1234567890123456:" + alnum(35)),
    ("JWT", "eyJhbGciOiJub25lIn0.eyJzdWIiOiIxMjM0NTY3ODkwIn0."),  # unsigned, alg none
    ("JWT", "eyJhbGciOiJub25lIn0.eyJzdWIiOiIxMjM0NTY3ODkwIn0"),  # two parts
    ("IBAN_CODE", "de89 3704 0044 0532 0130 00"),
    ("IBAN_CODE", "AL47-2121-1009-0000-0002-3569-8741"),
    ("IBAN_CODE", "LU28 0019 4006 4475 0000"),
    ("IBAN_CODE", "BE71 0961 2345 6769"),
    ("EMAIL_ADDRESS", "ivan@почта.рф"),
    ("EMAIL_ADDRESS", "ivan@xn--80a1acny.xn--p1ai"),
    ("EMAIL_ADDRESS", "o'brien@example.com"),
    ("EMAIL_ADDRESS", "john!doe@example.com"),
    ("PHONE_NUMBER", "090-1234-5678"),
    ("PHONE_NUMBER", "03-1234-5678"),
    ("PHONE_NUMBER", "09123456789"),
    ("PHONE_NUMBER", "۰۹۱۲۳۴۵۶۷۸۹"),
    ("PHONE_NUMBER", "13812345678"),
    ("CREDIT_CARD", "4111.1111.1111.1111"),
    ("CREDIT_CARD", "4111\t1111\t1111\t1111"),
    ("CREDIT_CARD", "4111\u00b71111\u00b71111\u00b71111"),
    ("CREDIT_CARD", "४१११ ११११ ११११ ११११"),
]

# (text, the value that must disappear, its entity): the label, scheme or host stays.
NEW_LABELED: list[tuple[str, str, str]] = [
    ("github_token: a1b2c3d4e5f6g7", "a1b2c3d4e5f6g7", "LABELED_SECRET"),
    ("accessToken: 'k9Xq2mZ7'", "k9Xq2mZ7", "LABELED_SECRET"),
    ("db_pass=Tr0ub4dor&3", "Tr0ub4dor&3", "LABELED_SECRET"),
    ("apikey_prod: a1b2c3d4e5", "a1b2c3d4e5", "LABELED_SECRET"),
    ("API Key: a1b2c3d4e5f6", "a1b2c3d4e5f6", "LABELED_SECRET"),
    ("secrete = hunter22", "hunter22", "LABELED_SECRET"),
    ('if password == "hunter22":', "hunter22", "LABELED_SECRET"),
    ('password = "correct horse battery"', "correct horse battery", "LABELED_SECRET"),
    ("Passwort: Geheim123", "Geheim123", "LABELED_SECRET"),
    ("mot de passe : Geheim123", "Geheim123", "LABELED_SECRET"),
    ("contraseña: Geheim123", "Geheim123", "LABELED_SECRET"),
    ("senha: Geheim123", "Geheim123", "LABELED_SECRET"),
    ("пароль: Geheim123", "Geheim123", "LABELED_SECRET"),
    ("رمز عبور: Geheim123", "Geheim123", "LABELED_SECRET"),
    ("كلمة المرور: Geheim123", "Geheim123", "LABELED_SECRET"),
    ("पासवर्ड: Geheim123", "Geheim123", "LABELED_SECRET"),
    ("密码：Geheim123", "Geheim123", "LABELED_SECRET"),
    ("请输入密码:Geheim123", "Geheim123", "LABELED_SECRET"),
    ("Authorization: Basic dXNlcjpwYXNzd29yZA==", "dXNlcjpwYXNzd29yZA==", "BEARER_TOKEN"),
    ("redis://:pass@cache.internal", ":pass", "URL_CREDENTIALS"),
    ("postgres://u:p@h/db", "u:p", "URL_CREDENTIALS"),
    ("amqp://guest:gu/e?st@rabbit", "guest:gu/e?st", "URL_CREDENTIALS"),
    ("ghp_" + "Ab1" * 12 + "_dev", "ghp_" + "Ab1" * 12, "GITHUB_TOKEN"),
    ("ghp_" + "Ab1" * 12 + "-x", "ghp_" + "Ab1" * 12, "GITHUB_TOKEN"),
]

# Near-values and prose that must stay exactly as they are.
NOT_VALUES: list[str] = [
    "IBAN LU28 0019 4006 4475 0001 has bad check digits.",
    "IBAN BE71 0961 2345 6768 has bad check digits.",
    'url = "https://url:8000";@something',
    "see text2001:db8::1 here",
    "Windows 10.0.19041.1234 and version 1.2.3.4.5.6.7.",
    "password: required",
    "Token: the smallest unit of text.",
    "Call 0123456789 if the order id is 0123456789.",
    "sk-learn is a library; AKIA is a prefix.",
    "The bearer of this letter, basic training.",
]
FUZZ_VALUES += [v for _, v in NEW_FORMATS] + [t for t, _, _ in NEW_LABELED]


def feed_steps(make, pieces: list[str]) -> list[tuple[str, bool, tuple, int]]:
    """Every step of a fresh filter fed `pieces` then flushed, with `held` after each: what the differential
    tests compare between two implementations, feed by feed."""
    r = make()
    out = []
    for p in pieces:
        s = r.feed(p)
        out.append((s.text, s.stopped, tuple(s.events), r.held))
    s = r.flush()
    out.append((s.text, s.stopped, tuple(s.events), r.held))
    return out
