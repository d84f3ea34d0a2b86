"""S63 kserve-model-format-supported: an InferenceService's model format is one its runtime supports.

kserve/kserve v0.20.0: pkg/controller/v1beta1/inferenceservice/components/predictor.go:359-365 refuses a named runtime
whose labels lack the model's (RuntimeSupportsModel, pkg/apis/serving/v1beta1/predictor_model.go:133-163: every
supportedModelFormats entry when the runtime is named, autoSelect ones otherwise; names case-sensitive); the chart's
runtimes are charts/kserve-runtime-configs/files/runtimes/resources.yaml (components/kserve_runtimes.toml [[supports]]).
The firing form is the one brief engines48 names from fresh sets (modelFormat huggingface with runtime
kserve-tritonserver), written in the minimal shape of such an InferenceService.
"""

from __future__ import annotations

from policy_fixtures import found_by

from policies.reading.kserve_runtime import builtin_supports

POLICY = "kserve-model-format-supported"


def _isvc(fmt: str | None, runtime: str | None = None, version: str | None = None, **predictor: object) -> dict:
    model: dict = {"storageUri": "hf://Qwen/Qwen2.5-0.5B-Instruct"}
    if fmt is not None:
        model["modelFormat"] = {"name": fmt, **({"version": version} if version else {})}
    if runtime is not None:
        model["runtime"] = runtime
    return {
        "apiVersion": "serving.kserve.io/v1beta1",
        "kind": "InferenceService",
        "metadata": {"name": "llm", "namespace": "serving"},
        "spec": {"predictor": {"model": model, **predictor}},
    }


def _runtime(name: str, *formats: dict, kind: str = "ServingRuntime", namespace: str | None = "serving") -> dict:
    return {
        "apiVersion": "serving.kserve.io/v1alpha1",
        "kind": kind,
        "metadata": {"name": name, **({"namespace": namespace} if namespace else {})},
        "spec": {
            "supportedModelFormats": list(formats),
            "containers": [{"name": "kserve-container", "image": "vllm/vllm-openai:v0.10.1", "args": ["--port", "8080"]}],
        },
    }


def test_the_chart_runtimes_are_tabled():
    rows = builtin_supports()
    assert len(rows) == 14 and "kserve-openvino" not in rows  # the chart installs 14 (config/runtimes has openvino too)
    triton = rows["kserve-tritonserver"]
    assert ("pytorch", "1") in triton.formats and ("pytorch", "1") not in triton.auto
    assert {n for n, _ in triton.formats} == {"tensorrt", "tensorflow", "onnx", "pytorch", "triton"}
    assert rows["kserve-huggingfaceserver-multinode"].multinode and rows["kserve-vllmserver"].auto == (("vLLM", "1"),)


def test_huggingface_on_the_triton_runtime_blocks():
    ((level, message),) = found_by([_isvc("huggingface", "kserve-tritonserver")], POLICY)
    assert level == "mandatory"
    assert "supports only tensorrt:8, tensorflow:1, tensorflow:2, onnx:1, pytorch:1, triton:2" in message
    assert "never Ready" in message and "resources.yaml" in message


def test_a_runtime_of_the_run_that_lacks_the_format_blocks():
    runtime = _runtime("vllm-runtime", {"name": "vLLM", "version": "1", "autoSelect": True})
    ((level, message),) = found_by([runtime, _isvc("huggingface", "vllm-runtime")], POLICY)
    assert level == "mandatory" and "ServingRuntime/vllm-runtime of the files supports only vLLM:1" in message
    # A version the runtime does not list is refused too (mt:NAME:VERSION).
    assert [lv for lv, _ in found_by([_isvc("huggingface", "kserve-huggingfaceserver", version="2")], POLICY)] == ["mandatory"]


def test_careful_forms_stay_silent():
    careful = [
        [_isvc("huggingface", "kserve-huggingfaceserver")],
        [_isvc("huggingface", "kserve-huggingfaceserver", version="1")],
        [_isvc("pytorch", "kserve-tritonserver")],  # named: autoSelect does not matter (predictor_model.go:155)
        [_isvc("triton", "kserve-tritonserver", version="2")],
        [_isvc("huggingface")],  # picked by kserve-huggingfaceserver
        [_isvc("vLLM")],
        [_isvc("huggingface", "my-cluster-runtime")],  # a runtime no file or table knows
        # A runtime of the run shadows the chart's of the same name.
        [_runtime("kserve-tritonserver", {"name": "huggingface"}), _isvc("huggingface", "kserve-tritonserver")],
        # Only another namespace's ServingRuntime shares the name: which runtime the service gets is not settled.
        [_runtime("rt", {"name": "onnx"}, namespace="other"), _isvc("huggingface", "rt")],
        [_runtime("rt", {"name": "custom", "autoSelect": True}, namespace=None), _isvc("custom")],
        [_runtime("rt", {"name": "custom", "autoSelect": True}, kind="ClusterServingRuntime", namespace=None), _isvc("custom")],
    ]
    for objects in careful:
        assert found_by(objects, POLICY) == [], objects


def test_a_format_no_runtime_selects_is_advice():
    ((level, message),) = found_by([_isvc("vllm")], POLICY)
    assert level == "advisory" and "spell it vLLM" in message
    # autoSelect false on a run's runtime: not picked when unnamed (predictor_model.go:155).
    objects = [_runtime("rt", {"name": "custom"}), _isvc("custom")]
    assert [lv for lv, _ in found_by(objects, POLICY)] == ["advisory"]


def test_a_runtime_whose_formats_are_no_list_is_left_to_s26():
    """Review48 item 7 (/tmp/r48/s63/a.yaml docs 5-6): supportedModelFormats written as a mapping is refused by the API
    server (S26: not of type array), so the runtime never exists; S63 does not add that the controller refuses it."""
    weird = _runtime("weird")
    weird["spec"]["supportedModelFormats"] = {"name": "x"}
    assert found_by([weird, _isvc("x", "weird")], POLICY) == []
    weird["spec"]["supportedModelFormats"] = "x"
    assert found_by([weird, _isvc("x", "weird")], POLICY) == []
    # An absent field is a runtime that supports no format: named, it is refused by the controller.
    del weird["spec"]["supportedModelFormats"]
    assert [lv for lv, _ in found_by([weird, _isvc("x", "weird")], POLICY)] == ["mandatory"]


def test_a_model_with_no_format_blocks_whatever_its_runtime():
    """Brief kserve53: spent set 109 Siryoos/kserve-vllm-mini@627b171a isvc.yaml names runtime vllm (in no file) and no
    modelFormat; the CRD accepts it, but the controller asks runtimes for the label 'mt:', which none carries
    (kserve v0.20.0 predictor_model.go:133-147), and refuses the runtime (predictor.go:358-365)."""
    siryoos = _isvc(None, "vllm")
    siryoos["spec"]["predictor"]["model"]["env"] = [{"name": "VLLM_ARGS", "value": "--max-model-len 4096"}]
    ((level, message),) = found_by([siryoos], POLICY)
    assert level == "mandatory"
    assert message.startswith("spec.predictor.model has no modelFormat name: the CRD does not require the field")
    assert "refuses runtime vllm whatever formats it lists" in message and "never Ready" in message
    # A chart runtime, or one of the run, is refused the same way; the fix names what it lists.
    ((_, chart),) = found_by([_isvc(None, "kserve-tritonserver")], POLICY)
    assert "(tensorrt:8, tensorflow:1, tensorflow:2, onnx:1, pytorch:1, triton:2)" in chart
    runtime = _runtime("vllm-runtime", {"name": "vLLM", "autoSelect": True})
    ((_, own),) = found_by([runtime, _isvc(None, "vllm-runtime")], POLICY)
    assert own.endswith("naming a format runtime vllm-runtime lists (vLLM)")
    # No runtime named: none is found for it.
    ((level, unnamed),) = found_by([_isvc(None)], POLICY)
    assert level == "mandatory" and "'No runtime found to support specified framework/version'" in unnamed
    # An empty name is the same label.
    empty = _isvc("", "kserve-vllmserver")
    assert [lv for lv, _ in found_by([empty], POLICY)] == ["mandatory"]


def test_a_formatless_model_careful_forms_stay_silent():
    """The format written (iter8-tools/iter8 testdata/controllers/blue-green-http-kserve/v3-candidate.sh: sklearn on
    kserve-mlserver; aws-samples/awsome-fmops kserve-karpenter/scripts/first-inference-service.sh: sklearn, no runtime),
    ModelMesh mode (modelmesh-serving reconciles it), a Kustomize patch (its base may hold the format), and a format
    the CRD's schema refuses first (S26)."""
    mesh = _isvc(None, "vllm")
    mesh["metadata"]["annotations"] = {"serving.kserve.io/deploymentMode": "ModelMesh"}
    no_name = _isvc(None, "vllm")
    no_name["spec"]["predictor"]["model"]["modelFormat"] = {"version": "1"}
    careful = [
        [_isvc("sklearn", "kserve-mlserver")],
        [_isvc("sklearn")],
        [mesh],
        [no_name],
        [_runtime("odd", {"name": ""}), _isvc(None, "odd")],  # a runtime listing the empty name carries 'mt:'
    ]
    for objects in careful:
        assert found_by(objects, POLICY) == [], objects


def test_a_formatless_model_with_a_runtime_no_name_is_left_to_other_rules():
    """Review53b: a runtime that is no name (not a string: the CRD refuses it, S26; empty: the controller looks up a
    runtime of no name and waits, 'Waiting for runtime to become available', kserve v0.20.0 predictor.go:330-337) is
    not the 'no runtime found' refusal S63 would quote, nor is the object accepted when S26 refuses it."""
    for runtime in (12, ["vllm"], ""):
        isvc = _isvc(None)
        isvc["spec"]["predictor"]["model"]["runtime"] = runtime
        assert found_by([isvc], POLICY) == [], runtime


def test_a_kustomize_patch_of_the_runtime_is_not_the_runtime(tmp_path):
    """Review53b: an overlay patching a ServingRuntime's image (the layout of jingggg-wenn/llmops-demo@c9013b86
    llmops-via-argocd/deploy_model: base/servingruntime.yaml and base/inferenceservice.yaml, overlays/*/kustomization.yaml)
    states no supportedModelFormats, which its base keeps. Read as the runtime, it was said to support none and the
    InferenceService to be refused (blocking); the run's runtimes are whole objects only."""
    import yaml

    from policies.check import load_resources, manifest_files
    from policies.registry import evaluate

    (tmp_path / "base").mkdir()
    (tmp_path / "a-overlay").mkdir()
    runtime = _runtime("vllm-runtime", {"name": "vLLM", "autoSelect": True}, namespace=None)
    isvc = _isvc("vLLM", "vllm-runtime")
    del isvc["metadata"]["namespace"]
    (tmp_path / "base" / "runtime.yaml").write_text(yaml.safe_dump(runtime))
    (tmp_path / "base" / "isvc.yaml").write_text(yaml.safe_dump(isvc))
    (tmp_path / "base" / "kustomization.yaml").write_text("resources:\n- runtime.yaml\n- isvc.yaml\n")
    patch = {
        "apiVersion": "serving.kserve.io/v1alpha1",
        "kind": "ServingRuntime",
        "metadata": {"name": "vllm-runtime"},
        "spec": {"containers": [{"name": "kserve-container", "image": "vllm/vllm-openai:v0.11.0"}]},
    }
    (tmp_path / "a-overlay" / "runtime-patch.yaml").write_text(yaml.safe_dump(patch))
    (tmp_path / "a-overlay" / "kustomization.yaml").write_text(
        "namespace: prod\nresources:\n- ../base\npatches:\n- path: runtime-patch.yaml\n"
    )
    found = [v for v in evaluate(load_resources(manifest_files([str(tmp_path)]))) if v.policy == POLICY]
    assert found == []
