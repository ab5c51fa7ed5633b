import pytest

from sluicegate._gate.values import canonical_number, extract, index_source, unsupported


@pytest.mark.parametrize(
    ("token", "canonical"),
    [
        ("20", "20"),
        ("20.00", "20"),
        ("20.50", "20.5"),
        ("2,5", "2.5"),
        ("1,200", "1200"),
        ("1,200,000", "1200000"),
        ("1.200.000", "1200000"),
        ("1,234.56", "1234.56"),
        ("1.234,56", "1234.56"),
        ("1.200", "1.2"),  # a single period is a decimal point
        ("0,50", "0.5"),
        ("007", "7"),
        ("1.2.3", "1.2.3"),
    ],
)
def test_canonical_numbers(token: str, canonical: str) -> None:
    assert canonical_number(token) == canonical


def test_digit_boundaries_a_year_does_not_support_a_percentage() -> None:
    index = index_source("The policy changed in 2019.")
    assert unsupported(extract("It rose by 19%."), [index]) == ["19"]
    assert unsupported(extract("It changed in 2019."), [index]) == []


def test_trailing_zeros_and_decimal_comma_are_one_value() -> None:
    index = index_source("The fee is 20 euros; the rate is 2.5 percent.")
    assert unsupported(extract("The fee is 20.00 and the rate 2,5."), [index]) == []
    assert unsupported(extract("The rate is 25."), [index]) == ["25"]


def test_persian_digits_match_latin_digits_both_ways() -> None:
    assert unsupported(extract("عدد ۳٫۱۴ است"), [index_source("pi is 3.14")]) == []
    assert unsupported(extract("pi is 3.14"), [index_source("عدد ۳٫۱۴ است")]) == []


def test_urls_and_emails_are_values() -> None:
    values = extract("Write to Desk@Example.org or see https://www.example.com/fees/ (or example.net).")
    assert values.emails == {"desk@example.org"}
    assert values.urls == {"example.com/fees", "example.net"}
    assert values.numbers == set()


def test_a_url_supports_its_host_and_digits_inside_urls_are_not_numbers() -> None:
    index = index_source("Details: https://library.example.org/2019/fees")
    assert unsupported(extract("See library.example.org."), [index]) == []
    assert extract("See https://x.org/2019/a.").numbers == set()


def test_invented_url_and_email_are_unsupported() -> None:
    index = index_source("Contact desk@example.org at https://example.org")
    assert unsupported(extract("Mail help@example.org or visit evil.com."), [index]) == ["evil.com", "help@example.org"]


def test_not_a_url() -> None:
    assert extract("It runs on Node.js, e.g. in file.py.").urls == set()


def test_index_is_a_set_per_source() -> None:
    index = index_source("14.52 and 1,200")
    assert {"14.52", "14", "52", "1200", "1", "200"} <= index.numbers


def test_a_host_with_a_path_is_a_link_whatever_its_domain() -> None:
    """Review finding: "bit.ly/abc" passed with no citation because "ly" is not in the TLD list."""
    from sluicegate import SentenceGate
    from sluicegate.testing import run_filter

    make = lambda: SentenceGate(["The library opens at 9 am."])  # noqa: E731
    assert run_filter(make, ["Go to bit.ly/abc now."]).stopped
    assert run_filter(make, ["Go to evil．com/x now."]).stopped
    assert not run_filter(make, ["It uses Node.js today."]).stopped


def test_the_fast_link_test_never_skips_a_link() -> None:
    """`_URL_HINT` gates the full URL pattern: every text the pattern matches in must pass it."""
    from hypothesis import given
    from hypothesis import strategies as st

    from sluicegate._gate.values import _URL_HINT, URL_RE

    atoms = ["www.", "WWW.", "http://", "x", ".", "/", "com", "ly", "example", " ", "a1", "-", ":", "．", "org/p"]

    @given(st.lists(st.sampled_from(atoms), max_size=10))
    def check(parts: list[str]) -> None:
        text = "".join(parts)
        if URL_RE.search(text):
            assert _URL_HINT.search(text)

    check()
