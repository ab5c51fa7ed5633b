"""Secret detectors: detect-secrets' regex plugins plus current provider key formats, JWTs, private-key blocks
and labelled assignments (`password: …`, `API_KEY=…`).

Token bodies use possessive quantifiers (`++`, `{n,}+`): a run of key characters is taken whole, never
re-split by backtracking, which keeps 100 KB of base64 linear. A token still growing at the end of the buffer
is a partial match, so it is held until a character that cannot belong to it arrives.
"""

from __future__ import annotations

from . import labels, validators
from .detector import LOOKBEHIND, Detector

_B = r"(?<![0-9A-Za-z_\-])"  # token start: not inside a longer word
_E = r"(?![0-9A-Za-z_\-])"  # token end
_T = r"[0-9A-Za-z_\-]"  # a token character
# A long key wrapped onto the next line by a fixed-width display: the next line continues it only if it is one
# run of key characters holding both a letter and a digit (a prose word or a list number `2.` is not taken).
_WRAP = r"(?:\r?\n(?:[A-Za-z_\-]++[0-9]|[0-9]++[A-Za-z_\-])[0-9A-Za-z_\-]*+)?"

AWS_ACCESS_KEY = Detector(
    "AWS_ACCESS_KEY",
    r"(?<![0-9A-Z])(?:AKIA|ASIA|ABIA|ACCA|A3T[0-9A-Z])[0-9A-Z]{16}(?![0-9A-Z])",
    prefix=r"(?:AKIA|ASIA|ABIA|ACCA|A3T[0-9A-Z])[0-9A-Z]",
)
_AWS_LABEL = r"(?i:aws)[0-9A-Za-z_\-]{0,20}+\s{0,3}[\"']?\s{0,3}(?::|=|=>)\s{0,3}[\"']?"
AWS_SECRET_KEY = Detector(
    "AWS_SECRET_KEY",
    r"(?<![0-9A-Za-z])" + _AWS_LABEL + r"(?P<v>[0-9A-Za-z/+]{40})(?![0-9A-Za-z/+=])",
    prefix=_AWS_LABEL + r"(?P<v>[0-9A-Za-z/+])",
)
# A GitHub token may be followed by '_' or '-' (`ghp_…_suffix` in a variable name): only letters and digits end it.
GITHUB_TOKEN = Detector(
    "GITHUB_TOKEN",
    _B + r"(?:gh[pousr]_[0-9A-Za-z]{36,255}+|github_pat_[0-9A-Za-z_]{22,255}+)" + _WRAP + r"(?![0-9A-Za-z])",
    prefix=r"gh[pousr]_[0-9A-Za-z]|github_pat_[0-9A-Za-z_]",
)
# Every GitLab token family (gitlab.com docs, "Token prefixes"), the routable forms with their `.xx.crc`
# suffix (`glpat-….01.0j1rn5p3x`, `glrt-t1_…`), and the session cookie.
_GITLAB_PREFIX = r"gl(?:pat|dt|rt|ptt|ft|ffct|soat|cbt|imt|oas|agent|wt|isa)-|GR1348941"
GITLAB_TOKEN = Detector(
    "GITLAB_TOKEN",
    _B + rf"(?:(?:{_GITLAB_PREFIX}){_T}{{20,}}+(?:\.[0-9A-Za-z]{{2,}}+)*+|_gitlab_session=[0-9a-f]{{32}})" + _E,
    prefix=rf"(?:{_GITLAB_PREFIX}){_T}|_gitlab_session=[0-9a-f]",
)
SLACK_TOKEN = Detector(
    "SLACK_TOKEN",
    _B + r"(?:xox[aboprse]|xapp)-[0-9A-Za-z\-]{10,}+" + _WRAP + _E,
    prefix=r"(?:xox[aboprse]|xapp)-[0-9A-Za-z]",
)
SLACK_WEBHOOK = Detector(
    "SLACK_WEBHOOK",
    r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[0-9A-Za-z_/]{20,}+(?![0-9A-Za-z_/])",
    prefix=r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[0-9A-Za-z_]",
)
# Secret and restricted keys in live, test and sandbox (`prod`) modes; publishable `pk_` keys are public.
STRIPE_KEY = Detector(
    "STRIPE_KEY",
    _B + r"[rs]k_(?:live|test|prod)_[0-9A-Za-z]{16,}+" + _WRAP + _E,
    prefix=r"[rs]k_(?:live|test|prod)_[0-9A-Za-z]",
)
ANTHROPIC_KEY = Detector(
    "ANTHROPIC_KEY", _B + r"sk-ant-[0-9A-Za-z_\-]{20,}+" + _WRAP + _E, prefix=r"sk-ant-[0-9A-Za-z_\-]"
)
OPENAI_KEY = Detector(
    "OPENAI_KEY",
    _B + r"sk-(?!ant-)(?:proj-|svcacct-|admin-)?[0-9A-Za-z_\-]{20,}+" + _WRAP + _E,
    prefix=r"sk-(?!ant-)(?:(?:proj|svcacct|admin)-[0-9A-Za-z_\-]|[0-9A-Za-z_\-]{8})",
)
GOOGLE_API_KEY = Detector("GOOGLE_API_KEY", _B + r"AIza[0-9A-Za-z_\-]{35}" + _E, prefix=r"AIza[0-9A-Za-z_\-]")
NPM_TOKEN = Detector("NPM_TOKEN", _B + r"npm_[0-9A-Za-z]{36}" + _E, prefix=r"npm_[0-9A-Za-z]")
# PyPI and TestPyPI API tokens: the macaroon's base64 names the index (`pypi.org`, `test.pypi.org`).
_PYPI = r"pypi-(?:AgEIcHlwaS5vcmc|AgENdGVzdC5weXBpLm9yZw)"
PYPI_TOKEN = Detector("PYPI_TOKEN", _B + _PYPI + r"[0-9A-Za-z_\-]{50,}+" + _WRAP + _E, prefix=_PYPI)
SENDGRID_KEY = Detector(
    "SENDGRID_KEY", _B + r"SG\.[0-9A-Za-z_\-]{22}\.[0-9A-Za-z_\-]{43}" + _E, prefix=r"SG\.[0-9A-Za-z_\-]{4}"
)
TWILIO_KEY = Detector(
    "TWILIO_KEY", r"(?<![0-9A-Za-z])(?:AC|SK)[0-9a-f]{32}(?![0-9A-Za-z])", prefix=r"(?:AC|SK)[0-9a-f]{8}"
)
# Bot ids have grown from 8-10 digits; 5-16 covers the ids seen in the wild and in gitleaks' rule.
TELEGRAM_BOT_TOKEN = Detector(
    "TELEGRAM_BOT_TOKEN",
    r"(?<![0-9])[0-9]{5,16}:[0-9A-Za-z_\-]{35}" + _E,
    prefix=r"[0-9]{5,16}:[0-9A-Za-z_\-]{4}",
)
# The first part is the bot's id in base64 (any first character: ids grow), then a timestamp and an HMAC.
DISCORD_BOT_TOKEN = Detector(
    "DISCORD_BOT_TOKEN",
    _B + r"[0-9A-Za-z_\-]{24,26}\.[0-9A-Za-z_\-]{6}\.[0-9A-Za-z_\-]{27,}+" + _E,
    prefix=r"[0-9A-Za-z_\-]{24,26}\.[0-9A-Za-z_\-]{6}\.",
)
# Two or three base64url parts; the header must decode to a JSON object. The signature may be empty (alg
# "none": `header.payload.`), and an unsigned token may lack the last dot.
JWT = Detector(
    "JWT",
    _B + r"eyJ[0-9A-Za-z_\-]{5,}+\.[0-9A-Za-z_\-]{2,}+(?:\.[0-9A-Za-z_\-]*+)?" + _WRAP + _E,
    validators.jwt,
    prefix=r"eyJ[0-9A-Za-z_\-]{5,}+\.",
)

# Private-key blocks of every kind, from the BEGIN line to the first END line. The body is a tempered
# run (any text that is not the start of an END line, in any case), possessive so it can never reach past it.
# Once the BEGIN line is complete the body is never released: an END line that is malformed (a dash short, cut
# short, another kind's END, lowercase) still ends the block at the end of its line, and a block that never
# meets an END line fails closed (`opener`).
_PEM_OPEN = r"-----BEGIN (?:[0-9A-Z]+ )*PRIVATE KEY(?: BLOCK)?-----"
_PEM_END = r"-----END (?:[0-9A-Z]+ )*PRIVATE KEY(?: BLOCK)?-----|-----(?i:end)[^\n]*+"
_SSH2_OPEN = r"---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----"
_SSH2_END = r"---- END SSH2 ENCRYPTED PRIVATE KEY ----|---- (?i:end)[^\n]*+"
_PUTTY_OPEN = r"PuTTY-User-Key-File-[0-9]+: "
PRIVATE_KEY = Detector(
    "PRIVATE_KEY",
    rf"{_PEM_OPEN}(?:[^\-]++|-(?!----(?i:end)))*+(?>{_PEM_END})"
    rf"|{_SSH2_OPEN}(?:[^\-]++|-(?!--- (?i:end)))*+(?>{_SSH2_END})"
    rf"|{_PUTTY_OPEN}(?:[^P]++|P(?!rivate-MAC: ))*+Private-MAC: [0-9A-Fa-f]++",
    opener=rf"{_PEM_OPEN}|{_SSH2_OPEN}|{_PUTTY_OPEN}",
)

# `Authorization: Bearer <opaque token>` (RFC 6750 b64token) and `Basic <base64>`: the scheme word stays. A
# value of letters only must be long (`basic understanding` is prose).
BEARER_TOKEN = Detector(
    "BEARER_TOKEN",
    r"(?<![0-9A-Za-z])(?i:bearer|basic)[ ]{1,3}(?P<v>[0-9A-Za-z\-._~+/]{12,}+=*+)(?![0-9A-Za-z\-._~+/=])",
    validators.credential_token,
    prefix=r"(?i:bearer|basic)[ ]{1,3}(?P<v>[0-9A-Za-z\-._~+/]{12})",
)
# `DATABASE_PASSWORD=…`, `"api_key": "…"`, `Password: …`, `API Key = …`, `if pwd == "…"`, `mot de passe : …`,
# `githubToken: …`. Only the value is replaced. A prefix such as `DATABASE_` needs no pattern: the label may start
# right after `_`, `-` or `.` (letters of the label's script may not come before or after it; Chinese labels
# may follow any character, as Chinese has no spaces). A quoted value ends at its closing quote (or the end of
# the line, or 256 characters); an unquoted one at the end of the token (whitespace or a quote), so `;` and
# `&` go with it: showing the rest of a connection string is not worth showing part of a password.
#
# The match starts at the separator and the label is a lookbehind (at most `LOOKBEHIND` characters, checked
# in labels.py): the engine skips to the next ':' or '=' at C speed instead of trying ~60 case-insensitive
# words at every letter (the alternation made whole-text scans 7x slower), and a label is never held, only
# its value. Its start depends on the text before it, so the starters table cannot learn it (`context`).
assert labels.longest_label() <= LOOKBEHIND, "a label must fit the context the filter keeps"
_SCRIPTS = r"0-9\p{Latin}\p{Cyrillic}\p{Greek}\p{Arabic}\p{Devanagari}"
_CAMEL = r"(?<=[a-z0-9])(?:Token|Secret|Password|Passwd|Pwd)"
_LABEL = rf"(?:(?<![{_SCRIPTS}])(?i:{labels.alternation()})|{_CAMEL})(?![{_SCRIPTS}])"
_SEP = r"(?:==|:=|=>|:|=)\s{0,3}"
# A value in backticks (Markdown's code span, how answers quote a value) is quoted like one in quotes.
_VALUE = (
    r"(?:\"(?P<v>[^\"\n]{1,256}+)|'(?P<v>[^'\n]{1,256}+)|`(?P<v>[^`\n]{1,256}+)"
    r"|(?P<v>[^\s\"'`<][^\s\"'`]{2,}+))"
)
LABELED_SECRET = Detector(
    "LABELED_SECRET",
    rf"(?<={_LABEL}[\"'`]?[ \t]{{0,2}})" + _SEP + _VALUE,
    labels.secret_value,
    first="[:=]",
    prefix=_SEP + r"(?:[\"'`](?P<v>[^\"'`\n])|(?P<v>[^\s\"'`<]))",
    context=True,
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
    JWT,
    DISCORD_BOT_TOKEN,
    BEARER_TOKEN,
    LABELED_SECRET,
)
