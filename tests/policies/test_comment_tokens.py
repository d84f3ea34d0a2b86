"""policies/input/comment_tokens.py stays linear in the file: the objects' strings are walked once, not once per token
in a comment (review 28 #8: a 780 KB file of 12,000 commented tokens beside a 150,000-item ConfigMap took 147 s)."""

from __future__ import annotations

import random
import string
from dataclasses import dataclass
from typing import Any

from policies.input.comment_tokens import comment_tokens


class _CountingDict(dict):
    walked = 0

    def keys(self):  # type: ignore[override]
        _CountingDict.walked += 1
        return super().keys()


@dataclass
class _Object:
    obj: Any
    line: int
    shown_kind: str
    name: str


def _token(rng: random.Random) -> str:
    return "hf_" + "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(34))


def test_many_comment_tokens_walk_the_objects_once():
    rng = random.Random(28)
    carried = _token(rng)
    objects, lines = [], []
    for n in range(300):
        lines.append(f"kind: ConfigMap  # object {n}")
        data = _CountingDict({f"k{i}": _CountingDict({"v": str(i)}) for i in range(20)})
        if n == 150:
            data["held"] = f"HF_TOKEN={carried}"
        objects.append(_Object(data, len(lines), "ConfigMap", f"cm{n}"))
        lines.extend(f"# {_token(rng)}" for _ in range(10))
    lines.append(f"# {carried}")  # carried by an object: reported there, not here
    _CountingDict.walked = 0
    found = comment_tokens("f.yaml", "\n".join(lines) + "\n", objects)
    assert _CountingDict.walked == 300 * 21  # each dict once; 3,000 tokens x 6,300 dicts before
    assert len(found) == 3000
    assert [(t.line, t.name) for t in found[:3]] == [(2, "cm0"), (3, "cm0"), (4, "cm0")]
    assert (found[-1].line, found[-1].name) == (11 * 300, "cm299")
    assert all(t.line % 11 != 1 for t in found)  # never an object's own line


def test_a_token_carried_only_in_part_or_in_another_form_is_still_reported():
    rng = random.Random(5)
    token = _token(rng)
    objects = [_Object({"a": token[:-1], "b": token.upper()}, 1, "Deployment", "vllm")]
    (found,) = comment_tokens("f.yaml", f"kind: Deployment\n# {token}\n", objects)
    assert (found.line, found.shown_kind, found.name) == (2, "Deployment", "vllm")
    assert comment_tokens("f.yaml", f"kind: Deployment\n# {token}\n", [_Object({token: 1}, 1, "D", "x")]) == []
