"""S32 requests-within-limits on a predictor ``model`` merged with KServe's built-in ClusterServingRuntime.

KServe v0.20.0 selects kserve-huggingfaceserver for modelFormat huggingface (config/runtimes/
kserve-huggingfaceserver.yaml:11-15, autoSelect) and merges its kserve-container (limits cpu 1, memory 2Gi, :34-40)
under the model key by key (pkg/controller/v1beta1/inferenceservice/utils/utils.go:253-263), so a CPU request above 1
with no CPU limit of the InferenceService's own gives a predictor pod the API server refuses.
"""

from __future__ import annotations

import copy

import pytest
from policy_fixtures import manifest

from policies.framework import Resource
from policies.reading.kserve_runtime import builtin_runtimes
from policies.registry import evaluate

# Minimal form of ExelleR/gpu-inference-platform platform/serving/kserve/inferenceservice.yaml at
# f1dabe2bee9428e1691cd0c0a17fe126d4288239 (spent set 9): modelFormat huggingface, no runtime, requests cpu 2 and memory 9Gi, limits memory 10Gi
# and one GPU, no CPU limit.
QWEN = {
    "apiVersion": "serving.kserve.io/v1beta1",
    "kind": "InferenceService",
    "metadata": {"name": "qwen3-8b", "namespace": "inference"},
    "spec": {
        "predictor": {
            "model": {
                "modelFormat": {"name": "huggingface"},
                "storageUri": "hf://Qwen/Qwen3-8B-FP8",
                "resources": {
                    "requests": {"cpu": "2", "memory": "9Gi", "nvidia.com/gpu": "1"},
                    "limits": {"memory": "10Gi", "nvidia.com/gpu": "1"},
                },
            }
        }
    },
}


def s32(*objs: dict) -> list[tuple[str, str]]:
    resources: list[Resource] = [manifest(o) for o in objs]
    return [(v.enforcement, v.message) for v in evaluate(resources) if v.policy == "requests-within-limits"]


def test_the_builtin_table_holds_the_v0_20_0_runtimes():
    rows = {
        runtime.name: (formats, version, runtime.spec["containers"][0]["resources"])
        for runtime, formats, version, _ in builtin_runtimes()
    }
    one_cpu = {"requests": {"cpu": "1", "memory": "2Gi"}, "limits": {"cpu": "1", "memory": "2Gi"}}
    assert rows == {
        "kserve-huggingfaceserver": (("huggingface",), "1", one_cpu),
        "kserve-vllmserver": (("vLLM",), "1", one_cpu),
    }


def test_cpu_request_over_the_builtin_runtime_limit_blocks():
    found = s32(QWEN)
    assert len(found) == 1
    level, message = found[0]
    assert level == "mandatory"
    assert message.startswith(
        "InferenceService inference/qwen3-8b: spec.predictor.model: resources.requests.cpu 2 with no limits.cpu"
    )
    assert "ClusterServingRuntime/kserve-huggingfaceserver" in message and "limits.cpu 1 below its request" in message


def test_explicit_builtin_runtime_name_and_vllm_format():
    for model in ({"runtime": "kserve-vllmserver"}, {"modelFormat": {"name": "vLLM"}}):
        obj = copy.deepcopy(QWEN)
        obj["spec"]["predictor"]["model"].update(model)
        if "runtime" not in model:
            obj["spec"]["predictor"]["model"]["modelFormat"] = model["modelFormat"]
        assert ["kserve-vllmserver" in m for _, m in s32(obj)] == [True]


@pytest.mark.parametrize(
    "change",
    [
        lambda m: m["resources"]["limits"].update(cpu="4"),  # its own CPU limit wins over the runtime's
        lambda m: m["resources"]["requests"].update(cpu="1"),  # within the runtime's limit
        lambda m: m.update(runtime="my-llm-runtime"),  # a runtime not among the files: unknown, silent
        lambda m: m["modelFormat"].update(version="2"),  # no built-in runtime lists huggingface version 2
        lambda m: m["modelFormat"].update(name="pytorch"),  # not a tabled runtime
    ],
)
def test_careful_forms_stay_silent(change):
    obj = copy.deepcopy(QWEN)
    change(obj["spec"]["predictor"]["model"])
    assert s32(obj) == []


def test_multi_node_predictor_and_namespace_runtime_stay_silent():
    multi = copy.deepcopy(QWEN)
    multi["spec"]["predictor"]["workerSpec"] = {"tensorParallelSize": 1, "pipelineParallelSize": 2}
    assert s32(multi) == []
    # A ServingRuntime of the namespace that supports huggingface is chosen before the cluster's (predictor_model.go:
    # 112-128); with a 4-CPU limit it lets the request through.
    runtime = {
        "apiVersion": "serving.kserve.io/v1alpha1",
        "kind": "ServingRuntime",
        "metadata": {"name": "vllm-runtime", "namespace": "inference"},
        "spec": {
            "supportedModelFormats": [{"name": "huggingface", "autoSelect": True}],
            "containers": [
                {
                    "name": "kserve-container",
                    "image": "vllm/vllm-openai:v0.10.0",
                    "resources": {"limits": {"cpu": "4", "memory": "16Gi"}},
                }
            ],
        },
    }
    assert s32(QWEN, runtime) == []
    runtime["spec"]["containers"][0]["resources"]["limits"]["cpu"] = "1"
    assert ["ServingRuntime/vllm-runtime (among the files read)" in m for _, m in s32(QWEN, runtime)] == [True]
