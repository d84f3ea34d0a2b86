"""Kubernetes' own kinds against their OpenAPI schema: a value of the wrong JSON type, or a field the type lacks.

The API server decodes a manifest into its Go types (k8s.io/api at the cluster's release). A value whose JSON type the
field cannot take is not decodable and the object is refused whatever else it says: ``value: 8001`` under ``env``
(EnvVar.value is a string: ``json: cannot unmarshal number into Go struct field EnvVar...value of type string``), a
label or annotation given as a number or boolean, ``replicas: "2"``, ``hostNetwork: "true"``. A field the type does
not have is refused under strict field validation (server-side field validation, KEP-2885, GA in Kubernetes 1.27;
kubectl's ``--validate`` defaults to ``strict``; ``strict decoding error: unknown field "spec.template.name"``) and
dropped otherwise, so the setting never takes effect. Accepted, and never reported: ``null`` anywhere, integral numbers
written as floats (``2.0``, as the Pulumi engine passes them), an IntOrString as either (``targetPort: http``,
``maxSurge: 25%``), a Quantity as a number (``cpu: 2``), and values the engine does not know yet (a Pulumi Output,
a placeholder read as framework.UNKNOWN, a redacted secret).

Plain scalars are judged as kubectl's YAML reader (goyaml.v2) resolves them, not as YAML 1.1 does
(components/loading.py): ``value: 12:30`` is text, and ``containerPort: 08080`` (components.loading.PlainNumber) is
a number where the field takes one. Text in an integer or boolean field is refused for certain only when it is the
quoted form of such a value (``replicas: "2"``, ``hostNetwork: "true"``); any other text there (``#{replicas}#``,
``%PORT%``, ``{{PORT}}``, ``${{ values.port }}``) is a fill-in some tool replaces before applying (``fill_in``).

The schemas are Kubernetes 1.33's, from the PyPI package kubernetes-validate, pruned by ``python tools/core_schemas.py
--write`` into policies/reading/core_schemas.json (package version and sha256 inside); the package itself is never
imported here. A field that only a later minor defines (PodSpec ``hostnameOverride``, 1.34) is told apart: a newer
cluster takes it. The file is decoded on the first object of a kind it covers (a run with none never reads it).
"""

from __future__ import annotations

import datetime
import functools
import json
import marshal
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from components.loading import PlainNumber
from components.parse_cache import read_parsed
from policies.framework import Unknown

DATA = Path(__file__).with_name("core_schemas.json")
_REDACTED = "[secret]"
# More findings than this on one object say a wrong kind or version more than anything else: the first ones suffice.
_MAX_FINDINGS = 8
_NAMES = {
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "a boolean",
    "object": "a map",
    "array": "a list",
}


@dataclass(frozen=True)
class SchemaError:
    """One value the API server refuses: where (``spec.template.spec.containers[0].env[1].value``), what is wrong,
    ``unknown`` for a field the type lacks, and ``since`` the later minor that defines it (advice), if any;
    ``fill_in`` for text in an integer or boolean field that is not the quoted form of one (a placeholder)."""

    where: str
    message: str
    unknown: bool = False
    since: str = ""
    fill_in: bool = False


@functools.cache
def _data() -> dict:
    return read_parsed(DATA, json.loads, "core-schema-definitions", _packed)


def _packed(data: Any) -> Any:
    """The form kept beside the bytecode: each definition marshalled apart, read back when a walk first reaches it (a
    run reaches a few dozen of the file's definitions; reading them all cost ~0.9 ms of each `policies check`)."""
    if isinstance(data, dict) and isinstance(data.get("definitions"), dict):
        return {**data, "definitions": {name: marshal.dumps(d) for name, d in data["definitions"].items()}}
    return data


class _Definitions:
    """The definitions by name, each read from its marshalled form when first asked for (``get``, as _Walk asks)."""

    def __init__(self, packed: dict) -> None:
        self._packed = packed
        self._read: dict[str, Any] = {}

    def get(self, name: str, default: Any = None) -> Any:
        if (found := self._read.get(name)) is None:
            kept = self._packed.get(name)
            if kept is None:
                return default
            found = self._read[name] = marshal.loads(kept) if isinstance(kept, bytes) else kept
        return found


@functools.cache
def _definitions() -> Any:
    return _Definitions(_data()["definitions"])


def kinds() -> dict[str, str]:
    """Pulumi type token -> the name of its root definition, for every kind the file covers (it reads the file)."""
    return _data()["kinds"]


def source() -> dict:
    """Where the schemas come from: package, version, minor, sha256."""
    return _data()["source"]


# Read without opening the file: the kinds tools/core_schemas.py extracts (tests/policies keeps the two equal).
COVERED = frozenset(
    (
        "kubernetes:apps/v1:DaemonSet",
        "kubernetes:apps/v1:Deployment",
        "kubernetes:apps/v1:ReplicaSet",
        "kubernetes:apps/v1:StatefulSet",
        "kubernetes:autoscaling/v1:HorizontalPodAutoscaler",
        "kubernetes:autoscaling/v2:HorizontalPodAutoscaler",
        "kubernetes:batch/v1:CronJob",
        "kubernetes:batch/v1:Job",
        "kubernetes:core/v1:ConfigMap",
        "kubernetes:core/v1:LimitRange",
        "kubernetes:core/v1:Namespace",
        "kubernetes:core/v1:PersistentVolume",
        "kubernetes:core/v1:PersistentVolumeClaim",
        "kubernetes:core/v1:Pod",
        "kubernetes:core/v1:ResourceQuota",
        "kubernetes:core/v1:Secret",
        "kubernetes:core/v1:Service",
        "kubernetes:core/v1:ServiceAccount",
        "kubernetes:networking.k8s.io/v1:Ingress",
        "kubernetes:networking.k8s.io/v1:IngressClass",
        "kubernetes:networking.k8s.io/v1:NetworkPolicy",
        "kubernetes:policy/v1:PodDisruptionBudget",
        "kubernetes:rbac.authorization.k8s.io/v1:ClusterRole",
        "kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding",
        "kubernetes:rbac.authorization.k8s.io/v1:Role",
        "kubernetes:rbac.authorization.k8s.io/v1:RoleBinding",
        "kubernetes:scheduling.k8s.io/v1:PriorityClass",
        "kubernetes:storage.k8s.io/v1:StorageClass",
    )
)


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "integer" if value.is_integer() else "number"
    if isinstance(value, (str, datetime.date, datetime.datetime)):
        return "string"  # a YAML date reaches the API server as text
    if isinstance(value, dict):
        return "object"
    if isinstance(value, (list, tuple)):
        return "array"
    return "unknown"


# The quoted forms of a number and of a boolean: text the API server refuses in such a field for certain.
_QUOTED_NUMBER = re.compile(r"\s*[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?\s*")
_QUOTED_BOOLEAN = re.compile(r"\s*(?:true|false|yes|no|on|off|y|n)\s*", re.IGNORECASE)


def _accepts(types: list[str], value: Any) -> bool:
    kind = _json_type(value)
    if isinstance(value, PlainNumber) and ("integer" in types or "number" in types):
        return True  # goyaml.v2 reads it as a number, so the API server receives one
    return kind in types or (kind == "integer" and "number" in types)


def _fill_in(types: list[str], value: Any) -> bool:
    """Text where the field takes only an integer, number or boolean that is not the quoted form of one."""
    if not isinstance(value, str) or "string" in types or not {"integer", "number", "boolean"} & set(types):
        return False
    numeric = ("integer" in types or "number" in types) and _QUOTED_NUMBER.fullmatch(value)
    return not (numeric or ("boolean" in types and _QUOTED_BOOLEAN.fullmatch(value)))


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:57]}..."


def _child(where: str, key: Any) -> str:
    return f"{where}[{key}]" if isinstance(key, int) else (f"{where}.{key}" if where else str(key))


class _Walk:
    """One object's walk over the schema, collecting at most _MAX_FINDINGS errors."""

    def __init__(self, definitions: Any) -> None:
        self.definitions = definitions
        self.found: list[SchemaError] = []

    def node(self, node: dict) -> dict:
        while "r" in node:
            node = self.definitions.get(node["r"], {})
        return node

    def value(self, node: dict, value: Any, where: str) -> None:
        if value is None or isinstance(value, (Unknown, bytes)) or value == _REDACTED or len(self.found) >= _MAX_FINDINGS:
            return  # (bytes: a YAML !!binary, which kubectl's converter turns into text of its own)
        node = self.node(node)
        types = node.get("t")
        if types and not _accepts(types, value):
            wanted = " or ".join(_NAMES.get(t, t) for t in types)
            got = _NAMES.get(_json_type(value), "a value")
            message = f"{_shown(value)} is {got} where the schema takes {wanted}"
            self.found.append(SchemaError(where, message, fill_in=_fill_in(types, value)))
            return
        if isinstance(value, dict):
            self.fields(node, value, where)
        elif isinstance(value, (list, tuple)) and "i" in node:
            for i, item in enumerate(value):
                self.value(node["i"], item, _child(where, i))

    def fields(self, node: dict, value: dict, where: str) -> None:
        properties = node.get("p") or {}
        extra = node.get("a")
        for key, item in value.items():
            sub = properties.get(key, extra)
            if sub is not None:
                self.value(sub, item, _child(where, key))
            elif node.get("c") and not str(key).startswith("$") and len(self.found) < _MAX_FINDINGS:
                # ("$patch", "$setElementOrder/...": a strategic merge patch's directives, not fields.)
                since = (node.get("s") or {}).get(key, "")
                self.found.append(SchemaError(_child(where, key), "not a field of this type", unknown=True, since=since))


def errors(type_token: str, props: Any) -> list[SchemaError]:
    """The values of one object of a covered kind that its schema refuses; [] for any other kind."""
    if type_token not in COVERED or not isinstance(props, dict):
        return []
    data = _data()
    walk = _Walk(_definitions())
    root = walk.node({"r": data["kinds"][type_token]})
    walk.fields(root, props, "")
    return walk.found
