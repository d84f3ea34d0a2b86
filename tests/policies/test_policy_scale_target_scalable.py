"""G69 scale-target-scalable: an HPA's or KEDA ScaledObject's scaleTargetRef names a kind whose CRD serves /scale
(components/scale_subresources.toml; kedacore/keda v2.20.2 controllers/keda/scaledobject_controller.go:428-478
checkTargetResourceIsScalable; ray-project/kuberay v1.7.0 ray-operator/config/crd/bases/ray.io_rayservices.yaml: status
only)."""

from __future__ import annotations

import pytest
from policy_fixtures import found_by

from components.scale_subresources import KINDS

POLICY = "scale-target-scalable"


def _scaled_object(api_version: str | None, kind: str, name: str = "wan22-rayservice") -> dict:
    ref: dict = {"kind": kind, "name": name}
    if api_version is not None:
        ref["apiVersion"] = api_version
    return {
        "apiVersion": "keda.sh/v1alpha1",
        "kind": "ScaledObject",
        "metadata": {"name": "wan22-rayservice-scaler"},
        "spec": {
            "scaleTargetRef": ref,
            "minReplicaCount": 0,
            "maxReplicaCount": 1,
            "triggers": [{"type": "redis", "metadata": {"address": "redis:6379", "listName": "q", "listLength": "1"}}],
        },
    }


def _hpa(api_version: str, kind: str) -> dict:
    return {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "isvc"},
        "spec": {
            "scaleTargetRef": {"apiVersion": api_version, "kind": kind, "name": "llama"},
            "minReplicas": 1,
            "maxReplicas": 3,
        },
    }


# xiaolin8/Wan2.2@f7e81e366994eed5095b7a37c02d19f0da1af4a6 k8s/keda-scaledobject.yaml (spent set 87, labelled none):
# scaleTargetRef ray.io/v1 RayService.
def test_a_scaled_object_on_a_rayservice_blocks():
    found = found_by([_scaled_object("ray.io/v1", "RayService")], POLICY)
    assert [level for level, _ in found] == ["mandatory"], found
    assert "KEDA refuses the target" in found[0][1] and "ray.io_rayservices.yaml" in found[0][1]


def test_an_hpa_on_an_inference_service_blocks():
    found = found_by([_hpa("serving.kserve.io/v1beta1", "InferenceService")], POLICY)
    assert [level for level, _ in found] == ["mandatory"] and "FailedGetScale" in found[0][1], found


@pytest.mark.parametrize(
    "objs",
    [
        [_scaled_object("apps/v1", "Deployment")],
        [_scaled_object("leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet")],  # the LWS CRD serves /scale
        [_scaled_object(None, "RayService")],  # apiVersion not stated: not this rule's to judge
        [_scaled_object("example.com/v1", "Widget")],  # a kind the table does not hold
        [_hpa("ray.io/v1", "RayService") | {"spec": {"scaleTargetRef": "${TARGET}"}}],
    ],
)
def test_careful_targets_are_silent(objs):
    assert not found_by(objs, POLICY)


def test_a_crd_of_the_run_with_scale_is_read_instead():
    crd = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "rayservices.ray.io"},
        "spec": {
            "group": "ray.io",
            "names": {"kind": "RayService", "plural": "rayservices"},
            "scope": "Namespaced",
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "subresources": {"scale": {"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas"}},
                }
            ],
        },
    }
    assert not found_by([crd, _scaled_object("ray.io/v1", "RayService")], POLICY)


def test_the_table_cites_each_row():
    assert not KINDS[("ray.io", "RayService")].scale and "v1.7.0" in KINDS[("ray.io", "RayService")].source
    assert KINDS[("leaderworkerset.x-k8s.io", "LeaderWorkerSet")].scale


def test_a_bad_table_row_is_refused_naming_the_row_and_the_field(tmp_path):
    from components.scale_subresources import load

    bad = tmp_path / "scale_subresources.toml"
    for text, said in (
        (
            '[kinds.x]\ngroup = "ray.io"\nkind = "RayService"\nscale = false\n',
            "[kinds.x]: unknown fields [], missing fields ['source']",
        ),
        ('[kinds.x]\ngroup = "ray.io"\nkind = " "\nscale = false\nsource = "s"\n', "[kinds.x]: kind must be text"),
        ('[kinds.x]\ngroup = "ray.io"\nkind = "K"\nscale = "no"\nsource = "s"\n', "[kinds.x]: scale must be true or false"),
    ):
        bad.write_text(text)
        with pytest.raises(ValueError) as raised:
            load(bad)
        assert said in str(raised.value)
