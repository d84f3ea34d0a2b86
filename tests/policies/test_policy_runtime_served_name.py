"""S66 on a KServe ServingRuntime no InferenceService of the files uses: its own vLLM command line loads a local path
(``--model /mnt/models/``) with no --served-model-name (advice).

Firing form: cfchase/basic-kserve-vllm@f0e9deab624eaa39ec7895bf3593db9e79dca799 vllm-runtime.yaml (spent set 76,
labelled S66): ServingRuntime vllm, quay.io/rh-aiservices-bu/vllm-openai-ubi9:0.4.2, ``--model /mnt/models/``. vLLM
serves the model under --model as written when no --served-model-name is given (vllm/engine/arg_utils.py help).
Silent: the sibling vllm-4gpu-runtime.yaml's ``--served-model-name={{.Name}}``, and a runtime an InferenceService of the
files names or may pick (the InferenceService is read, with its own args).
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

S66 = "vllm-served-name-for-path"

RUNTIME = {
    "apiVersion": "serving.kserve.io/v1alpha1",
    "kind": "ServingRuntime",
    "metadata": {"name": "vllm"},
    "spec": {
        "containers": [
            {
                "name": "kserve-container",
                "image": "quay.io/rh-aiservices-bu/vllm-openai-ubi9:0.4.2",
                "args": ["--model", "/mnt/models/", "--download-dir", "/models-cache", "--port", "8080"],
                "ports": [{"containerPort": 8080, "name": "http1", "protocol": "TCP"}],
            }
        ],
        "multiModel": False,
        "supportedModelFormats": [{"autoSelect": True, "name": "pytorch"}],
    },
}


def _isvc(runtime: str | None, args: list[str]) -> dict:
    model: dict = {"modelFormat": {"name": "pytorch"}, "storageUri": "pvc://models/mistral", "args": args}
    if runtime:
        model["runtime"] = runtime
    return {
        "apiVersion": "serving.kserve.io/v1beta1",
        "kind": "InferenceService",
        "metadata": {"name": "mistral"},
        "spec": {"predictor": {"model": model}},
    }


def test_a_runtime_no_inference_service_uses_is_read_on_its_own():
    ((level, message),) = found_by([RUNTIME], S66)
    assert level == "advisory"
    assert message.startswith("container kserve-container: vLLM loads the model from the path /mnt/models/")


def test_a_named_runtime_or_one_an_inference_service_uses_stays_silent_on_the_runtime():
    named = copy.deepcopy(RUNTIME)
    named["spec"]["containers"][0]["args"] += ["--served-model-name={{.Name}}"]
    assert found_by([named], S66) == []
    # an InferenceService that names the runtime and adds the name: silent on both
    assert found_by([RUNTIME, _isvc("vllm", ["--served-model-name=mistral"])], S66) == []
    # one that picks a runtime by format and adds the name: the runtime is not reported on its own
    assert found_by([RUNTIME, _isvc(None, ["--served-model-name=mistral"])], S66) == []
    # an InferenceService of another runtime leaves this one unused: reported
    assert [lv for lv, _ in found_by([RUNTIME, _isvc("other", [])], S66)] == ["advisory"]
