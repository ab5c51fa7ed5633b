"""`Redactor.factory`: fresh Redactors over detectors compiled once (a server's per-request streams).

What must hold: a factory-made Redactor gives exactly what `Redactor(**options)` gives, for every chunking; many
streams of one factory, fed interleaved, do not see each other's state (they share the engine and its caches);
each still draws its own `"hash"` key; a bad option fails when the factory is made, not at the first stream."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sluicegate.redaction import Hash, Redactor
from sluicegate.testing import assert_chunk_invariant, run_filter

from .corpus import PEM

TEXTS = [
    "Reach me at user@exa" + "mple.com or +1 415 555 2671; card 4111 1111 1111 1111, ip 192.168.1.10.",
    "key:\n" + PEM + "\nthat was it.",
    "The library opens at nine. Token ghp_" + "a1B2" * 9 + " and AKIAIOSFODNN7EXAMPLE end.",
    "plain prose with no values at all, only words and numbers like 12 and 2024.",
]
OPTIONS = [
    {},
    {"entities": ["EMAIL_ADDRESS", "PHONE_NUMBER"]},
    {"allow": ["user@example.com"], "operator": "mask"},
    {"max_hold": 64},
]


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(o) or "defaults")
@pytest.mark.parametrize("text", TEXTS, ids=["mix", "pem", "tokens", "clean"])
def test_factory_equals_constructor_for_every_chunking(options: dict[str, object], text: str) -> None:
    make = Redactor.factory(**options)  # type: ignore[arg-type]
    whole = run_filter(lambda: Redactor(**options), [text])  # type: ignore[arg-type]
    got = assert_chunk_invariant(make, text, max_size=400)
    assert (got.text, got.stopped, got.events) == (whole.text, whole.stopped, whole.events)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.sampled_from(TEXTS), min_size=2, max_size=5),
    st.integers(min_value=0, max_value=2**32),
)
def test_interleaved_streams_of_one_factory_are_independent(texts: list[str], seed: int) -> None:
    """Streams of one factory fed piece by piece in a random interleaving: each equals its own whole run."""
    make = Redactor.factory()
    rng = random.Random(seed)
    streams = [make() for _ in texts]
    pieces: list[list[str]] = []
    for text in texts:
        cuts = sorted(rng.sample(range(1, len(text)), min(len(text) - 1, rng.randint(0, 12))))
        pieces.append([text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)])
    out = [""] * len(texts)
    stopped = [False] * len(texts)
    order = [i for i, p in enumerate(pieces) for _ in p]
    rng.shuffle(order)
    at = [0] * len(texts)
    for i in order:
        if stopped[i]:
            continue
        step = streams[i].feed(pieces[i][at[i]])
        at[i] += 1
        out[i] += step.text
        stopped[i] = step.stopped
    for i, text in enumerate(texts):
        if not stopped[i]:
            out[i] += streams[i].flush().text
        whole = run_filter(Redactor, [text])
        assert out[i] == whole.text


def test_each_stream_draws_its_own_hash_key() -> None:
    make = Redactor.factory(operator="hash")
    text = "mail user@example.com twice: user@example.com."
    a, b = (run_filter(make, [text]).text for _ in range(2))
    assert a.count(a.split("mail ")[1].split(" ")[0]) == 2  # stable within a stream
    assert a != b  # unlinkable across streams
    keyed = Redactor.factory(operator=Hash(key=b"k" * 32))
    assert run_filter(keyed, [text]).text == run_filter(keyed, [text]).text
    # An operator object is one for every stream: `Hash()` drew its key when it was made (docs/redactor.md).
    one = Redactor.factory(operator=Hash())
    assert run_filter(one, [text]).text == run_filter(one, [text]).text


@pytest.mark.parametrize(
    ("options", "error"),
    [
        ({"max_hold": 0}, ValueError),
        ({"entities": []}, ValueError),
        ({"allow": "user@example.com"}, TypeError),
        ({"entities": ["NOT_AN_ENTITY"]}, ValueError),
        ({"operator": "shred"}, ValueError),
    ],
)
def test_bad_options_fail_when_the_factory_is_made(options: dict[str, object], error: type[Exception]) -> None:
    with pytest.raises(error):
        Redactor.factory(**options)  # type: ignore[arg-type]
    with pytest.raises(error):
        Redactor(**options)  # type: ignore[arg-type]


def test_streams_of_one_factory_in_threads_are_independent() -> None:
    """A sync server runs requests in threads: the shared engine (its last-candidates cache, the prefilter's
    scratch, the tracker tables made at the first stream) must not mix streams fed at the same time. Texts
    long enough for the prefilter's path, fed in small pieces so that the threads interleave."""
    import threading

    make = Redactor.factory()  # no stream yet: the tracker tables are made by whichever thread comes first
    texts = [(t + " filler words here. ") * 40 for t in TEXTS]
    expected = [run_filter(Redactor, [t]).text for t in texts]
    got: dict[int, str] = {}
    start = threading.Barrier(len(texts) * 2)

    def run(i: int, key: int) -> None:
        text = texts[i]
        r = make()
        start.wait()
        size = 7 if key < len(texts) else 900  # small pieces interleave; long ones take the prefilter's path
        out = "".join(r.feed(text[a : a + size]).text for a in range(0, len(text), size))
        got[key] = out + r.flush().text

    threads = [threading.Thread(target=run, args=(i, k)) for k, i in enumerate(list(range(len(texts))) * 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k, i in enumerate(list(range(len(texts))) * 2):
        assert got[k] == expected[i]
