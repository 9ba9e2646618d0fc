"""Kubernetes resource quantities, parsed exactly.

A quantity is ``<sign><digits>[.<digits>]<suffix>`` where the suffix is a binary SI unit
(``Ki`` .. ``Ei``), a decimal SI unit (``n u m "" k M G T P E``) or a decimal exponent
(``e3``, ``E-2``), as in ``k8s.io/apimachinery/pkg/api/resource``. Values are kept as exact
fractions; conversion to integers rounds *up*, as ``Quantity.Value()`` and ``MilliValue()`` do,
so a request of ``0.1m`` CPU still reserves one milli-core.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from functools import lru_cache

from shared.errors import QuantityError

_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL = {
    "n": Fraction(1, 10**9),
    "u": Fraction(1, 10**6),
    "m": Fraction(1, 10**3),
    "": Fraction(1),
    "k": Fraction(10**3),
    "M": Fraction(10**6),
    "G": Fraction(10**9),
    "T": Fraction(10**12),
    "P": Fraction(10**15),
    "E": Fraction(10**18),
}
_NUMBER = re.compile(r"([+-]?)(\d*)(?:\.(\d*))?(.*)", re.DOTALL)
_EXPONENT = re.compile(r"[eE]([+-]?\d+)")
# The API server refuses exponents this large; it also keeps us from building huge integers.
_MAX_EXPONENT = 64


class Quantity:
    """An exact quantity with Kubernetes rounding to integers."""

    __slots__ = ("_value",)

    def __init__(self, value: Fraction) -> None:
        self._value = value

    @property
    def exact(self) -> Fraction:
        return self._value

    def value(self) -> int:
        """The integer value, rounded up (``Quantity.Value()``): bytes, pods, GPUs."""
        return math.ceil(self._value)

    def milli(self) -> int:
        """The value in thousandths, rounded up (``Quantity.MilliValue()``): CPU milli-cores."""
        return math.ceil(self._value * 1000)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Quantity) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)

    def __repr__(self) -> str:
        return f"Quantity({self._value})"


def _multiplier(suffix: str, text: str) -> Fraction:
    if suffix in _BINARY:
        return Fraction(_BINARY[suffix])
    if suffix in _DECIMAL:
        return _DECIMAL[suffix]
    match = _EXPONENT.fullmatch(suffix)
    if match is None:
        raise QuantityError(f"invalid quantity {text!r}: unknown suffix {suffix!r}")
    exponent = int(match.group(1))
    if abs(exponent) > _MAX_EXPONENT:
        raise QuantityError(f"invalid quantity {text!r}: exponent {exponent} out of range")
    return Fraction(10) ** exponent


@lru_cache(maxsize=4096)
def _parse_text(text: str) -> Quantity:
    match = _NUMBER.fullmatch(text)
    if not text or match is None:
        raise QuantityError(f"invalid quantity {text!r}: expected a number with an optional unit")
    sign, whole, fraction, suffix = match.groups()
    if not whole and not fraction:
        raise QuantityError(f"invalid quantity {text!r}: no digits")
    if fraction is None:
        fraction = ""
    number = Fraction(int(whole or "0")) + (
        Fraction(int(fraction), 10 ** len(fraction)) if fraction else 0
    )
    value = number * _multiplier(suffix, text)
    return Quantity(-value if sign == "-" else value)


def parse_quantity(value: str | int | float) -> Quantity:
    """Parse a quantity as the API server does; raises QuantityError naming the value."""
    if isinstance(value, bool):
        raise QuantityError(f"invalid quantity {value!r}: expected a string or number")
    if isinstance(value, int):
        return Quantity(Fraction(value))
    if isinstance(value, float):
        if not math.isfinite(value):
            raise QuantityError(f"invalid quantity {value!r}: not a finite number")
        return Quantity(Fraction(repr(value)))
    if not isinstance(value, str):
        raise QuantityError(f"invalid quantity {value!r}: expected a string or number")
    return _parse_text(value.strip())


def format_milli(milli: int, *, binary: bool = False) -> str:
    """Format a milli-value back into a short quantity string (``500m``, ``2``, ``4Gi``)."""
    if milli % 1000:
        return f"{milli}m"
    whole = milli // 1000
    if binary:
        for suffix in ("Ei", "Pi", "Ti", "Gi", "Mi", "Ki"):
            unit = _BINARY[suffix]
            if whole and whole % unit == 0:
                return f"{whole // unit}{suffix}"
    return str(whole)


# apimachinery's suffixer: the exponent (base 10, or base 2 for BinarySI) → its suffix.
_DECIMAL_SUFFIXES = {
    -9: "n",
    -6: "u",
    -3: "m",
    0: "",
    3: "k",
    6: "M",
    9: "G",
    12: "T",
    15: "P",
    18: "E",
}
_BINARY_SUFFIXES = {10: "Ki", 20: "Mi", 30: "Gi", 40: "Ti", 50: "Pi", 60: "Ei"}


def canonical(amount: Fraction | int, *, binary: bool = False) -> str:
    """``Quantity.String()`` of apimachinery for ``amount`` in the DecimalSI format (BinarySI
    with ``binary``): the fewest digits with an exponent that is a multiple of 3 (``1500m``,
    ``2``, ``3k``, ``1G``), or of 1024 for BinarySI (``6Ki``); a BinarySI amount below 1024
    or not whole is written DecimalSI, as upstream. Precision below a nano is rounded up."""
    value = Fraction(amount)
    if value == 0:
        return "0"
    if binary and abs(value) >= 1024 and value.denominator == 1:
        number, exponent = int(value), 0
        while number % 1024 == 0 and exponent < 60:
            number //= 1024
            exponent += 10
        return f"{number}{_BINARY_SUFFIXES.get(exponent, '')}"
    mantissa, exponent = math.ceil(value * 10**9), -9
    while mantissa % 10 == 0:
        mantissa //= 10
        exponent += 1
    mantissa *= 10 ** (exponent % 3)
    exponent -= exponent % 3
    return f"{mantissa}{_DECIMAL_SUFFIXES.get(exponent, '')}"
