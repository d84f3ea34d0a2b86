"""Extract the types and fields of Kubernetes' own kinds from kubernetes-validate's OpenAPI schemas into
policies/reading/core_schemas.json.

    python tools/core_schemas.py            # print the data the installed package gives
    python tools/core_schemas.py --write    # rewrite policies/reading/core_schemas.json
    python tools/core_schemas.py --check    # exit 1 when the committed file differs

The API server decodes a manifest into its Go types: a value of the wrong JSON type (a number where a string goes, a
string where an integer goes) cannot be decoded and the object is refused, and under strict field validation
(kubectl's default since Kubernetes 1.27) so is a field the type does not have. The PyPI package kubernetes-validate
ships each minor's OpenAPI schemas as JSON schema (``kubernetes-json-schema/v1.<minor>.0-local-strict/
_definitions.json``); the pack must not import it at run time (its import costs ~180 ms), so this keeps, for the kinds
policies/reading/core_schema.py checks (KINDS: the workloads, Service, ConfigMap, Secret, volumes and claims, autoscalers,
PDB, Ingress, NetworkPolicy, accounts, namespaces, RBAC, priority and storage classes, limits and quotas) and every definition they reach at Kubernetes 1.33, only the allowed JSON
types (``t``; ``integer`` and ``string`` for IntOrString, ``string`` and ``number`` for a Quantity), the properties
(``p``), a map's values (``a``), a list's items (``i``), a reference to another definition (``r``) and whether the
object is closed (``c``: no field outside ``p``). A definition with no type (RawExtension, FieldsV1, JSON) is kept
empty: anything goes. Descriptions, formats, enums and required lists are dropped. Each property that only a later
minor the package ships defines is listed under ``s`` with that minor (advice: a newer cluster takes it). The file
carries the package's version and the sha256 of each schema file read.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "policies" / "reading" / "core_schemas.json"
MINOR = "1.33"
# Pulumi type token -> (group, version, kind) as the schema's x-kubernetes-group-version-kind names it.
KINDS = {
    "kubernetes:core/v1:Pod": ("", "v1", "Pod"),
    "kubernetes:core/v1:Service": ("", "v1", "Service"),
    "kubernetes:core/v1:ConfigMap": ("", "v1", "ConfigMap"),
    "kubernetes:core/v1:Secret": ("", "v1", "Secret"),
    "kubernetes:core/v1:PersistentVolumeClaim": ("", "v1", "PersistentVolumeClaim"),
    "kubernetes:core/v1:ServiceAccount": ("", "v1", "ServiceAccount"),
    "kubernetes:apps/v1:Deployment": ("apps", "v1", "Deployment"),
    "kubernetes:apps/v1:StatefulSet": ("apps", "v1", "StatefulSet"),
    "kubernetes:apps/v1:DaemonSet": ("apps", "v1", "DaemonSet"),
    "kubernetes:apps/v1:ReplicaSet": ("apps", "v1", "ReplicaSet"),
    "kubernetes:batch/v1:Job": ("batch", "v1", "Job"),
    "kubernetes:batch/v1:CronJob": ("batch", "v1", "CronJob"),
    "kubernetes:autoscaling/v2:HorizontalPodAutoscaler": ("autoscaling", "v2", "HorizontalPodAutoscaler"),
    "kubernetes:policy/v1:PodDisruptionBudget": ("policy", "v1", "PodDisruptionBudget"),
    "kubernetes:networking.k8s.io/v1:Ingress": ("networking.k8s.io", "v1", "Ingress"),
    "kubernetes:networking.k8s.io/v1:NetworkPolicy": ("networking.k8s.io", "v1", "NetworkPolicy"),
    "kubernetes:networking.k8s.io/v1:IngressClass": ("networking.k8s.io", "v1", "IngressClass"),
    "kubernetes:core/v1:Namespace": ("", "v1", "Namespace"),
    "kubernetes:core/v1:PersistentVolume": ("", "v1", "PersistentVolume"),
    "kubernetes:core/v1:LimitRange": ("", "v1", "LimitRange"),
    "kubernetes:core/v1:ResourceQuota": ("", "v1", "ResourceQuota"),
    "kubernetes:autoscaling/v1:HorizontalPodAutoscaler": ("autoscaling", "v1", "HorizontalPodAutoscaler"),
    "kubernetes:scheduling.k8s.io/v1:PriorityClass": ("scheduling.k8s.io", "v1", "PriorityClass"),
    "kubernetes:storage.k8s.io/v1:StorageClass": ("storage.k8s.io", "v1", "StorageClass"),
    "kubernetes:rbac.authorization.k8s.io/v1:Role": ("rbac.authorization.k8s.io", "v1", "Role"),
    "kubernetes:rbac.authorization.k8s.io/v1:ClusterRole": ("rbac.authorization.k8s.io", "v1", "ClusterRole"),
    "kubernetes:rbac.authorization.k8s.io/v1:RoleBinding": ("rbac.authorization.k8s.io", "v1", "RoleBinding"),
    "kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding": ("rbac.authorization.k8s.io", "v1", "ClusterRoleBinding"),
}
_REF = "#/$defs/"


def _schema_dir(minor: str) -> Path:
    import kubernetes_validate  # type: ignore[import-untyped]

    return Path(kubernetes_validate.__file__).parent / "kubernetes-json-schema" / f"v{minor}.0-local-strict"


def _definitions(minor: str) -> tuple[dict, str]:
    path = _schema_dir(minor) / "_definitions.json"
    raw = path.read_bytes()
    return json.loads(raw)["$defs"], hashlib.sha256(raw).hexdigest()


def _types(node: dict) -> list[str]:
    kinds = node.get("type")
    if isinstance(kinds, str):
        kinds = [kinds]
    if kinds is None and isinstance(node.get("oneOf"), list):
        kinds = [
            t for alt in node["oneOf"] for t in ([alt["type"]] if isinstance(alt.get("type"), str) else alt.get("type") or [])
        ]
    return sorted({t for t in kinds or [] if t != "null"})


def prune(node: Any, refs: set[str]) -> dict:
    """The compact form of one schema node (see the module docstring); the definitions it names are added to refs."""
    if not isinstance(node, dict):
        return {}
    if isinstance(node.get("$ref"), str):
        name = node["$ref"].removeprefix(_REF)
        refs.add(name)
        return {"r": name}
    out: dict[str, Any] = {}
    if types := _types(node):
        out["t"] = types
    if isinstance(node.get("properties"), dict):
        out["p"] = {name: prune(sub, refs) for name, sub in sorted(node["properties"].items())}
    extra = node.get("additionalProperties")
    if isinstance(extra, dict):
        out["a"] = prune(extra, refs)
    elif extra is False and "object" in out.get("t", ["object"]):
        out["c"] = 1
    if isinstance(node.get("items"), dict):
        out["i"] = prune(node["items"], refs)
    return out


def _root(defs: dict, gvk: tuple[str, str, str]) -> str:
    group, version, kind = gvk
    for name, node in defs.items():
        if {"group": group, "version": version, "kind": kind} in node.get("x-kubernetes-group-version-kind", []):
            return name
    raise SystemExit(f"no definition of {gvk} in kubernetes-validate's {MINOR} schemas")


def _later_minors() -> list[str]:
    base = _schema_dir(MINOR).parent
    found = [p.name[1:].rsplit(".", 1)[0] for p in base.glob("v*.0-local-strict")]
    later = [m for m in found if tuple(map(int, m.split("."))) > tuple(map(int, MINOR.split(".")))]
    return sorted(later, key=lambda m: tuple(map(int, m.split("."))))


def _since(name: str, pruned: dict, later: list[tuple[str, dict]]) -> dict[str, str]:
    """The properties of definition ``name`` that a later minor defines and MINOR does not, with the first such minor."""
    known = set(pruned.get("p", {}))
    since: dict[str, str] = {}
    for minor, defs in later:
        for prop in (defs.get(name) or {}).get("properties") or {}:
            if prop not in known and prop not in since:
                since[prop] = minor
    return dict(sorted(since.items()))


def extract() -> dict:
    """The compact schemas of KINDS and every definition they reach, with provenance; deterministic."""
    defs, digest = _definitions(MINOR)
    later = [(minor, _definitions(minor)[0]) for minor in _later_minors()]
    kinds = {token: _root(defs, gvk) for token, gvk in sorted(KINDS.items())}
    pending, done = sorted(set(kinds.values())), {}
    while pending:
        name = pending.pop()
        if name in done:
            continue
        refs: set[str] = set()
        done[name] = prune(defs[name], refs)
        if since := _since(name, done[name], later):
            done[name]["s"] = since
        pending.extend(sorted(refs - set(done)))
    return {
        "source": {
            "package": "kubernetes-validate",
            "version": metadata.version("kubernetes-validate"),
            "minor": MINOR,
            "schemas": f"kubernetes-json-schema/v{MINOR}.0-local-strict/_definitions.json",
            "sha256": digest,
            "later": {minor: _definitions(minor)[1] for minor, _ in later},
            "tool": "tools/core_schemas.py",
        },
        "kinds": kinds,
        "definitions": dict(sorted(done.items())),
    }


def render(data: dict) -> str:
    """The committed file's bytes: sorted keys, no indentation, a final newline."""
    return json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":")) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Print, write or check the core schema file."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help=f"rewrite {DATA.relative_to(ROOT)}")
    mode.add_argument("--check", action="store_true", help="exit 1 when the committed file differs from the package")
    args = parser.parse_args(argv)
    text = render(extract())
    if args.write:
        DATA.write_text(text, encoding="utf-8")
        print(f"wrote {DATA.relative_to(ROOT)}")
    elif args.check:
        if not DATA.is_file() or DATA.read_text(encoding="utf-8") != text:
            print(f"{DATA.relative_to(ROOT)} is stale: run python tools/core_schemas.py --write", file=sys.stderr)
            return 1
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
