from __future__ import annotations

import dataclasses
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from compaction_guard import _anchor_reader, _anchor_units
from compaction_guard.anchors import (
    Value,
    are_siblings,
    comparable,
    extract_values,
    identifier_parts,
    is_identifier,
    is_numeric,
    is_soft_identifier,
    period_seconds,
    range_pairs,
    rate_of,
    unit_word,
    values_equal,
    with_rate,
)
from compaction_guard.normalize import detection_form, tokenize


def values(text: str) -> tuple[Value, ...]:
    return extract_values(tokenize(detection_form(text)))


def one(text: str) -> Value:
    found = values(text)
    assert len(found) == 1, found
    return found[0]


@pytest.mark.parametrize("text", ["$1,200", "1200 USD", "USD 1,200", "$1.2k", "1,200 dollars"])
def test_money_in_any_format_equals_1200_dollars(text: str) -> None:
    assert values_equal(one(text), one("$1200"))


def test_money_in_another_currency_is_not_equal() -> None:
    assert not values_equal(one("1200 EUR"), one("$1,200"))


def test_plain_number_equals_money_with_the_same_written_amount() -> None:
    assert values_equal(one("a cap of 500"), one("$500"))


def test_percent_written_two_ways_is_equal() -> None:
    assert values_equal(one("5%"), one("5 percent"))


def test_data_units_of_different_size_are_different_values() -> None:
    assert not values_equal(one("25 MB"), one("25 GB"))
    assert comparable(one("25 MB"), one("25 GB"))


def test_durations_compare_in_seconds() -> None:
    assert values_equal(one("24 hours"), one("1 day"))
    assert values_equal(one("500ms"), one("0.5 s"))


@pytest.mark.parametrize(
    ("calendar", "fixed"),
    [("3 months", "90 days"), ("1 month", "30 days"), ("a year", "365 days"), ("2 years", "104 weeks")],
)
def test_a_calendar_period_is_no_count_of_days(calendar: str, fixed: str) -> None:
    # A month runs 28 to 31 days and a year 365 or 366: the restatement changed the value.
    assert not values_equal(one(calendar), one(fixed))
    assert comparable(one(calendar), one(fixed))


@pytest.mark.parametrize(("left", "right"), [("one year", "12 months"), ("18 months", "1.5 years")])
def test_calendar_periods_compare_in_months(left: str, right: str) -> None:
    assert values_equal(one(left), one(right))
    assert not values_equal(one(left), one("13 months"))


@given(st.integers(min_value=1, max_value=600))
def test_months_are_no_count_of_days_and_equal_whole_years(months: int) -> None:
    in_years = one(f"{months / 12:g} years") if months % 12 == 0 else None
    assert values_equal(one(f"{months} months"), one(f"{months} months"))
    assert not values_equal(one(f"{months} months"), one(f"{months * 30} days"))
    if in_years is not None:
        assert values_equal(one(f"{months} months"), in_years)


@pytest.mark.parametrize(
    ("text", "amount"),
    [
        ("one hundred fifty words", 150),
        ("one hundred and twenty-five users", 125),
        ("a hundred fifty rows", 150),
        ("two thousand five hundred dollars", 2500),
        ("two thousand five hundred and ten rows", 2510),
        ("three thousand requests", 3000),
        ("one hundred users", 100),
    ],
)
def test_number_words_past_a_hundred_read_as_one_number(text: str, amount: int) -> None:
    assert one(text).amount == amount


def test_per_before_a_determiner_cites_a_source_and_makes_no_rate() -> None:
    assert one("$500, per the user").per == ""
    assert one("12 months per our runbook").per == ""
    assert one("5 requests per user").per == "user"


def test_rates_with_different_denominators_differ() -> None:
    minute, second = one("100 requests per minute"), one("100 requests per second")
    assert not values_equal(minute, second)
    assert comparable(minute, second)


@pytest.mark.parametrize("text", ["20 kilometres per hour", "20 km per hour", "twenty km/h"])
def test_a_unit_over_a_time_unit_is_a_rate(text: str) -> None:
    assert values_equal(one(text), one("20 km/h"))


def test_a_unit_over_another_period_or_no_time_unit_differs() -> None:
    assert not values_equal(one("20 km/min"), one("20 km/h"))
    assert not values_equal(one("20 km"), one("20 km/h"))
    assert one("5 MB/s").per == one("5 MB per second").per
    assert one("20 km/x").unit != "km"  # not a time unit: no rate of km is read


@pytest.mark.parametrize(
    "text", ["2026-03-01", "March 1, 2026", "1 March 2026", "1st of March 2026"]
)
def test_dates_in_iso_and_written_forms_are_equal(text: str) -> None:
    assert values_equal(one(text), one("2026-03-01"))


def test_swapped_month_and_day_is_a_different_date() -> None:
    assert not values_equal(one("2026-01-03"), one("2026-03-01"))


def test_a_date_without_year_matches_its_day_and_month() -> None:
    assert values_equal(one("March 1"), one("2026-03-01"))


def test_clock_times_in_12_and_24_hour_forms_are_equal() -> None:
    assert values_equal(one("5pm"), one("17:00"))
    assert not values_equal(one("5am"), one("17:00"))


def test_versions_compare_by_their_text() -> None:
    assert values_equal(one("v3.11.8"), one("3.11.8"))
    assert not values_equal(one("3.11.8"), one("3.12.1"))


def test_counts_ignore_the_counted_noun() -> None:
    assert values_equal(one("3 retries"), one("3 times"))
    assert values_equal(one("three retries"), one("3 retries"))


def test_bare_units_are_anchors_compared_by_dimension() -> None:
    kg, cm = values("report in kg, cm")
    mm = one("in mm")
    assert kg.kind == cm.kind == "unit"
    assert comparable(cm, mm)
    assert not values_equal(cm, mm)
    assert not comparable(kg, mm)


def test_weekday_and_weekday_sets_are_separate_dimensions() -> None:
    assert comparable(one("on Tuesdays"), one("on Thursday"))
    assert comparable(one("weekdays only"), one("on weekends"))
    assert not comparable(one("weekdays only"), one("on Tuesday"))


def test_one_as_a_pronoun_is_not_a_value() -> None:
    assert values("pick one of the regions") == ()


def test_value_spans_point_at_their_tokens() -> None:
    tokens = tokenize(detection_form("cap it at $2 million per day please"))
    value = extract_values(tokens)[0]
    assert tokens[value.start : value.end] == ["$2", "million", "per", "day"]


def test_a_rate_per_day_equals_the_same_rate_per_24_hours() -> None:
    assert values_equal(one("$2 million per day"), one("$2,000,000 per 24 hours"))
    assert not values_equal(one("$2 million per day"), one("$2 million per hour"))


@pytest.mark.parametrize(
    "token",
    [
        "orders_prod",
        "app.config.yaml",
        "/etc/nginx/",
        "--force",
        ".env",
        "a.b@c.io",
        "https://x.io",
        "10.0.0.1",
        "eu-west-1",
        "#deploy",
        "s3",
    ],
)
def test_is_identifier_accepts_names_compared_whole(token: str) -> None:
    assert is_identifier(token)


@pytest.mark.parametrize("token", ["database", "read-only", "500", "$500", "24h", "9am-5pm", "v2"])
def test_is_identifier_rejects_words_and_values(token: str) -> None:
    assert not is_identifier(token)


def test_hyphenated_words_are_soft_identifiers() -> None:
    assert is_soft_identifier("payments-staging")
    assert not is_soft_identifier("eu-west-1")


def test_is_numeric_recognises_values_but_not_addresses() -> None:
    assert is_numeric("$1,200")
    assert is_numeric("2026-03-01")
    assert not is_numeric("10.0.0.1")


def test_identifier_parts_split_at_joiners() -> None:
    assert identifier_parts("#deploy-approvals_eu.v2") == ("deploy", "approvals", "eu", "v2")


@pytest.mark.parametrize(
    ("wanted", "found"),
    [
        ("orders_prod", "orders_prod_archive"),
        (".env", ".env.example"),
        ("--force", "--force-with-lease"),
        ("#deploy-approvals", "#deploy-approvals-staging"),
        ("payments-staging", "payments-sandbox"),
        ("eu-west-1", "eu-west-2"),
    ],
)
def test_are_siblings_recognises_edited_names(wanted: str, found: str) -> None:
    assert are_siblings(wanted, found)


def test_are_siblings_rejects_unrelated_and_identical_names() -> None:
    assert not are_siblings("orders_prod", "billing_live")
    assert not are_siblings("orders_prod", "orders_prod")


@pytest.mark.parametrize(
    ("left", "right"),
    [
        ("a 30-day window", "30 days"),
        ("a two-hour limit", "2 hours"),
        ("an hour", "60 minutes"),
        ("half an hour", "30 minutes"),
        ("10 straight minutes", "10 minutes"),
    ],
)
def test_durations_written_as_words_or_compounds_equal_their_numbers(left: str, right: str) -> None:
    assert values_equal(one(left), one(right))


def test_a_region_name_equals_its_code() -> None:
    assert values_equal(one("inside the European Union"), one("in the EU"))


@pytest.mark.parametrize(("word", "symbol"), [("kilograms", "kg"), ("centimetres", "cm")])
def test_unit_words_equal_their_symbols(word: str, symbol: str) -> None:
    assert values_equal(one(f"in {word}"), one(f"in {symbol}"))


def test_unit_words_of_another_size_differ() -> None:
    assert not values_equal(one("in millimetres"), one("in cm"))


def test_a_count_per_minute_equals_a_per_minute_rate_unit() -> None:
    assert values_equal(one("60 requests per minute"), one("60 rpm"))
    assert not values_equal(one("60 requests per minute"), one("60 rps"))


def test_a_rate_after_a_compound_noun_belongs_to_the_count() -> None:
    assert values_equal(one("5,000 github api requests per hour"), one("5,000 an hour"))


def test_a_rate_adverb_reads_into_an_amount_only_through_with_rate() -> None:
    per = rate_of("daily")
    assert per is not None
    assert values_equal(with_rate(one("$250"), per), one("$250 per day"))
    assert rate_of("weekly") != per


def test_ordinal_words_from_third_are_values() -> None:
    assert values_equal(one("the third failure"), one("3 failures"))


def test_zero_before_a_noun_is_a_negation_not_a_value() -> None:
    assert values("zero DDL statements") == ()
    assert values_equal(one("zero dollars"), one("$0"))


def test_a_percentage_reads_its_rate() -> None:
    assert values_equal(one("2% per week"), one("2% a week"))
    assert not values_equal(one("2% per week"), one("2%"))


def test_are_siblings_recognises_one_part_extended_in_place() -> None:
    assert are_siblings("m5.xlarge", "m5.2xlarge")
    assert not are_siblings("m5.xlarge", "c6.large")


@pytest.mark.parametrize("text", ["8°C", "8 °C", "8 degrees Celsius", "46.4°F", "46.4 fahrenheit"])
def test_a_temperature_on_either_scale_equals_8_celsius(text: str) -> None:
    assert values_equal(one(text), one("8°C"))


@pytest.mark.parametrize("text", ["8°F", "9°C", "46°F"])
def test_another_scale_or_amount_is_not_8_celsius(text: str) -> None:
    found = values(text)
    assert not any(values_equal(value, one("8°C")) for value in found)


def test_a_unit_after_a_range_measures_both_ends() -> None:
    found = one("2-8 °C")
    assert found.dimension == "temperature-range"
    assert [values_equal(end, one(t)) for end, t in zip(found.ends, ["2°C", "8°C"], strict=True)] == [
        True,
        True,
    ]
    assert not values_equal(found, one("2-8 °F"))
    assert not values_equal(found, one("8-2 °C"))


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("between 2°C and 8°C", 1),
        ("from 01:00 to 03:00", 1),
        ("01:00 through 03:00", 1),
        ("2°C and 8°C", 0),  # two values, not a range, without "between"
        ("between 2°C and 8 GB", 0),  # two dimensions
    ],
)
def test_range_pairs_finds_a_range_written_as_two_values(text: str, count: int) -> None:
    tokens = tokenize(detection_form(text))
    assert len(range_pairs(tokens, extract_values(tokens))) == count


def test_us_dollars_standing_alone_is_the_currency_usd() -> None:
    assert values_equal(one("in US dollars"), one("in USD"))
    assert not values(" in Canadian dollars")


def test_a_bare_first_end_takes_the_unit_of_the_second() -> None:
    low, high = values("between 2 and 8 degrees Celsius")
    assert values_equal(low, one("2°C"))
    assert values_equal(high, one("8°C"))


@pytest.mark.parametrize(
    ("text", "low"),
    [("between two and four in the morning", "02:00"), ("from 1 to 3 pm", "13:00")],
)
def test_a_half_of_the_day_is_shared_by_hours_that_run_forward(text: str, low: str) -> None:
    first, _ = values(text)
    assert values_equal(first, one(low))


def test_a_half_of_the_day_is_not_shared_backwards() -> None:
    first, second = values("from 9 to 5 pm")  # 21:00 would run backwards: 9 stays bare
    assert first.kind == "number"
    assert values_equal(second, one("17:00"))


def test_unit_word_names_the_slot_a_word_measures() -> None:
    assert unit_word("euros") == ("money", "eur")
    assert unit_word("Dollars") == ("money", "usd")
    assert unit_word("kilometres") == unit_word("km")
    assert unit_word("Celsius") == ("temperature", "c")
    assert unit_word("CET") == ("timezone", "cet")


def test_unit_word_leaves_out_periods_and_plain_words() -> None:
    # "per minute" names a period, not a unit an amount is shown in.
    assert unit_word("minute") is None
    assert unit_word("m") is None
    assert unit_word("invoices") is None


def test_no_word_table_of_the_value_gates_holds_a_digit() -> None:
    # `_anchor_reader._plan` reads a new figure by its digit shape: sound only while no
    # table a gate looks words up in has a key with a digit (a unit "m2" would break it).
    tables = [getattr(_anchor_units, name) for name in dir(_anchor_units) if name.isupper()]
    tables += [_anchor_reader._BARE_STARTS, _anchor_reader._NOON, _anchor_reader._TENS]
    keys = [key for table in tables if isinstance(table, dict | set | frozenset) for key in table]
    words = [word for key in keys for word in ((key,) if isinstance(key, str) else key)]
    assert len(words) > 500
    assert not [word for word in words if any(ch in "0123456789" for ch in word)]


@pytest.mark.parametrize(
    "word", ["14", "140891", "60,331", "1.10.5", "9am", "25am", "12:30", "2024-13", "3rd", "v2"]
)
def test_a_figure_is_read_as_any_figure_of_its_shape_is(word: str) -> None:
    gates = _anchor_reader._GATES
    assert _anchor_reader._plan(word) == tuple(r for gate, r in gates if gate(word))


def test_a_value_is_an_immutable_value_object() -> None:
    """Built through the slots' own setters, a Value keeps every field, equality and hash."""
    fields = [f.name for f in dataclasses.fields(Value)]
    args = ("kind", "dim", "unit", Fraction(3), Fraction(7, 2), "per", "surface", 4, 9)
    value = Value(*args)
    assert [getattr(value, name) for name in fields] == [*args, ()]
    same = Value(
        kind="kind",
        dimension="dim",
        unit="unit",
        amount=Fraction(3),
        raw=Fraction(7, 2),
        per="per",
        surface="surface",
        start=4,
        end=9,
    )
    assert value == same
    assert hash(value) == hash(same)
    assert dataclasses.replace(value, start=5) != value
    assert dataclasses.replace(value, start=5).start == 5
    with pytest.raises(dataclasses.FrozenInstanceError):
        value.start = 1  # type: ignore[misc]
    assert not hasattr(value, "__dict__")



@pytest.mark.parametrize("text", ["may get four each week", "may post six every day"])
def test_each_or_every_before_a_period_is_no_counted_noun(text: str) -> None:
    # "four each week" is four a week, not four of a thing called "each".
    (value,) = extract_values(tokenize(text))
    assert value.unit == ""
    assert value.per.startswith("time:")


def test_period_seconds_names_units_of_time_only() -> None:
    assert period_seconds("weeks") == 604800
    assert period_seconds("Day") == 86400
    assert period_seconds("kilometres") is None
    assert period_seconds("budget") is None
