"""G69 reference-resolves on a KServe predictor's runtime, where the run's ServingRuntimes state no namespace.

Brief kserve53: spent set 109 erkerc/rhoai-autoscaling@dadfb7b9 (inferenceservice-autoscale.yaml in namespace
autoscaling-demo names runtime qwen25-7b-instruct; servingruntime.yaml beside it defines qwen3-8b with no namespace, and
one kustomization lists both). KServe looks the runtime up in the InferenceService's namespace, then among
ClusterServingRuntimes (kserve v0.20.0 pkg/controller/v1beta1/inferenceservice/utils/utils.go GetServingRuntime;
predictor.go:330-337 RuntimeNotRecognized). A runtime written with no namespace lands wherever it is applied, so one kept
beside the InferenceService counts as its namespace's; one of another folder may belong to another application.
Advice, as every G69 finding: the named runtime may be created another way (OpenShift AI's dashboard names a model's
runtime after it).
"""

from __future__ import annotations

import yaml
from policy_fixtures import found_by

REFS = "reference-resolves"


def _runtime(name: str, namespace: str | None = None) -> dict:
    return {
        "apiVersion": "serving.kserve.io/v1alpha1",
        "kind": "ServingRuntime",
        "metadata": {"name": name, **({"namespace": namespace} if namespace else {})},
        "spec": {
            "supportedModelFormats": [{"name": "vLLM", "autoSelect": True}],
            "containers": [
                {
                    "name": "kserve-container",
                    "image": "registry.redhat.io/rhaiis/vllm-cuda-rhel9:3.2.3-1760572426",
                    "command": ["python", "-m", "vllm.entrypoints.openai.api_server"],
                    "args": ["--port=8080", "--model=/mnt/models"],
                }
            ],
        },
    }


def _isvc(runtime: str, namespace: str | None = "autoscaling-demo") -> dict:
    return {
        "apiVersion": "serving.kserve.io/v1beta1",
        "kind": "InferenceService",
        "metadata": {"name": "qwen25-7b-instruct", **({"namespace": namespace} if namespace else {})},
        "spec": {
            "predictor": {
                "model": {
                    "modelFormat": {"name": "vLLM"},
                    "runtime": runtime,
                    "storageUri": "pvc://model-pvc-qwen3-8b/hf/instruction_tuned",
                }
            }
        },
    }


def test_a_runtime_beside_with_no_namespace_and_another_name_is_advice():
    [(level, message)] = found_by([_isvc("qwen25-7b-instruct"), _runtime("qwen3-8b")], REFS)
    assert level == "advisory"
    assert message == (
        "spec.predictor.model: runtime names ServingRuntime qwen25-7b-instruct, which none of the files read defines in "
        "namespace autoscaling-demo, nor beside it with no namespace (which lands wherever it is applied) (they define "
        "ServingRuntime/ClusterServingRuntime qwen3-8b there): KServe finds no runtime of that name and the "
        "InferenceService never becomes ready; unless that ServingRuntime comes from elsewhere, name one the files define"
    )


def test_careful_forms_stay_silent():
    careful = [
        [_isvc("qwen3-8b"), _runtime("qwen3-8b")],  # the runtime beside it, applied into its namespace
        # Before: runtimes of the namespace with other names made the unplaced one of the name asked for a miss.
        [_isvc("qwen3-8b"), _runtime("qwen3-8b"), _runtime("other", "autoscaling-demo")],
        [_isvc("kserve-vllmserver"), _runtime("qwen3-8b")],  # KServe's chart installs it
        [_isvc("qwen3-8b", namespace=None), _runtime("qwen3-8b")],
    ]
    for objects in careful:
        assert found_by(objects, REFS) == [], objects


def _check_folder(path) -> list:
    from policies.check import load_resources, manifest_files
    from policies.registry import evaluate

    return [v for v in evaluate(load_resources(manifest_files([str(path)]))) if v.policy == REFS]


def test_a_runtime_with_no_namespace_in_another_folder_is_not_read_as_the_namespace_s(tmp_path):
    """spent set 109 held both repositories' runtimes in one run: jingggg-wenn/llmops-demo's qwen25-05b-instruct (no
    namespace) says nothing of Siryoos/kserve-vllm-mini's InferenceService in ml-prod."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "isvc.yaml").write_text(yaml.safe_dump(_isvc("vllm", "ml-prod")))
    (tmp_path / "b" / "runtime.yaml").write_text(yaml.safe_dump(_runtime("qwen25-05b-instruct")))
    assert _check_folder(tmp_path) == []
    (tmp_path / "a" / "runtime.yaml").write_text(yaml.safe_dump(_runtime("qwen3-8b")))
    assert [v.enforcement for v in _check_folder(tmp_path)] == ["advisory"]


def test_the_runtime_asked_for_with_no_namespace_in_another_folder_may_land_there(tmp_path):
    """Review53b: sgleser/rhoai-model-serving@6358db6a keeps triton/t5-models/servingruntime.yaml (triton-transformers,
    no namespace) in the folder above deployments/madlad/inferenceservice-madlad.yaml, which names it. With the service
    namespaced and another runtime beside it, the one asked for is still in the run with no namespace: applied into the
    service's namespace it resolves, so the files do not show the name missing (before review53b: advice saying none
    of the files defines it)."""
    (tmp_path / "deployments" / "madlad").mkdir(parents=True)
    (tmp_path / "servingruntime.yaml").write_text(yaml.safe_dump(_runtime("triton-transformers")))
    madlad = tmp_path / "deployments" / "madlad"
    (madlad / "inferenceservice-madlad.yaml").write_text(yaml.safe_dump(_isvc("triton-transformers", "t5")))
    assert _check_folder(tmp_path) == []
    (madlad / "servingruntime-other.yaml").write_text(yaml.safe_dump(_runtime("qwen3-8b")))
    assert _check_folder(tmp_path) == []
