"""Write own.json: a corpus of our own making, not drawn from any suite (run by hand: python make_own.py).

What an assistant's answer holds: code blocks in ten programming languages, config files, logs and chat
transcripts, each with planted values (a span per value) or clean (a negative). Values are drawn with a fixed
seed in the documented shapes of the formats we claim; templates are written from how each language, tool and
log format is commonly used, not from the other suites' cases.
"""

from __future__ import annotations

import json
import random
import string
from pathlib import Path

rng = random.Random(27)
ALNUM = string.ascii_letters + string.digits


def draw(alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def luhn_card(prefix: str, n: int) -> str:
    digits = [int(c) for c in prefix] + [rng.randrange(10) for _ in range(n - len(prefix) - 1)]
    total = 0
    for i, d in enumerate(reversed(digits)):
        d = d * 2 if i % 2 == 0 else d
        total += d - 9 if d > 9 else d
    return "".join(map(str, digits)) + str((10 - total % 10) % 10)


def secret() -> str:
    kinds = [
        lambda: "ghp_" + draw(ALNUM, 36),
        lambda: "glpat-" + draw(ALNUM + "_-", 20),
        lambda: "sk_live_" + draw(ALNUM, 24),
        lambda: "xoxb-" + draw(string.digits, 11) + "-" + draw(string.digits, 12) + "-" + draw(ALNUM, 24),
        lambda: "AKIA" + draw(string.ascii_uppercase + string.digits, 16),
        lambda: "sk-proj-" + draw(ALNUM + "_-", 40),
        lambda: "sk-ant-api03-" + draw(ALNUM + "_-", 40),
        lambda: "npm_" + draw(ALNUM, 36),
        lambda: "AIza" + draw(ALNUM + "_-", 35),
        lambda: "SG." + draw(ALNUM + "_-", 22) + "." + draw(ALNUM + "_-", 43),
    ]
    return rng.choice(kinds)()


def password() -> str:
    return draw(ALNUM, 6) + rng.choice("!#%&*") + draw(ALNUM, 5)


CODE = {  # language -> templates; {S} a secret token, {P} a password, {E} an e-mail
    "python": [
        'import os\n\nclient = Client(api_key="{S}")\nDB_PASSWORD = "{P}"\n',
        'settings = {{\n    "smtp_password": "{P}",\n    "admin_email": "{E}",\n}}\n',
    ],
    "javascript": [
        "const token = '{S}';\nfetch(url, {{ headers: {{ Authorization: `Bearer ${{token}}` }} }});\n",
        'module.exports = {{ password: "{P}", user: "{E}" }};\n',
    ],
    "typescript": ['export const config = {{\n  apiToken: "{S}",\n  contact: "{E}",\n}} as const;\n'],
    "go": [
        'func main() {{\n\tclient := slack.New("{S}")\n\tdbPassword := "{P}"\n}}\n',
        'const apiSecret = "{S}"\n',
    ],
    "rust": ['let api_key = "{S}";\nlet mail = "{E}";\n', 'const PASSWORD: &str = "{P}";\n'],
    "java": [
        'String password = "{P}";\nconn = DriverManager.getConnection(url, "admin", password);\n',
        'private static final String API_KEY = "{S}";\n',
    ],
    "csharp": ['var secret = "{S}";\nvar notify = new MailAddress("{E}");\n'],
    "ruby": ["Stripe.api_key = '{S}'\nADMIN = '{E}'\n"],
    "php": ["$password = '{P}';\n$mailer->setFrom('{E}');\n"],
    "bash": [
        'export GITHUB_TOKEN={S}\ncurl -H "Authorization: token $GITHUB_TOKEN" https://api.github.com/user\n',
        "mysql -u root --password={P} -h db.internal\n",
    ],
}
CLEAN_CODE = {
    "python": "def mean(xs):\n    return sum(xs) / len(xs)\n\nprint(mean([1, 2, 3]))\n",
    "javascript": "const total = items.reduce((a, b) => a + b.price, 0);\nconsole.log(total.toFixed(2));\n",
    "typescript": (
        "export function clamp(x: number, lo = 0, hi = 1): number {\n  return Math.min(hi, Math.max(lo, x));\n}\n"
    ),
    "go": "for i := 0; i < len(xs); i++ {\n\tif xs[i] == target {\n\t\treturn i\n\t}\n}\n",
    "rust": 'fn main() {\n    let v: Vec<u32> = (1..=10).collect();\n    println!("{:?}", v);\n}\n',
    "java": "List<String> names = people.stream().map(Person::getName).toList();\n",
    "csharp": "var token = cancellation.Token;\nawait Task.Delay(500, token);\n",
    "ruby": 'users.each_with_index { |u, i| puts "#{i}: #{u.name}" }\n',
    "php": '$count = count($rows);\necho "Found {$count} rows";\n',
    "bash": 'for f in *.log; do gzip "$f"; done\nls -la /var/log | head -n 20\n',
}
LANG_NAME = {"csharp": "csharp", "bash": "bash"}

NAMES = ["anna.kowalska", "li.wei", "m.rossi", "j.smith", "k.tanaka", "o.petrova", "s.ahmed", "r.garcia"]
DOMAINS = ["example.com", "mail.example.org", "corp.example.net"]


def email() -> str:
    return f"{rng.choice(NAMES)}{rng.randrange(100)}@{rng.choice(DOMAINS)}"


cases: list[dict] = []


def add(kind: str, text: str, values: list[str]) -> None:
    spans = []
    for v in values:
        i = text.find(v)
        assert i >= 0, (text, v)
        spans.append([i, i + len(v)])
    cases.append({"origin": kind, "text": text, "spans": spans, "positive": bool(values)})


def fill(template: str) -> tuple[str, list[str]]:
    values = []
    out = template
    for key, make in (("{S}", secret), ("{P}", password), ("{E}", email)):
        while key in out:
            v = make()
            out = out.replace(key, v, 1)
            values.append(v)
    return out, values


INTROS = [
    "Here is a minimal example:",
    "You can do it like this (replace the values with your own):",
    "Try the following snippet:",
]
for lang, templates in CODE.items():
    for t in templates:
        body, values = fill(t)
        text = f"{rng.choice(INTROS)}\n\n```{LANG_NAME.get(lang, lang)}\n{body}```\n\nLet me know if it works."
        add(f"answer with a {lang} code block", text, values)
    add(f"answer with a {lang} code block (clean)", f"{rng.choice(INTROS)}\n\n```{lang}\n{CLEAN_CODE[lang]}```\n", [])

# Config files.
for _ in range(3):
    s, p, e = secret(), password(), email()
    add(
        "config: .env", f"APP_ENV=production\nSTRIPE_SECRET={s}\nDB_PASS={p}\nSUPPORT_EMAIL={e}\nPORT=8080\n", [s, p, e]
    )
    s, p = secret(), password()
    add(
        "config: YAML",
        f"database:\n  host: db.internal\n  port: 5432\n  password: '{p}'\nintegrations:\n  github:\n    token: {s}\n",
        [p, s],
    )
    s = secret()
    add("config: TOML", f'[server]\nworkers = 4\n\n[auth]\nclient_secret = "{s}"\n', [s])
    s, e = secret(), email()
    add("config: JSON", json.dumps({"name": "svc", "apiKey": s, "owner": e, "retries": 3}, indent=2), [s, e])
    p = password()
    add("config: INI", f"[mysql]\nuser = app\npasswd = {p}\nhost = 10.0.3.7\n", [p, "10.0.3.7"])
add(
    "config: YAML (clean)",
    "replicas: 3\nimage: nginx:1.27\nresources:\n  limits:\n    cpu: 500m\n    memory: 256Mi\n",
    [],
)
add("config: TOML (clean)", '[package]\nname = "demo"\nversion = "0.4.1"\nedition = "2021"\n', [])
add("config: JSON (clean)", json.dumps({"timeout": 30, "retries": 5, "endpoint": "/v1/items", "debug": False}), [])

# Logs.
for _ in range(3):
    ip = f"{rng.randrange(11, 223)}.{rng.randrange(256)}.{rng.randrange(256)}.{rng.randrange(1, 255)}"
    add(
        "log: nginx access",
        f'{ip} - - [01/Dec/2026:10:12:{rng.randrange(10, 59)} +0000] "GET /api/v2/items?page=3 HTTP/1.1" 200 512',
        [ip],
    )
    e = email()
    add("log: application", f"2026-12-01T10:15:02.331Z INFO  signup completed user={e} plan=pro took=182ms", [e])
    card = luhn_card("4", 16)
    shown = " ".join(card[i : i + 4] for i in range(0, 16, 4))
    add(
        "log: payment (leaked card)", f"2026-12-01 10:16:44 WARN charge failed card={shown} code=card_declined", [shown]
    )
add(
    "log: clean",
    "2026-12-01 10:17:03 INFO worker-3 processed batch 4812 (1200 rows) in 3.42s, sha=9f2c1e7a",
    [],
)
add(
    "log: clean",
    "[pid 4312] GC pause 12.5ms heap=512MB; build 10.0.19041.1234 id=550e8400-e29b-41d4-a716-446655440000",
    [],
)

# Chat transcripts in several languages.
CHATS = [
    ("en", "User: my number is {PH} and my email {E}\nAgent: Thanks, we will call you today."),
    ("de", "Kunde: Meine Nummer ist {PH}, E-Mail {E}.\nSupport: Danke, wir melden uns."),
    ("fr", "Client : mon numéro est le {PH}, mail {E}.\nConseiller : Merci, nous vous rappelons."),
    ("es", "Cliente: mi teléfono es {PH} y mi correo {E}.\nAgente: Gracias."),
    ("ru", "Клиент: мой телефон {PH}, почта {E}.\nОператор: Спасибо, перезвоним."),
    ("zh", "用户：我的电话是{PH}，邮箱{E}。\n客服：好的，我们会联系您。"),
]
PHONES = [
    "+44 20 7946 0958",
    "+49 30 901820",
    "+33 1 44 55 66 77",
    "+34 912 345 678",
    "+7 912 345-67-89",
    "13812345678",
]
for (lang, t), ph in zip(CHATS, PHONES, strict=True):
    e = email()
    add(f"chat ({lang})", t.replace("{PH}", ph).replace("{E}", e), [ph, e])
iban = "DE89 3704 0044 0532 0130 00"
add("chat (en, IBAN)", f"User: please refund to {iban}, thanks!\nAgent: Done.", [iban])
add(
    "chat (en, labelled)",
    "User: my date of birth: 1990-07-15 and passport: X1234567\nAgent: Noted.",
    ["1990-07-15", "X1234567"],
)
for clean in [
    "User: what is the capital of Australia?\nAgent: Canberra. It has about 460,000 people.",
    "Benutzer: Wie spät ist es in Tokio?\nAssistent: Dort ist es jetzt 18:30 Uhr.",
    "用户：今天北京天气怎么样？\n助手：晴，最高气温12度。",
    "Utilisateur : combien coûte l'abonnement ?\nAssistant : 9,99 € par mois, sans engagement.",
    "User: my order 100-2039-4471 hasn't arrived.\nAgent: It shipped on 2026-11-28 via DHL.",
    "Token usage: prompt 512, completion 128; the password policy requires 12 characters.",
]:
    add("chat (clean)", clean, [])

out = Path(__file__).with_name("own.json")
out.write_text(json.dumps(cases, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
print(f"{len(cases)} cases, {sum(c['positive'] for c in cases)} positive, {sum(len(c['spans']) for c in cases)} values")
