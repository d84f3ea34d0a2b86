"""The scan of a stack file's plain values before validation: credentials, control characters, numbers.

A value that looks like a token (components/secrets.py shapes) is named by its field and shape,
never echoed; a control character or a number the Pulumi engine cannot carry exactly is refused
with its field path. The secret keys themselves (``llm-serving:hfToken``, ``apiKey``) are not
scanned: they must be Pulumi secrets, which routing checks.

Pure: no pydantic, no Pulumi.
"""

from __future__ import annotations

import math
import re
from typing import Any, Mapping

from ..errors import Problem, format_path
from ..secrets import is_secret, scan
from .base import PROJECT
from .routing import SECRET_KEYS

# C0 and C1 control characters (newline, tab, NUL, ...) and the Unicode line and paragraph
# separators (and lone surrogates, which no encoder writes): no name, id, image, host or flag of a
# stack needs one, and a trailing newline would otherwise reach object names, file names and
# command lines.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")


_MAX_EXACT = 2**53


def _number_in_range(value: float) -> bool:
    """Finite and within +-2^53, where a double still holds every integer exactly."""
    if isinstance(value, int):
        return -_MAX_EXACT <= value <= _MAX_EXACT
    return math.isfinite(value) and -_MAX_EXACT <= value <= _MAX_EXACT


def _display_key(key: str) -> str:
    """How messages name a config key: ``llm-serving:models`` -> ``models``, others as written."""
    namespace, _, name = key.partition(":")
    if namespace == PROJECT and name:
        return name
    return key


def is_under(path: str, prefix: str) -> bool:
    """``path`` is ``prefix`` or a field inside it (``models[0].engine`` is under ``models[0]``)."""
    return path == prefix or path.startswith((prefix + ".", prefix + "["))


def text_problems(raw: Mapping[str, Any]) -> tuple[list[Problem], list[str]]:
    """Clear-text credentials, control characters and out-of-range numbers anywhere in the config's non-secret values.

    A token (components.secrets shapes: hf_..., AKIA..., ghp_..., sk-...) is named by its field
    and shape with a redacted prefix, never echoed. Returns the problems and the paths refused.
    """
    problems: list[Problem] = []
    refused: list[str] = []
    for key in sorted(raw, key=str):
        if not isinstance(key, str) or _display_key(key) in SECRET_KEYS:
            continue
        for loc, token in scan(raw[key], (_display_key(key),)):
            path = format_path(loc)
            problems.append(
                Problem(
                    path,
                    f"holds what looks like {token.described}; a credential never goes in a "
                    "plain config value (put the Hugging Face token in llm-serving:hfToken as a Pulumi secret)",
                    has_value=False,
                )
            )
            refused.append(path)
        stack: list[tuple[tuple[Any, ...], Any]] = [((_display_key(key),), raw[key])]
        while stack:
            loc, value = stack.pop()
            if isinstance(value, str):
                if _CONTROL.search(value) and not any(is_under(format_path(loc), r) for r in refused):
                    problems.append(
                        Problem(
                            format_path(loc),
                            "holds a control character (a newline, tab or similar); names, ids and flags are single-line text",
                            value,
                        )
                    )
                    refused.append(format_path(loc))
            elif isinstance(value, (int, float)) and not isinstance(value, bool) and not _number_in_range(value):
                problems.append(
                    Problem(
                        format_path(loc),
                        "is out of range: a stack file's numbers must be finite and within "
                        "+-2^53 (the Pulumi engine carries config numbers as doubles)",
                        value,
                    )
                )
                refused.append(format_path(loc))
            elif isinstance(value, Mapping) and not is_secret(value):
                for k, v in value.items():
                    if isinstance(k, str) and _CONTROL.search(k):
                        problems.append(Problem(format_path(loc), "has a key with a control character", k))
                        refused.append(format_path(loc))
                    stack.append(((*loc, k), v))
            elif isinstance(value, (list, tuple)):
                stack.extend(((*loc, i), v) for i, v in enumerate(value))
    return problems, refused
