"""S6 and S8 on an autoscaler whose target is in another file, and S8's companion on autoscalers without behavior.

Third-party forms, written by hand in their minimal shape (not copied):
- rmehta2974/LLM_mlops @ 5684269878ef691652db8d14e889d6e0c7a1d6e2, alternate_learning/manifests/: 10-triton-deployment.yaml
  (a Triton Deployment `triton-llm` with one GPU), 20-hpa.yaml (an autoscaling/v2 HPA on CPU at 60% targeting it, no
  behavior) and 21-keda-scaledobject.yaml (a KEDA ScaledObject on a Prometheus rate, no advanced behavior, cooldownPeriod
  60). Held-out set 5, spent: checked file by file the HPA's target is in no file read.
- kubernetes/examples @ 279e8e4fe314f6cb7bc55fa3fbc21bbeaa48c0ea, AI/vllm-deployment/hpa/gpu-horizontal-pod-autoscaler.yaml:
  an HPA on a Pods metric gpu_utilization_percent for Deployment vllm-gemma-deployment with scaleDown window 30 s.
- The careful forms: the Kubernetes HPA walkthrough's CPU HPA on php-apache (a web server, not a model server), and a CPU
  HPA on a router in front of vLLM (vllm-project/production-stack names its router `vllm-router`), both silent.
"""

from __future__ import annotations

from policy_fixtures import manifest

from policies.autoscaling.gpu_workload_no_resource_metric_hpa import POLICY as S6
from policies.autoscaling.hpa_behavior import POLICY as S8
from policies.autoscaling.hpa_behavior import UNSET_POLICY
from policies.registry import evaluate

TRITON = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "triton-llm", "namespace": "llm-inference"},
    "spec": {
        "selector": {"matchLabels": {"app": "triton-llm"}},
        "template": {
            "metadata": {"labels": {"app": "triton-llm"}},
            "spec": {
                "containers": [
                    {
                        "name": "triton",
                        "image": "nvcr.io/nvidia/tritonserver:24.01-py3",
                        "args": ["tritonserver", "--model-repository=/models"],
                        "resources": {"limits": {"nvidia.com/gpu": "1"}},
                    }
                ]
            },
        },
    },
}


def cpu_hpa(name="triton-llm-hpa", target="triton-llm", **extra):
    spec = {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": target},
        "minReplicas": 2,
        "maxReplicas": 10,
        "metrics": [
            {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 60}}}
        ],
        **extra,
    }
    return {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": name, "namespace": "llm-inference"},
        "spec": spec,
    }


SCALED_OBJECT = {
    "apiVersion": "keda.sh/v1alpha1",
    "kind": "ScaledObject",
    "metadata": {"name": "triton-llm-scaledobject", "namespace": "llm-inference"},
    "spec": {
        "scaleTargetRef": {"name": "triton-llm"},
        "minReplicaCount": 2,
        "maxReplicaCount": 20,
        "cooldownPeriod": 60,
        "triggers": [
            {
                "type": "prometheus",
                "metadata": {"threshold": "200", "query": "sum(rate(triton_inference_request_success[1m]))"},
            }
        ],
    },
}


def found(policy, *objs):
    return [(v.resource, v.enforcement, v.message) for v in evaluate([manifest(o) for o in objs], policies=[policy])]


def test_cpu_hpa_on_a_gpu_target_in_the_set_is_advised():
    # A risk, not a proven stall (CPU may still reach the target): advice since session 43 (spent sets 13-37: 7 of 11
    # labels on such findings advisory).
    assert [(r, e) for r, e, _ in found(S6, TRITON, cpu_hpa())] == [("HorizontalPodAutoscaler/triton-llm-hpa", "advisory")]


def test_cpu_hpa_alone_named_for_a_model_server_is_advised():
    [(resource, level, message)] = found(S6, cpu_hpa())
    assert (resource, level) == ("HorizontalPodAutoscaler/triton-llm-hpa", "advisory")
    assert message.startswith(
        "scaleTargetRef Deployment/triton-llm is not in the files read, but scaleTargetRef.name 'triton-llm' names a "
        "model server (triton), and every entry of spec.metrics is a Resource metric (cpu); "
    )


def test_cpu_hpa_alone_hinted_by_a_label_only():
    hpa = cpu_hpa(name="serving-hpa", target="serving")
    hpa["metadata"]["labels"] = {"app.kubernetes.io/name": "vllm"}
    [(_, level, message)] = found(S6, hpa)
    assert level == "advisory" and "metadata.labels.app.kubernetes.io/name 'vllm' names a model server (vllm)" in message


def test_cpu_hpa_on_a_web_server_or_a_router_outside_the_set_stays_silent():
    assert found(S6, cpu_hpa(name="php-apache", target="php-apache")) == []
    assert found(S6, cpu_hpa(name="vllm-router-hpa", target="vllm-router")) == []


def test_cpu_hpa_on_a_cpu_target_in_the_set_stays_silent_whatever_its_name():
    web = {**TRITON, "spec": {**TRITON["spec"], "template": {"spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]}}}}
    assert found(S6, web, cpu_hpa()) == []


def test_short_window_on_a_target_elsewhere_is_advised_not_blocked():
    hpa = {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "gemma-server-gpu-hpa"},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "vllm-gemma-deployment"},
            "minReplicas": 1,
            "maxReplicas": 5,
            "metrics": [
                {"type": "Pods", "pods": {"metric": {"name": "gpu_utilization_percent"}, "target": {"averageValue": 20}}}
            ],
            "behavior": {"scaleDown": {"stabilizationWindowSeconds": 30}},
        },
    }
    [(_, level, message)] = found(S8, hpa)
    assert level == "advisory"
    assert message.startswith("spec.behavior.scaleDown.stabilizationWindowSeconds = 30 is below 300 s")
    assert message.endswith(
        "(its target is in no file read, but scaleTargetRef.name 'vllm-gemma-deployment' names a model server (vllm))"
    )
    # The same HPA beside its GPU Deployment: proven to scale a model server, so the hint goes; still advice, since the
    # 300 s floor is a house threshold, not a failure of serving (session 52).
    deployment = {**TRITON, "metadata": {"name": "vllm-gemma-deployment"}}
    [(_, level, message)] = found(S8, deployment, hpa)
    assert level == "advisory" and message.endswith("so the service flaps and queues")


def test_behavior_unset_on_hpa_and_scaled_object_is_advised():
    hpa_found = found(UNSET_POLICY, cpu_hpa())
    so_found = found(UNSET_POLICY, SCALED_OBJECT)
    assert [(r, e) for r, e, _ in hpa_found] == [("HorizontalPodAutoscaler/triton-llm-hpa", "advisory")]
    assert hpa_found[0][2].startswith("spec.behavior is not set, so the HPA takes Kubernetes' defaults")
    assert [(r, e) for r, e, _ in so_found] == [("ScaledObject/triton-llm-scaledobject", "advisory")]
    assert so_found[0][2].startswith(
        "spec.advanced.horizontalPodAutoscalerConfig.behavior is not set, so the HPA KEDA creates for it takes"
    )
    assert "(cooldownPeriod governs scaling to zero only)" in so_found[0][2]


def test_behavior_stated_or_not_an_llm_autoscaler_is_silent():
    stated = cpu_hpa(behavior={"scaleDown": {"stabilizationWindowSeconds": 600}})
    assert found(UNSET_POLICY, TRITON, stated) == []
    assert found(UNSET_POLICY, cpu_hpa(name="php-apache", target="php-apache")) == []


def test_a_cpu_baseline_hpa_on_a_vllm_deployment_is_advice_only():
    # ggs12355/llm-elastic-governor deploy/k8s/hpa-baseline.yaml and vllm-deployment.yaml at
    # 2ea508a08fa0a8a6c6412ed51df01e31fa5d37c6 (spent set 37, S6 labelled advisory): CPU at 75% of a 4-CPU request on
    # a 1-GPU vLLM. The signal lags the queue, but vLLM's API server and engine loop do load their CPU: not a proven stall.
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "vllm-qwen", "namespace": "llm-serving"},
        "spec": {
            "selector": {"matchLabels": {"app": "vllm-qwen"}},
            "template": {
                "metadata": {"labels": {"app": "vllm-qwen"}},
                "spec": {
                    "containers": [
                        {
                            "name": "vllm",
                            "image": "vllm/vllm-openai:latest",
                            "args": ["--model", "Qwen/Qwen2.5-1.5B-Instruct"],
                            "resources": {
                                "limits": {"nvidia.com/gpu": "1"},
                                "requests": {"cpu": "4", "memory": "16Gi", "nvidia.com/gpu": "1"},
                            },
                        }
                    ]
                },
            },
        },
    }
    hpa = {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "vllm-qwen-hpa-baseline", "namespace": "llm-serving"},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "vllm-qwen"},
            "minReplicas": 1,
            "maxReplicas": 4,
            "metrics": [
                {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 75}}}
            ],
        },
    }
    [(resource, level, message)] = found(S6, deployment, hpa)
    assert (resource, level) == ("HorizontalPodAutoscaler/vllm-qwen-hpa-baseline", "advisory")
    assert message.startswith("scaleTargetRef Deployment/vllm-qwen is a GPU workload but every entry of spec.metrics")
