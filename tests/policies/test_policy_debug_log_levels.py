"""S36 debug-switches-off: a server's command-line log level at debug/trace, and the env a custom resource hands to
the engine its operator renders (advice). Minimal hand-written shapes of the cited files."""

from __future__ import annotations

import copy

from policy_fixtures import found_by

POLICY = "debug-switches-off"

# Set 36: cgruver/openshift-ai-homelab qwen3-coder.yaml at adfebb8fddd22f277fbc81739289914f74499298: an OpenVINO Model
# Server predictor started with --log_level=DEBUG.
CGRUVER = {
    "apiVersion": "serving.kserve.io/v1beta1",
    "kind": "InferenceService",
    "metadata": {"name": "qwen3-coder-30b-a3b-instruct"},
    "spec": {
        "predictor": {
            "model": {
                "runtime": "kserve-ovms-intel",
                "modelFormat": {"name": "openvino_ir"},
                "storageUri": "oci://nexus.clg.lab:5002/openvino/qwen3-coder:latest",
                "args": ["--config_path=/mnt/models/config_all.json", "--log_level=DEBUG", "--port=8001", "--rest_port=8888"],
                "resources": {"limits": {"memory": "32Gi", "gpu.intel.com/i915": "1"}},
            }
        }
    },
}

# Set 36: nebari-dev/llm-serving-pack examples/models/advanced-scheduling.yaml at
# 502536264e025064eaf38143a0ed31e86ab127dc: an LLMModel whose spec.advanced.vllm.extraEnv sets VLLM_LOGGING_LEVEL=DEBUG.
NEBARI = {
    "apiVersion": "llm.nebari.dev/v1alpha1",
    "kind": "LLMModel",
    "metadata": {"name": "advanced-scheduling", "namespace": "nebari-llm-serving-system"},
    "spec": {
        "model": {"name": "Qwen/Qwen3.5-35B-A3B-GPTQ-Int4", "source": "huggingface"},
        "advanced": {
            "vllm": {
                "extraArgs": ["--max-model-len", "8192"],
                "extraEnv": [
                    {"name": "VLLM_LOGGING_LEVEL", "value": "DEBUG"},
                    {"name": "HF_HUB_ENABLE_HF_TRANSFER", "value": "1"},
                ],
            }
        },
    },
}


def test_a_command_line_log_level_at_debug_is_advice():
    ((level, message),) = found_by([CGRUVER], POLICY)
    assert level == "advisory" and message.startswith("spec.predictor.model: --log_level DEBUG turns the server's debug")
    # The same option written with a separate value, on vLLM's own uvicorn log level.
    split = copy.deepcopy(CGRUVER)
    split["spec"]["predictor"]["model"]["args"] = ["--log-level", "trace"]
    assert [lv for lv, _ in found_by([split], POLICY)] == ["advisory"]


def test_a_custom_resources_env_for_its_engine_is_advice():
    ((level, message),) = found_by([NEBARI], POLICY)
    assert level == "advisory"
    assert message.startswith("spec.advanced.vllm.extraEnv: env VLLM_LOGGING_LEVEL=DEBUG turns vLLM's debug logging on")


def test_careful_forms_stay_silent():
    info = copy.deepcopy(CGRUVER)
    info["spec"]["predictor"]["model"]["args"][1] = "--log_level=INFO"
    assert found_by([info], POLICY) == []
    quiet = copy.deepcopy(NEBARI)
    quiet["spec"]["advanced"]["vllm"]["extraEnv"][0]["value"] = "INFO"
    assert found_by([quiet], POLICY) == []
    # An env list under a path that names no engine (a sidecar, a job of the operator's) is not read.
    other = copy.deepcopy(NEBARI)
    other["spec"]["advanced"] = {"exporter": {"extraEnv": [{"name": "LOG_LEVEL", "value": "debug"}]}}
    assert found_by([other], POLICY) == []
