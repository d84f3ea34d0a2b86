"""An HPA on a workload of the files in which the readers see no engine, named for a model server, and the G15 floor.

Form: spent set 79 yashbhangale/Karpenter-GPU-Autoscaling@cb9bd7ce2ff763ca1803bf158b7f26e783ddcf8f eks_manifest/hpa.yaml
(HPA demo-model-a-hpa, minReplicas 1, maxReplicas 3, no behavior) on eks_manifest/deployments-a.yaml's Deployment
demo-model-a, whose image is left empty (`image: # Docker Image URL`): labels G15 and S8 were missed because the target,
in the files, runs nothing the readers know. G15 hpa-min-replicas-floor and S8 llm-autoscaler-behavior-explicit now
read such a target as a model server by its names (advice).
"""

from __future__ import annotations

from policy_fixtures import found_by

FLOOR, UNSET = "hpa-min-replicas-floor", "llm-autoscaler-behavior-explicit"


def deployment(name="demo-model-a", image=None, gpu=False):
    container = {"name": name, "image": image, "ports": [{"containerPort": 8000}]}
    if gpu:
        container["resources"] = {"limits": {"nvidia.com/gpu": 1}}
    spec = {"replicas": 1, "template": {"spec": {"containers": [container]}}}
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name}, "spec": spec}


def hpa(target="demo-model-a", minimum=1, name=None):
    spec = {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": target},
        "maxReplicas": 3,
        "metrics": [
            {
                "type": "Pods",
                "pods": {
                    "metric": {"name": "fastapi_http_requests_per_minute"},
                    "target": {"type": "AverageValue", "averageValue": "50"},
                },
            }
        ],
    }
    if minimum is not None:
        spec["minReplicas"] = minimum
    return {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": name or f"{target}-hpa"},
        "spec": spec,
    }


def test_spent_set_79_form_gets_the_floor_and_behavior_advice():
    ((level, message),) = found_by([deployment(), hpa()], FLOOR)
    assert level == "advisory" and message.startswith("spec.minReplicas = 1: the autoscaler may hold this model server")
    assert (
        "the readers see no engine in Deployment/demo-model-a, but scaleTargetRef.name 'demo-model-a' names a model server (model)"
        in message
    )
    ((level, message),) = found_by([deployment(), hpa()], UNSET)
    assert level == "advisory" and message.startswith("spec.behavior is not set")


def test_unset_floor_and_gpu_target():
    ((_, message),) = found_by([deployment(), hpa(minimum=None)], FLOOR)
    assert message.startswith("spec.minReplicas is not set (the HPA's default, 1)")
    ((_, message),) = found_by([deployment("web", "vllm/vllm-openai:v0.8.5", gpu=True), hpa("web")], FLOOR)
    assert message.endswith("(setting minReplicasFloor)")  # a GPU target of the files: proven relevance, no hint


def test_careful_forms_are_silent():
    assert found_by([deployment(), hpa(minimum=2)], FLOOR) == []
    assert found_by([deployment("web", "nginx:1.27"), hpa("web")], FLOOR) == []  # no model word, no engine
    assert found_by([deployment("web", "nginx:1.27"), hpa("web")], UNSET) == []
    assert found_by([deployment("model-gateway", "nginx:1.27"), hpa("model-gateway")], FLOOR) == []  # beside a server
    assert found_by([deployment(), hpa()], FLOOR, config={FLOOR: {"minReplicasFloor": 1}}) == []
    assert found_by([deployment(), hpa(minimum=0)], FLOOR) == []  # scale to zero: S5's


def test_bad_input_is_silent():
    broken = hpa()
    broken["spec"]["minReplicas"] = "{{ .Values.min }}"
    assert found_by([deployment(), broken], FLOOR) == []
    broken["spec"] = None
    assert found_by([deployment(), broken], FLOOR) == []
