"""policies/crd/cel_plain.py decides a CRD's CEL rule in Python only where the CEL library (cel-expr-python, what the
API server's own checks are read with) decides it the same way: the same bool, or the same error text; everything
else goes to the library. Held here against the library itself, rule by rule, on the values the corpora and the
tests give each rule, mutations of them, and seeded random values."""

from __future__ import annotations

import itertools
import json
import random
import re
from collections.abc import Iterator
from typing import Any

import pytest

from policies.crd import cel, cel_plain
from policies.manifests import read_manifests
from tests.conftest import ROOT, shared_path

CREATE_TIME = sorted({r.rule for t in cel.resource_types() for r in cel.rules_of(t) if not r.is_transition})

LEAVES: list[Any] = [
    *("", "x", "a/b", "karpenter.sh/x", "kubernetes.io/hostname", "karpenter.sh/nodepool", "-1", "5", " 5", "+5"),
    *("In", "Gt", "Exact", "PathPrefix", "/a", "/a//b", "/a/../b", "Service", "al2023@latest", "windows2019@v1"),
    *("HTTP", "Cookie", "Permanent", "é", "a\nb", 0, 1, 2, -3, 2**60, 1.5, True, False, [], {}),
]


def _library(rule: str, value: Any) -> Any:
    """What the library gives: a bool, the error's text, or ("other", its type)."""
    program, error = cel.compiled(rule)
    assert program is not None, error
    result = program.eval(data={"self": value})
    if result.type() == cel._types().BOOL:
        return result.value()
    if result.type() == cel._types().ERROR:
        return str(result.value())
    return ("other", result.type().name())


def _agree(rule: str, value: Any) -> bool:
    """True when the module decided (and decided as the library does); False when it left the value to the library."""
    got = cel_plain.decide(rule, value)
    if got is None:
        return False
    want = _library(rule, value)
    assert (type(got), got) == (type(want), want), f"{rule} on {json.dumps(value)}: {got!r}, the library {want!r}"
    return True


def test_every_rule_it_parses_compiles_in_the_library() -> None:
    parsed = [rule for rule in CREATE_TIME if cel_plain.program(rule) is not None]
    uncompilable = {rule for _crd, rule, _message in cel.uncompilable()}
    assert not [rule for rule in parsed if rule in uncompilable]
    # All but the rules that compare durations (duration() is the library's), and two of Envoy Gateway's
    # (tools/crd_sources.json): a strings-extension lowerAscii() and a map literal indexed by a field.
    left = [rule for rule in CREATE_TIME if "duration(" in rule or "lowerAscii()" in rule or '{"Auto":0' in rule]
    assert sorted(set(CREATE_TIME) - set(parsed)) == left
    assert len(parsed) >= 137


def _mutations(value: Any, depth: int = 0) -> Iterator[Any]:
    yield value
    if depth > 1:
        return
    if isinstance(value, dict):
        for key in value:
            yield {k: v for k, v in value.items() if k != key}
            for other in LEAVES:
                yield {**value, key: other}
            for sub in itertools.islice(_mutations(value[key], depth + 1), 1, 30):
                yield {**value, key: sub}
    elif isinstance(value, list):
        yield []
        if value:
            yield [*value, value[0]]
            yield value[1:]
            for other in LEAVES[:12]:
                yield [other, *value[1:]]
            for sub in itertools.islice(_mutations(value[0], depth + 1), 1, 30):
                yield [sub, *value[1:]]
    else:
        yield from LEAVES


def _objects() -> list[tuple[str, Any]]:
    folders = [str(shared_path("corpus", "manifests")), str(shared_path("corpus", "manifests-v2")), str(ROOT / "tests")]
    return [(o.resource_type, o.obj) for o in read_manifests(folders).objects if cel.rules_of(o.resource_type)]


def test_it_decides_as_the_library_on_every_rule_and_value_the_corpora_and_tests_give_and_their_mutations() -> None:
    decided = pairs = 0
    seen: set[tuple[str, str]] = set()
    for type_token, obj in _objects():
        for rule in cel.rules_of(type_token):
            if rule.is_transition:
                continue
            for _where, node in cel._nodes(obj, rule.path):
                try:
                    base = cel._cel_value(node)
                except cel._UnknownValue:
                    continue
                for value in _mutations(base):
                    key = (rule.rule, json.dumps(value, sort_keys=True))
                    if key not in seen:
                        seen.add(key)
                        pairs += 1
                        decided += _agree(rule.rule, value)
    assert pairs > 5_000 and decided > 0.8 * pairs


@pytest.mark.parametrize("seed", [1, 2])
def test_it_decides_as_the_library_on_random_values_of_each_rules_fields(seed: int) -> None:
    rnd = random.Random(seed)

    def value(names: list[str], depth: int) -> Any:
        roll = rnd.random()
        if depth > 3 or roll < 0.35:
            return rnd.choice(LEAVES)
        if roll < 0.55:
            return [value(names, depth + 1) for _ in range(rnd.randint(0, 3))]
        return {rnd.choice(names): value(names, depth + 1) for _ in range(rnd.randint(0, 5))}

    decided = 0
    for rule in CREATE_TIME:
        if cel_plain.program(rule) is None:
            continue
        names = sorted(set(re.findall(r"[A-Za-z_]\w*", rule)) - {"self", "has", "size", "all", "exists", "filter"})
        decided += sum(_agree(rule, value(names or ["a"], 0)) for _ in range(150))
    assert decided > 10_000


@pytest.mark.parametrize(
    ("rule", "value", "want"),
    [
        ("self.a == self.b", {"a": 2, "b": 2.0}, True),  # heterogeneous equality: an int equals its double
        ("self == 'a'", 1, False),  # ... and values of different types are unequal, not an error
        ("self.a || self.b == 1", {"b": 1}, True),  # an error on one side, the other decides
        ("self.a && self.b == 1", {"b": 2}, False),
        ("self.a || self.b", {}, 'NOT_FOUND: Key not found in map : "a"'),  # both errors: the first
        ("self.all(x, x[x.k])", [{"k": "p"}, {"k": "q"}], 'NOT_FOUND: Key not found in map : "p"'),
        ("self.exists_one(x, x[x.k])", [{"k": "p"}, {"k": "q"}], 'NOT_FOUND: Key not found in map : "q"'),  # the last
        ("self.filter(x, x[x.k]).size() == 0", [{"k": "p"}, {"k": "q"}], 'NOT_FOUND: Key not found in map : "q"'),
        ("has(self.x)", "s", "INVALID_ARGUMENT: Applying SELECT to non-message type"),
        ("self[1] == 0", [0], "UNKNOWN: Index error: index=1 size=1"),
        ("self.size() == 5", "héllo", True),  # characters, not bytes
        ("self.split('@')[1] == ''", "a@", True),
        ("self.find('^([^/]+)') == 'a'", "a/b", True),
        ('self.matches(r"""^[a-z]+$""")', "abc", True),
        ("int(self) >= 5", "5", True),
    ],
)
def test_cases_it_decides(rule: str, value: Any, want: Any) -> None:
    assert cel_plain.decide(rule, value) == want
    assert _library(rule, value) == want


@pytest.mark.parametrize(
    ("rule", "value"),
    [
        ("self.matches('^a$')", "a\n"),  # `$` differs before a final newline (Python) and does not (RE2)
        ("int(self) >= 0", " 5"),  # the library reads a space and a sign; not decided here
        ("int(self) >= 0", "+5"),
        ("self ? true : false", "x"),  # no matching overload: the library's words
        ("self.a + 1 > 0", {"a": 2**63 - 1}),  # overflow
        ("self['a\"b']", {}),  # a key whose quoting in the message is the library's
    ],
)
def test_cases_it_leaves_to_the_library(rule: str, value: Any) -> None:
    assert cel_plain.decide(rule, value) is None


@pytest.mark.parametrize(
    "rule",
    [
        "duration(self) >= duration('1ms')",
        "self.matches('(?=a)b')",  # a lookahead: Python has it, RE2 refuses it
        "self.matches('a*+')",  # possessive: the same
        "self.matches('\\\\d+')",  # \d: Unicode digits in Python, ASCII in RE2
        "self.matches(self)",  # a pattern known only when evaluated
        "self == 1.5",  # floats, escapes, maps and arithmetic beyond + are not in the grammar
        "self == 'a\\n'",
        "{'a': 1} == self",
        "self - 1 > 0",
    ],
)
def test_rules_outside_its_grammar_go_to_the_library(rule: str) -> None:
    assert cel_plain.program(rule) is None


def test_evaluate_reports_the_same_with_and_without_it(monkeypatch: pytest.MonkeyPatch) -> None:
    # The corpora's objects, and a NodePool the API server refuses (a hostname requirement, an empty In).
    refused = {
        "spec": {
            "template": {
                "spec": {
                    "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "gpu"},
                    "requirements": [
                        {"key": "kubernetes.io/hostname", "operator": "In", "values": []},
                        {"key": "karpenter.k8s.aws/instance-cpu", "operator": "Gt", "values": ["x"]},
                    ],
                }
            }
        }
    }
    objects = [*_objects(), ("kubernetes:karpenter.sh/v1:NodePool", refused)]
    plain = [cel.evaluate(t, o) for t, o in objects]
    monkeypatch.setattr(cel, "decide", lambda rule, value: None)
    assert [cel.evaluate(t, o) for t, o in objects] == plain
    assert any(outcome.failed for outcome in plain) and any(outcome.unevaluated for outcome in plain)
