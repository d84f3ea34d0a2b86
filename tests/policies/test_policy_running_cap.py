"""S6 gpu-workload-no-resource-metric-hpa: a per-pod target on vllm:num_requests_running above the target's
--max-num-seqs is never reached (vLLM's scheduler admits no more running requests: vllm/v1/core/sched/scheduler.py
Scheduler.__init__ max_num_running_reqs = scheduler_config.max_num_seqs, and schedule() stops taking waiting requests
once len(self.running) == max_num_running_reqs; vllm-project/vllm@b4622cf)."""

from __future__ import annotations

import copy

from policy_fixtures import found_by

POLICY = "gpu-workload-no-resource-metric-hpa"

# seans3/k8s-ai vllm-gpu/hpa/horizontal-pod-autoscaler.yaml at 65ef4d0 (Pods metric
# prometheus.googleapis.com|vllm:num_requests_running|gauge, averageValue 4) and vllm-gpu/vllm-deployment.yaml at
# 07e3912 (cut down): the Deployment sets no --max-num-seqs.
HPA = {
    "apiVersion": "autoscaling/v2",
    "kind": "HorizontalPodAutoscaler",
    "metadata": {"name": "gemma-server-hpa"},
    "spec": {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "vllm-gemma-deployment"},
        "minReplicas": 1,
        "maxReplicas": 5,
        "metrics": [
            {
                "type": "Pods",
                "pods": {
                    "metric": {"name": "prometheus.googleapis.com|vllm:num_requests_running|gauge"},
                    "target": {"type": "AverageValue", "averageValue": 4},
                },
            }
        ],
    },
}
DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "vllm-gemma-deployment"},
    "spec": {
        "selector": {"matchLabels": {"app": "gemma-server"}},
        "template": {
            "metadata": {"labels": {"app": "gemma-server"}},
            "spec": {
                "containers": [
                    {
                        "name": "inference-server",
                        "image": "us-docker.pkg.dev/vertex-ai/vertex-vision-model-garden-dockers/pytorch-vllm-serve:20250312_0916_RC01",
                        "command": ["python3", "-m", "vllm.entrypoints.openai.api_server"],
                        "args": ["--model=$(MODEL_ID)", "--tensor-parallel-size=1", "--host=0.0.0.0", "--port=8081"],
                        "env": [{"name": "MODEL_ID", "value": "google/gemma-3-1b-it"}],
                        "resources": {
                            "requests": {"cpu": "2", "memory": "10Gi", "nvidia.com/gpu": "1"},
                            "limits": {"cpu": "2", "memory": "10Gi", "nvidia.com/gpu": "1"},
                        },
                    }
                ]
            },
        },
    },
}


def capped(seqs: str, *extra: str) -> dict:
    deployment = copy.deepcopy(DEPLOYMENT)
    deployment["spec"]["template"]["spec"]["containers"][0]["args"] += ["--max-num-seqs", seqs, *extra]
    return deployment


def running_cap(objs: list[dict]) -> list[tuple[str, str]]:
    return [(level, m) for level, m in found_by(objs, POLICY) if "never reaches" in m]


def test_a_running_target_above_max_num_seqs_blocks():
    # The same pair with the server capped at 2 running sequences: an average of 4 per pod never happens.
    assert running_cap([HPA, capped("2")]) == [
        (
            "mandatory",
            "spec.metrics[0].pods.target.averageValue = 4 on prometheus.googleapis.com|vllm:num_requests_running|gauge: "
            "vLLM runs at most 2 requests at once per pod (--max-num-seqs 2 in Deployment/vllm-gemma-deployment), so "
            "the running-requests average never reaches 4; the HPA never scales out and scales in toward its floor "
            "instead, while the queue grows in vllm:num_requests_waiting; aim it below 2 or scale on the queue",
        )
    ]
    # A KEDA trigger on the summed gauge is an average per replica too (metricType defaults to AverageValue).
    keda = {
        "apiVersion": "keda.sh/v1alpha1",
        "kind": "ScaledObject",
        "metadata": {"name": "vllm-so"},
        "spec": {
            "scaleTargetRef": {"name": "vllm-gemma-deployment"},
            "minReplicaCount": 1,
            "triggers": [
                {
                    "type": "prometheus",
                    "metadata": {"query": 'sum(vllm:num_requests_running{app="gemma-server"})', "threshold": "40"},
                }
            ],
        },
    }
    ((level, message),) = running_cap([keda, capped("32")])
    assert level == "mandatory" and message.startswith("spec.triggers[0].metadata.threshold = 40 on sum(")


def test_an_unbounded_or_reachable_target_is_silent():
    # The real pair: no --max-num-seqs, so the cap is vLLM's GPU-dependent default, not in the files.
    assert running_cap([HPA, DEPLOYMENT]) == []
    # Reachable, or doubled by data parallelism (2 x 2 = 4 per pod), or an HPA whose target is in no file read.
    assert running_cap([HPA, capped("8")]) == []
    assert running_cap([HPA, capped("2", "--data-parallel-size", "2")]) == []
    assert running_cap([HPA]) == []
    # A KEDA query that is not a plain aggregation of the gauge, or metricType Value, is not bounded per pod.
    ratio = {
        "apiVersion": "keda.sh/v1alpha1",
        "kind": "ScaledObject",
        "metadata": {"name": "vllm-so"},
        "spec": {
            "scaleTargetRef": {"name": "vllm-gemma-deployment"},
            "minReplicaCount": 1,
            "triggers": [
                {
                    "type": "prometheus",
                    "metadata": {"query": "sum(vllm:num_requests_running) * 10", "threshold": "40"},
                },
                {
                    "type": "prometheus",
                    "metricType": "Value",
                    "metadata": {"query": "sum(vllm:num_requests_running)", "threshold": "40"},
                },
            ],
        },
    }
    assert running_cap([ratio, capped("2")]) == []


def keda_on(query: str) -> dict:
    return {
        "apiVersion": "keda.sh/v1alpha1",
        "kind": "ScaledObject",
        "metadata": {"name": "vllm-so"},
        "spec": {
            "scaleTargetRef": {"name": "vllm-gemma-deployment"},
            "triggers": [{"type": "prometheus", "metadata": {"query": query, "threshold": "12"}}],
        },
    }


def test_a_query_that_may_sum_other_servers_is_advice():
    # Cold review finding 8: KEDA hands the query's value to the HPA as an External metric, divided by the target's
    # replicas; a sum over the namespace or the fleet counts other Deployments' running requests, so 12 is reachable
    # although one pod runs at most 8.
    for query in ('sum(vllm:num_requests_running{namespace="llm"})', "sum(vllm:num_requests_running)"):
        ((level, message),) = running_cap([keda_on(query), capped("8")])
        assert level == "advisory", query
        assert "the selector does not name Deployment/vllm-gemma-deployment's pods" in message


def test_a_query_naming_the_targets_pods_blocks():
    for selector in (
        'model_name="google/gemma-3-1b-it"',  # the model it serves (--model=$(MODEL_ID))
        'namespace="llm", pod=~"vllm-gemma-deployment-.*"',
        'deployment="vllm-gemma-deployment"',
    ):
        query = f"sum(vllm:num_requests_running{{{selector}}})"
        assert [level for level, _ in running_cap([keda_on(query), capped("8")])] == ["mandatory"], selector
    # A namespace named like the app does not name its pods.
    query = 'sum(vllm:num_requests_running{namespace="gemma-server"})'
    assert [level for level, _ in running_cap([keda_on(query), capped("8")])] == ["advisory"]


def test_an_external_metric_blocks_only_with_a_selector_on_the_target():
    hpa = copy.deepcopy(HPA)
    metric = {"metric": {"name": "vllm:num_requests_running"}, "target": {"type": "AverageValue", "averageValue": 12}}
    hpa["spec"]["metrics"] = [{"type": "External", "external": metric}]
    assert [level for level, _ in running_cap([hpa, capped("8")])] == ["advisory"]
    metric["metric"]["selector"] = {"matchLabels": {"app": "gemma-server"}}
    assert [level for level, _ in running_cap([hpa, capped("8")])] == ["mandatory"]
