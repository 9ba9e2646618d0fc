"""Quantity parsing matches k8s.io/apimachinery resource.Quantity (Value/MilliValue round up)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from shared.errors import QuantityError
from shared.quantities import canonical, format_milli, parse_quantity

CASES = [
    # text, milli, value
    ("500m", 500, 1),
    ("1", 1000, 1),
    ("1.5", 1500, 2),
    ("0.1m", 1, 1),
    ("100n", 1, 1),
    ("2Gi", 2 * 2**30 * 1000, 2 * 2**30),
    ("1Ki", 1024 * 1000, 1024),
    ("1.5Gi", 3 * 2**29 * 1000, 3 * 2**29),
    ("1e3", 1_000_000, 1000),
    ("1E3", 1_000_000, 1000),
    ("1e-3", 1, 1),
    ("128974848", 128974848000, 128974848),
    ("129M", 129_000_000_000, 129_000_000),
    ("123Mi", 123 * 2**20 * 1000, 123 * 2**20),
    ("12k", 12_000_000, 12_000),
    ("1T", 10**15, 10**12),
    ("1Ei", 2**60 * 1000, 2**60),
    ("0", 0, 0),
    (".5", 500, 1),
    ("1.", 1000, 1),
    ("+2", 2000, 2),
    ("-1", -1000, -1),
    ("007", 7000, 7),
]


@pytest.mark.parametrize(("text", "milli", "value"), CASES, ids=[c[0] for c in CASES])
def test_parses_exactly(text: str, milli: int, value: int) -> None:
    quantity = parse_quantity(text)
    assert quantity.milli() == milli
    assert quantity.value() == value


@pytest.mark.parametrize(
    ("raw", "milli"), [(2, 2000), (0.25, 250), (1.1, 1100)], ids=["int", "float", "float-inexact"]
)
def test_numbers_from_yaml(raw: int | float, milli: int) -> None:
    assert parse_quantity(raw).milli() == milli


INVALID = ["", "abc", "1x", "1Gb", "1.2.3", "Gi", "1 Gi", "--1", "1e", "1e999", "1m1"]


@pytest.mark.parametrize("text", INVALID, ids=[repr(t) for t in INVALID])
def test_invalid_strings_name_the_value(text: str) -> None:
    with pytest.raises(QuantityError) as info:
        parse_quantity(text)
    assert repr(text.strip()) in str(info.value)


@pytest.mark.parametrize("bad", [True, None, float("nan")], ids=["bool", "none", "nan"])
def test_non_quantities_are_rejected(bad: object) -> None:
    with pytest.raises(QuantityError):
        parse_quantity(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("milli", "binary", "text"),
    [
        (500, False, "500m"),
        (2000, False, "2"),
        (2 * 2**30 * 1000, True, "2Gi"),
        (1500, True, "1500m"),
    ],
    ids=["milli", "whole", "binary", "fraction-binary"],
)
def test_format_round_trips(milli: int, binary: bool, text: str) -> None:
    assert format_milli(milli, binary=binary) == text
    assert parse_quantity(text).milli() == milli


# apimachinery pkg/api/resource/quantity_test.go TestQuantityString, its DecimalSI and BinarySI
# rows: decQuantity(mantissa, exponent, format) → String().
STRING_ROWS = [
    (1024 * 1024 * 1024, 0, True, "1Gi"),
    (300 * 1024 * 1024, 0, True, "300Mi"),
    (6 * 1024, 0, True, "6Ki"),
    (1001 * 1024 * 1024 * 1024, 0, True, "1001Gi"),
    (1024 * 1024 * 1024 * 1024, 0, True, "1Ti"),
    (5, 0, True, "5"),
    (500, -3, True, "500m"),
    (1, 9, False, "1G"),
    (1000, 6, False, "1G"),
    (1000000, 3, False, "1G"),
    (1000000000, 0, False, "1G"),
    (1, -3, False, "1m"),
    (80, -3, False, "80m"),
    (1080, -3, False, "1080m"),
    (108, -2, False, "1080m"),
    (10800, -4, False, "1080m"),
    (300, 6, False, "300M"),
    (1, 12, False, "1T"),
    (1234567, 6, False, "1234567M"),
    (1234567, -3, True, "1234567m"),
    (3, 3, False, "3k"),
    (1025, 0, True, "1025"),
    (0, 0, False, "0"),
    (0, 0, True, "0"),
    (1, -9, False, "1n"),
    (80, -9, False, "80n"),
    (1080, -9, False, "1080n"),
    (108, -8, False, "1080n"),
    (10800, -10, False, "1080n"),
    (1, -6, False, "1u"),
    (80, -6, False, "80u"),
    (1080, -6, False, "1080u"),
]


@pytest.mark.parametrize(
    ("mantissa", "exponent", "binary", "text"),
    STRING_ROWS,
    ids=[f"{m}e{e}-{'BinarySI' if b else 'DecimalSI'}" for m, e, b, _ in STRING_ROWS],
)
def test_canonical_is_quantity_string(
    mantissa: int, exponent: int, binary: bool, text: str
) -> None:
    assert canonical(Fraction(mantissa) * Fraction(10) ** exponent, binary=binary) == text
