"""Quantity parsing matches k8s.io/apimachinery resource.Quantity (Value/MilliValue round up)."""

from __future__ import annotations

import pytest

from shared.errors import QuantityError
from shared.quantities import format_milli, parse_quantity

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
