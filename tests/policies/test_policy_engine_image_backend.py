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
