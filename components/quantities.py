"""Kubernetes resource quantities, parsed once for the library and the policy pack.

The grammar is core/v1's resource.Quantity (k8s.io/apimachinery pkg/api/resource/quantity.go): a signed decimal,
then a binary suffix (Ki..Ei), a decimal suffix (n, u, m, k, M, G, T, P, E) or an exponent (e3). Third-party
manifests carry anything in these fields, so text longer than the grammar allows is refused before any arithmetic,
and a value too large for a float is an error, not inf.
"""

from __future__ import annotations

import math
import re
from typing import Any

# Kubernetes' own quantity grammar allows at most 64 significant characters; longer text is not a number.
MAX_QUANTITY_TEXT = 64
_BINARY_SUFFIXES = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL_SUFFIXES = {"n": 1e-9, "u": 1e-6, "m": 1e-3, "": 1.0, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18}
_QUANTITY_RE = re.compile(
    r"(?P<number>[+-]?(\d+(\.\d*)?|\.\d+))"
    r"(?:(?P<exponent>[eE][+-]?\d+)|(?P<suffix>Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])?)\Z"
)


def parse_quantity(value: Any) -> float:
    """A Kubernetes quantity as a float in base units ("8Gi" -> 8589934592.0, "500m" -> 0.5).

    Accepts numbers (the Pulumi engine may send 1.0), binary suffixes Ki..Ei, decimal suffixes
    n, u, m, k, M, G, T, P, E and E-notation ("1e3"). Raises ValueError for anything else.
    """
    # The error is built only when raised: ~1,000 quantities are read a `policies check` run, nearly all valid.
    if isinstance(value, bool):
        raise ValueError(f"{_short(value)} is not a Kubernetes quantity")
    if isinstance(value, (int, float)):
        try:
            number = float(value)
        except OverflowError:  # an int of 400 digits does not fit a float
            raise ValueError(f"{_short(value)} is out of range for a Kubernetes quantity") from None
    elif isinstance(value, str) and len(value) <= MAX_QUANTITY_TEXT:
        if (known := _PARSED.get(value)) is not None:
            return known
        match = _QUANTITY_RE.match(value.strip())
        if match is None:
            raise ValueError(f"{_short(value)} is not a Kubernetes quantity")
        if match["exponent"]:
            # float() of the text: "1e400" is inf at once, where 10 ** 400 would be computed as an int.
            number = float(match["number"] + match["exponent"])
        else:
            suffix = match["suffix"] or ""
            number = float(match["number"]) * _BINARY_SUFFIXES.get(suffix, _DECIMAL_SUFFIXES.get(suffix, 1.0))
    else:
        raise ValueError(f"{_short(value)} is not a Kubernetes quantity")
    if not math.isfinite(number):
        raise ValueError(f"{_short(value)} is out of range for a Kubernetes quantity")
    if isinstance(value, str) and len(_PARSED) < 4096:
        _PARSED[value] = number
    return number


# The texts already read and their values (a run reads the same few dozen quantities ~1,000 times): a text that is
# no quantity raises each time, as it is not kept.
_PARSED: dict[str, float] = {}


def _short(value: Any) -> str:
    text = repr(value) if not isinstance(value, int) or value.bit_length() < 256 else f"<integer of {value.bit_length()} bits>"
    return text if len(text) <= 40 else text[:37] + "..."


__all__ = ["MAX_QUANTITY_TEXT", "parse_quantity"]
