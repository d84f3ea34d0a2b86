"""S56 engine-image-has-backend: Triton image flavours and the backends they ship, as engine-table data
(components/serving_engines.toml [engines.triton] image_backends, judged_backends; triton-inference-server/server
v2.53.0 docs/customization_guide/compose.md L103-107).

Fixtures:

- spent set 33 all-day-and-night/llm-serve k8s/triton/deployment.yaml@1873f15 (tritonserver:24.12-py3, labelled NONE:
  the TRT-LLM engines it is meant for can never load). The file proves the need only in a comment and the
  Deployment's name, so as written it stays silent; given the model repository's config.pbtxt in a mounted ConfigMap
  (backend: "tensorrtllm", the form tensorrtllm_backend's all_models/inflight_batcher_llm/tensorrt_llm uses) it blocks.
- the --backend-config form: a public Triton launch (code index file 19883681257) runs `tritonserver
  --backend-config=tensorrtllm,default-max-batch-size=4` on 24.12-trtllm-python-py3 (careful, silent); the same flag on
  the plain -py3 image is advice.
- careful: llm-on-gke/triton-vllm-gke vllm-gke-deploy.yaml@f3608ca (24.02-vllm-python-py3, model config backend
  "python").
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by
from test_policy_ready_with_no_model import TRITON

S56 = "engine-image-has-backend"
PBTXT = 'name: "tensorrt_llm"\nbackend: "tensorrtllm"\nmax_batch_size: 64\n'


def _container(manifest: dict) -> dict:
    return manifest["spec"]["template"]["spec"]["containers"][0]


def _with_config(manifest: dict, text: str) -> list[dict]:
    mounted = copy.deepcopy(manifest)
    pod = mounted["spec"]["template"]["spec"]
    pod["volumes"] = [{"name": "model-config", "configMap": {"name": "trtllm-model-config"}}]
    _container(mounted)["volumeMounts"] = [{"name": "model-config", "mountPath": "/models/tensorrt_llm"}]
    config = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "trtllm-model-config", "namespace": "llm-serve"},
        "data": {"config.pbtxt": text},
    }
    return [mounted, config]


def test_the_spent_file_as_written_proves_no_backend_and_is_silent():
    assert found_by([TRITON], S56) == []


def test_a_mounted_tensorrtllm_model_config_on_the_plain_image_cannot_load():
    assert found_by(_with_config(TRITON, PBTXT), S56) == [
        (
            "mandatory",
            "container triton: image nvcr.io/nvidia/tritonserver:24.12-py3 is Triton Inference Server's py3 flavour, "
            "which ships no tensorrtllm backend, but ConfigMap trtllm-model-config key config.pbtxt (mounted here) says "
            "backend: tensorrtllm: the model fails to load (unable to find the tensorrtllm backend library), so Triton "
            "exits at start in its default model control mode, or serves nothing in explicit mode; use "
            "nvcr.io/nvidia/tritonserver:24.12-trtllm-python-py3",
        )
    ]


def test_a_backend_config_for_a_missing_backend_is_advice():
    flagged = copy.deepcopy(TRITON)
    _container(flagged)["args"].append("--backend-config=tensorrtllm,default-max-batch-size=4")
    [(level, message)] = found_by([flagged], S56)
    assert level == "advisory" and "--backend-config configures the tensorrtllm backend" in message


def test_the_flavour_that_ships_the_backend_or_a_backend_not_judged_is_silent():
    right = copy.deepcopy(TRITON)
    _container(right)["image"] = "nvcr.io/nvidia/tritonserver:24.12-trtllm-python-py3"
    _container(right)["args"].append("--backend-config=tensorrtllm,default-max-batch-size=4")
    assert found_by(_with_config(right, PBTXT), S56) == []
    python = _with_config(TRITON, 'name: "vllm"\nbackend: "python"\n')  # llm-on-gke/triton-vllm-gke's model config
    assert found_by(python, S56) == []
    private = copy.deepcopy(TRITON)  # a rebuild may add the backend
    _container(private)["image"] = "registry.example.com/triton/tritonserver:24.12-py3"
    assert found_by(_with_config(private, PBTXT), S56) == []


VLLM_PBTXT = 'backend: "vllm"\ninstance_group [{ count: 1, kind: KIND_MODEL }]\n'


def _installing(script: str) -> list[dict]:
    objects = _with_config(TRITON, VLLM_PBTXT)
    _container(objects[0])["command"] = ["bash", "-c"]
    _container(objects[0])["args"] = [script]
    return objects


def test_a_container_that_installs_the_backend_itself_is_silent():
    # Review 41 item 9. The vLLM backend is Python files: triton-inference-server/vllm_backend README.md (0144d33,
    # "Build the vLLM Backend": "save the vLLM backend in the backends folder as /opt/tritonserver/backends/vllm ...
    # there are no build steps"). Two public launch scripts that do it on a plain image: code-index file 43302839012
    # (`pip install vllm && mkdir -p /opt/tritonserver/backends/vllm && wget -P /opt/tritonserver/backends/vllm
    # .../vllm_backend/main/src/model.py`), 44483863971 (`cp -r /work/src/* /opt/tritonserver/backends/vllm`).
    for script in (
        "pip install vllm && mkdir -p /opt/tritonserver/backends/vllm && wget -P /opt/tritonserver/backends/vllm "
        "https://raw.githubusercontent.com/triton-inference-server/vllm_backend/main/src/model.py && "
        "tritonserver --model-repository=/models",
        "rm -rf /opt/tritonserver/backends/vllm\nmkdir -p /opt/tritonserver/backends/vllm\n"
        "cp -r /work/src/* /opt/tritonserver/backends/vllm\ntritonserver --model-repository /work/model_repository",
        "tritonserver --model-repository=/models --backend-directory=/work/backends",
    ):
        assert found_by(_installing(script), S56) == [], script
    mounted = _with_config(TRITON, VLLM_PBTXT)
    _container(mounted[0])["volumeMounts"].append({"name": "model-config", "mountPath": "/opt/tritonserver/backends/vllm"})
    assert found_by(mounted, S56) == []
    # Without the install, the same model config on the plain image still cannot load.
    [(level, message)] = found_by(_installing("tritonserver --model-repository=/models"), S56)
    assert level == "mandatory" and "ships no vllm backend" in message


def test_only_projected_pbtxt_keys_are_model_configs():
    # Review 41 item 9 (Low): an app config's YAML `backend: vllm` is not a Triton model config.
    objects = _with_config(TRITON, PBTXT)
    objects[1]["data"] = {"app.yaml": "backend: tensorrtllm\n"}
    assert found_by(objects, S56) == []
    objects = _with_config(TRITON, PBTXT)
    objects[0]["spec"]["template"]["spec"]["volumes"][0]["configMap"]["items"] = [{"key": "other", "path": "x"}]
    assert found_by(objects, S56) == []


def test_a_key_projected_as_a_pbtxt_file_is_a_model_config():
    # Review 41 item 22: `items: [{key: vllm-config, path: vllm_model/config.pbtxt}]`.
    objects = _with_config(TRITON, PBTXT)
    objects[1]["data"] = {"trtllm-config": PBTXT}
    volume = objects[0]["spec"]["template"]["spec"]["volumes"][0]
    volume["configMap"]["items"] = [{"key": "trtllm-config", "path": "tensorrt_llm/config.pbtxt"}]
    assert [level for level, _ in found_by(objects, S56)] == ["mandatory"]
