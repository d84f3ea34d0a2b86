"""Go's printing of the values a Helm template handles, where Python's differs (policies/reading/gotemplate.py).

Helm reads values.yaml through sigs.k8s.io/yaml into interface{}, so every number there is a float64 (helm
v3.16.0 pkg/chartutil/values.go ReadValues; helm/helm#12195: 1000000 renders as 1e+06), and text/template prints a
float64 as fmt's %v does: strconv.FormatFloat(f, 'g', -1, 64).
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any


def go_float(value: float) -> str:
    """``value`` as Go's %v prints a float64: the shortest digits that read back, in exponent form when the exponent
    is below -4 or at least 6 (go1.22 src/strconv/ftoa.go formatDigits: eprec = 6 when shortest), with an exponent
    of at least two digits: 1e+06, 1.048576e+06, 123456, 1e-05."""
    if value != value:
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    sign = "-" if math.copysign(1.0, value) < 0 else ""
    if value == 0:
        return sign + "0"
    _, digit_tuple, exponent = Decimal(repr(abs(value))).as_tuple()  # repr: Python's shortest round-trip digits
    digits = "".join(map(str, digit_tuple))
    stripped = digits.rstrip("0")
    point = len(digits) + int(exponent)  # the decimal point sits after this many digits
    digits = stripped
    x = point - 1
    if x < -4 or x >= 6:
        mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{sign}{mantissa}e{'-' if x < 0 else '+'}{abs(x):02d}"
    if point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    if point >= len(digits):
        return sign + digits + "0" * (point - len(digits))
    return f"{sign}{digits[:point]}.{digits[point:]}"


def helm_numbers(value: Any, depth: int = 0) -> Any:
    """Values as Helm holds them: every integer a float64 (booleans stay), recursively."""
    if isinstance(value, bool) or depth > 200:
        return value
    if isinstance(value, int):
        return float(value)
    if isinstance(value, dict):
        return {k: helm_numbers(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [helm_numbers(v, depth + 1) for v in value]
    return value


def json_numbers(value: Any, depth: int = 0) -> Any:
    """Floats that hold an integer (below 1e21) as integers, as Go's encoding/json writes a float64 (8080, not
    8080.0): what toYaml and toJson print (sigs.k8s.io/yaml Marshal goes through encoding/json)."""
    if isinstance(value, float) and value == value and not math.isinf(value) and value == int(value) and abs(value) < 1e21:
        return int(value)
    if depth > 200:
        return value
    if isinstance(value, dict):
        return {k: json_numbers(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [json_numbers(v, depth + 1) for v in value]
    return value
