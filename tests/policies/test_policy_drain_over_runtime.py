"""S10 termination-drains-streams on a KServe InferenceService whose predictor ``model`` sets the drain itself over a
ServingRuntime of the files run by a table engine (the pod KServe renders: kserve_runtime.merged_predictor).

The form of spent set 56 namphuongtran/llm-serving-stack (models/ornith-9b/overlays/local/patch-resources.yaml with
runtimes/llamacpp-arm64/servingruntime.yaml): ``model.lifecycle.preStop`` an exec ``/bin/sleep 15`` and the
predictor's terminationGracePeriodSeconds 120 over a llama.cpp server runtime, whose server stops at once on SIGTERM
(components/serving_engines.toml llama-cpp drain "aborts"). Careful forms: a model that sets no drain of its own (the
runtime's findings say it), and a hook and grace period that outlast the longest request.
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

S10 = "termination-drains-streams"

RUNTIME = {
    "apiVersion": "serving.kserve.io/v1alpha1",
    "kind": "ServingRuntime",
    "metadata": {"name": "llamacpp-arm64", "namespace": "llm"},
    "spec": {
        "supportedModelFormats": [{"name": "gguf", "version": "1", "autoSelect": False}],
        "containers": [
            {
                "name": "kserve-container",
                "image": "ghcr.io/ggml-org/llama.cpp:server-b10481",
                "args": ["--model", "/models/model.gguf", "--host", "0.0.0.0", "--port", "8080"],
                "ports": [{"name": "http", "containerPort": 8080}],
            }
        ],
    },
}


def _isvc(sleep: int | None = 15, grace: int | None = 120) -> dict:
    predictor: dict = {"model": {"modelFormat": {"name": "gguf"}, "runtime": "llamacpp-arm64"}}
    if sleep is not None:
        predictor["model"]["lifecycle"] = {"preStop": {"exec": {"command": ["/bin/sleep", str(sleep)]}}}
    if grace is not None:
        predictor["terminationGracePeriodSeconds"] = grace
    return {
        "apiVersion": "serving.kserve.io/v1beta1",
        "kind": "InferenceService",
        "metadata": {"name": "ornith-9b", "namespace": "llm"},
        "spec": {"predictor": predictor},
    }


def _on_isvc(objs: list[dict]) -> list[tuple[str, str]]:
    return [(level, m) for level, m in found_by(objs, S10) if m.startswith("spec.predictor.model")]


def test_a_model_that_sets_a_short_hook_over_a_llama_cpp_runtime_is_advised():
    found = _on_isvc([RUNTIME, _isvc()])
    assert [level for level, _ in found] == ["advisory", "advisory"]
    assert "on SIGTERM llama.cpp server stops at once" in found[0][1]
    assert "terminationGracePeriodSeconds 120 < the longest request 300s" in found[1][1]
    assert all(m.endswith("(with ServingRuntime/llamacpp-arm64 merged in, as KServe does)") for _, m in found)


def test_careful_forms_stay_silent():
    assert _on_isvc([RUNTIME, _isvc(None, None)]) == []
    assert _on_isvc([RUNTIME, _isvc(300, 330)]) == []
    # The runtime not among the files: what it runs is unknown.
    assert _on_isvc([_isvc()]) == []
    vllm = copy.deepcopy(RUNTIME)
    vllm["spec"]["containers"][0]["image"] = "vllm/vllm-openai:v0.10.1"
    assert _on_isvc([vllm, _isvc()]) == []
