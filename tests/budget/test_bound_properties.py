"""Properties of the bound: never below the prompt's UTF-8 bytes, and the settled cost of any call that stayed
within its output cap never exceeds what was reserved for it."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sluicegate import Usage
from sluicegate.budget import Price, SpendCap, SQLiteStore
from sluicegate.budget._bound import prompt_tokens_bound

TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=200)
MESSAGES = st.lists(st.fixed_dictionaries({"role": st.sampled_from(["system", "user", "assistant"]), "content": TEXT}))


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    made = SQLiteStore(tmp_path_factory.mktemp("props") / "s.db")
    yield made
    made.close()


@given(MESSAGES)
def test_the_bound_is_at_least_every_byte_plus_framing(messages):
    bound, size = prompt_tokens_bound(messages)
    assert size == sum(len(m["content"].encode()) for m in messages)
    assert bound >= size + 8 * (len(messages) + 1)


@given(
    messages=MESSAGES,
    max_output=st.integers(0, 4000),
    fraction=st.floats(0, 1),
    reported_input=st.booleans(),
    prices=st.tuples(st.decimals("0", "100", places=4), st.decimals("0", "100", places=4)),
)
def test_a_call_within_its_output_cap_never_settles_above_its_reservation(
    store, messages, max_output, fraction, reported_input, prices
):
    cap = SpendCap(store, "9000000", {"m": Price(*prices)})
    amount = cap.bound(messages, max_output_tokens=max_output, model="m")
    r = cap.reserve(messages, max_output_tokens=max_output, model="m")
    out = int(max_output * fraction)
    _, size = prompt_tokens_bound(messages)
    usage = Usage(out, size if reported_input else None, "provider", 0, 0, 0)
    assert r.amount == amount and cap.cost(r, usage) <= amount


def test_one_message_mapping_is_bounded_as_that_message_not_as_its_keys() -> None:
    """`reserve({"role": "user", "content": ...})` is a natural call; iterating the dict counted only the key
    names ("role", "content"), so a 10 000-byte prompt reserved 35 tokens and the cap could be overrun."""
    message = {"role": "user", "content": "x" * 10_000}
    assert prompt_tokens_bound(message) == prompt_tokens_bound([message])
    assert prompt_tokens_bound(message)[1] == 10_000


def test_a_prompt_that_is_neither_text_nor_messages_is_a_clear_error() -> None:
    with pytest.raises(TypeError):
        prompt_tokens_bound(12345)
