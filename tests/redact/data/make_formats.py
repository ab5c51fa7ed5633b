"""Writes formats.jsonl: documented formats of every entity the Redactor claims, one sample per line, with the
expected span of the value; and negatives (near-values, prose) that must stay text.

    python tests/redact/data/make_formats.py

Values are the examples providers and standards publish where they publish one (AWS's AKIAIOSFODNN7EXAMPLE,
Stripe's sk_test_4eC39HqLyjWDarjtT1zdp7dc, jwt.io's token, the card networks' test numbers, the SWIFT IBAN
registry's examples, libphonenumber's example numbers, BIP-173 vectors); otherwise made here in the documented
shape (prefix, alphabet, length) from a fixed seed. Checksummed values are checked before they are written.
Each line: {"entity", "source", "text", "spans": [[start, end]], "note"}; a negative has "entity": null.
"""

from __future__ import annotations

import base64
import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2] / "src"))

from sluicegate.redaction import validators  # noqa: E402

rng = random.Random(10)
A = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
HEX = "0123456789abcdef"


def r(n: int, alphabet: str = A) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def pem(kind: str, lines: int = 4) -> str:
    body = "\n".join(r(64, A + "+/") for _ in range(lines))
    return f"-----BEGIN {kind}-----\n{body}\n-----END {kind}-----"


# (entity, source, value, template): the template's {} is the value.
POS: list[tuple[str, str, str, str]] = []


def add(entity: str, source: str, values: list[str], templates: tuple[str, ...] = ("Use {} here.",)) -> None:
    for i, v in enumerate(values):
        POS.append((entity, source, v, templates[i % len(templates)]))


T_SECRET = ("export KEY={}", "The key is {} — keep it safe.", 'config = {"token": "{}"}', "token:\n{}\nend")
T_PII = ("Contact: {}.", "请联系{}谢谢", "Mein Wert ist {} und mehr.", "{}")

# --- secrets ---------------------------------------------------------------------------------------------------
add("AWS_ACCESS_KEY", "AWS docs (IAM access keys)", ["AKIAIOSFODNN7EXAMPLE", "ASIA" + r(16, A[:26] + A[52:])], T_SECRET)
POS.append(
    (
        "AWS_SECRET_KEY",
        "AWS docs (credentials file)",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "aws_secret_access_key = {}",
    )
)
add(
    "GITHUB_TOKEN",
    "GitHub docs (token formats)",
    [
        "ghp_" + r(36),
        "gho_" + r(36),
        "ghu_" + r(36),
        "ghs_" + r(36),
        "ghr_" + r(36),
        "github_pat_11A" + r(19) + "_" + r(59),
    ],
    T_SECRET,
)
add(
    "GITLAB_TOKEN",
    "GitLab docs (token prefixes)",
    [
        "glpat-" + r(20),
        "glpat-" + r(27) + ".01." + r(9, HEX),
        "gldt-" + r(20),
        "glrt-" + r(20),
        "glrt-t1_" + r(27) + ".01." + r(9, HEX),
        "glptt-" + r(40, HEX),
        "glft-" + r(20),
        "glffct-" + r(20),
        "glimt-" + r(25),
        "glagent-" + r(50),
        "gloas-" + r(64),
        "glsoat-" + r(20),
        "glcbt-64_" + r(20),
        "GR1348941" + r(20),
        "_gitlab_session=" + r(32, HEX),
    ],
    T_SECRET,
)
add(
    "SLACK_TOKEN",
    "Slack docs (token types)",
    [
        "xoxb-" + r(11, "0123456789") + "-" + r(13, "0123456789") + "-" + r(24),
        "xoxp-" + r(11, "0123456789") + "-" + r(11, "0123456789") + "-" + r(13, "0123456789") + "-" + r(32, HEX),
        "xapp-1-A" + r(10, A[:26] + A[52:]) + "-" + r(13, "0123456789") + "-" + r(64, HEX),
    ],
    T_SECRET,
)
add(
    "SLACK_WEBHOOK",
    "Slack docs (incoming webhooks)",
    [
        "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
        "https://hooks.slack.com/services/T0" + r(8, A[:26]) + "/B0" + r(10, A[:26]) + "/" + r(24),
    ],
)
add(
    "STRIPE_KEY",
    "Stripe docs (API keys)",
    [
        "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
        "sk_live_" + r(24),
        "rk_live_" + r(24),
        "rk_test_" + r(24),
        "sk_test_" + r(99),
    ],
    T_SECRET,
)
add(
    "OPENAI_KEY",
    "OpenAI key formats",
    [
        "sk-proj-" + r(156, A + "_-"),
        "sk-svcacct-" + r(120, A + "_-"),
        "sk-admin-" + r(120, A + "_-"),
        "sk-" + r(20) + "T3BlbkFJ" + r(20),
    ],
    T_SECRET,
)
add(
    "ANTHROPIC_KEY",
    "Anthropic key format",
    ["sk-ant-api03-" + r(93, A + "_-") + "AA", "sk-ant-admin01-" + r(93) + "AA"],
    T_SECRET,
)
add("GOOGLE_API_KEY", "Google Cloud docs (API keys)", ["AIza" + r(35, A + "_-")], T_SECRET)
add("NPM_TOKEN", "npm docs (access tokens)", ["npm_" + r(36)], T_SECRET)
add(
    "PYPI_TOKEN",
    "PyPI / TestPyPI API tokens",
    ["pypi-AgEIcHlwaS5vcmc" + r(70, A + "_-"), "pypi-AgENdGVzdC5weXBpLm9yZw" + r(70, A + "_-")],
    T_SECRET,
)
add("SENDGRID_KEY", "SendGrid docs (API keys)", ["SG." + r(22, A + "_-") + "." + r(43, A + "_-")], T_SECRET)
add("TWILIO_KEY", "Twilio docs (Account SID, API key SID)", ["AC" + r(32, HEX), "SK" + r(32, HEX)], T_SECRET)
add(
    "TELEGRAM_BOT_TOKEN",
    "Telegram Bot API docs",
    ["123456789:AA" + r(33, A + "_-"), "1234567890:AA" + r(33, A + "_-"), "12345:AA" + r(33, A + "_-")],
    T_SECRET,
)
add(
    "DISCORD_BOT_TOKEN",
    "Discord developer docs (bot token shape)",
    [
        "MT" + r(24) + "." + r(6) + "." + r(38, A + "_-"),
        "Nz" + r(22) + "." + r(6) + "." + r(27),
        "Y" + r(25) + "." + r(6) + "." + r(38),
    ],
    T_SECRET,
)
add(
    "JWT",
    "jwt.io example; RFC 7519 unsecured JWT",
    [
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ"
        ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
        "eyJhbGciOiJub25lIn0.eyJpc3MiOiJqb2UiLCJleHAiOjEzMDA4MTkzODB9.",
        b64url(b'{"alg":"RS256","kid":"k1"}')
        + "."
        + b64url(json.dumps({"sub": "u", "n": r(400)}).encode())
        + "."
        + r(342, A + "_-"),
    ],
    T_SECRET,
)
add(
    "PRIVATE_KEY",
    "RFC 7468 / OpenSSH / OpenPGP",
    [
        pem("RSA PRIVATE KEY"),
        pem("OPENSSH PRIVATE KEY"),
        pem("EC PRIVATE KEY"),
        pem("PRIVATE KEY"),
        pem("ENCRYPTED PRIVATE KEY"),
        pem("PGP PRIVATE KEY BLOCK"),
    ],
    ("key:\n{}\nthat was it.",),
)
for text, value in [
    ("postgres://admin:Pa55word@db.internal:5432/app", "admin:Pa55word"),
    ("mysql://root:Pa55/w0rd@host", "root:Pa55/w0rd"),
    ("redis://:s3cret@cache:6379/0", ":s3cret"),
    ("mongodb+srv://app:Zx9-q1@cluster0.example.net/db", "app:Zx9-q1"),
    ("amqp://guest:guest@rabbit:5672/", "guest:guest"),
    ("https://user:pass@example.com/private", "user:pass"),
]:
    POS.append(("URL_CREDENTIALS", "RFC 3986 userinfo", value, text.replace(value, "{}")))
for text, value in [
    ("Authorization: Bearer mF_9.B5f-4.1JqM", "mF_9.B5f-4.1JqM"),
    ("curl -H 'Authorization: Bearer " + "x" * 0 + "0a1b2c3d4e5f6g7h8i9j'", "0a1b2c3d4e5f6g7h8i9j"),
    ("Authorization: Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==", "QWxhZGRpbjpvcGVuIHNlc2FtZQ=="),
]:
    POS.append(("BEARER_TOKEN", "RFC 6750 / RFC 7617 examples", value, text.replace(value, "{}")))
for text, value in [
    ("password: hunter2!", "hunter2!"),
    ("DATABASE_PASSWORD=s3cr3t-value", "s3cr3t-value"),
    ('{"api_key": "k-12345-abcdef"}', "k-12345-abcdef"),
    ('password = "correct horse battery staple"', "correct horse battery staple"),
    ("API Key: a1b2c3d4e5f6", "a1b2c3d4e5f6"),
    ("githubToken: 'q9Xq2mZ7w'", "q9Xq2mZ7w"),
    ("db_pass=Tr0ub4dor&3", "Tr0ub4dor&3"),
    ('if pwd == "letmein42":', "letmein42"),
    ("Passwort: Geheim123", "Geheim123"),
    ("mot de passe : Secret123", "Secret123"),
    ("contraseña: Secreto123", "Secreto123"),
    ("senha: Segredo123", "Segredo123"),
    ("пароль: Секрет123", "Секрет123"),
    ("رمز عبور: Ramz1234", "Ramz1234"),
    ("كلمة المرور: Sirr1234", "Sirr1234"),
    ("पासवर्ड: Guptshabd1", "Guptshabd1"),
    ("密码：Mima12345", "Mima12345"),
]:
    POS.append(("LABELED_SECRET", "labelled assignments (10 languages)", value, text.replace(value, "{}", 1)))

# --- personal data ---------------------------------------------------------------------------------------------
add(
    "EMAIL_ADDRESS",
    "RFC 5322 / RFC 6531 shapes",
    [
        "user@example.com",
        "jane.doe+news@mail.example.co.uk",
        "o'brien@example.ie",
        "john!doe@example.org",
        "ivan@почта.рф",
        "ivan@xn--80a1acny.xn--p1ai",
        "josé@exämple.org",
        "x" * 70 + "@example.com",
    ],
    T_PII,
)
add(
    "CREDIT_CARD",
    "card networks' test numbers (Stripe/Adyen docs)",
    [
        "4242424242424242",
        "4000 0566 5566 5556",
        "5555-5555-5555-4444",
        "2223003122003222",
        "3782 822463 10005",
        "6011111111111117",
        "3056 9300 0902 0004",
        "3566002020360505",
        "6200000000000005",
        "4111.1111.1111.1111",
        "4111\u00a01111\u00a01111\u00a01111",
        "४१११ ११११ ११११ ११११",
    ],
    T_PII,
)
add(
    "IBAN_CODE",
    "SWIFT IBAN registry examples",
    [
        "DE89370400440532013000",
        "GB29 NWBK 6016 1331 9268 19",
        "FR14 2004 1010 0505 0001 3M02 606",
        "ES9121000418450200051332",
        "IT60X0542811101000000123456",
        "NL91ABNA0417164300",
        "BE68 5390 0754 7034",
        "CH9300762011623852957",
        "AT61 1904 3002 3457 3201",
        "LU28 0019 4006 4475 0000",
        "AL47-2121-1009-0000-0002-3569-8741",
        "pl61 1090 1014 0000 0712 1981 2874",
        "SE4550000000058398257466",
        "NO9386011117947",
    ],
    T_PII,
)
add(
    "PHONE_NUMBER",
    "libphonenumber example numbers, national and international forms",
    [
        "+1 415 555 2671",
        "(415) 555-2671",
        "+44 20 7946 0958",
        "020 7946 0958",
        "+49 30 901820",
        "+33 1 23 45 67 89",
        "01 23 45 67 89",
        "+81 90-1234-5678",
        "090-1234-5678",
        "+98 912 345 6789",
        "0912 345 6789",
        "09123456789",
        "+86 138 1234 5678",
        "13812345678",
        "+91 98765 43210",
    ],
    T_PII,
)
add("US_SSN", "SSA format (non-sample numbers)", ["536-22-1234", "536 22 1234"], T_PII)
add(
    "IP_ADDRESS",
    "RFC 5737 / RFC 3849 documentation addresses",
    ["192.0.2.10", "198.51.100.7", "2001:db8::8a2e:370:7334", "::ffff:192.0.2.1", "fe80::1ff:fe23:4567:890a"],
    T_PII,
)
add("MAC_ADDRESS", "IEEE 802 notations", ["00:1A:2B:3C:4D:5E", "00-1a-2b-3c-4d-5e", "001a.2b3c.4d5e"], T_PII)
add(
    "CRYPTO",
    "Bitcoin wiki / BIP-173 / BIP-350",
    [
        "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa",
        "3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy",
        "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4",
    ],
    T_PII,
)

NEG = [
    "Request id 550e8400-e29b-41d4-a716-446655440000 was retried.",
    "Fixed in commit 9fceb02d0ae598e95dc970b74767f19372d61af8.",
    "Use #ff5733 and rgb(12, 34, 56) for the theme.",
    "ISBN 978-3-16-148410-0 is cited.",
    "Order 4111111111111112 is not a card (Luhn fails).",
    "Upgrade from v1.2.3 to 10.0.19041.1234 on Windows.",
    "Due 2024-01-15 at 10:30:45.",
    "It costs $1,299.99 or 3 000 ₽.",
    "Call me later, my number is private. The password is strong.",
    "std::vector and a::b are C++, not IPv6.",
    "Retina icon@2x.png ships with the app.",
    "SSN-like 000-12-3456 and 123-45-6789 are invalid.",
    "The IBAN DE00 3704 0044 0532 0130 00 has bad check digits.",
    "IBAN LU28 0019 4006 4475 0001 has bad check digits.",
    "IBAN BE71 0961 2345 6768 has bad check digits.",
    "MAC 00:00:00:00:00:00 is a placeholder.",
    "Bitcoin-like 1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNb fails its checksum.",
    "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----",
    'url = "https://url:8000";@something',
    "see text2001:db8::1 here",
    "password: required",
    "Password: (optional)",
    "Token: the smallest unit of text.",
    "sk-learn is a library and AKIA is a prefix.",
    "The bearer of this letter has basic training.",
    "Call 0123456789 if the order id is 0123456789.",
    "Score 98.6 on page 1234; 42 items; 3.14159.",
    "Visit https://example.com:8443/docs for details.",
    "Publishable keys like pk_test_" + r(24) + " are meant to be public.",
    "The committee met on Tuesday to review the proposal and closed before noon.",
]


# Formats we decline, with the reason (the blind-spot list in docs/redactor.md): counted apart in the table.
DECLINED = [
    ("EMAIL_ADDRESS", "user@例子.中国", "Contact: {}.", "Han-script domains: text glued to an address stays text"),
    ("EMAIL_ADDRESS", "user@example。com", "{}", "the ideographic full stop is prose punctuation"),
    (
        "CREDIT_CARD",
        "4111 1111 1111 1111",
        "Card {} 2027 123",
        "a card followed by more than 4 stray digits in its run",
    ),
    ("PHONE_NUMBER", "020 7946 0958", "room 120 {}", "a phone number right after a stray digit group"),
    ("PHONE_NUMBER", "8 912 345-67-89", "Звоните {}", "Russian trunk prefix 8 (not a trunk 0)"),
    ("GITHUB_TOKEN", "gh\u0440_" + r(36), "{}", "homoglyphs inside a token prefix are not folded"),
]


def main() -> None:
    lines = []
    for entity, value, template, reason in DECLINED:
        text = template.replace("{}", value, 1)
        start = text.index(value)
        lines.append(
            {
                "entity": entity,
                "source": "declined",
                "text": text,
                "spans": [[start, start + len(value)]],
                "declined": reason,
            }
        )
    for entity, source, value, template in POS:
        text = template.replace("{}", value, 1)
        start = text.index(value)
        lines.append({"entity": entity, "source": source, "text": text, "spans": [[start, start + len(value)]]})
        if entity == "CREDIT_CARD":
            assert validators.credit_card(value.translate({0xA0: None})) or not value.isascii(), value
        if entity == "IBAN_CODE":
            assert validators.iban(value), value
    for text in NEG:
        lines.append({"entity": None, "source": "near-values and prose", "text": text, "spans": []})
    out = HERE / "formats.jsonl"
    out.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), encoding="utf-8")
    print(f"wrote {len(lines)} samples to {out}")


if __name__ == "__main__":
    main()
