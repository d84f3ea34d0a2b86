"""Triton's own switches, read as data from the engine table (components/serving_engines.toml [engines.triton]
debug_flags, lenient_readiness, lazy_start, start_models, settings.port; sources.switches cites
triton-inference-server/server src/command_line_parser.cc at v2.34.0, v2.51.0 and v2.71.0): S36 on --log-verbose, G6
on a readiness probe that does not wait for the models, S16 on a server that loads no model at start.

Fixtures, cut down from spent-set files:

- farrukhmustafa/fintech-function-calling-llm kubernetes/triton-inference-deployment.yaml (set 23,
  /work/eval23/labels.yaml): nvcr.io/nvidia/tritonserver:24.10-vllm-python-py3 (Triton 2.51.0) with
  --model-control-mode=explicit, --log-verbose=1, liveness on /v2/health/live, readiness on /v2/health/ready;
- sgleser/rhoai-model-serving servingruntime.yaml at ae88ebbda49e2cc5d65bb3e33878d9e879352d40 (set 22): a
  ServingRuntime running `exec tritonserver ... "--strict-readiness=false"` (a 23.05 image: Triton 2.34.0) in an
  `sh -c` script, with readiness and liveness both an exec curl of http://localhost:8000/v2/health/live.
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

from components.serving_engines import engine_named

FARRUKH = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "triton-inference-server", "namespace": "triton"},
    "spec": {
        "replicas": 1,
        "strategy": {"type": "Recreate"},
        "selector": {"matchLabels": {"app": "triton"}},
        "template": {
            "metadata": {"labels": {"app": "triton"}},
            "spec": {
                "containers": [
                    {
                        "name": "triton",
                        "image": "nvcr.io/nvidia/tritonserver:24.10-vllm-python-py3",
                        "args": [
                            "tritonserver",
                            "--model-repository=/models",
                            "--model-control-mode=explicit",
                            "--strict-model-config=false",
                            "--log-verbose=1",
                            "--http-port=8000",
                            "--grpc-port=8001",
                            "--metrics-port=8002",
                            "--exit-on-error=false",
                            "--allow-metrics=true",
                        ],
                        "ports": [{"containerPort": 8000, "name": "http"}],
                        "resources": {
                            "requests": {"nvidia.com/gpu": 1, "cpu": 8, "memory": "64Gi"},
                            "limits": {"nvidia.com/gpu": 1, "cpu": 16, "memory": "128Gi"},
                        },
                        "livenessProbe": {
                            "httpGet": {"path": "/v2/health/live", "port": 8000},
                            "initialDelaySeconds": 120,
                            "periodSeconds": 10,
                            "timeoutSeconds": 5,
                            "failureThreshold": 3,
                        },
                        "readinessProbe": {
                            "httpGet": {"path": "/v2/health/ready", "port": 8000},
                            "initialDelaySeconds": 120,
                            "periodSeconds": 10,
                            "timeoutSeconds": 5,
                            "failureThreshold": 3,
                        },
                    }
                ]
            },
        },
    },
}


def _curl(path: str) -> dict:
    url = f"http://localhost:8000{path}"
    command = ["curl", "--fail", "--silent", "--show-error", "--max-time", "9", url]
    return {"exec": {"command": command}, "initialDelaySeconds": 5, "periodSeconds": 30, "timeoutSeconds": 10}


SGLESER = {
    "apiVersion": "serving.kserve.io/v1alpha1",
    "kind": "ServingRuntime",
    "metadata": {"name": "triton-transformers"},
    "spec": {
        "supportedModelFormats": [{"name": "triton", "version": "2", "autoSelect": True}],
        "protocolVersions": ["v2", "grpc-v2"],
        "multiModel": False,
        "volumes": [{"name": "shm", "emptyDir": {"medium": "Memory", "sizeLimit": "2Gi"}}],
        "containers": [
            {
                "name": "kserve-container",
                "image": "quay.io/rh_ee_sgleszer/tritonserver-torch:23.05-py3-torch2.1-cu118-v2",
                "command": ["/bin/sh"],
                "args": [
                    "-c",
                    'exec tritonserver "--model-repository=/mnt/models/" "--model-control-mode=poll" '
                    '"--disable-auto-complete-config" "--strict-readiness=false" "--allow-http=true" '
                    '"--allow-sagemaker=false" ',
                ],
                "volumeMounts": [{"name": "shm", "mountPath": "/dev/shm"}],
                "resources": {"requests": {"cpu": "500m", "memory": "1Gi"}, "limits": {"cpu": "5", "memory": "1Gi"}},
                "livenessProbe": _curl("/v2/health/live"),
                "readinessProbe": _curl("/v2/health/live"),
            }
        ],
    },
}


def _container(manifest: dict) -> dict:
    spec = manifest["spec"]
    return (spec["template"]["spec"] if "template" in spec else spec)["containers"][0]


def test_the_triton_row_states_its_switches_with_their_source():
    row = engine_named("triton")
    assert row is not None
    assert row.debug_flags == ("log-verbose",)
    assert ("strict-readiness", "false") in row.lenient_readiness
    assert row.lazy_start == (("model-control-mode", "explicit"),) and row.start_models == "load-model"
    assert row.flags["port"] == ("http-port",) and row.live_before_ready
    assert "v2.51.0" in row.sources["switches"] and "v2.34.0" in row.sources["switches"]


def test_log_verbose_on_a_serving_triton_is_advice():
    assert found_by([FARRUKH], "debug-switches-off") == [
        (
            "advisory",
            "container triton: --log-verbose=1 turns Triton Inference Server's verbose logging on (a debugging aid), "
            "left on in a serving pod: every request floods the logs; remove it",
        )
    ]


def test_log_verbose_zero_is_silent():
    quiet = copy.deepcopy(FARRUKH)
    _container(quiet)["args"][4] = "--log-verbose=0"
    assert found_by([quiet], "debug-switches-off") == []


def test_readiness_on_the_liveness_endpoint_with_lenient_readiness_is_advice():
    assert found_by([SGLESER], "readiness-waits-for-model") == [
        (
            "advisory",
            "container kserve-container: readinessProbe asks /v2/health/live (the livenessProbe's too), Triton "
            "Inference Server's liveness endpoint, which answers while its models are not ready (still loading, or "
            "failed): the pod is Ready and gets requests that fail; probe readiness on /v2/health/ready and drop "
            "--strict-readiness=false",
        )
    ]


def test_lenient_readiness_alone_is_advice_and_the_careful_form_is_silent():
    lenient = copy.deepcopy(SGLESER)
    _container(lenient)["readinessProbe"] = _curl("/v2/health/ready")
    [(level, message)] = found_by([lenient], "readiness-waits-for-model")
    assert level == "advisory" and message.startswith(
        "container kserve-container: --strict-readiness=false makes /v2/health/ready answer ready before"
    )
    careful = copy.deepcopy(lenient)
    _container(careful)["args"][1] = _container(careful)["args"][1].replace('"--strict-readiness=false" ', "")
    assert found_by([careful], "readiness-waits-for-model") == []
    named = copy.deepcopy(FARRUKH)  # readiness on /v2/health/ready, strict, its model named at start
    _container(named)["args"].append("--load-model=qwen-function-calling")
    assert found_by([named], "readiness-waits-for-model") == []


def test_a_server_that_loads_no_model_at_start_needs_no_load_budget():
    assert found_by([FARRUKH], "llm-startup-probe-budget") == []
    loading = copy.deepcopy(FARRUKH)
    _container(loading)["args"].append("--load-model=qwen-function-calling")
    [(level, message)] = found_by([loading], "llm-startup-probe-budget")
    assert message.startswith("container triton: livenessProbe without a startupProbe restarts the pod while Triton")


def test_a_single_rank_server_with_dev_shm_above_its_memory_limit_is_advice():
    assert found_by([SGLESER], "tensor-parallel-requires-dshm") == [
        (
            "advisory",
            "container kserve-container: the /dev/shm emptyDir shm sizeLimit 2Gi exceeds the container's memory limit "
            "1Gi; shared-memory pages count against that limit, so the container is OOM-killed before /dev/shm fills",
        )
    ]


def test_dev_shm_within_the_memory_limit_or_with_no_limit_is_silent():
    within = copy.deepcopy(SGLESER)
    _container(within)["resources"]["limits"]["memory"] = "4Gi"
    assert found_by([within], "tensor-parallel-requires-dshm") == []
    # KSign-Security-Lab/agents k8s/vllm.yaml (set 23): 8Gi memory /dev/shm, no memory limit (bounded by the node).
    from test_policy_shell_scripts_and_service_links import DEPLOYMENT

    ksign = copy.deepcopy(DEPLOYMENT)
    pod = ksign["spec"]["template"]["spec"]
    pod["volumes"] = [{"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "8Gi"}}]
    pod["containers"][0]["volumeMounts"] = [{"name": "dshm", "mountPath": "/dev/shm"}]
    assert found_by([ksign], "tensor-parallel-requires-dshm") == []


def test_an_engine_whose_liveness_waits_for_the_model_is_not_judged():
    # SGLang's /health and /health_generate differ, but its HTTP server starts once the model is loaded: a readiness
    # probe on /health is its usual form (spent set 13 arnavsriva/llm-serving-gke-vs-vertex k8s/sglang/deployment.yaml).
    sglang = copy.deepcopy(FARRUKH)
    container = _container(sglang)
    container["image"] = "lmsysorg/sglang:v0.4.6"
    container["args"] = ["python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen2.5-7B-Instruct"]
    container["readinessProbe"]["httpGet"]["path"] = "/health"
    container["livenessProbe"]["httpGet"]["path"] = "/health"
    assert found_by([sglang], "readiness-waits-for-model") == []
