"""Secret detectors: detect-secrets' regex plugins plus current provider key formats, JWTs, private-key blocks
and labelled assignments (`password: …`, `API_KEY=…`).

Token bodies use possessive quantifiers (`++`, `{n,}+`): a run of key characters is taken whole, never
re-split by backtracking, which keeps 100 KB of base64 linear. A token still growing at the end of the buffer
is a partial match, so it is held until a character that cannot belong to it arrives.
"""

from __future__ import annotations

from . import validators
from .detector import Detector, data_lines

_B = r"(?<![0-9A-Za-z_\-])"  # token start: not inside a longer word
_E = r"(?![0-9A-Za-z_\-])"  # token end

AWS_ACCESS_KEY = Detector("AWS_ACCESS_KEY", r"(?<![0-9A-Z])(?:AKIA|ASIA|ABIA|ACCA|A3T[0-9A-Z])[0-9A-Z]{16}(?![0-9A-Z])")
AWS_SECRET_KEY = Detector(
    "AWS_SECRET_KEY",
    r"(?<![0-9A-Za-z])(?i:aws)[0-9A-Za-z_\-]{0,20}+\s{0,3}[\"']?\s{0,3}(?::|=|=>)\s{0,3}[\"']?"
    r"(?P<v>[0-9A-Za-z/+]{40})(?![0-9A-Za-z/+=])",
)
GITHUB_TOKEN = Detector(
    "GITHUB_TOKEN", _B + r"(?:gh[pousr]_[0-9A-Za-z]{36,255}+|github_pat_[0-9A-Za-z_]{22,255}+)" + _E
)
GITLAB_TOKEN = Detector(
    "GITLAB_TOKEN",
    _B + r"(?:gl(?:pat|dt|rt|ptt|ft|soat|cbt|imt|oas)-[0-9A-Za-z_\-]{20,}+|GR1348941[0-9A-Za-z_\-]{20,}+)" + _E,
)
SLACK_TOKEN = Detector("SLACK_TOKEN", _B + r"xox[aboprse]-[0-9A-Za-z\-]{10,}+" + _E)
SLACK_WEBHOOK = Detector(
    "SLACK_WEBHOOK", r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[0-9A-Za-z_/]{20,}+(?![0-9A-Za-z_/])"
)
STRIPE_KEY = Detector("STRIPE_KEY", _B + r"[rs]k_live_[0-9A-Za-z]{16,}+" + _E)
ANTHROPIC_KEY = Detector("ANTHROPIC_KEY", _B + r"sk-ant-[0-9A-Za-z_\-]{20,}+" + _E)
OPENAI_KEY = Detector("OPENAI_KEY", _B + r"sk-(?!ant-)(?:proj-|svcacct-|admin-)?[0-9A-Za-z_\-]{20,}+" + _E)
GOOGLE_API_KEY = Detector("GOOGLE_API_KEY", _B + r"AIza[0-9A-Za-z_\-]{35}" + _E)
NPM_TOKEN = Detector("NPM_TOKEN", _B + r"npm_[0-9A-Za-z]{36}" + _E)
PYPI_TOKEN = Detector("PYPI_TOKEN", _B + r"pypi-AgEIcHlwaS5vcmc[0-9A-Za-z_\-]{50,}+" + _E)
SENDGRID_KEY = Detector("SENDGRID_KEY", _B + r"SG\.[0-9A-Za-z_\-]{22}\.[0-9A-Za-z_\-]{43}" + _E)
TWILIO_KEY = Detector("TWILIO_KEY", r"(?<![0-9A-Za-z])(?:AC|SK)[0-9a-f]{32}(?![0-9A-Za-z])")
TELEGRAM_BOT_TOKEN = Detector("TELEGRAM_BOT_TOKEN", r"(?<![0-9])[0-9]{8,10}:[0-9A-Za-z_\-]{35}" + _E)
DISCORD_BOT_TOKEN = Detector(
    "DISCORD_BOT_TOKEN", _B + r"[MNO][0-9A-Za-z_\-]{23,25}\.[0-9A-Za-z_\-]{6}\.[0-9A-Za-z_\-]{27,}+" + _E
)
# Three base64url parts; the header must decode to a JSON object. The signature may be empty (alg "none").
JWT = Detector("JWT", _B + r"eyJ[0-9A-Za-z_\-]{5,}+\.[0-9A-Za-z_\-]{2,}+\.[0-9A-Za-z_\-]*+" + _E, validators.jwt)

# Private-key blocks of every kind, from the BEGIN line to the first END line. The body is a tempered
# run (any text that is not the start of '-----END '), possessive so it can never reach past that END.
_PEM_OPEN = r"-----BEGIN (?:[0-9A-Z]+ )*PRIVATE KEY(?: BLOCK)?-----"
_SSH2_OPEN = r"---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----"
_PUTTY_OPEN = r"PuTTY-User-Key-File-[0-9]+: "
PRIVATE_KEY = Detector(
    "PRIVATE_KEY",
    rf"{_PEM_OPEN}(?:[^\-]++|-(?!----END ))*+-----END (?:[0-9A-Z]+ )*PRIVATE KEY(?: BLOCK)?-----"
    rf"|{_SSH2_OPEN}(?:[^\-]++|-(?!--- END ))*+---- END SSH2 ENCRYPTED PRIVATE KEY ----"
    rf"|{_PUTTY_OPEN}(?:[^P]++|P(?!rivate-MAC: ))*+Private-MAC: [0-9A-Fa-f]++",
    opener=rf"{_PEM_OPEN}|{_SSH2_OPEN}|{_PUTTY_OPEN}",
)


def _labels() -> str:
    words = sorted(data_lines("secret_labels.txt"), key=len, reverse=True)
    return "|".join(word.replace("_", "[_\\-]?") for word in words)


# `DATABASE_PASSWORD=…`, `"api_key": "…"`, `Password: …`. Only the value is replaced. A prefix such as
# `DATABASE_` needs no pattern: the label may start right after `_`, `-` or `.`.
LABELED_SECRET = Detector(
    "LABELED_SECRET",
    r"(?<![0-9A-Za-z])(?i:" + _labels() + r")(?![0-9A-Za-z])"
    r"[\"']?\s{0,3}(?::|=|:=|=>)\s{0,3}[\"']?(?P<v>[^\s\"'`<>]{3,}+)",
)

DETECTORS = (
    PRIVATE_KEY,
    AWS_ACCESS_KEY,
    AWS_SECRET_KEY,
    GITHUB_TOKEN,
    GITLAB_TOKEN,
    SLACK_WEBHOOK,
    SLACK_TOKEN,
    STRIPE_KEY,
    ANTHROPIC_KEY,
    OPENAI_KEY,
    GOOGLE_API_KEY,
    NPM_TOKEN,
    PYPI_TOKEN,
    SENDGRID_KEY,
    TWILIO_KEY,
    TELEGRAM_BOT_TOKEN,
    DISCORD_BOT_TOKEN,
    JWT,
    LABELED_SECRET,
)
