"""G72 hub-model-id-exists: a server that downloads a Hub id a family's naming rule excludes, and the naming table
it reads (components/hub_names.toml)."""

from __future__ import annotations

import copy

import pytest
from policy_fixtures import found_by

from components.hub_names import MISNAMED, misnamed

POLICY = "hub-model-id-exists"


def _vllm(args: list[str], image: str = "vllm/vllm-openai:v0.8.5") -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "vllm-inference"},
        "spec": {
            "selector": {"matchLabels": {"app": "vllm"}},
            "template": {
                "metadata": {"labels": {"app": "vllm"}},
                "spec": {
                    "containers": [
                        {"name": "vllm", "image": image, "args": args, "resources": {"limits": {"nvidia.com/gpu": "1"}}}
                    ]
                },
            },
        },
    }


# Minimal form of MissawB/Animetix deploy/k8s/vllm-deployment.yaml @ 2ea508a08fa0a8a6c6412ed51df01e31fa5d37c6 (set 37,
# label filed none).
ANIMETIX = _vllm(["--model", "meta-llama/Llama-3-8B-Instruct", "--dtype", "auto", "--gpu-memory-utilization", "0.5"])
# Minimal form of tgmorton/knowledge-politeness-llms kubernetes/vllm-deployment-large.yaml @
# e41db28d1363cb564f6e6795b4514696b73ba22f (set 23, label filed none): Llama 2's -chat-hf suffix on a Llama 3 id.
TGMORTON = _vllm(["--model=meta-llama/Llama-3-70b-chat-hf", "--dtype=float16", "--tensor-parallel-size=2"])
LLAMA3_NAMES = (
    "Llama 3 (April 2024) repositories are meta-llama/Meta-Llama-3-8B, meta-llama/Meta-Llama-3-8B-Instruct, "
    "meta-llama/Meta-Llama-3-70B, meta-llama/Meta-Llama-3-70B-Instruct (components/hub_names.toml), so the download "
    "fails with 404 Repository Not Found and the server exits at start; name the repository as the Hub does"
)


def test_a_llama3_id_without_meta_prefix_is_advised():
    assert found_by([ANIMETIX], POLICY) == [
        (
            "advisory",
            "container vllm: downloads meta-llama/Llama-3-8B-Instruct from the Hugging Face Hub, but no repository "
            "carries that id: " + LLAMA3_NAMES,
        )
    ]


def test_a_llama3_id_with_llama2_suffix_is_advised():
    (found,) = found_by([TGMORTON], POLICY)
    assert "downloads meta-llama/Llama-3-70b-chat-hf" in found[1] and LLAMA3_NAMES in found[1]


def test_the_same_id_in_sglang_is_advised():
    # The same id in SGLang's --model-path, as public quick-starts write it beside vLLM's --model.
    sglang = _vllm(["--model-path", "meta-llama/Llama-3-8B-Instruct", "--tp", "1"], image="lmsysorg/sglang:v0.4.6")
    sglang["spec"]["template"]["spec"]["containers"][0]["command"] = ["python3", "-m", "sglang.launch_server"]
    (found,) = found_by([sglang], POLICY)
    assert "downloads meta-llama/Llama-3-8B-Instruct" in found[1]


def test_a_qwen35_instruct_id_is_advised():
    # Spent set 60: mjpinot/aks-qwen k8s/qwen-deployment.yaml serves --model Qwen/Qwen3.5-2B-Instruct.
    (found,) = found_by([_vllm(["--model", "Qwen/Qwen3.5-2B-Instruct"])], POLICY)
    assert "downloads Qwen/Qwen3.5-2B-Instruct" in found[1] and "Qwen/Qwen3.5-<size>-Base" in found[1]
    (moe,) = found_by([_vllm(["--model", "qwen/qwen3.5-122b-a10b-instruct"])], POLICY)
    assert "Qwen3.5" in moe[1]


@pytest.mark.parametrize(
    "model",
    [
        "meta-llama/Meta-Llama-3-8B-Instruct",
        "meta-llama/Meta-Llama-3-70B-Instruct",
        "meta-llama/Llama-3.1-8B-Instruct",
        "meta-llama/Meta-Llama-3.1-8B-Instruct",
        "meta-llama/Llama-3.2-3B-Instruct",
        "meta-llama/Llama-3.3-70B-Instruct",
        "meta-llama/Llama-2-7b-chat-hf",
        "meta-llama/Llama-2-70b-hf",
        "/models/meta-llama/Llama-3-8B-Instruct",  # a local path, not a Hub id
        "Qwen/Qwen3.5-2B",
        "Qwen/Qwen3.5-35B-A3B-FP8",
        "Qwen/Qwen3.5-4B-Base",
        "Qwen/Qwen2.5-7B-Instruct",
        "Qwen/Qwen3-30B-A3B-Instruct-2507",
    ],
)
def test_real_repositories_are_silent(model):
    assert found_by([_vllm(["--model", model])], POLICY) == []


def test_a_client_naming_an_api_model_is_silent():
    # OpenRouter's and Together's ids (meta-llama/llama-3-8b-instruct) name a hosted API's model, not a Hub download.
    client = copy.deepcopy(_vllm([]))
    container = client["spec"]["template"]["spec"]["containers"][0]
    container.update({"image": "ghcr.io/example/chat-ui:1.0", "args": [], "resources": {}})
    container["env"] = [{"name": "MODEL", "value": "meta-llama/llama-3-8b-instruct"}]
    assert found_by([client], POLICY) == []


def test_every_row_names_its_family_and_source():
    assert MISNAMED and all(row.family and row.names and row.source.startswith("https://") for row in MISNAMED)
    assert misnamed(None) is None and misnamed(42) is None  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ('pattern = "x"\nfamily = "f"\nnames = "n"\n', "missing or empty ['source']"),
        ('pattern = "("\nfamily = "f"\nnames = "n"\nsource = "s"\n', "pattern '(' does not compile"),
        ('pattern = "x"\nfamily = "f"\nnames = "n"\nsource = "s"\nextra = "e"\n', "unknown fields ['extra']"),
    ],
)
def test_a_bad_row_fails_the_load_naming_it(tmp_path, row, message):
    from components.hub_names import _load

    path = tmp_path / "hub_names.toml"
    path.write_text("[[misnamed]]\n" + row)
    with pytest.raises(ValueError, match=r"hub_names.toml \[\[misnamed\]\] row 1: ") as error:
        _load(path)
    assert message in str(error.value)


# SecureCloudOps/llm-rag-infra-platform@5c772f91cfa74806d2476c25c296b941f65bb1c0 k8s/vllm/configmap.yaml and
# deployment.yaml (spent set 114, labelled G72 on the Deployment), trimmed: --model $(MODEL_NAME) from the ConfigMap.
FILL_IN_MAP = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "vllm-config"},
    "data": {"MODEL_NAME": "placeholder-local-model"},
}


def _from_map() -> dict:
    obj = _vllm(["--model", "$(MODEL_NAME)", "--served-model-name", "$(MODEL_NAME)"], "vllm/vllm-openai:latest")
    obj["spec"]["template"]["spec"]["containers"][0]["envFrom"] = [{"configMapRef": {"name": "vllm-config"}}]
    return obj


def test_a_fill_in_model_from_a_config_map_is_advised():
    assert found_by([FILL_IN_MAP, _from_map()], POLICY) == [
        (
            "advisory",
            "container vllm: downloads placeholder-local-model as its model, but that is a template's fill-in, not a "
            "Hugging Face repository id or a path of the pod: the Hub has no such repository, so the download fails "
            "with 404 Repository Not Found and the server exits at start; set the model's Hub id (org/name) or the path "
            "of its weights",
        )
    ]


def test_a_filled_in_model_and_a_path_are_silent():
    filled = copy.deepcopy(FILL_IN_MAP)
    filled["data"]["MODEL_NAME"] = "Qwen/Qwen2.5-0.5B-Instruct"
    assert found_by([filled, _from_map()], POLICY) == []
    assert found_by([_from_map()], POLICY) == []  # the ConfigMap is applied elsewhere: decided at run time
    assert found_by([_vllm(["--model", "/models/placeholder"])], POLICY) == []
    # a template's own placeholder (tlrmchlsmth/vllm-dp-lws lws.yaml, spent set 109: __MODEL__ filled by sed) is S27's
    assert found_by([_vllm(["--model", "__MODEL__"])], POLICY) == []
