"""SpendCap against both real stores: the bound, the refusal, settle, idempotence, TTL, months, restarts."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import pytest

from sluicegate import Done, SentenceGate, Usage, UsageMeter, drive
from sluicegate._driver import Outcome
from sluicegate._notices import languages, notice
from sluicegate.budget import NANO, Price, SpendCap, from_nano
from sluicegate.budget._bound import MESSAGE_OVERHEAD_TOKENS

from .helpers import PRICES, Clock

JAN = datetime(2026, 1, 31, 23, 50, tzinfo=UTC).timestamp()


def test_bound_is_prompt_bytes_plus_framing_plus_full_output_cap(make_store):
    cap = SpendCap(make_store(), "10", PRICES)
    messages = [{"role": "system", "content": "Answer from the sources."}, {"role": "user", "content": "کتابخانه؟"}]
    prompt_bytes = len(b"Answer from the sources.") + len("کتابخانه؟".encode())
    tokens_in = prompt_bytes + len(b"system") + len(b"user") + 3 * MESSAGE_OVERHEAD_TOKENS
    r = cap.reserve(messages, max_output_tokens=500, model="big", reasoning_tokens=100)
    assert r.admitted and r.decision.reason == "admitted" and r.notice is None
    assert r.prompt_bytes == prompt_bytes and r.input_bound == tokens_in
    # 3 per Mtok in, 15 per Mtok out: exact in nano-units, rounded up
    assert r.amount == -(-(tokens_in * 3 + 600 * 15) * NANO // 10**6)
    assert cap.totals().reserved == r.amount and cap.totals().committed == 0


def test_refuses_past_the_cap_with_the_fixed_notice_and_admits_exactly_at_it(make_store):
    one = SpendCap(make_store(), "1", PRICES).bound("q", max_output_tokens=100, model="small")
    cap = SpendCap(make_store(), from_nano(3 * one), PRICES, language="fr")
    got = [cap.reserve("q", max_output_tokens=100, model="small") for _ in range(4)]
    assert [r.admitted for r in got] == [True, True, True, False]
    refused = got[3]
    assert refused.decision.reason == "monthly_limit" and not refused.decision
    assert refused.notice == notice("fr", "monthly_limit")
    assert cap.totals().reserved == 3 * one  # the refusal held nothing
    assert cap.reserve("q", max_output_tokens=100, model="small", language="zh").notice == notice("zh", "monthly_limit")
    assert cap.stats.admitted == 3 and cap.stats.refused_limit == 2


def test_monthly_limit_notice_exists_in_every_language():
    texts = {lang: notice(lang, "monthly_limit") for lang in languages()}
    assert len(texts) == 10 and len(set(texts.values())) == 10 and all(texts.values())


def test_settle_uses_provider_figures_where_reported(make_store):
    cap = SpendCap(make_store(), "10", PRICES)
    r = cap.reserve("hello", max_output_tokens=1000, model="big")
    usage = Usage(output_tokens=42, input_tokens=7, source="provider", received_chars=1, received_bytes=1, pieces=1)
    assert cap.settle(r, usage) is True
    assert cap.totals().committed == Price("3", "15").cost(7, 42) and cap.totals().reserved == 0


def test_settle_fills_what_the_provider_did_not_report_at_one_token_per_byte(make_store):
    cap = SpendCap(make_store(), "10", PRICES)
    r = cap.reserve("привет", max_output_tokens=1000, model="big")
    meter = UsageMeter()
    for piece in ("Биб", "лиотека"):
        meter.observe(piece)
    assert cap.settle(r, meter.usage)
    assert cap.totals().committed == Price("3", "15").cost(r.input_bound, len("Библиотека".encode()))


def test_a_stopped_stream_settles_the_bytes_it_received(make_store):
    cap = SpendCap(make_store(), "10", PRICES)
    r = cap.reserve("When did it open?", max_output_tokens=2000, model="big")
    pieces = ["The library opens at nine [S1]. ", "It was built in 1887 [S1]. Never", " reached [S1]. "]
    out = Outcome()
    steps = list(drive(iter(pieces), SentenceGate(["The library opens at nine."]), outcome=out))
    assert out.stopped and any(isinstance(e, Done) for s in steps for e in s.events)
    received = len("".join(pieces[:2]).encode())  # the third piece was never pulled: the upstream was closed
    assert out.usage is not None and out.usage.received_bytes == received
    cap.settle(r, out.usage)
    assert cap.totals().committed == Price("3", "15").cost(r.input_bound, received)


def test_settle_twice_or_from_another_instance_counts_once(make_store):
    a, b = SpendCap(make_store(), "10", PRICES), SpendCap(make_store(), "10", PRICES)
    r = a.reserve("q", max_output_tokens=10, model="small")
    assert a.settle(r, None) is True
    assert a.settle(r, None) is False and b.settle(r, None) is False
    assert b.totals().committed == Price("0.15", "0.60").cost(r.input_bound, 0)


def test_a_refused_reservation_has_nothing_to_settle(make_store):
    cap = SpendCap(make_store(), "0", PRICES)
    r = cap.reserve("q", max_output_tokens=10, model="small")
    assert not r.admitted and cap.settle(r, None) is False and cap.totals().committed == 0


def test_an_unsettled_hold_counts_until_its_ttl_then_frees_the_room(make_store):
    clock = Clock(JAN - 3600)
    store = make_store()
    one = SpendCap(store, "1", PRICES).bound("q", max_output_tokens=100, model="small")
    cap = SpendCap(store, from_nano(one), PRICES, ttl=60, clock=clock)
    killed = cap.reserve("q", max_output_tokens=100, model="small")  # its process dies: never settled
    clock.now += 59
    assert not cap.reserve("q", max_output_tokens=100, model="small").admitted
    clock.now += 2
    assert cap.totals().reserved == 0
    assert cap.reserve("q", max_output_tokens=100, model="small").admitted
    # a late settle of the expired hold is still the real spend, recorded once
    assert cap.settle(killed, None) is True and cap.settle(killed, None) is False


def test_the_month_is_the_utc_calendar_month_and_a_call_is_charged_to_the_month_it_started(make_store):
    clock = Clock(JAN)
    store = make_store()
    cap = SpendCap(store, "1", PRICES, clock=clock)
    r = cap.reserve("q", max_output_tokens=100, model="small")
    assert r.month == "2026-01"
    clock.now += 20 * 60  # 00:10 UTC on 1 February
    assert cap.totals().committed == 0 and cap.totals().reserved == 0
    cap.settle(r, None)
    assert cap.totals("2026-01").committed > 0 and cap.totals().committed == 0


def test_state_survives_a_restart(make_store):
    cap = SpendCap(make_store(), "10", PRICES)
    cap.settle(cap.reserve("q", max_output_tokens=10, model="small"), None)
    held = cap.reserve("q", max_output_tokens=10, model="small")
    cap.store.close()
    again = SpendCap(make_store(), "10", PRICES)  # a new process: new connection, same file / server
    assert again.totals().committed > 0 and again.totals().reserved == held.amount


def test_scopes_sharing_a_store_are_separate(make_store):
    store = make_store()
    one = SpendCap(store, "1", PRICES).bound("q", max_output_tokens=10, model="small")
    a = SpendCap(store, from_nano(one), PRICES, scope="tenant-a")
    b = SpendCap(store, from_nano(one), PRICES, scope="tenant-b")
    assert a.reserve("q", max_output_tokens=10, model="small").admitted
    assert b.reserve("q", max_output_tokens=10, model="small").admitted
    assert not a.reserve("q", max_output_tokens=10, model="small").admitted


def test_bad_arguments_are_clear_errors(make_store):
    store = make_store()
    cap = SpendCap(store, "1", {"small": ("0.1", "0.2")})
    with pytest.raises(ValueError, match="no price for model 'gpt-x'"):
        cap.reserve("q", max_output_tokens=10, model="gpt-x")
    with pytest.raises(ValueError, match="max_output_tokens"):
        cap.reserve("q", max_output_tokens=-1, model="small")
    with pytest.raises(ValueError, match="negative"):
        SpendCap(store, "-1", PRICES)
    with pytest.raises(ValueError, match="too large"):
        SpendCap(store, Decimal(10**7), PRICES)
    with pytest.raises(KeyError):
        SpendCap(store, "1", PRICES, language="xx")
    with pytest.raises(TypeError):
        SpendCap(object(), "1", PRICES)  # type: ignore[arg-type]
    assert SpendCap(store, "1", {"*": ("1", "1")}).reserve("q", max_output_tokens=1, model="any").admitted


def test_structured_content_counts_its_json_and_media_parts_are_refused():
    from sluicegate.budget._bound import prompt_tokens_bound

    call = {"role": "assistant", "content": None, "tool_calls": [{"name": "weather", "args": {"city": "Zürich"}}]}
    bound, size = prompt_tokens_bound([call])
    assert size >= len('{"name": "weather", "args": {"city": "Zürich"}}'.encode())  # args are not free
    parts = {"role": "user", "content": [{"type": "text", "text": "What is this?"}]}
    assert prompt_tokens_bound([parts])[1] == len(b"What is this?")
    image = {"role": "user", "content": [{"type": "image_url", "image_url": {"url": "https://x.example/a.png"}}]}
    with pytest.raises(ValueError, match="text only"):
        prompt_tokens_bound([image])
    assert bound > size


def test_an_unknown_notice_language_raises_before_anything_is_held(make_store):
    cap = SpendCap(make_store(), "10", PRICES)
    with pytest.raises(KeyError):
        cap.reserve("q", max_output_tokens=10, model="small", language="xx")
    assert cap.totals().reserved == 0
