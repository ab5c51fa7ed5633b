"""Write llm_stream_guardrails.json: the cases of llm-stream-guardrails (roshcompanylabs/llm-stream-guardrails, MIT),
transcribed from its test files and bench/corpus.mjs at the commits named in README.md (the repository is in the
code-search index only, so its files were read there, not fetched). Run by hand: python make_lsg.py.
"""

import json
from pathlib import Path

cases = []


def pos(origin, text, *values, entity=None):
    spans = []
    for v in values:
        i = text.find(v)
        assert i >= 0, (text, v)
        spans.append([i, i + len(v)])
    cases.append({"origin": origin, "entity": entity, "text": text, "spans": spans, "positive": True})


def neg(origin, text):
    cases.append({"origin": origin, "entity": None, "text": text, "spans": [], "positive": False})


C = "bench/corpus.mjs"
CLEAN = [
    'const id = "550e8400-e29b-41d4-a716-446655440000";',
    "commit 9f2b1c4e8a7d6039fedcba9876543210abcdef12 landed",
    "background: #A3C1DA; border: #ff00ff;",
    "upgraded from 1.2.3 to 10.44.201 last night",
    "listening on 127.0.0.1:8080 and 0.0.0.0:3000",
    "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "GIT SHA " + "AC" + "1234567890ABCDEF" * 2 + "12 built ok",
    "docker image sha " + "AC" + "0123456789abcdef" * 2 + " ready",
    "Order #100-2039-4471 shipped on Tuesday",
    "Invoice INV-2026-0098231 is now paid",
    "Tracking number 1Z999AA10123456784 with UPS",
    "SKU 4820-9931-0027 is out of stock",
    "Your order 4111 1111 1111 1112 could not be found",
    "Reference 100 20 3000 in the ledger",
    "Batch 372 45 9912 processed",
    "Revenue grew 45% to 1,250,000 in Q3 2026",
    "The meeting is at 14:30 on 2026-09-20",
    "It weighs 1200 grams and costs 39.99 euros",
    "We shipped 5558675309 events last month",
    "Between 2019 and 2026 the figure tripled",
    "Room 405, floor 12, building 3",
    "ISBN 978-3-16-148410-0 is the second edition",
    "License plate ABC 123 registered",
    "Serial 372-8891-0021 on the back panel",
    "Flight BA 2490 departs at noon",
    "The quick brown fox jumps over the lazy dog repeatedly.",
    "Cafe naive resume: accented words such as cafe, naive and resume.",
    "هذا نص عربي عادي لا يحتوي على أي بيانات حساسة على الإطلاق.",
    "日本語のテキストです。機密情報は含まれていません。",
    "Ceci est un texte francais tout a fait ordinaire.",
    "See [the docs](https://example.com/guide?page=2#section) for details",
    "Run `npm install express@4.18.2` then restart",
    "| col a | col b |\n| --- | --- |\n| 1 | 2 |",
    "Visit https://api.service.io/v1/users/12345/profile now",
    "contact us @support or @sales for help",
    "the host is db-primary@cluster internal only",
    "IBAN GB82 WEST 1234 5698 7654 33 is invalid",
    "card 1234 5678 9012 3456 was declined",
    "sk-8 and sk-short are model names",
]
for t in CLEAN:
    neg(C + " CLEAN", t)
S = [
    ("email", "write to jane.doe@acme-corp.com today", "jane.doe@acme-corp.com"),
    ("email", "first+tag@sub.domain.org bounced", "first+tag@sub.domain.org"),
    ("creditCard", "card 4111 1111 1111 1111 charged", "4111 1111 1111 1111"),
    ("creditCard", "card 5500-0000-0000-0004 on file", "5500-0000-0000-0004"),
    ("creditCard", "card 4111\u00a01111\u00a01111\u00a01111 (nbsp)", "4111\u00a01111\u00a01111\u00a01111"),
    ("secret", "key sk-abcdefghijklmnopqrstuvwxyz123456 here", "sk-abcdefghijklmnopqrstuvwxyz123456"),
    (
        "secret",
        "key sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789 here",
        "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789",
    ),
    ("secret", "aws AKIAIOSFODNN7EXAMPLE creds", "AKIAIOSFODNN7EXAMPLE"),
    ("secret", "gh ghp_abcdefghijklmnopqrstuvwxyz0123456789 token", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"),
    ("secret", "stripe sk_live_abcdefghij0123456789 key", "sk_live_abcdefghij0123456789"),
    (
        "secret",
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEvQIBADANBgkq\n-----END RSA PRIVATE KEY-----",
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEvQIBADANBgkq\n-----END RSA PRIVATE KEY-----",
    ),
    ("ssn", "ssn 123-45-6789 on file", "123-45-6789"),
    ("iban", "iban GB82 WEST 1234 5698 7654 32 verified", "GB82 WEST 1234 5698 7654 32"),
    ("phone", "call 555-867-5309 now", "555-867-5309"),
    ("phone", "call +1 555 867 5309 now", "+1 555 867 5309"),
]
for e, t, v in S:
    pos(C + " SENSITIVE", t, v, entity=e)

L = "test/labeled.test.js"
for t, v in [
    ("Password: TEST_PASSWORD_0001", "TEST_PASSWORD_0001"),
    ("CVV: CVV-TEST-001", "CVV-TEST-001"),
    ("Passport: PASSPORT-TEST-000001", "PASSPORT-TEST-000001"),
    ("Account Number: ACCOUNT-TEST-000001", "ACCOUNT-TEST-000001"),
    ("API Key: sk-test-0000000001", "sk-test-0000000001"),
    ("Date of Birth: 1988-04-12", "1988-04-12"),
    ("Government ID = ID-TEST-0021", "ID-TEST-0021"),
    ("2FA code: 000001", "000001"),
    ("SECRET_KEY=TEST_SECRET_KEY_0001", "TEST_SECRET_KEY_0001"),
    ("PRIVATE_KEY=TEST_PRIVATE_KEY_0001", "TEST_PRIVATE_KEY_0001"),
    ("ACCESS_TOKEN=TEST_ACCESS_TOKEN_0001", "TEST_ACCESS_TOKEN_0001"),
    ("CLIENT_SECRET=TEST_CLIENT_SECRET_0001", "TEST_CLIENT_SECRET_0001"),
    ("DATABASE_PASSWORD=TEST_DATABASE_PASSWORD_0001", "TEST_DATABASE_PASSWORD_0001"),
    ("ADMIN_PASSWORD=TEST_ADMIN_PASSWORD_0001", "TEST_ADMIN_PASSWORD_0001"),
    ("Password: hunter2", "hunter2"),
]:
    pos(L, t, v, entity="labeledSensitive")
pos(
    L,
    "CVV: CVV-TEST-001 and Password: TEST_PASSWORD_0001 done",
    "CVV-TEST-001",
    "TEST_PASSWORD_0001",
    entity="labeledSensitive",
)
for t in ["interface User { token: string }", "Product Name: Blue Widget", "IP Address: 192.0.2.1"]:
    neg(L + " (ambiguous labels not in the defaults)", t)

D = "test/detectors.test.js"
neg(D, "order reference 4111 1111 1111 1112 shipped")
for t in [
    "the year 2026 was fine",
    "version 1.2.3 released",
    "we shipped 1500 units",
    "call it 99 problems",
    "the sk-8 model",
    "id 5558675309 ok",
]:
    neg(D, t)
for t, v in [
    ("key sk-abcdefghijklmnopqrstuvwxyz123456", "sk-abcdefghijklmnopqrstuvwxyz123456"),
    ("aws AKIAIOSFODNN7EXAMPLE here", "AKIAIOSFODNN7EXAMPLE"),
    ("token ghp_abcdefghijklmnopqrstuvwxyz0123456789", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"),
    ("google AIzaSyA1234567890abcdefghijklmnopqrstuvw here", "AIzaSyA1234567890abcdefghijklmnopqrstuvw"),
    (
        "jwt eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
        "dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk done",
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk",
    ),
    ("call 555-867-5309 now", "555-867-5309"),
    ("call +1 555 867 5309 now", "+1 555 867 5309"),
]:
    pos(D, t, v)
for a in ["a@b.co", "john.doe@example.com", "first+tag@sub.domain.org", "user_name99@mail-server.net"]:
    pos(D, f"send to {a} now", a, entity="email")
pos(
    D,
    "mail a@b.co card 4111 1111 1111 1111 key sk-abcdefghijklmnopqrstuvwxyz123456",
    "a@b.co",
    "4111 1111 1111 1111",
    "sk-abcdefghijklmnopqrstuvwxyz123456",
)
cases.append(
    {
        "origin": D,
        "entity": "secret",
        "text": "-----BEGIN RSA PRIVATE KEY----- blah",
        "spans": [],
        "positive": True,
        "open_block": True,
    }
)

R = "test/redteam.test.js"
for sep in [
    "\u00a0",
    "\u2002",
    "\u2003",
    "\u2007",
    "\u2009",
    "\u202f",
    "\u205f",
    "\u3000",
    "\u2010",
    "\u2011",
    "\u2012",
    "\u2013",
    "\u2212",
    " ",
    "-",
]:
    card = f"4111{sep}1111{sep}1111{sep}1111"
    pos(R + " (Unicode separators)", f"Your card {card} was charged.", card, entity="creditCard")
for hidden in ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u0301"]:
    card = f"4111{hidden} 1111 1111 1111"
    pos(R + " (zero-width and combining)", f"card {card} ok", card, entity="creditCard")
pos(R, "card ４１１１ １１１１ １１１１ １１１１ ok", "４１１１ １１１１ １１１１ １１１１", entity="creditCard")
pos(R, "mail \u0430dmin@corp.com now", "\u0430dmin@corp.com", entity="email")
for cred in [
    "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789",
    "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789",
    "sk_live_abcdefghij0123456789",
    "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
    "glpat-abcdefghijklmnopqrstuv",
    "AKIAIOSFODNN7EXAMPLE",
    "AIzaSyA1234567890abcdefghijklmnopqrstuvw",
    "npm_abcdefghijklmnopqrstuvwxyz0123456789",
    "SG.abcdefghijklmnop_1234.abcdefghijklmnop_5678",
    "xoxb-1234567890-abcdefghij",
]:
    pos(R + " (.env dump)", f"API_KEY={cred}", cred, entity="secret")
pos(R, "ssn 123-45-6789 here", "123-45-6789", entity="ssn")
pos(R, "iban GB82 WEST 1234 5698 7654 32 here", "GB82 WEST 1234 5698 7654 32", entity="iban")
neg(R, "ref GB82 WEST 1234 5698 7654 33 here")
body = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ" + "A" * 200
pem = f"-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----"
pos(R, f"here it is:\n{pem}\ndone", pem, entity="secret")
key = "sk-abcdefghijklmnopqrstuvwxyz123456"
pos(R, f"token {key} end", key, entity="secret")
for t in [
    "iban GB82 WEST 1234 5698 7654 32 verified",
    "GB82 WEST 1234 5698 7654 32 and more",
    "GB82 WEST 1234 5698 7654 32",
]:
    pos(R + " (space-separated IBAN)", t, "GB82 WEST 1234 5698 7654 32", entity="iban")
neg(R, "ORDER ABC 1234 DEF 5678 GHI shipped to the depot this morning")
pos("test/precision.test.js", "ssn 123-45-6789 on file", "123-45-6789", entity="ssn")
neg("test/precision.test.js", "build AC1234567890ABCDEF1234567890ABCDEF12 ok")
neg("test/precision.test.js", "Reference 100 20 3000 in the ledger")
print(sum(c["positive"] for c in cases), len(cases))
Path(__file__).with_name("llm_stream_guardrails.json").write_text(
    json.dumps(cases, ensure_ascii=False, indent=1), encoding="utf-8"
)
