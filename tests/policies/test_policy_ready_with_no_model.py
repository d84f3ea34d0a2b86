"""G6 readiness-waits-for-model on readiness that passes with no model, read from the engine table
(components/serving_engines.toml): Triton's ``lazy_start`` / ``start_models`` (--model-control-mode=explicit without
--load-model: Ready with no model) and llama.cpp's ``listens_while_loading`` (a tcpSocket readiness opens while the
server answers 503 "Loading model").

Fixtures, cut down from spent-set files:

- set 33 all-day-and-night/llm-serve k8s/triton/deployment.yaml@1873f15ae7492afacdc18776695986f727b72637
  (labelled G6: explicit mode, no --load-model, readiness on /v2/health/ready);
- set 23 farrukhmustafa/fintech-function-calling-llm kubernetes/triton-inference-deployment.yaml@9568f1f (the same
  class in another repository: tests/policies/test_policy_triton_switches.py FARRUKH);
- set 33 jansees/llm-test-harness k8s/llamacpp.yaml@9f93e522810c28612a5dcb4c520bb0a2fa9a5d05 (labelled G6: tcpSocket
  readiness on llama-server); dev set 24 rrumana/k8s-homelab-2 is the second form (test_policy_dev24_25.py).
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by
from test_policy_triton_switches import FARRUKH

G4 = "serving-readiness-probe"
G6 = "readiness-waits-for-model"


def _deployment(name: str, container: dict) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "llm-serve"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [container]}},
        },
    }


TRITON = _deployment(
    "triton-trtllm",
    {
        "name": "triton",
        "image": "nvcr.io/nvidia/tritonserver:24.12-py3",
        "command": ["tritonserver"],
        "args": [
            "--model-repository=/models",
            "--http-port=8000",
            "--grpc-port=8001",
            "--metrics-port=8002",
            "--log-verbose=1",
            "--model-control-mode=explicit",
        ],
        "resources": {"limits": {"cpu": "16", "memory": "96Gi", "nvidia.com/gpu": 2}},
        "readinessProbe": {"httpGet": {"path": "/v2/health/ready", "port": 8000}, "periodSeconds": 10},
        "livenessProbe": {"httpGet": {"path": "/v2/health/live", "port": 8000}, "periodSeconds": 30},
    },
)

LLAMA = _deployment(
    "llm",
    {
        "name": "server",
        "image": "ghcr.io/ggerganov/llama.cpp:server",
        "args": ["-m", "/models/model.gguf", "-c", "1024", "--host", "0.0.0.0", "--port", "8080"],
        "ports": [{"containerPort": 8080}],
        "readinessProbe": {"tcpSocket": {"port": 8080}, "initialDelaySeconds": 5, "periodSeconds": 5},
        "resources": {"requests": {"cpu": "500m", "memory": "1Gi"}, "limits": {"cpu": "1", "memory": "2Gi"}},
    },
)


def _container(manifest: dict) -> dict:
    return manifest["spec"]["template"]["spec"]["containers"][0]


def test_triton_in_explicit_mode_with_no_model_named_is_ready_with_none():
    assert found_by([TRITON], G6) == [
        (
            "advisory",
            "container triton: --model-control-mode=explicit with no --load-model starts Triton Inference Server with "
            "no model loaded, and /v2/health/ready counts only the models it has loaded, so the pod is Ready with no "
            "model: every start and every restart takes requests that fail until something calls the load API; name "
            "the models with --load-model=MODEL (or leave the default mode, which loads the repository at start)",
        )
    ]
    [(level, message)] = found_by([FARRUKH], G6)  # the same class in set 23's farrukhmustafa manifest
    assert level == "advisory" and message.startswith("container triton: --model-control-mode=explicit with no")


def test_triton_that_names_its_models_or_loads_the_repository_is_silent():
    named = copy.deepcopy(TRITON)
    _container(named)["args"].append("--load-model=llama_trtllm")
    assert found_by([named], G6) == []
    default = copy.deepcopy(TRITON)
    _container(default)["args"].remove("--model-control-mode=explicit")
    assert found_by([default], G6) == []
    unprobed = copy.deepcopy(TRITON)  # no readinessProbe at all is G4's finding, not this one
    del _container(unprobed)["readinessProbe"]
    assert found_by([unprobed], G6) == []


def test_a_tcp_readiness_on_llama_server_is_ready_while_it_loads():
    assert found_by([LLAMA], G6) == [
        (
            "advisory",
            "container server: readinessProbe only opens a TCP connection, but llama.cpp server listens while it loads "
            "the model and answers it with a failure meanwhile, so the pod is Ready and gets requests that fail during "
            "the load; probe GET /health (port 8080 unless moved)",
        )
    ]
    assert found_by([LLAMA], G4) == []


def test_an_http_readiness_on_llama_server_is_silent():
    careful = copy.deepcopy(LLAMA)
    _container(careful)["readinessProbe"] = {"httpGet": {"path": "/health", "port": 8080}, "periodSeconds": 5}
    assert found_by([careful], G6) == []
