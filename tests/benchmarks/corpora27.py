"""Issue 27's cost corpora: text the Redactor was not tuned on, from four generators unlike corpus.py's
(which strings prose sentences from three word lists and plants a value every 600 bytes):

- `code_blocks`: assistant answers with fenced code in ten languages, identifiers, string literals, comments,
  config lookups, a planted secret or e-mail in some blocks;
- `logs`: access and application log lines (timestamps, IPs, paths, status codes, durations, UUIDs, hex ids,
  key=value pairs), a planted e-mail, card or token now and then;
- `multilingual`: prose in nine scripts/languages from per-language phrase lists, with planted phones, IBANs,
  e-mails and labelled values in that language;
- `json_docs`: API responses and documents (nested objects, arrays, numbers, dates, URLs), planted values in
  some fields.

Every generator is seeded; sizes are UTF-8 bytes. Values come from corpus.make_value and local shapes.
"""

from __future__ import annotations

import json
import random
import string

from .corpus import make_value

_IDENT = ["user", "order", "items", "total", "config", "result", "index", "buffer", "client", "session", "row"]
_LANGS = ["python", "javascript", "go", "rust", "java", "csharp", "ruby", "php", "bash", "sql"]


def _ident(rng: random.Random) -> str:
    a, b = rng.choice(_IDENT), rng.choice(_IDENT)
    return rng.choice([f"{a}_{b}", f"{a}{b.capitalize()}", a])


def _code_line(lang: str, rng: random.Random) -> str:
    x, y, n = _ident(rng), _ident(rng), rng.randint(0, 500)
    forms = {
        "python": [f"{x} = {y}.get('{y}', {n})", f"for {x} in {y}:", f"    print(f'{{{x}}}: {n}')", f"# {y} {x}"],
        "javascript": [f"const {x} = await fetch(`/api/{y}/${{{n}}}`);", f"{x}.map(({y}) => {y}.id);", "// TODO"],
        "go": [f"{x} := make([]int, {n})", f"if err != nil {{ return {y}, err }}", f'log.Printf("{x}=%d", {n})'],
        "rust": [
            f"let {x}: Vec<u32> = {y}.iter().map(|v| v + {n}).collect();",
            f"match {x} {{ Some(v) => v, None => 0 }}",
        ],
        "java": [f"List<String> {x} = new ArrayList<>({n});", f"{x}.forEach(System.out::println);"],
        "csharp": [f"var {x} = {y}.Where(r => r.Count > {n}).ToList();", f"await {x}.SaveChangesAsync();"],
        "ruby": [f"{x} = {y}.select {{ |r| r.size > {n} }}", f'puts "#{{{x}}}"'],
        "php": [f"${x} = array_map(fn($v) => $v * {n}, ${y});", f'echo "{x}: {{${y}}}";'],
        "bash": [f'for f in /var/log/{x}/*.log; do gzip "$f"; done', f"export {x.upper()}={n}"],
        "sql": [f"SELECT {x}, COUNT(*) FROM {y} WHERE id > {n} GROUP BY {x};", f"CREATE INDEX idx_{x} ON {y}({x});"],
    }
    return rng.choice(forms[lang])


def _planted_code(lang: str, rng: random.Random) -> str:
    v = make_value(rng.choice(["apikey", "email", "jwt"]), rng)
    return rng.choice([f'api_key = "{v}"', f"TOKEN={v}", f"const secret = '{v}';", f"owner: {v}"])


def code_blocks(size: int, *, seed: int = 11) -> str:
    rng = random.Random(seed)
    out, n = [], 0
    while n < size:
        lang = rng.choice(_LANGS)
        lines = [_code_line(lang, rng) for _ in range(rng.randint(3, 14))]
        if rng.random() < 0.3:
            lines.insert(rng.randrange(len(lines)), _planted_code(lang, rng))
        intro = rng.choice(["Here is how:", "You can write it as:", "A minimal version:", "Try this:"])
        block = f"{intro}\n\n```{lang}\n" + "\n".join(lines) + "\n```\n\nThis runs in O(n).\n\n"
        out.append(block)
        n += len(block.encode())
    return "".join(out)


def logs(size: int, *, seed: int = 12) -> str:
    rng = random.Random(seed)
    out, n = [], 0
    paths = ["/api/v1/items", "/health", "/login", "/static/app.js", "/api/v2/orders/{}", "/search?q=shoes&page={}"]
    while n < size:
        hms = f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}"
        ts = f"2026-12-01T{hms}.{rng.randint(0, 999):03d}Z"
        r = rng.random()
        if r < 0.45:
            ip = f"10.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}"
            path = rng.choice(paths).format(rng.randint(1, 99999))
            line = (
                f'{ip} - - [{ts}] "GET {path} HTTP/1.1" {rng.choice([200, 200, 304, 404, 500])} {rng.randint(0, 99999)}'
            )
        elif r < 0.85:
            uid = "".join(rng.choice(string.hexdigits[:16]) for _ in range(32))
            line = (
                f"{ts} {rng.choice(['INFO', 'DEBUG', 'WARN'])} worker-{rng.randint(1, 16)} "
                f"req={uid[:8]}-{uid[8:12]}-{uid[12:16]}-{uid[16:20]}-{uid[20:]} took={rng.randint(1, 2000)}ms "
                f"rows={rng.randint(0, 10000)} cache={rng.choice(['hit', 'miss'])}"
            )
        else:
            kind = rng.choice(["email", "card", "apikey", "ip"])
            line = f"{ts} WARN audit {kind}={make_value(kind, rng)} action=update"
        out.append(line + "\n")
        n += len(line.encode()) + 1
    return "".join(out)


_PHRASES = {
    "de": ["Die Lieferung kommt morgen", "bitte prüfen Sie die Angaben", "vielen Dank für Ihre Geduld"],
    "fr": ["Votre commande a été expédiée", "merci de vérifier vos informations", "nous revenons vers vous"],
    "es": ["Su pedido llegará pronto", "por favor revise los datos", "gracias por su paciencia"],
    "pt": ["O seu pedido foi enviado", "por favor verifique os dados", "obrigado pela paciência"],
    "ru": ["Ваш заказ отправлен", "пожалуйста проверьте данные", "спасибо за терпение"],
    "ar": ["تم شحن طلبك", "يرجى التحقق من البيانات", "شكرا لصبرك"],
    "hi": ["आपका ऑर्डर भेज दिया गया है", "कृपया विवरण जांचें", "धैर्य के लिए धन्यवाद"],
    "ja": ["ご注文は発送されました", "内容をご確認ください", "ご理解ありがとうございます"],
    "zh": ["您的订单已发货", "请核对您的信息", "感谢您的耐心"],
}
_LABELS = {"de": "Passwort", "fr": "mot de passe", "es": "contraseña", "pt": "senha", "ru": "пароль", "zh": "密码"}


def multilingual(size: int, *, seed: int = 13) -> str:
    rng = random.Random(seed)
    out, n = [], 0
    while n < size:
        lang = rng.choice(list(_PHRASES))
        sent = ", ".join(rng.choice(_PHRASES[lang]) for _ in range(rng.randint(1, 4)))
        sent += "。" if lang in ("ja", "zh") else ". "
        if rng.random() < 0.12:
            kind = rng.choice(["phone", "iban", "email", "label"])
            if kind == "label" and lang in _LABELS:
                sent += (
                    f"{_LABELS[lang]}: {''.join(rng.choice(string.ascii_letters + string.digits) for _ in range(12))} "
                )
            elif kind != "label":
                sent += make_value(kind, rng) + " "
        if rng.random() < 0.1:
            sent += "\n\n"
        out.append(sent)
        n += len(sent.encode())
    return "".join(out)


def json_docs(size: int, *, seed: int = 14) -> str:
    rng = random.Random(seed)
    out, n = [], 0
    while n < size:
        doc = {
            "id": rng.randint(10**5, 10**9),
            "created_at": f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T10:00:00Z",
            "status": rng.choice(["open", "closed", "pending"]),
            "items": [
                {
                    "sku": f"SKU-{rng.randint(1000, 9999)}",
                    "qty": rng.randint(1, 9),
                    "price": round(rng.random() * 100, 2),
                }
                for _ in range(rng.randint(1, 5))
            ],
            "links": {"self": f"https://api.example.com/v1/orders/{rng.randint(1, 99999)}"},
            "tags": rng.sample(["a", "b", "priority", "gift", "export", "retry"], 2),
        }
        if rng.random() < 0.25:
            doc["customer"] = {"email": make_value("email", rng), "phone": make_value("phone", rng)}
        if rng.random() < 0.1:
            doc["auth"] = {"token": make_value("apikey", rng)}
        text = json.dumps(doc, ensure_ascii=False, indent=rng.choice([None, 2])) + "\n"
        out.append(text)
        n += len(text.encode())
    return "".join(out)


CORPORA = {"code": code_blocks, "logs": logs, "multilingual": multilingual, "json": json_docs}
