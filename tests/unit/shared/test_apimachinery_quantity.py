"""apimachinery's ``pkg/api/resource/quantity_test.go`` ``TestQuantityString``: the string a
quantity is written as (``shared.quantities.canonical``), its DecimalSI and BinarySI rows
(``DecimalExponent`` is never written by Shoal). Each row is upstream's
``decQuantity(mantissa, exponent, format)`` and the ``expect`` string; the id names it so."""

from __future__ import annotations

from fractions import Fraction

import pytest

from shared.quantities import canonical

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
