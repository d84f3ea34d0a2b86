"""S26 api-version-never-served: an object of an operator's API group under a version that group never served.

The API server maps an object to its REST resource by group, version and kind; a version no installed CRD of the group
serves is answered "no matches for kind RayCluster in version ray.io/v10" and nothing is created (spent set 99:
abhi32dev/ai-infrastructure-platform docker-k8s/k8s-manifests/k8s-kuberay-cluster.yaml, ``apiVersion: ray.io/v10``).

Which versions each group served is data, policies/crd/served_versions.json: for each group the pack reads (KubeRay,
KServe, Karpenter, KEDA, LWS, Gateway API, the Inference Extension, Envoy Gateway and Envoy AI Gateway, Istio, the
Prometheus Operator), the UNION of the CRDs' ``spec.versions[].name`` (served) over every release tag read, with the
repository, the tags and the path per group. A version any release served is never judged here (an older cluster may
still serve it: api-version-served and api-version-deprecated, G40, say what the pinned releases dropped), so only a
version the group never had is reported, which no cluster running that project serves. A group the table does not list
is not judged, nor is a group/version that a CustomResourceDefinition of the files serves, an apiVersion with a template
placeholder, or a Kustomize patch (its target's version is the base's).
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path

from policies.crd.schema import resource_types as crd_types
from policies.framework import Policy, Resource
from policies.kube import as_dict, as_list, split_type

DATA = Path(__file__).with_name("served_versions.json")
# At most 9 digits a number: a longer one ranks no version (int() refuses more than 4,300 digits).
_VERSION = re.compile(r"v([0-9]{1,9})(?:(alpha|beta)([0-9]{1,9}))?")


@functools.cache
def _groups() -> dict[str, tuple[frozenset[str], str, str]]:
    """group -> (the versions it ever served, the version to write, where that is read)."""
    data = json.loads(DATA.read_text(encoding="utf-8"))
    return {group: (frozenset(row["versions"]), row["use"], row["source"]) for group, row in sorted(data["groups"].items())}


@functools.cache
def _pinned_versions() -> dict[tuple[str, str], str]:
    """(group, kind) -> the most stable version of its pinned CRD (policies/crd/schemas.json): the one to write."""
    best: dict[tuple[str, str], str] = {}
    for token in crd_types():
        key, version = split_type(token), token.split(":")[1].rsplit("/", 1)[1]
        if key not in best or _rank(version) > _rank(best[key]):
            best[key] = version
    return best


def _rank(version: str) -> tuple[int, int, int]:
    """v1 > v1beta2 > v1beta1 > v1alpha1 (Kubernetes' version priority, majors first)."""
    found = _VERSION.fullmatch(version)
    if found is None:
        return (0, 0, 0)
    stage = {"": 2, "beta": 1, "alpha": 0}[found.group(2) or ""]
    return (int(found.group(1)), stage, int(found.group(3) or 0))


def _defined_here(resources: list[Resource]) -> set[tuple[str, str]]:
    """(group, version) of the CustomResourceDefinitions in the files read."""
    found: set[tuple[str, str]] = set()
    for r in resources:
        props = r.props if isinstance(r.props, dict) else {}
        if props.get("kind") != "CustomResourceDefinition":
            continue
        spec = as_dict(props.get("spec"))
        group = str(spec.get("group"))
        found.add((group, str(spec.get("version"))))
        found.update((group, str(as_dict(v).get("name"))) for v in as_list(spec.get("versions")))
    return found


def _never_served(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    """An apiVersion whose group the table lists under a version none of the group's releases served."""
    groups, findings = _groups(), []
    here: set[tuple[str, str]] | None = None
    for r in resources:
        props = r.props if isinstance(r.props, dict) else None
        api_version = props.get("apiVersion") if props is not None else None
        if not isinstance(api_version, str) or "/" not in api_version or r.patch:
            continue
        group, version = api_version.rsplit("/", 1)
        row = groups.get(group)
        if row is None or version in row[0] or "{" in version or "$" in version or not version:
            continue
        if here is None:
            here = _defined_here(resources)
        if (group, version) in here:
            continue
        kind = props.get("kind") if props is not None else None
        use = _pinned_versions().get((group, str(kind)), row[1])
        findings.append(
            (
                r.name,
                f"apiVersion {api_version}: API group {group} has never served version {version} (its CRDs serve "
                f"{', '.join(sorted(row[0]))} over every release: {row[2]}), so the API server answers 'no matches for "
                f"kind {kind} in version {api_version}' and nothing is created; write {group}/{use}",
            )
        )
    return findings


POLICY = Policy(
    name="api-version-never-served",
    description="An object of an operator's API group (ray.io, serving.kserve.io, karpenter.sh, keda.sh, "
    "aigateway.envoyproxy.io, ...) is written under a version one of that group's releases served.",
    catalog="S26",
    severity="high",
    enforcement="mandatory",
    remediation_steps="Write the version the message names (the operator's current CRD version: ray.io/v1, "
    "serving.kserve.io/v1beta1 for an InferenceService); `kubectl api-versions | grep <group>` lists what the cluster "
    "serves.",
    config_schema={},
    check_stack=_never_served,
    rationale=(
        "The API server answers 'no matches for kind' for a group/version no installed CRD serves; the versions each "
        "operator's CRDs ever served are read from every release tag of its repository (policies/crd/"
        "served_versions.json, with the tags and paths), so a version outside them is served by no cluster."
    ),
)
