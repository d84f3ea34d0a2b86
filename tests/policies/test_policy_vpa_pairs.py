"""G17's VPA pair (review 32 R14): a VerticalPodAutoscaler that applies recommendations beside an HPA on CPU or memory.

Forms: the VPA ``updateMode: "Auto"`` + HPA on cpu and memory of akshay9700/Kubernetes k8s_VPA-HPA_notes.md at
62a84d518e1abd0c3bcff514626406e3335eb2fb (reduced: both on one Deployment), and the cold review's probe
/work/review/s25/recall.yaml ``sgl`` (an SGLang Deployment, HPA on cpu, VPA Auto).
"""

from __future__ import annotations

import copy

from policy_fixtures import manifest

from policies.autoscaling import one_autoscaler
from policies.autoscaling.vpa_pairs import scaled_on, vpa_controls
from policies.framework import Resource
from policies.registry import evaluate

DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "sgl", "namespace": "llm"},
    "spec": {
        "selector": {"matchLabels": {"app": "sgl"}},
        "template": {
            "metadata": {"labels": {"app": "sgl"}},
            "spec": {"containers": [{"name": "sglang", "image": "lmsysorg/sglang:v0.5.3-cu126"}]},
        },
    },
}
HPA = {
    "apiVersion": "autoscaling/v2",
    "kind": "HorizontalPodAutoscaler",
    "metadata": {"name": "sgl", "namespace": "llm"},
    "spec": {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "sgl"},
        "minReplicas": 1,
        "maxReplicas": 4,
        "metrics": [
            {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}}},
            {"type": "Resource", "resource": {"name": "memory", "target": {"type": "Utilization", "averageUtilization": 50}}},
        ],
    },
}
VPA = {
    "apiVersion": "autoscaling.k8s.io/v1",
    "kind": "VerticalPodAutoscaler",
    "metadata": {"name": "sgl-vpa", "namespace": "llm"},
    "spec": {
        "targetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "sgl"},
        "updatePolicy": {"updateMode": "Auto"},
    },
}


def _in_file(obj: dict, file: str = "app.yaml", doc: int = 0) -> Resource:
    r = manifest(obj)
    return Resource(type=r.type, name=f"{file}#{doc} {obj['kind']}/{obj['metadata']['name']}", props=obj)


def _found(*objs: dict, files: tuple[str, ...] = ()) -> list[tuple[str, str]]:
    resources = [_in_file(o, files[i] if files else "app.yaml", i) for i, o in enumerate(objs)]
    return [(v.enforcement, v.message) for v in evaluate(resources, None, policies=[one_autoscaler.POLICY])]


def test_vpa_auto_beside_an_hpa_on_cpu_and_memory_blocks():
    ((level, message),) = _found(DEPLOYMENT, HPA, VPA)
    assert level == "mandatory"
    assert message.startswith(
        "VerticalPodAutoscaler sgl-vpa (updateMode Auto) and HPA sgl both act on Deployment/sgl in namespace llm "
        "through cpu and memory"
    )
    # updateMode unset is Auto (vertical-pod-autoscaler/docs/api.md: "The default is 'Auto'").
    unset = copy.deepcopy(VPA)
    del unset["spec"]["updatePolicy"]
    assert [lvl for lvl, _ in _found(DEPLOYMENT, HPA, unset)] == ["mandatory"]


def test_careful_forms_stay_quiet_or_advise():
    # The documented combination: the HPA on a load metric, the VPA on resources.
    load = copy.deepcopy(HPA)
    load["spec"]["metrics"] = [
        {
            "type": "Pods",
            "pods": {"metric": {"name": "sglang:num_queue_reqs"}, "target": {"type": "AverageValue", "averageValue": "4"}},
        }
    ]
    assert _found(DEPLOYMENT, load, VPA) == []
    # A VPA that only recommends.
    off = copy.deepcopy(VPA)
    off["spec"]["updatePolicy"]["updateMode"] = "Off"
    assert _found(DEPLOYMENT, HPA, off) == []
    # A VPA that controls only memory beside an HPA on cpu only.
    cpu_hpa = copy.deepcopy(HPA)
    cpu_hpa["spec"]["metrics"] = cpu_hpa["spec"]["metrics"][:1]
    memory_vpa = copy.deepcopy(VPA)
    memory_vpa["spec"]["resourcePolicy"] = {"containerPolicies": [{"containerName": "*", "controlledResources": ["memory"]}]}
    assert _found(DEPLOYMENT, cpu_hpa, memory_vpa) == []
    # Initial mode, another file or no target in the set: advice.
    initial = copy.deepcopy(VPA)
    initial["spec"]["updatePolicy"]["updateMode"] = "Initial"
    assert [lvl for lvl, _ in _found(DEPLOYMENT, HPA, initial)] == ["advisory"]
    assert [lvl for lvl, _ in _found(DEPLOYMENT, HPA, VPA, files=("d.yaml", "hpa.yaml", "vpa.yaml"))] == ["advisory"]
    assert [lvl for lvl, _ in _found(HPA, VPA)] == ["advisory"]
    # Another namespace: not the same workload.
    other = copy.deepcopy(VPA)
    other["metadata"]["namespace"] = "batch"
    assert _found(DEPLOYMENT, HPA, other) == []


def test_what_each_autoscaler_acts_on():
    assert vpa_controls(manifest(VPA)) == {"cpu", "memory"}
    off_one = copy.deepcopy(VPA)
    off_one["spec"]["resourcePolicy"] = {"containerPolicies": [{"containerName": "*", "mode": "Off"}]}
    assert vpa_controls(manifest(off_one)) == set()
    v1 = {"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "a"}, "spec": {}}
    assert scaled_on(manifest(v1)) == {"cpu"}
    bare = copy.deepcopy(HPA)
    del bare["spec"]["metrics"]
    assert scaled_on(manifest(bare)) == {"cpu"}  # autoscaling/v2's default metric is 80% CPU
    so = {
        "apiVersion": "keda.sh/v1alpha1",
        "kind": "ScaledObject",
        "metadata": {"name": "s"},
        "spec": {"triggers": [{"type": "memory", "metadata": {"value": "70"}}, {"type": "prometheus", "metadata": {}}]},
    }
    assert scaled_on(manifest(so)) == {"memory"}
