"""G8 serving-resource-requests and G10 serving-memory-limit on a KServe ServingRuntime that no InferenceService of the
files selects: its container's missing requests and memory limit are advice on the runtime (an InferenceService that
selects it may set them); with one that selects it, the InferenceService is judged with the runtime merged in."""

from __future__ import annotations

import copy

from policy_fixtures import RAISED
from policy_fixtures import found_by as _pack_found_by


def found_by(objs: list[dict], policy: str, config: dict | None = None) -> list[tuple[str, str]]:
    """The pack's findings with the advisory hygiene rows raised (policy_fixtures.RAISED), so this file's
    proven-blocks / unproven-advises pairs stay told apart."""
    return _pack_found_by(objs, policy, RAISED if config is None else config)


# rh-ita-ssa-devhub-org/llm-serving serving-runtime.yaml at 99224f5 (cut down): a vLLM ServingRuntime with no
# resources at all; the repository holds no InferenceService.
RUNTIME = {
    "apiVersion": "serving.kserve.io/v1alpha1",
    "kind": "ServingRuntime",
    "metadata": {"name": "my-vllm-runtime", "annotations": {"opendatahub.io/recommended-accelerators": '["nvidia.com/gpu"]'}},
    "spec": {
        "multiModel": False,
        "supportedModelFormats": [{"name": "vLLM", "autoSelect": True}],
        "containers": [
            {
                "name": "kserve-container",
                "image": "quay.io/modh/vllm:rhoai-2.16-cuda",
                "command": ["python", "-m", "vllm.entrypoints.openai.api_server"],
                "args": ["--port=8080", "--model=/mnt/models", "--served-model-name={{.Name}}", "--max-model-len", "8000"],
                "ports": [{"containerPort": 8080, "protocol": "TCP"}],
            }
        ],
    },
}
POLICIES = ("serving-resource-requests", "serving-memory-limit")


def found(objs: list[dict]) -> list[tuple[str, str, str]]:
    return [(p, level, message) for p in POLICIES for level, message in found_by(objs, p)]


def test_a_runtime_no_inference_service_selects_is_advised_on():
    findings = found([RUNTIME])
    assert [(p, level) for p, level, _ in findings] == [
        ("serving-resource-requests", "advisory"),
        ("serving-memory-limit", "advisory"),
    ]
    assert findings[0][2] == (
        "container kserve-container: no cpu or memory request on this vllm server, so Karpenter sizes the node and the "
        "scheduler packs it as if it needed none; request what the engine uses besides the GPU (no InferenceService of "
        "the files selects this runtime; one that does may set them in its predictor)"
    )


def isvc(resources: dict) -> dict:
    return {
        "apiVersion": "serving.kserve.io/v1beta1",
        "kind": "InferenceService",
        "metadata": {"name": "granite", "annotations": {"serving.kserve.io/deploymentMode": "RawDeployment"}},
        "spec": {
            "predictor": {
                "model": {
                    "modelFormat": {"name": "vLLM"},
                    "runtime": "my-vllm-runtime",
                    "storageUri": "oci://quay.io/redhat-ai-services/modelcar-catalog:granite-3.1-8b-instruct",
                    "resources": resources,
                }
            }
        },
    }


def test_a_runtime_an_inference_service_selects_is_judged_there():
    # cfchase/rhoai-api-docs docs/serving/llms.md's shape: the InferenceService names the runtime and sets requests and
    # limits, which KServe merges over the runtime's container: nothing to report on either.
    full = {
        "requests": {"cpu": "2", "memory": "16Gi", "nvidia.com/gpu": "1"},
        "limits": {"cpu": "2", "memory": "16Gi", "nvidia.com/gpu": "1"},
    }
    assert found([RUNTIME, isvc(full)]) == []
    # The InferenceService that leaves the memory limit out is the one that blocks, not the runtime.
    partial = copy.deepcopy(full)
    del partial["limits"]["memory"]
    assert [(p, level) for p, level, _ in found([RUNTIME, isvc(partial)])] == [("serving-memory-limit", "mandatory")]


def test_a_runtime_that_sets_its_own_resources_is_silent():
    runtime = copy.deepcopy(RUNTIME)
    runtime["spec"]["containers"][0]["resources"] = {
        "requests": {"cpu": "4", "memory": "24Gi"},
        "limits": {"memory": "24Gi", "nvidia.com/gpu": "1"},
    }
    assert found([runtime]) == []
