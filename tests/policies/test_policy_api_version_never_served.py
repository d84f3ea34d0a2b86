"""S26 api-version-never-served: an operator API group's object under a version no release of the group served.

Fires: spent set 99, abhi32dev/ai-infrastructure-platform docker-k8s/k8s-manifests/k8s-kuberay-cluster.yaml
@50f4fc9e55ad77485880fc8058b15eabad0061f8 (`apiVersion: ray.io/v10`): ray-project/kuberay v0.1.0-v1.7.0
ray-operator/config/crd/bases/ray.io_rayclusters.yaml serve v1alpha1 and (from v1.0.0) v1, nothing else. Same class:
an InferenceService under serving.kserve.io/v1 (KServe v0.7.0-v0.20.0 config/crd/ serve v1alpha1, v1alpha2, v1beta1).
Silent: every version a release served (ray.io/v1 and v1alpha1, karpenter.sh/v1beta1 and v1alpha5, Envoy AI Gateway's
v1alpha1 and v1beta1), a group the table does not list, a templated version, and a version a CustomResourceDefinition
of the files serves.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

from policy_fixtures import manifest

from policies.crd import served_versions
from policies.registry import evaluate

_SET99 = {
    "apiVersion": "ray.io/v10",
    "kind": "RayCluster",
    "metadata": {"name": "ray-ai-compute-cluster", "namespace": "ai-platform"},
    "spec": {
        "rayVersion": "2.35.0",
        "headGroupSpec": {
            "rayStartParams": {"dashboard-host": "0.0.0.0"},
            "template": {"spec": {"containers": [{"name": "ray-head", "image": "rayproject/ray:2.35.0-py310"}]}},
        },
    },
}


def _found(*objs: dict) -> list[tuple[str, str]]:
    return [
        (v.enforcement, v.message) for v in evaluate([manifest(o) for o in objs], None) if v.policy == "api-version-never-served"
    ]


def _as(api_version: str, kind: str = "RayCluster") -> dict:
    obj = copy.deepcopy(_SET99)
    obj["apiVersion"], obj["kind"] = api_version, kind
    return obj


def test_set99_ray_v10_is_refused():
    found = _found(_SET99)
    assert [e for e, _ in found] == ["mandatory"], found
    assert "no matches for kind RayCluster in version ray.io/v10" in found[0][1] and "write ray.io/v1" in found[0][1]


def test_kserve_v1_is_refused_and_names_the_kinds_version():
    found = _found(_as("serving.kserve.io/v1", "InferenceService"))
    assert [e for e, _ in found] == ["mandatory"] and "write serving.kserve.io/v1beta1" in found[0][1], found


def test_every_served_version_is_silent():
    for api_version, kind in (
        ("ray.io/v1", "RayCluster"),
        ("ray.io/v1alpha1", "RayService"),
        ("karpenter.sh/v1beta1", "NodePool"),
        ("karpenter.sh/v1alpha5", "Provisioner"),
        ("aigateway.envoyproxy.io/v1alpha1", "AIServiceBackend"),
        ("aigateway.envoyproxy.io/v1beta1", "AIGatewayRoute"),
        ("inference.networking.k8s.io/v1", "InferencePool"),
        ("monitoring.coreos.com/v1beta1", "AlertmanagerConfig"),
    ):
        assert _found(_as(api_version, kind)) == [], api_version


def test_unknown_group_template_and_crd_of_the_files_are_silent():
    assert _found(_as("example.com/v10")) == []
    assert _found(_as("ray.io/{{ .Values.version }}")) == []
    crd = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "rayclusters.ray.io"},
        "spec": {"group": "ray.io", "names": {"kind": "RayCluster"}, "versions": [{"name": "v10", "served": True}]},
    }
    assert _found(_SET99, crd) == []


def test_every_group_row_has_versions_a_version_to_write_and_a_source():
    data = json.loads(Path(served_versions.DATA).read_text(encoding="utf-8"))
    for group, row in data["groups"].items():
        assert row["versions"] and row["use"] in row["versions"] and row["source"], group
