"""components/secrets.has_hint, the prefilter of find_tokens, answers as the HINT pattern it stands for: true exactly
when the text holds one of HINT's substrings."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from components.secrets import _PATTERNS, HINT, HINT_LITERALS, SHAPE_HINTS, has_hint

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


@given(st.data())
@settings(max_examples=600)
def test_every_match_of_a_shape_holds_one_of_its_hints(data: st.DataObject) -> None:
    # find_tokens runs a shape's pattern only over a text holding one of SHAPE_HINTS' substrings for it.
    index = data.draw(st.integers(0, len(_PATTERNS) - 1))
    _, pattern = _PATTERNS[index]
    text = data.draw(st.from_regex(pattern, fullmatch=True))
    assert any(hint in text for hint in SHAPE_HINTS[index])
    assert set(SHAPE_HINTS[index]) <= set(HINT_LITERALS)


def test_a_shape_hint_per_pattern() -> None:
    assert len(SHAPE_HINTS) == len(_PATTERNS)
