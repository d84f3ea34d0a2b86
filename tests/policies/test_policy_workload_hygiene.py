"""G8 workload-resource-requests and G10 workload-memory-limit: the generic hygiene rows on every running container of
every pod template the readers reach, beside the model-server rows (serving-resource-requests, serving-memory-limit).

Firing forms (third-party, spent set 76 and 79): cncf/llm-in-action@64ff29db8732253d0178ca14b2d67994d9ab7541
kubernetes/deployment.yaml (Deployment keynote, a Streamlit front end with no resources) and
a-anurag1024/rinlekha@41c78c93736ae3e976e5999517cfb0c84bb1fb31 k8s/eval-job.yaml (an Indexed eval Job, no resources).
Careful forms that stay silent: a container with requests and a memory limit; a limit alone; a LimitRange default of
the namespace; a VPA that writes the requests (G8); pod-level resources; a Job with resources; a model server (its own
row's message, not a second one); a KServe InferenceService (its defaulter fills resources); an init container.
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

REQUESTS = "workload-resource-requests"
LIMIT = "workload-memory-limit"

# cncf/llm-in-action@64ff29db8732253d0178ca14b2d67994d9ab7541 kubernetes/deployment.yaml (abridged: env left out).
KEYNOTE = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "keynote", "labels": {"app": "keynote"}},
    "spec": {
        "replicas": 1,
        "selector": {"matchLabels": {"app": "keynote"}},
        "template": {
            "metadata": {"labels": {"app": "keynote"}},
            "spec": {
                "containers": [
                    {
                        "name": "keynote",
                        "image": "ghcr.io/cncf/keynote",
                        "imagePullPolicy": "IfNotPresent",
                        "ports": [{"containerPort": 8501}],
                    }
                ]
            },
        },
    },
}

# a-anurag1024/rinlekha@41c78c93736ae3e976e5999517cfb0c84bb1fb31 k8s/eval-job.yaml (abridged: env and volumes left out).
EVAL_JOB = {
    "apiVersion": "batch/v1",
    "kind": "Job",
    "metadata": {"name": "rinlekha-evaluation", "namespace": "rinlekha"},
    "spec": {
        "completions": 3,
        "parallelism": 3,
        "completionMode": "Indexed",
        "template": {
            "spec": {
                "restartPolicy": "Never",
                "containers": [{"name": "eval-worker", "image": "rinlekha/eval:latest", "imagePullPolicy": "Never"}],
            }
        },
    },
}


def _with(obj: dict, **container_fields: object) -> dict:
    out = copy.deepcopy(obj)
    out["spec"]["template"]["spec"]["containers"][0].update(container_fields)
    return out


def _levels(objs: list[dict], policy: str) -> list[str]:
    return [level for level, _ in found_by(objs, policy)]


def test_front_end_with_no_resources_is_advised_once_naming_the_container() -> None:
    requests = found_by([KEYNOTE], REQUESTS)
    assert [level for level, _ in requests] == ["advisory"]
    assert "container keynote (cpu and memory)" in requests[0][1]
    limit = found_by([KEYNOTE], LIMIT)
    assert [level for level, _ in limit] == ["advisory"] and "container keynote" in limit[0][1]


def test_eval_job_with_no_resources_is_advised() -> None:
    assert _levels([EVAL_JOB], REQUESTS) == ["advisory"]
    assert _levels([EVAL_JOB], LIMIT) == ["advisory"]


def test_one_finding_names_every_container_and_a_native_sidecar() -> None:
    obj = copy.deepcopy(KEYNOTE)
    pod = obj["spec"]["template"]["spec"]
    pod["containers"].append({"name": "worker", "image": "ghcr.io/cncf/worker:1.0", "resources": {"requests": {"cpu": "1"}}})
    pod["initContainers"] = [
        {"name": "proxy", "image": "envoyproxy/envoy:v1.31.0", "restartPolicy": "Always"},
        {"name": "migrate", "image": "ghcr.io/cncf/migrate:1.0"},
    ]
    [(_, message)] = found_by([obj], REQUESTS)
    assert "container keynote (cpu and memory)" in message
    assert "container worker (memory)" in message
    assert "container proxy (cpu and memory)" in message
    assert "migrate" not in message  # an init container that runs before the pod serves


def test_requests_and_limit_stay_silent() -> None:
    obj = _with(KEYNOTE, resources={"requests": {"cpu": "250m", "memory": "512Mi"}, "limits": {"memory": "1Gi"}})
    assert found_by([obj], REQUESTS) == [] and found_by([obj], LIMIT) == []
    # A limit alone: the API server defaults the request to it.
    limits_only = _with(EVAL_JOB, resources={"limits": {"cpu": "2", "memory": "4Gi"}})
    assert found_by([limits_only], REQUESTS) == [] and found_by([limits_only], LIMIT) == []


def test_requests_without_a_memory_limit_are_advised_by_g10_only() -> None:
    obj = _with(KEYNOTE, resources={"requests": {"cpu": "250m", "memory": "512Mi"}})
    assert found_by([obj], REQUESTS) == []
    assert _levels([obj], LIMIT) == ["advisory"]


def test_limit_range_default_fills_both() -> None:
    limit_range = {
        "apiVersion": "v1",
        "kind": "LimitRange",
        "metadata": {"name": "defaults", "namespace": "rinlekha"},
        "spec": {"limits": [{"type": "Container", "default": {"cpu": "1", "memory": "1Gi"}}]},
    }
    assert found_by([EVAL_JOB, limit_range], REQUESTS) == []
    assert found_by([EVAL_JOB, limit_range], LIMIT) == []
    other = copy.deepcopy(limit_range)
    other["metadata"]["namespace"] = "elsewhere"
    assert _levels([EVAL_JOB, other], REQUESTS) == ["advisory"]


def test_vpa_writes_the_requests() -> None:
    vpa = {
        "apiVersion": "autoscaling.k8s.io/v1",
        "kind": "VerticalPodAutoscaler",
        "metadata": {"name": "keynote"},
        "spec": {"targetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "keynote"}},
    }
    assert found_by([KEYNOTE, vpa], REQUESTS) == []
    off = copy.deepcopy(vpa)
    off["spec"]["updatePolicy"] = {"updateMode": "Off"}
    assert _levels([KEYNOTE, off], REQUESTS) == ["advisory"]


def test_pod_level_resources_count() -> None:
    obj = copy.deepcopy(KEYNOTE)
    obj["spec"]["template"]["spec"]["resources"] = {"requests": {"cpu": "1", "memory": "1Gi"}, "limits": {"memory": "2Gi"}}
    assert found_by([obj], REQUESTS) == [] and found_by([obj], LIMIT) == []


def test_model_server_keeps_its_own_message() -> None:
    vllm = _with(KEYNOTE, image="vllm/vllm-openai:v0.8.5", name="vllm")
    assert found_by([vllm], REQUESTS) == [] and found_by([vllm], LIMIT) == []
    assert found_by([vllm], "serving-resource-requests") != []


def test_kserve_predictor_is_left_to_its_defaulter() -> None:
    isvc = {
        "apiVersion": "serving.kserve.io/v1beta1",
        "kind": "InferenceService",
        "metadata": {"name": "yolo"},
        "spec": {"predictor": {"containers": [{"name": "kserve-container", "image": "ghcr.io/x/yolo:1.0"}]}},
    }
    assert found_by([isvc], REQUESTS) == [] and found_by([isvc], LIMIT) == []


def test_unreadable_resources_are_not_judged() -> None:
    obj = _with(KEYNOTE, resources="{{ .Values.resources }}")
    assert found_by([obj], REQUESTS) == [] and found_by([obj], LIMIT) == []
    broken = _with(KEYNOTE, resources={"requests": ["cpu"]})
    assert found_by([broken], REQUESTS) == []
