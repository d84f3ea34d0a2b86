"""G10 serving-memory-limit on a KServe predictor that sets only a GPU: KServe fills its memory limit with 2Gi.

kserve/kserve v0.20.0: the InferenceService defaulter fills the first container of a predictor's own ``containers``
(pkg/apis/serving/v1beta1/predictor_custom.go:65-73) with the config's figures for each cpu/memory request and limit
left unset (inference_service_defaults.go:59-95), which the chart sets to 1 CPU / 2Gi
(charts/kserve-resources/values.yaml:88-95, rendered by files/common/configmap-patch.yaml:137-141; kserve/kserve#3947:
defaults below the requests break deployments); a predictor ``model`` gets its built-in runtime's resources merged key by
key (config/runtimes/kserve-huggingfaceserver.yaml:34-40, 1 CPU / 2Gi; utils.go:253-263). The form is the one brief
engines48 names from fresh sets (a GPU LLM predictor with only nvidia.com/gpu), in the minimal shape of such a service.
"""

from __future__ import annotations

from policy_fixtures import found_by

from policies.reading.kserve_runtime import isvc_defaults

POLICY = "serving-memory-limit"


def _isvc(predictor: dict) -> dict:
    return {
        "apiVersion": "serving.kserve.io/v1beta1",
        "kind": "InferenceService",
        "metadata": {"name": "llm", "namespace": "serving"},
        "spec": {"predictor": predictor},
    }


def _custom(resources: dict) -> dict:
    container = {
        "name": "kserve-container",
        "image": "vllm/vllm-openai:v0.10.1",
        "args": ["Qwen/Qwen2.5-7B-Instruct", "--port", "8080"],
        "resources": resources,
    }
    return _isvc({"containers": [container]})


def _model(resources: dict) -> dict:
    model = {"modelFormat": {"name": "huggingface"}, "storageUri": "hf://Qwen/Qwen2.5-7B-Instruct", "resources": resources}
    return _isvc({"model": model})


GPU_ONLY = {"limits": {"nvidia.com/gpu": "1"}}


def test_the_defaults_are_tabled():
    defaults, source = isvc_defaults()
    # Memory only: the CPU figure is cleared by this project's own KServe release (components/builders/addons.py).
    assert defaults == {"requests": {"memory": "2Gi"}, "limits": {"memory": "2Gi"}}
    assert "values.yaml:88-95" in source


def test_a_gpu_predictor_with_only_a_gpu_gets_2gi_advice():
    ((level, message),) = found_by([_custom(GPU_ONLY)], POLICY)
    assert level == "advisory" and "limits.memory 2Gi" in message and "defaulter" in message and "OOM" in message
    ((level, message),) = found_by([_model(GPU_ONLY)], POLICY)
    assert level == "advisory" and "built-in ClusterServingRuntime/kserve-huggingfaceserver" in message


def test_careful_predictors_stay_silent():
    sized = {"limits": {"nvidia.com/gpu": "1", "memory": "32Gi"}, "requests": {"memory": "32Gi", "cpu": "4"}}
    assert found_by([_custom(sized)], POLICY) == []
    assert found_by([_model(sized)], POLICY) == []
    # No GPU: a CPU predictor is not judged by the GPU load figure.
    assert found_by([_custom({})], POLICY) == []
    # A runtime of the run that gives a large memory limit.
    runtime = {
        "apiVersion": "serving.kserve.io/v1alpha1",
        "kind": "ServingRuntime",
        "metadata": {"name": "hf", "namespace": "serving"},
        "spec": {
            "supportedModelFormats": [{"name": "huggingface", "version": "1", "autoSelect": True}],
            "containers": [
                {
                    "name": "kserve-container",
                    "image": "kserve/huggingfaceserver:v0.20.0-gpu",
                    "resources": {"limits": {"memory": "48Gi", "cpu": "8"}, "requests": {"memory": "48Gi", "cpu": "8"}},
                }
            ],
        },
    }
    assert found_by([runtime, _model(GPU_ONLY)], POLICY) == []
