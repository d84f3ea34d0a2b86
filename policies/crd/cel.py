"""The API server's own checks of custom resources: the CRDs' CEL rules (``x-kubernetes-validations``).

The rules come from policies/crd/cel_rules.json, generated from the pinned CRDs by
``python tools/crd_cel_rules.py --write`` (each CRD with its repository, tag and sha256); nothing
here reads the reference folder. They are evaluated as the API server evaluates them on create
(Kubernetes "Validation rules", https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#validation-rules):
a rule is scoped to the schema node that declares it, ``self`` is that node's value, and it runs
once per value present (per list item, per map value); a node that is absent is not checked.

What differs, and is said rather than hidden:
- rules that read ``oldSelf`` are transition rules: the API server runs them on update only, against
  the stored object, which a plan does not have. They are skipped (``skipped_transition``).
- no schema defaults are applied first (the API server applies them before validating): a rule that
  reads a defaulted field the manifest leaves out errs here; an error is reported as "not evaluated"
  (advisory), never as a pass or a rejection.
- a rule the library cannot compile is reported the same way, with the library's message.

The library is cel-expr-python (the CEL project's own Python runtime over cel-cpp; requirements.txt
says why it was chosen). Kubernetes adds libraries to standard CEL; our CRDs use two of them:
``split`` (the strings extension, loaded as cel-go's ``ext.Strings`` is) and the regex ``find``
(k8s.io/apiserver pkg/cel/library/regex.go: the first match, or "" when none), defined below. Rules
compile once, on first use, and only when an object of their CRD is checked.
"""

from __future__ import annotations

import binascii
import functools
import json
import marshal
import os
import re
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from components.loading import PlainNumber
from components.parse_cache import cache_folder, read_parsed, store
from policies.crd.cel_plain import decide
from policies.crd.cel_plain import find as _find  # k8s.io/apiserver pkg/cel/library/regex.go `find`
from policies.framework import Unknown

DATA = Path(__file__).with_name("cel_rules.json")


@dataclass(frozen=True)
class Rule:
    """One CEL rule of one CRD version, where it applies and what the API server says when it fails."""

    crd: str
    source: str
    path: tuple[str, ...]
    rule: str
    message: str
    # The schema type of the node the rule is scoped to ("object", "array", "string", ...; "" when untyped).
    type: str = ""

    @property
    def is_transition(self) -> bool:
        """True for a rule that reads ``oldSelf``: the API server runs it on update only."""
        return "oldSelf" in self.rule and re.search(r"\boldSelf\b", self.rule) is not None


@dataclass(frozen=True)
class Finding:
    """A rule that failed (``error`` empty) or could not be evaluated (``error`` says why) at ``where``."""

    rule: Rule
    where: str
    error: str = ""


@dataclass(frozen=True)
class Outcome:
    """What the rules of one object's CRD version said about it."""

    failed: tuple[Finding, ...]
    unevaluated: tuple[Finding, ...]
    evaluated: int
    skipped_transition: int


def _by_type(text: str) -> dict[str, tuple[str, str, Any]]:
    data = json.loads(text)
    return {
        f"kubernetes:{crd['group']}/{version}:{crd['kind']}": (crd["crd"], crd["source"], rules)
        for crd in data["crds"]
        for version, rules in crd["versions"].items()
    }


def _packed(by_type: dict[str, tuple[str, str, Any]]) -> dict[str, tuple[str, str, Any]]:
    return {token: (crd, source, marshal.dumps(rules)) for token, (crd, source, rules) in by_type.items()}


@functools.cache
def _table() -> dict[str, tuple[str, str, Any]]:
    """Pulumi type token -> (its CRD, the CRD's source, the rules of that version as read, or their marshal form when
    the parse came from the cache kept beside the bytecode while the file is unchanged: components/parse_cache.py)."""
    return read_parsed(DATA, _by_type, "by-type", _packed)


@functools.cache
def rules_of(type_token: str) -> tuple[Rule, ...]:
    """The rules of one CRD version (none for a type no pinned CRD has), built when an object of it is first checked:
    building all ~900 at import cost ~5 ms of every `policies check` (benchmarks/policies_check.py)."""
    entry = _table().get(type_token)
    if entry is None:
        return ()
    crd, source, rules = entry
    if isinstance(rules, bytes):
        rules = marshal.loads(rules)
    return tuple(
        Rule(
            crd=crd,
            source=source,
            path=tuple(r["path"]),
            rule=r["rule"],
            # The API server's message for a rule without one (apiextensions validation).
            message=r.get("message") or f"failed rule: {r['rule']}",
            type=r.get("type", ""),
        )
        for r in rules
    )


def rules_by_type() -> dict[str, tuple[Rule, ...]]:
    """Pulumi type token (``kubernetes:<group>/<version>:<kind>``) -> the rules of that CRD version."""
    return {type_token: rules_of(type_token) for type_token in _table()}


def resource_types() -> tuple[str, ...]:
    """Every type token some pinned CRD gives CEL rules, sorted."""
    return tuple(sorted(_table()))


@functools.cache
def _env() -> Any:
    # Imported on first use: `policies check` on manifests without custom resources never pays for it.
    from cel_expr_python import cel
    from cel_expr_python.ext import ext_strings

    find = cel.Overload("string_find_string", cel.Type.STRING, [cel.Type.STRING, cel.Type.STRING], is_member=True, impl=_find)
    kubernetes = cel.CelExtension("kubernetes-regex", [cel.FunctionDecl("find", [find])])
    return cel.NewEnv(variables={"self": cel.Type.DYN}, extensions=[ext_strings.ExtStrings(), kubernetes])


def _types() -> Any:
    from cel_expr_python import cel

    return cel.Type


@functools.cache
def compiled(rule: str) -> tuple[Any, str]:
    """(program, "") for a rule the library compiles, (None, the library's message) otherwise; once per rule."""
    stored = _stored(rule)
    if stored is not None:
        return stored, ""
    try:
        program = _env().compile(rule)
    except Exception as exc:  # the library raises RuntimeError with cel-cpp's status text
        return None, _first_line(str(exc))
    _store(rule, program)
    return program, ""


# Compiling a rule costs ~0.25 ms, reading back the library's serialized form of it ~0.04 ms: ~8 ms of each
# `policies check` over the corpora (35 rules; benchmarks/policies_check.py). A compiled rule is kept beside the
# bytecode cache (components/parse_cache.py), one file per rule holding the rule's text, and is used only for that
# exact text and while neither the library nor this module (its environment: variables, extensions) changed.
def _program_file(rule: str) -> Path:
    folder = cache_folder(DATA) / f"{DATA.name}.{sys.implementation.cache_tag}.programs"
    return folder / f"{binascii.crc32(rule.encode()):08x}.marshal"


@functools.cache
def _stamp() -> tuple[int, ...]:
    """The library's and this module's size and modification time: a change to either compiles every rule again."""
    from cel_expr_python import cel

    library, module = os.stat(cel.__file__), os.stat(__file__)
    return library.st_size, library.st_mtime_ns, module.st_size, module.st_mtime_ns


def _stored(rule: str) -> Any:
    try:
        stamp, text, serialized = marshal.loads(_program_file(rule).read_bytes())
        if stamp == _stamp() and text == rule:
            return _env().deserialize(serialized)
    except Exception:  # absent, torn, another rule of the same checksum, or refused by the library: compile it
        pass
    return None


def _store(rule: str, program: Any) -> None:
    try:
        store(_program_file(rule), marshal.dumps((_stamp(), rule, program.serialize())))
    except Exception:  # a program the library cannot serialize is compiled on each run, as before
        pass


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0][:300] if text.strip() else "no message"


class _UnknownValue(Exception):
    """The value holds something the engine does not know yet (a preview's unknown output)."""


def _cel_value(value: Any) -> Any:
    """The value as the API server hands it to CEL: nulls dropped, whole numbers as integers."""
    if type(value) is str:
        return value  # (a plain string, before the ABC checks below; PlainNumber is a subclass)
    if type(value) is dict:
        return {str(k): _cel_value(v) for k, v in value.items() if v is not None}
    if isinstance(value, Unknown):
        raise _UnknownValue
    if isinstance(value, PlainNumber):
        return str(value)  # (a plain `08` or `1e3`: CEL's library takes only str itself)
    if isinstance(value, Mapping):
        return {str(k): _cel_value(v) for k, v in value.items() if v is not None}
    if isinstance(value, (list, tuple)):
        return [_cel_value(v) for v in value]
    # The Pulumi engine sends every number as a float; Kubernetes decodes whole JSON numbers as int64.
    if isinstance(value, float) and not isinstance(value, bool) and value.is_integer():
        return int(value)
    return value


def _nodes(obj: Any, path: tuple[str, ...], where: str = "") -> Iterator[tuple[str, Any]]:
    """Every value at ``path`` in ``obj``, with where it is (``spec.requirements[0].key``); absent -> none."""
    if not path:
        yield where or "<object>", obj
        return
    head, rest = path[0], path[1:]
    if head == "[]":
        if isinstance(obj, list):
            for i, item in enumerate(obj):
                yield from _nodes(item, rest, f"{where}[{i}]")
    elif head == "{}":
        if isinstance(obj, Mapping):
            for key, item in obj.items():
                yield from _nodes(item, rest, f"{where}[{key!r}]")
    elif (type(obj) is dict or isinstance(obj, Mapping)) and obj.get(head) is not None:
        yield from _nodes(obj[head], rest, f"{where}.{head}" if where else head)


_PYTHON_TYPES: dict[str, tuple[type, ...]] = {
    "object": (Mapping,),
    "array": (list, tuple),
    "string": (str,),
    "integer": (int, float),
    "number": (int, float),
    "boolean": (bool,),
}


def _is_type(value: Any, schema_type: str) -> bool:
    if isinstance(value, Unknown) or schema_type not in _PYTHON_TYPES:
        return True
    if schema_type in ("integer", "number") and isinstance(value, bool):
        return False
    return isinstance(value, _PYTHON_TYPES[schema_type])


def evaluate(type_token: str, obj: Mapping[str, Any]) -> Outcome:
    """Run every create-time rule of the object's CRD version on it (see the module docstring)."""
    failed: list[Finding] = []
    unevaluated: list[Finding] = []
    evaluated = skipped = 0
    for rule in rules_of(type_token):
        if rule.is_transition:
            skipped += 1
            continue
        for where, node in _nodes(obj, rule.path):
            if not _is_type(node, rule.type):
                continue  # the schema's own type check refuses it first (kubernetes-validate territory, not CEL's)
            try:
                value = _cel_value(node)
            except _UnknownValue:
                continue  # checked again when the value is known (`pulumi up`)
            # A plain rule on a plain value is decided without the library (policies/crd/cel_plain.py).
            decided = decide(rule.rule, value)
            if decided is not None:
                evaluated += 1
                if isinstance(decided, str):
                    unevaluated.append(Finding(rule, where, f"evaluation failed: {_first_line(decided)}"))
                elif not decided:
                    failed.append(Finding(rule, where))
                continue
            program, error = compiled(rule.rule)
            if program is None:
                unevaluated.append(Finding(rule, where, f"the library cannot compile it: {error}"))
                continue
            result = program.eval(data={"self": value})
            evaluated += 1
            if result.type() == _types().BOOL:
                if not result.value():
                    failed.append(Finding(rule, where))
            elif result.type() == _types().ERROR:
                unevaluated.append(Finding(rule, where, f"evaluation failed: {_first_line(str(result.value()))}"))
            else:
                unevaluated.append(Finding(rule, where, f"it gave a {result.type().name()}, not a bool"))
    return Outcome(tuple(failed), tuple(unevaluated), evaluated, skipped)


def uncompilable() -> list[tuple[str, str, str]]:
    """(CRD, rule, the library's message) for every create-time rule the library cannot compile."""
    out = []
    for rules in rules_by_type().values():
        for rule in rules:
            if not rule.is_transition and compiled(rule.rule)[0] is None:
                out.append((rule.crd, rule.rule, compiled(rule.rule)[1]))
    return sorted(set(out))
