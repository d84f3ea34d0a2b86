"""G40: what a custom resource's CRD marks deprecated, read as data (policies/crd/deprecations.json).

A CRD says deprecation itself: a served version with ``deprecated: true``, whose ``deprecationWarning`` the API server
returns with every request of that version (https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/
custom-resource-definition-versioning/#version-deprecation), and a field whose description holds a paragraph starting
``Deprecated:``. tools/crd_deprecations.py extracts both from the CRDs the pack pins (the reference folder's crds/ and
tools/crd_sources.json, each at its release tag), with the file's line, and from the earlier releases that list names
for fields a project deprecated and then dropped (Envoy AI Gateway v0.3.0 deprecated AIGatewayRoute's
``spec.targetRefs`` for ``spec.parentRefs``; v0.4.0 and the pinned v1.1.0 have no such field). Everything here is
advice: a deprecated version or field still works on the release that deprecates it; the message quotes what the CRD
says to use instead.

Silent: a version the pinned CRD serves and does not mark deprecated (gateway.networking.k8s.io/v1beta1 HTTPRoute:
Gateway API v1.6.1 serves it, unmarked), the current version and its fields, a kind whose CustomResourceDefinition is
among the files (that CRD, not the pinned one, is what the cluster serves), and an apiVersion with a template
placeholder. The same table holds the fields the Kubernetes 1.33 OpenAPI marks "Deprecated:" on Kubernetes' own kinds
(a pod template's serviceAccount and in-tree volume drivers, a Service's loadBalancerIP), which a GA version keeps;
a deprecated alias written beside the field its note names, with the same value (the serviceAccount the API server
writes beside serviceAccountName in a `kubectl get` export), is silent. The table is read only when an object of one of
its groups is in the run (0.3 ms).
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from policies.framework import Policy, Resource
from policies.kube import as_dict, as_list

DATA = Path(__file__).with_name("deprecations.json")
# The table's groups of Kubernetes' own kinds (the core group keyed "core"), whose fields the API itself deprecates.
_BUILT_IN = frozenset({"apps", "batch", "core"})
_USE_INSTEAD = re.compile(r"^[Uu]se `?([A-Za-z]+)`? instead")
# At most 9 digits a number: a longer one ranks no version (int() refuses more than 4,300 digits).
_VERSION = re.compile(r"v([0-9]{1,9})(?:(alpha|beta)([0-9]{1,9}))?")
# The groups the table has rows for, checked before it is read (tests/policies/test_policy_crd_deprecations.py keeps
# this equal to the table's): a run with no object of them never loads it.
GROUPS = frozenset({"aigateway.envoyproxy.io", "apps", "batch", "core", "monitoring.coreos.com", "networking.istio.io", "ray.io"})


@functools.cache
def table() -> dict[str, dict]:
    """ "group/Kind" -> {"source", "served", "versions": deprecated version -> {warning, line}, "fields": version ->
    [{path, note, line, removed?, source?}]}."""
    return json.loads(DATA.read_text(encoding="utf-8"))["kinds"]


def _rank(version: str) -> tuple[int, int, int]:
    """v1 > v1beta2 > v1beta1 > v1alpha1 (Kubernetes' version priority)."""
    found = _VERSION.fullmatch(version)
    if found is None:
        return (0, 0, 0)
    return (int(found.group(1)), {"": 2, "beta": 1, "alpha": 0}[found.group(2) or ""], int(found.group(3) or 0))


def _replacement(group: str, entry: dict) -> str:
    """The most stable version the pinned CRD serves and does not deprecate."""
    current = [v for v in entry["served"] if v not in entry["versions"]]
    return f"{group}/{max(current, key=_rank)}" if current else ""


def _defined_here(resources: list[Resource]) -> set[str]:
    """ "group/Kind" of the CustomResourceDefinitions in the files read."""
    found = set()
    for r in resources:
        props = r.props if isinstance(r.props, dict) else {}
        if props.get("kind") == "CustomResourceDefinition":
            spec = as_dict(props.get("spec"))
            found.add(f"{spec.get('group')}/{as_dict(spec.get('names')).get('kind')}")
    return found


def _alias_of(parent: dict, name: str, note: str) -> bool:
    """True when the field the note says to use instead is written beside ``name`` with the same value: the deprecated
    alias the API server itself fills in and `kubectl get -o yaml` shows (serviceAccount beside serviceAccountName)."""
    found = _USE_INSTEAD.search(note)
    return found is not None and name in parent and parent.get(found.group(1)) == parent[name]


def _written(value: Any, segments: list[str], where: str, note: str = "") -> Iterator[str]:
    """The paths at which an object writes the field ``segments`` names ("[]" every list item, "{}" every map value)."""
    if len(segments) == 1 and isinstance(value, dict) and _alias_of(value, segments[0], note):
        return
    if not segments:
        # An empty value (`bearerTokenSecret: {key: ""}`, the zero value an operator's Go types write back and
        # `kubectl get -o yaml` shows) sets nothing.
        if _set(value):
            yield where
        return
    head, rest = segments[0], segments[1:]
    if head == "[]":
        for index, item in enumerate(as_list(value)):
            yield from _written(item, rest, f"{where}[{index}]", note)
    elif head == "{}":
        for key, item in sorted(as_dict(value).items(), key=lambda kv: str(kv[0])):
            yield from _written(item, rest, f"{where}[{key}]", note)
    elif isinstance(value, dict) and head in value:
        yield from _written(value[head], rest, f"{where}.{head}" if where else head, note)


def _set(value: Any) -> bool:
    """True for a value that sets something: not None, "", an empty list, or a map of such values only."""
    if isinstance(value, dict):
        return any(_set(v) for v in value.values())
    return value not in (None, "", [])


def _source(row: dict, entry: dict) -> str:
    source = row.get("source") or entry["source"]
    return f"{source}:{row['line']}" if "line" in row else source


def _split(api_version: str) -> tuple[str, str]:
    """(group, version) of an apiVersion, the core group written "core"."""
    if "/" not in api_version:
        return "core", api_version
    group, version = api_version.rsplit("/", 1)
    return group, version


def _version_messages(api_version: str, kind: str, props: dict, patch: bool) -> list[str]:
    group, version = _split(api_version)
    entry = table().get(f"{group}/{kind}")
    deprecated = entry["versions"].get(version) if entry is not None else None
    # A Kustomize patch repeats its base's apiVersion: the base is reported.
    if entry is None or deprecated is None or patch:
        return []
    use = _replacement(group, entry)
    return [
        f"apiVersion {api_version} {kind} is deprecated: its CRD marks the version deprecated "
        f"({entry['source']}:{deprecated['line']}) and the API server answers every request with the warning "
        f"'{deprecated['warning']}'; a later release stops serving it" + (f"; write {use}" if use else "")
    ]


def _field_messages(api_version: str, kind: str, props: dict, patch: bool) -> list[str]:
    group, version = _split(api_version)
    entry = table().get(f"{group}/{kind}")
    if entry is None:
        return []
    owner = "Kubernetes API" if group in _BUILT_IN else f"{kind} CRD"
    messages = []
    for row in entry["fields"].get(version, []):
        for where in _written(props, row["path"].split("."), "", row["note"]):
            if row.get("removed"):
                fate = (
                    f"and the pinned CRD ({' '.join(entry['source'].split(' ')[:2])}) has no such field, so a current "
                    f"controller never reads it (the API server drops it, or refuses the object under strict field "
                    f"validation)"
                )
            elif group in _BUILT_IN and "no longer supported" in row["note"]:
                # An in-tree volume type whose driver Kubernetes removed (glusterfs in 1.26: kubernetes/examples
                # volumes/glusterfs/README.md): the GA API keeps the field, but nothing mounts it.
                fate = (
                    "and no current kubelet supports the in-tree type: the API server still accepts the field, but "
                    "the volume does not mount (move to the storage's CSI driver)"
                )
            elif group in _BUILT_IN:
                # Kubernetes never removes a field of a GA version: the field works, the note says what replaces it.
                fate = "and keeps it only for compatibility"
            else:
                fate = "and a later release may drop it"
            messages.append(
                f"{where}: the {owner} marks this field deprecated ({_source(row, entry)}: 'Deprecated: "
                f"{row['note']}') {fate}; do what the note says"
            )
    return messages


def _findings(resources: list[Resource], messages: Callable[[str, str, dict, bool], list[str]]) -> list[tuple[str, str]]:
    """(resource name, message) for each custom resource of a table group, with what ``messages`` says of it."""
    findings: list[tuple[str, str]] = []
    here: set[str] | None = None
    for r in resources:
        props = r.props if isinstance(r.props, dict) else None
        api_version = props.get("apiVersion") if props is not None else None
        kind = props.get("kind") if props is not None else None
        if not isinstance(api_version, str) or not isinstance(kind, str):
            continue
        group = _split(api_version)[0]
        if group not in GROUPS or "{" in api_version or "$" in api_version:
            continue
        if here is None:
            here = _defined_here(resources)
        if f"{group}/{kind}" not in here:
            findings += [(r.name, m) for m in messages(api_version, kind, props, r.patch)]
    return findings


def deprecated_versions(resources: list[Resource]) -> list[tuple[str, str]]:
    """A custom resource written in a version its pinned CRD marks deprecated (spent set 110: elizabetht/token-labs
    deploy/platform/gateway/aigwroute.yaml@629493b1, an aigateway.envoyproxy.io/v1alpha1 AIGatewayRoute; Envoy AI
    Gateway v1.1.0 deprecates v1alpha1 for v1beta1)."""
    return _findings(resources, _version_messages)


def _deprecated_fields(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    """A custom resource writing a field its CRD marks deprecated (spent set 110: elizabetht/token-labs
    deploy/platform/gateway/aigwroute.yaml and nemotron35-llm-d-route.yaml@629493b1, AIGatewayRoutes attached by
    spec.targetRefs, which Envoy AI Gateway v0.3.0 deprecated for spec.parentRefs and v0.4.0 dropped)."""
    return _findings(resources, _field_messages)


FIELD_POLICY = Policy(
    name="api-field-deprecated",
    description="An object writes no field its CRD marks deprecated (a description paragraph 'Deprecated:', at the "
    "pinned release or at an earlier one that deprecated a field the pinned release dropped), nor one Kubernetes' API "
    "marks deprecated (a pod template's serviceAccount or gitRepo volume, a Service's loadBalancerIP).",
    catalog="G40",
    severity="low",
    enforcement="advisory",
    remediation_steps="Do what the note the message quotes says (AIGatewayRoute: attach with spec.parentRefs "
    "instead of spec.targetRefs; ServiceMonitor: spec.endpoints[].authorization instead of bearerTokenSecret; a pod "
    "template: serviceAccountName instead of serviceAccount), then remove the deprecated field.",
    config_schema={},
    check_stack=_deprecated_fields,
    rationale="A CRD marks a deprecated field in its description ('Deprecated: use X instead', the Go API convention "
    "controller-gen copies into the schema); a later release drops it, and the API server then prunes it or refuses "
    "the object under strict field validation. Kubernetes' own types carry the same convention into the OpenAPI. The "
    "table (policies/crd/deprecations.json) is extracted by tools/crd_deprecations.py from the pinned CRDs, with each "
    "field's source file and line, and from the Kubernetes 1.33 OpenAPI kubernetes-validate ships.",
)
