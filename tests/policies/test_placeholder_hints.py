"""policies/reading/placeholders.py tries its placeholder pattern only on a text holding one of _PLACEHOLDER_HINTS:
every match of the pattern holds one."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from policies.reading.placeholders import _PLACEHOLDER, _PLACEHOLDER_HINTS

_PLACEHOLDER_ALPHABET = "${}<>_-: aAzZ09YOURyourRECHANGMPL.\n"


@given(st.text(alphabet=_PLACEHOLDER_ALPHABET, max_size=30) | st.text(max_size=30))
@settings(max_examples=1000)
def test_every_placeholder_match_holds_one_of_the_hints(text: str) -> None:
    for found in _PLACEHOLDER.finditer(text):
        assert any(hint in found.group(0) for hint in _PLACEHOLDER_HINTS)
