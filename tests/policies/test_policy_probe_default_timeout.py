"""G49 probe-tolerates-slow-answer on HTTP liveness and readiness probes left at the 1 s default timeout on a GPU server
whose API server answers its health endpoint (the engine table's ``health_sees_engine``: vLLM), brief chartgaps57.

Firing form (written here, nothing copied): spent set 123 sarvamai/uidai-deployment@ddc9098d19e1e6e15fefc4449dff99eee2d3ad57
yamls/llama-guard/deployment.yaml, a vLLM Deployment on one GPU whose livenessProbe and readinessProbe GET /health with
no timeoutSeconds and no failureThreshold (labelled G49); the same class in spent sets 124 Lintasarta/vllm-helm and 125
souhailsegni/Deepseek_R1_VLLM-EKS (chart templates), and the reports of scaleapi/llm-engine PR #255 and
llm-d/llm-d-benchmark PR #1734 (a saturated vLLM misses 1 s /health checks). Careful forms stay silent: timeoutSeconds
5, failureThreshold 10, a tcpSocket probe, a readiness probe every 2 s, a timeout a chart leaves unknown, a CPU-only
server, and an engine whose row does not say its API server answers the health endpoint (Triton).
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

from policies.framework import UNKNOWN

G49 = "probe-tolerates-slow-answer"

LLAMA_GUARD = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "vllm-llama-guard"},
    "spec": {
        "replicas": 1,
        "selector": {"matchLabels": {"app": "vllm-llama-guard"}},
        "template": {
            "metadata": {"labels": {"app": "vllm-llama-guard"}},
            "spec": {
                "containers": [
                    {
                        "name": "vllm",
                        "image": "vllm/vllm-openai:v0.6.3",
                        "args": ["--model", "meta-llama/Llama-Guard-3-8B", "--port", "8000"],
                        "ports": [{"containerPort": 8000}],
                        "resources": {"limits": {"nvidia.com/gpu": 1}},
                        "livenessProbe": {"httpGet": {"path": "/health", "port": 8000}, "initialDelaySeconds": 240},
                        "readinessProbe": {"httpGet": {"path": "/health", "port": 8000}, "initialDelaySeconds": 240},
                    }
                ]
            },
        },
    },
}


def _with(**changes: object) -> dict:
    obj = copy.deepcopy(LLAMA_GUARD)
    container = obj["spec"]["template"]["spec"]["containers"][0]
    for key, value in changes.items():
        if value is None:
            container.pop(key, None)
        else:
            container[key] = value
    return obj


def test_http_probes_at_the_default_timeout_on_a_gpu_vllm_are_advice():
    assert found_by([LLAMA_GUARD], G49) == [
        (
            "advisory",
            "container vllm: livenessProbe and readinessProbe on HTTP with timeoutSeconds unset (1s): vLLM answers its "
            "health endpoint from the API server that serves the requests, and under load it answers later than 1s for "
            "as long as the load lasts: the livenessProbe restarts the container and reloads the model and the "
            "readinessProbe takes the pod out of its Services under the load it was serving; set timeoutSeconds to 5 or "
            "more",
        )
    ]


def test_a_liveness_probe_alone_with_timeout_1_is_named_alone():
    probe = {"httpGet": {"path": "/health", "port": 8000}, "timeoutSeconds": 1, "failureThreshold": 3}
    [(_, message)] = found_by([_with(livenessProbe=probe, readinessProbe=None)], G49)
    assert message.startswith("container vllm: livenessProbe on HTTP with timeoutSeconds 1s:")


def test_careful_forms_stay_silent():
    http = {"httpGet": {"path": "/health", "port": 8000}}
    careful = [
        _with(livenessProbe={**http, "timeoutSeconds": 5}, readinessProbe={**http, "timeoutSeconds": 5}),
        _with(livenessProbe={**http, "failureThreshold": 10}, readinessProbe={**http, "failureThreshold": 10}),
        _with(livenessProbe=None, readinessProbe={**http, "periodSeconds": 2}),
        _with(livenessProbe={**http, "timeoutSeconds": UNKNOWN}, readinessProbe=None),
        _with(resources={"limits": {"cpu": "8", "memory": "32Gi"}}),
    ]
    for obj in careful:
        assert found_by([obj], G49) == []


def test_a_tcp_probe_or_an_engine_without_the_row_stays_silent():
    tcp = _with(livenessProbe={"tcpSocket": {"port": 8000}}, readinessProbe=None)
    triton = _with(
        image="nvcr.io/nvidia/tritonserver:24.10-py3",
        args=["tritonserver", "--model-repository=/models"],
        livenessProbe={"httpGet": {"path": "/v2/health/live", "port": 8000}},
        readinessProbe=None,
    )
    assert found_by([tcp], G49) == []
    assert found_by([triton], G49) == []


def test_a_gpu_count_left_a_fill_in_still_names_a_gpu_server():
    # souhailsegni/Deepseek_R1_VLLM-EKS@cbc8af39 deepseek-r1 chart: values.yaml is a Terraform templatefile
    # (gpuLimit: ${gpuLimit}), the probes set only periodSeconds (labelled G49 by both labellers of spent set 125).
    http = {"httpGet": {"path": "/health", "port": 8000}}
    obj = _with(
        resources={"limits": {"nvidia.com/gpu": "${gpuLimit}"}},
        livenessProbe={**http, "periodSeconds": 10},
        readinessProbe={**http, "periodSeconds": 5},
    )
    [(level, message)] = found_by([obj], G49)
    assert level == "advisory" and message.startswith("container vllm: livenessProbe and readinessProbe on HTTP")
    assert found_by([_with(resources={"limits": {"nvidia.com/gpu": 0}})], G49) == []


def test_careful_a_probe_whose_server_is_not_the_engine_stays_silent():
    """review57c: the probe reaches another server than vLLM's API server: a port only a sidecar of the pod declares
    (an auth proxy or a health exporter answering on its own loop), or another host (httpGet.host)."""
    sidecar = _with(
        livenessProbe={"httpGet": {"path": "/healthz", "port": 9090}},
        readinessProbe={"httpGet": {"path": "/healthz", "port": 9090}},
    )
    sidecar["spec"]["template"]["spec"]["containers"].append(
        {"name": "health-exporter", "image": "example.com/health-exporter:1.0", "ports": [{"containerPort": 9090}]}
    )
    elsewhere = _with(livenessProbe={"httpGet": {"path": "/health", "port": 8000, "host": "10.0.0.5"}}, readinessProbe=None)
    assert found_by([sidecar], G49) == []
    assert found_by([elsewhere], G49) == []
    own = copy.deepcopy(sidecar)  # the same pod probing vLLM's own port still fires
    own["spec"]["template"]["spec"]["containers"][0]["livenessProbe"] = {"httpGet": {"path": "/health", "port": 8000}}
    assert [m.split(" on HTTP")[0] for _, m in found_by([own], G49)] == ["container vllm: livenessProbe"]
