"""components/secrets.has_hint, the prefilter of find_tokens, answers as the HINT pattern it stands for: true exactly
when the text holds one of HINT's substrings."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from components.secrets import HINT, HINT_LITERALS, has_hint

# The letters HINT's substrings are made of, and a few others, so that near misses ("gha_", "sk_", "AKI") are drawn.
_ALPHABET = "hf_apiorgAKSBCIAghpousrtbl-kxzveyJPRIVTE KYZ0\n"


@given(st.text(alphabet=_ALPHABET, max_size=40) | st.text(max_size=40))
@settings(max_examples=1000)
def test_has_hint_answers_as_the_hint_pattern(text: str) -> None:
    assert has_hint(text) == (HINT.search(text) is not None)


def test_each_literal_is_a_hint_and_the_literals_are_all_the_pattern_finds() -> None:
    for literal in HINT_LITERALS:
        assert has_hint(f"x{literal}y") and HINT.fullmatch(literal)
    # gh[pousr]_ is the only class in HINT: its five spellings are listed.
    assert {lit for lit in HINT_LITERALS if lit.startswith("gh")} == {f"gh{c}_" for c in "pousr"}
    assert not has_hint("gha_ sk_ AKI xo PRIVATE-KEY ey") and not HINT.search("gha_ sk_ AKI xo PRIVATE-KEY ey")
