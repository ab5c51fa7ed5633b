"""Time the gate's value scan, the Redactor and the gate on 100 KB crafted strings (whole and 64-char chunks).

Run: python tests/benchmarks/adversarial_review.py — a row over 1 s is flagged SLOW (review C, issues 10, 11, 17).
"""

import time

from sluicegate import SentenceGate
from sluicegate._gate.values import extract
from sluicegate.redaction import Redactor, redact

N = 100_000


def rep(s):
    return (s * (N // len(s) + 1))[:N]


cases = {
    "dots a.": rep("a."),
    "dash a-": rep("a-"),
    "a@": rep("a@"),
    "x@a.a.": "x@" + rep("a."),
    "digits sp": rep("1 "),
    "digits dash": rep("1-"),
    "digits dot": rep("1."),
    "eq": rep("="),
    "colon sp": rep(": "),
    "pwd=": rep("password="),
    "pwd: a": rep("password: a"),
    "eyJ.": rep("eyJabcde."),
    "han.": rep("中a."),
    "hanlabel": rep("中国."),
    "url www.": rep("www."),
    "http": rep("http://"),
    "idn": rep("xn--a."),
    "sk-": rep("sk-"),
    "longword": rep("abcdefghij"),
    "labelalt": rep("api_key_"),
    "AB12 ": rep("AB12 "),
    "+1 ": rep("+1 "),
    "0 12 ": rep("0 12 "),
    "bearer ": rep("Bearer "),
    "----": rep("-"),
    "BEGIN": "-----BEGIN RSA PRIVATE KEY-----" + rep("-----EN"),
    "apos": rep("'a"),
    "crlf": rep("\r\n"),
    "pct": rep("%"),
    "a.b@": rep("a.b@c"),
    "email long local": rep("a") + "@",
    "dig@": rep("1@"),
    "A.": rep("A. "),
    "U.S.": rep("U.S. "),
    "S1": rep("[S1]"),
    "passage": rep("passage 1 and "),
    "I ": rep("I "),
}
for name, s in cases.items():
    t = time.perf_counter()
    extract(s)
    t1 = time.perf_counter() - t
    t = time.perf_counter()
    redact(s)
    t2 = time.perf_counter() - t
    t = time.perf_counter()
    r = Redactor()
    for i in range(0, len(s), 64):
        r.feed(s[i : i + 64])
    r.flush()
    t3 = time.perf_counter() - t
    t = time.perf_counter()
    g = SentenceGate(["source one"], language="en")
    for i in range(0, len(s), 64):
        if g.feed(s[i : i + 64]).stopped:
            break
    g.flush()
    t4 = time.perf_counter() - t
    flag = " <-- SLOW" if max(t1, t2, t3, t4) > 1.0 else ""
    print(
        f"{name:18s} extract {t1:6.3f}s redact {t2:6.3f}s redactor/64 {t3:6.3f}s gate/64 {t4:6.3f}s{flag}", flush=True
    )
