"""The API server's structural checks of custom resources: the ``spec`` schema of each pinned CRD version.

On create the API server prunes fields the schema does not know (unless ``x-kubernetes-preserve-unknown-fields``),
applies the schema's defaults, and validates what is left against the version's ``openAPIV3Schema``
(https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#validation): a
``required`` property missing, a value of the wrong ``type``, outside an ``enum`` or a number outside the schema's
``minimum``/``maximum`` refuses the object
(``spec.template.spec.nodeClassRef.group: Required value``). The schemas come from policies/crd/schemas.json, pruned
from the pinned CRDs by ``python tools/crd_schemas.py --write`` (each with its repository, tag and sha256); nothing
here reads the reference folder. They are checked with the ``jsonschema`` library (Draft 7), after translating the
Kubernetes extensions (a spec that surely passes, ``_surely_valid``, is cleared without loading the library):

- unknown fields are allowed by the validator (the API server prunes them, or refuses them under strict field
  validation); ``unknown_fields`` lists them apart, for advice;
- ``x-kubernetes-int-or-string`` is an integer or a string;
- a required property the schema defaults is dropped from ``required`` at extraction (defaulting fills it first);
- ``null`` is accepted everywhere, and so are values the engine does not know yet (a Pulumi Output, a redacted
  secret): they are not judged. Formats, patterns, lengths and pod specs inside a CRD are not checked here.
"""

from __future__ import annotations

import datetime
import functools
import json
import marshal
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from components.parse_cache import read_parsed
from policies.framework import Unknown

DATA = Path(__file__).with_name("schemas.json")
_REDACTED = "[secret]"
# More findings than this on one object say the wrong CRD version more than anything else: the first ones suffice.
_MAX_FINDINGS = 8


@dataclass(frozen=True)
class Schema:
    """One CRD version's pruned ``spec`` schema, with where it came from."""

    crd: str
    source: str
    spec: dict


@dataclass(frozen=True)
class Finding:
    """One structural error: where (``spec.a.b[0]``) and what (the API server's kind of error, in words)."""

    where: str
    message: str


def _by_type(text: str) -> dict[str, tuple[str, str, Any]]:
    data = json.loads(text)
    return {
        f"kubernetes:{crd['group']}/{version}:{crd['kind']}": (crd["crd"], crd["source"], spec)
        for crd in data["crds"]
        for version, spec in crd["versions"].items()
    }


def _packed(by_type: dict[str, tuple[str, str, Any]]) -> dict[str, tuple[str, str, Any]]:
    return {token: (crd, source, marshal.dumps(spec)) for token, (crd, source, spec) in by_type.items()}


class _Schemas(Mapping[str, Schema]):
    """The pinned schemas by type token, each spec decoded when its type is first asked for: a run needs a few of the
    file's 34, and reading all of schemas.json cost ~6 ms of every `policies check` (benchmarks/policies_check.py)."""

    def __init__(self, by_type: dict[str, tuple[str, str, Any]]) -> None:
        self._by_type = by_type
        self._built: dict[str, Schema] = {}

    def __getitem__(self, type_token: str) -> Schema:
        found = self._built.get(type_token)
        if found is None:
            crd, source, spec = self._by_type[type_token]
            found = self._built[type_token] = Schema(crd, source, marshal.loads(spec) if isinstance(spec, bytes) else spec)
        return found

    def __contains__(self, type_token: object) -> bool:
        return type_token in self._by_type

    def __iter__(self) -> Iterator[str]:
        return iter(self._by_type)

    def __len__(self) -> int:
        return len(self._by_type)


@functools.cache
def schemas_by_type() -> Mapping[str, Schema]:
    """Pulumi type token (``kubernetes:<group>/<version>:<kind>``) -> that CRD version's schema. The file's parse is
    kept beside the bytecode cache while its text is unchanged, each spec apart (components/parse_cache.py)."""
    return _Schemas(read_parsed(DATA, _by_type, "by-type", _packed))


def resource_types() -> tuple[str, ...]:
    """Every type token a pinned CRD gives a schema, sorted."""
    return tuple(sorted(schemas_by_type()))


def _json_schema(node: dict) -> dict:
    """The jsonschema form of one pruned Kubernetes schema node (see the module docstring)."""
    out: dict[str, Any] = {}
    if node.get("x-kubernetes-int-or-string"):
        out["type"] = ["integer", "string", "null"]
    elif isinstance(node.get("type"), str):
        out["type"] = [node["type"], "null"]
    if isinstance(node.get("enum"), list):
        out["enum"] = [*node["enum"], None]
    for bound, exclusive in (("minimum", "exclusiveMinimum"), ("maximum", "exclusiveMaximum")):
        if _number(node.get(bound)):
            # OpenAPI v3's boolean exclusive flag is draft 7's exclusive bound.
            out[exclusive if node.get(exclusive) is True else bound] = node[bound]
    if node.get("required"):
        out["required"] = list(node["required"])
    if node.get("properties"):
        out["properties"] = {name: _json_schema(sub) for name, sub in node["properties"].items()}
    if isinstance(node.get("items"), dict):
        out["items"] = _json_schema(node["items"])
    if isinstance(node.get("additionalProperties"), dict):
        out["additionalProperties"] = _json_schema(node["additionalProperties"])
    return out


@functools.cache
def _translated(type_token: str) -> dict:
    """The jsonschema form of a pinned type's ``spec`` schema, built once."""
    return _json_schema(schemas_by_type()[type_token].spec)


@functools.cache
def _validator(type_token: str) -> Any:
    # Imported on first use, and only for a spec _surely_valid cannot clear: `policies check` on manifests whose
    # custom resources are valid never pays for it (jsonschema with referencing and attrs: ~30 ms, ~80 modules).
    import jsonschema

    return jsonschema.Draft7Validator(_translated(type_token))


_PLAIN_TYPES = {"string": str, "object": dict, "array": list, "boolean": bool}


def _of_type(value: Any, name: str) -> bool:
    """Draft 7's type check (jsonschema's draft 7 type checker) for the non-null values _plain gives; False when
    unsure."""
    if name in ("integer", "number"):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return False
        return name == "number" or isinstance(value, int) or value.is_integer()
    kind = _PLAIN_TYPES.get(name)
    return kind is not None and isinstance(value, kind)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _within(node: dict, value: Any) -> bool:
    """False when a number lies outside the node's ``minimum``/``maximum`` (``exclusive`` flags read)."""
    if not _number(value):
        return True
    low, high = node.get("minimum"), node.get("maximum")
    if _number(low) and (value <= low if node.get("exclusiveMinimum") is True else value < low):
        return False
    return not (_number(high) and (value >= high if node.get("exclusiveMaximum") is True else value > high))


def _surely_valid(node: dict, value: Any) -> bool:
    """True only when the validator, given ``_json_schema(node)``, would find no error in ``value`` (a type, an enum,
    a required property, at any depth); False when it may, and then the validator decides. It reads the pinned node
    as _json_schema does, so no schema is translated for a valid object, and it is stricter where unsure (an enum
    value that is not a string, a type it does not know)."""
    if value is None:
        return True  # _json_schema admits null in every type and enum
    if node.get("x-kubernetes-int-or-string"):
        types: tuple[str, ...] = ("integer", "string")
    elif isinstance(node.get("type"), str):
        types = (node["type"],)
    else:
        types = ()
    if types and not any(_of_type(value, name) for name in types):
        return False
    if isinstance(node.get("enum"), list) and not (isinstance(value, str) and value in node["enum"]):
        return False
    if not _within(node, value):
        return False
    if isinstance(value, dict):
        if any(name not in value for name in node.get("required") or ()):
            return False
        properties = node.get("properties") or {}
        extra = node.get("additionalProperties") if isinstance(node.get("additionalProperties"), dict) else None
        for name, item in value.items():
            sub = properties.get(name, extra)
            if sub is not None and not _surely_valid(sub, item):
                return False
    elif isinstance(value, list) and isinstance(node.get("items"), dict):
        return all(_surely_valid(node["items"], item) for item in value)
    return True


def _plain(value: Any) -> Any:
    """The value as JSON would carry it: YAML dates as text, unknown and redacted values as null (not judged)."""
    if isinstance(value, Unknown) or value == _REDACTED:
        return None
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    return value


def _where(path: Any) -> str:
    text = "spec"
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else f".{part}"
    return text


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:57]}..."


def _words(error: Any) -> str | None:
    if error.validator == "required":
        missing = str(error.message).split("'")[1] if "'" in str(error.message) else str(error.message)
        return f"required field {missing} is missing (Required value)"
    if error.validator == "type":
        types = [t for t in error.validator_value if t != "null"]
        return f"{_shown(error.instance)} is not of type {' or '.join(types)} (Invalid value)"
    if error.validator in ("minimum", "exclusiveMinimum"):
        op = "greater than or equal to" if error.validator == "minimum" else "greater than"
        return f"{_shown(error.instance)} should be {op} {error.validator_value} (Invalid value)"
    if error.validator in ("maximum", "exclusiveMaximum"):
        op = "less than or equal to" if error.validator == "maximum" else "less than"
        return f"{_shown(error.instance)} should be {op} {error.validator_value} (Invalid value)"
    if error.validator == "enum":
        allowed = ", ".join(repr(v) for v in error.validator_value if v is not None)
        return f"{_shown(error.instance)} is not one of {allowed} (Unsupported value)"
    return None


def evaluate(type_token: str, props: Any) -> list[Finding]:
    """The structural errors of one custom resource's ``spec`` against its pinned CRD version; [] when none or when
    no schema is pinned for the type."""
    if type_token not in schemas_by_type() or not isinstance(props, dict) or not isinstance(props.get("spec"), dict):
        return []
    spec = _plain(props["spec"])
    if _surely_valid(schemas_by_type()[type_token].spec, spec):
        return []  # what the validator would find, without loading it
    errors = sorted(_validator(type_token).iter_errors(spec), key=lambda e: [str(p) for p in e.path])
    found = []
    for error in errors:
        words = _words(error)
        if words is not None:
            found.append(Finding(_where(error.path), words))
    return found[:_MAX_FINDINGS]


# Keys the API server allows at a node marked x-kubernetes-embedded-resource, whatever its properties list.
_EMBEDDED_KEYS = frozenset({"apiVersion", "kind", "metadata"})


def _unknown(node: dict, value: Any, path: tuple[Any, ...], out: list[tuple[Any, ...]]) -> None:
    """Collect the paths of fields ``value`` holds that ``node`` does not define: a key of an object whose schema lists
    properties, not listed there, at a node that neither preserves unknown fields nor maps its keys
    (additionalProperties). A node without properties (free-form, or a pod spec field the extraction left open) is
    not judged, nor is anything under an unknown field."""
    if isinstance(value, list) and isinstance(node.get("items"), dict):
        for i, item in enumerate(value):
            _unknown(node["items"], item, (*path, i), out)
        return
    if not isinstance(value, dict):
        return
    properties = node.get("properties") or {}
    extra = node.get("additionalProperties") if isinstance(node.get("additionalProperties"), dict) else None
    for name, item in value.items():
        sub = properties.get(name, extra)
        if sub is not None:
            _unknown(sub, item, (*path, name), out)
        elif properties and not node.get("x-kubernetes-preserve-unknown-fields") and not str(name).startswith("$"):
            # ("$patch", "$setElementOrder/...": a strategic merge patch's directives, not fields.)
            if not (node.get("x-kubernetes-embedded-resource") and name in _EMBEDDED_KEYS):
                out.append((*path, name))


def unknown_fields(type_token: str, props: Any) -> list[str]:
    """Where (``spec.a[0].b``) one custom resource's ``spec`` holds a field its pinned CRD version's structural schema
    does not define; [] when none or when no schema is pinned for the type. The API server refuses such an object under
    strict field validation (kubectl's default since Kubernetes 1.27) and prunes the field otherwise."""
    if type_token not in schemas_by_type() or not isinstance(props, dict) or not isinstance(props.get("spec"), dict):
        return []
    found: list[tuple[Any, ...]] = []
    _unknown(schemas_by_type()[type_token].spec, props["spec"], (), found)
    return [_where(path) for path in found[:_MAX_FINDINGS]]


# Fields the pinned CRD defines that an earlier release still in use did not: (group, kind) -> (field path under spec,
# the release that added it, where that is read). A cluster on an earlier release prunes the field, or refuses it under
# strict field validation, as it would an unknown one.
NEWER_FIELDS: dict[tuple[str, str], tuple[tuple[tuple[str, ...], str, str], ...]] = {
    (group_kind): (
        (
            ("schedulerName",),
            "KServe v0.17.0",
            "kserve/kserve e3a6afb58 (#5073) pkg/apis/serving/v1alpha1/servingruntime_types.go:119 at v0.17.0; absent "
            "from the file at v0.16.0",
        ),
    )
    for group_kind in (("serving.kserve.io", "ServingRuntime"), ("serving.kserve.io", "ClusterServingRuntime"))
}


def newer_fields(type_token: str, props: Any) -> list[tuple[str, str, str]]:
    """(where, the release that added it, the source) of each field of NEWER_FIELDS the object's ``spec`` sets."""
    group_kind = type_token.split(":", 1)[-1].split("/", 1)[0], type_token.rsplit(":", 1)[-1]
    spec = props.get("spec") if isinstance(props, dict) else None
    found = []
    for path, since, source in NEWER_FIELDS.get(group_kind, ()):
        value: Any = spec
        for key in path:
            value = value.get(key) if isinstance(value, dict) else None
        if value is not None:
            found.append((_where(path), since, source))
    return found


def source_of(type_token: str) -> Schema:
    """The pinned schema of a type token that has one."""
    return schemas_by_type()[type_token]
