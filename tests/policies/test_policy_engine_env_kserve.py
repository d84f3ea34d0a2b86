"""G74 engine-env-known on KServe: a predictor model's VLLM_ variable that vLLM does not read (brief kserve53).

Spent set 109 Siryoos/kserve-vllm-mini@627b171a isvc.yaml passes vLLM's options as env VLLM_ARGS ("--max-model-len
4096 --gpu-memory-utilization 0.90 --disable-log-requests") to runtime vllm, which no file defines; vLLM reads no such
variable (components/engine_env_names.json settings.vllm), so the options never apply. The runtime is read where it is
known: one of the files (erkerc/rhoai-autoscaling@dadfb7b9 servingruntime.yaml, RHOAI's vLLM runtime, is the shape
used here) or KServe's kserve-vllmserver (kserve v0.20.0 config/runtimes/kserve-vllmserver.yaml:21-25, whose own env
VLLM_CONFIG_ROOT and VLLM_WORKER_MULTIPROC_METHOD is the careful runtime form).
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

POLICY = "engine-env-known"
OPTIONS = "--max-model-len 4096 --gpu-memory-utilization 0.90 --disable-log-requests"

RUNTIME = {
    "apiVersion": "serving.kserve.io/v1alpha1",
    "kind": "ServingRuntime",
    "metadata": {"name": "qwen3-8b", "namespace": "llm"},
    "spec": {
        "supportedModelFormats": [{"name": "vLLM", "autoSelect": True}],
        "containers": [
            {
                "name": "kserve-container",
                "image": "registry.redhat.io/rhaiis/vllm-cuda-rhel9:3.2.3-1760572426",
                "command": ["python", "-m", "vllm.entrypoints.openai.api_server"],
                "args": ["--port=8080", "--model=/mnt/models", "--served-model-name={{.Name}}"],
                "env": [{"name": "HF_HOME", "value": "/tmp/hf_home"}],
            }
        ],
    },
}


def _isvc(runtime: str | None, env: list[dict], fmt: str | None = None) -> dict:
    model: dict = {"storageUri": "s3://models/llm-demo/", "env": env}
    if runtime is not None:
        model["runtime"] = runtime
    if fmt is not None:
        model["modelFormat"] = {"name": fmt}
    return {
        "apiVersion": "serving.kserve.io/v1beta1",
        "kind": "InferenceService",
        "metadata": {"name": "demo-llm", "namespace": "llm"},
        "spec": {"predictor": {"model": model}},
    }


ARGS = [{"name": "VLLM_ARGS", "value": OPTIONS}]


def test_options_in_an_env_variable_to_a_runtime_no_file_defines_is_hedged_advice():
    ((level, message),) = found_by([_isvc("vllm", ARGS)], POLICY)
    assert level == "advisory"
    assert message == (
        "spec.predictor.model: env VLLM_ARGS is no setting vLLM reads (no release of it reads a variable of that name: "
        "components/engine_env_names.json settings.vllm), so the value is silently ignored and the setting meant never "
        "applies; its value holds command-line options (--max-model-len 4096 ...), which vLLM reads only as arguments; "
        "pass them in args instead (runtime vllm is defined by none of the files read: unless its command reads the "
        "variable, as a shell's $VAR or Kubernetes' $(VAR))"
    )


def test_a_runtime_of_the_files_or_kserve_s_vllm_runtime_is_advice_without_hedge():
    for objects in (
        [RUNTIME, _isvc("qwen3-8b", ARGS, "vLLM")],
        [_isvc("kserve-vllmserver", ARGS, "vLLM")],
        [_isvc(None, ARGS, "vLLM")],
    ):
        ((level, message),) = found_by(objects, POLICY)
        assert level == "advisory" and message.endswith("pass them in args instead"), objects
    # The runtime's own env is judged on the runtime, as on a plain workload.
    runtime = copy.deepcopy(RUNTIME)
    runtime["spec"]["containers"][0]["env"].append({"name": "VLLM_MAX_MODEL_LEN", "value": "8192"})
    ((level, message),) = found_by([runtime], POLICY)
    assert level == "advisory" and message.startswith("container kserve-container: env VLLM_MAX_MODEL_LEN is no setting")


def test_careful_forms_stay_silent():
    reads = copy.deepcopy(RUNTIME)  # the runtime's command reads the variable: a shell expands it
    reads["spec"]["containers"][0]["command"] = ["sh", "-c", "exec python -m vllm.entrypoints.openai.api_server $VLLM_ARGS"]
    triton = copy.deepcopy(RUNTIME)
    triton["spec"]["containers"][0].update(image="nvcr.io/nvidia/tritonserver:24.08-py3", command=["tritonserver"])
    known = [{"name": "VLLM_WORKER_MULTIPROC_METHOD", "value": "spawn"}, {"name": "VLLM_CONFIG_ROOT", "value": "/tmp"}]
    careful = [
        [reads, _isvc("qwen3-8b", ARGS, "vLLM")],
        [triton, _isvc("qwen3-8b", ARGS, "vLLM")],  # a runtime that does not run vLLM
        [_isvc("vllm", known)],  # names vLLM reads
        [_isvc("my-runtime", ARGS, "huggingface")],  # a runtime nothing ties to vLLM
        [RUNTIME],  # a runtime of the files whose env vLLM reads, alone
    ]
    for objects in careful:
        assert found_by(objects, POLICY) == [], objects
