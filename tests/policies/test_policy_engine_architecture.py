"""S53 engine-supports-model-architecture: the vLLM release the image names lists the model's architecture.

Before 0.7.2 an architecture outside vLLM's model registry stops the server ("Model architectures [...] are not
supported for now", 0.6.6 vllm/model_executor/models/registry.py:374-384); from 0.7.2 the transformers fallback may load
it (0.7.2 vllm/model_executor/model_loader/utils.py:45-75). Which release lists which architecture is
components/vllm_architectures.json, read from the wheels by tools/read_vllm_architectures.py."""

from __future__ import annotations

import copy

from policy_fixtures import found_by

from components.vllm_architectures import architecture_table, model_architecture

POLICY = "engine-supports-model-architecture"

# Cut down from deepaksatna/Agentic-AI-Reasoning-and-Benchmarking-Framework k8s/vllm-deployment.yaml at
# b8562374b4e2650d890aeee2d5c8bf304716f9d5 (held-out set 14): Nemotron-3-Nano (NemotronHForCausalLM) on v0.6.6.
NEMOTRON = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "vllm-arbm", "namespace": "arbm-benchmark"},
    "spec": {
        "replicas": 1,
        "selector": {"matchLabels": {"app": "vllm"}},
        "template": {
            "metadata": {"labels": {"app": "vllm"}},
            "spec": {
                "containers": [
                    {
                        "name": "vllm",
                        "image": "vllm/vllm-openai:v0.6.6",
                        "command": ["python3", "-m", "vllm.entrypoints.openai.api_server"],
                        "args": [
                            "--model",
                            "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16",
                            "--tensor-parallel-size",
                            "4",
                            "--max-model-len",
                            "8192",
                            "--trust-remote-code",
                        ],
                        "resources": {"limits": {"nvidia.com/gpu": 4}},
                    }
                ],
                "nodeSelector": {"node.kubernetes.io/instance-type": "BM.GPU.A10.4"},
            },
        },
    },
}

# Cut down from bogdancstrike/k8s-llm-slm-hami platform/kserve/vllm-servingruntime.yaml at
# 5ce222ff8d497ce6b7ae038b4c278231d80dd0ba (held-out set 15): the runtime's default model is Gemma 3 on v0.6.3.
GEMMA_RUNTIME = {
    "apiVersion": "serving.kserve.io/v1alpha1",
    "kind": "ClusterServingRuntime",
    "metadata": {"name": "vllm-runtime"},
    "spec": {
        "supportedModelFormats": [{"name": "vllm", "version": "1", "autoSelect": True}],
        "containers": [
            {
                "name": "kserve-container",
                "image": "vllm/vllm-openai:v0.6.3",
                "command": ["python3", "-m", "vllm.entrypoints.openai.api_server"],
                "args": ["--port=8000", "--model=$(MODEL_ID)", "--max-model-len=$(MAX_MODEL_LEN)", "--dtype=auto"],
                "env": [{"name": "MODEL_ID", "value": "google/gemma-3-1b-it"}, {"name": "MAX_MODEL_LEN", "value": "2048"}],
                "resources": {"limits": {"nvidia.com/gpu": 1}},
            }
        ],
    },
}

# hanneshapke/DevFest2024-LLM-vllm-k8s src/vllm-kubernetes/vllm-gemma2-2b.yaml at
# 56f6a02e211bf0519580bfd5e6b384af56566881: Gemma 2 (Gemma2ForCausalLM) on v0.6.1, which lists it.
GEMMA2 = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "vllm-gemma2-deployment"},
    "spec": {
        "selector": {"matchLabels": {"app": "gemma2-server"}},
        "template": {
            "metadata": {"labels": {"app": "gemma2-server"}},
            "spec": {
                "containers": [
                    {
                        "name": "inference-server",
                        "image": "vllm/vllm-openai:v0.6.1",
                        "args": ["--model=$(MODEL_ID)", "--tensor-parallel-size=1", "--max_model_len=4096"],
                        "env": [{"name": "MODEL_ID", "value": "google/gemma-2-2b-it"}],
                        "resources": {"limits": {"nvidia.com/gpu": 1}},
                    }
                ],
                "nodeSelector": {"cloud.google.com/gke-accelerator": "nvidia-l4"},
            },
        },
    },
}


def _with(manifest: dict, image: str | None = None, args: list[str] | None = None) -> dict:
    changed = copy.deepcopy(manifest)
    container = changed["spec"]["template"]["spec"]["containers"][0]
    if image is not None:
        container["image"] = image
    if args is not None:
        container["args"] = args
    return changed


def test_the_table_reads_each_release_registry_and_the_fallback():
    table = architecture_table()
    assert table.releases_with("Gemma3ForCausalLM")[0] == "0.8.0"
    assert "0.6.3" not in table.releases_with("Gemma3ForCausalLM")
    assert "0.6.6" not in table.releases_with("NemotronHForCausalLM")
    assert "0.5.2" in table.releases_with("LlamaForCausalLM")
    assert not table.has_fallback("0.7.1") and table.has_fallback("0.7.2") and table.has_fallback("0.34.0")


def test_model_architecture_comes_from_the_catalogue_then_vllm_examples():
    assert model_architecture("meta-llama/Llama-3.1-8B-Instruct").architectures == ("LlamaForCausalLM",)
    assert model_architecture("google/gemma-3-1b-it").architectures == ("Gemma3ForCausalLM",)
    assert model_architecture("GOOGLE/Gemma-3-1B-IT") is not None  # Hub ids are case-insensitive
    assert model_architecture("/mnt/models/gemma-3-1b-it") is None  # a local path is not an id
    assert model_architecture("someone/my-finetune") is None


def test_nemotron_h_on_v0_6_6_blocks():
    ((level, message),) = found_by([NEMOTRON], POLICY)
    assert level == "mandatory"
    assert message == (
        "container vllm: nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16 is NemotronHForCausalLM (its model card), which the "
        "model registry of vLLM 0.6.6, the release of image vllm/vllm-openai:v0.6.6, does not list (first in vLLM "
        '0.9.1); vLLM exits at start ("Model architectures [...] are not supported for now"); use a release that lists it'
    )


def test_a_runtime_default_model_is_advice():
    # A ServingRuntime is a template the InferenceService completes (its env overrides MODEL_ID): advice.
    ((level, message),) = found_by([GEMMA_RUNTIME], POLICY)
    assert level == "advisory"
    assert "google/gemma-3-1b-it is Gemma3ForCausalLM" in message and "vLLM 0.6.3" in message
    assert "(first in vLLM 0.8.0)" in message


def test_a_release_between_two_read_is_advice():
    ((level, message),) = found_by([_with(NEMOTRON, image="vllm/vllm-openai:v0.6.3.post1")], POLICY)
    assert level == "advisory"
    assert "vLLM 0.6.3.post1 (nor 0.6.3 and 0.6.4 around it)" in message


def test_careful_forms_are_silent():
    assert found_by([GEMMA2], POLICY) == []  # Gemma 2 on v0.6.1, which lists it
    assert found_by([_with(NEMOTRON, image="vllm/vllm-openai:v0.10.1")], POLICY) == []  # a release that lists it
    assert found_by([_with(NEMOTRON, image="vllm/vllm-openai:v0.7.3")], POLICY) == []  # the transformers fallback
    assert found_by([_with(NEMOTRON, image="vllm/vllm-openai:latest")], POLICY) == []  # no release named
    assert found_by([_with(NEMOTRON, image="registry.example.com/vllm-custom:v0.6.6")], POLICY) == []  # a rebuild
    local = ["--model", "/mnt/models/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", "--tensor-parallel-size", "4"]
    assert found_by([_with(NEMOTRON, args=local)], POLICY) == []  # a local path: the model is not known


def test_a_container_that_installs_vllm_runs_its_own_release():
    installed = _with(NEMOTRON, args=[])
    container = installed["spec"]["template"]["spec"]["containers"][0]
    container["command"] = ["/bin/sh", "-c"]
    container["args"] = [
        "pip install -U vllm==0.10.1 && python3 -m vllm.entrypoints.openai.api_server "
        "--model nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16 --tensor-parallel-size 4"
    ]
    assert found_by([installed], POLICY) == []


# DorWeinstock/jira-triage-agent k8s/vllm.yaml (spent set 23, cut down): Qwen3-Next-80B FP8 on Intel Gaudi's vllm-fork
# image for SynapseAI 1.19.0, which the fork builds on vLLM 0.6.4.post2 (HabanaAI/vllm-fork tag
# v0.6.4.post2+Gaudi-1.19.0, whose vllm/model_executor/models/registry.py lists no Qwen3Next).
def gaudi(model: str, image: str = "vault.habana.ai/gaudi-docker/1.19.0/ubuntu22.04/habanalabs/vllm-fork:latest") -> dict:
    deployment = copy.deepcopy(NEMOTRON)
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    container.update(image=image, args=["--model", model, "--device", "hpu", "--tensor-parallel-size", "1"])
    container["resources"] = {"limits": {"habana.ai/gaudi": 1}}
    return deployment


def test_a_gaudi_fork_image_is_judged_on_the_vllm_release_it_is_built_on():
    ((level, message),) = found_by([gaudi("Qwen/Qwen3-Next-80B-A3B-Instruct-FP8")], POLICY)
    # 0.6.4.post2 is not a release the table read; 0.6.4 and 0.6.5 around it both lack the architecture: advice.
    assert level == "advisory"
    assert "Qwen3NextForCausalLM (vLLM's tests/models/registry.py, for qwen/qwen3-next-80b-a3b-instruct)" in message
    assert "habanalabs/vllm-fork 1.19.0 is built on vLLM 0.6.4.post2, as the fork's tags say" in message
    # SynapseAI 1.16.0 is built on 0.4.2, a release the table read: the registry is known exactly.
    old = "vault.habana.ai/gaudi-docker/1.16.0/ubuntu22.04/habanalabs/vllm-fork:latest"
    assert [level for level, _ in found_by([gaudi("Qwen/Qwen3-Next-80B-A3B-Instruct-FP8", old)], POLICY)] == ["mandatory"]


def test_gaudi_fork_careful_forms_are_silent():
    # A model the base release lists; a SynapseAI release with two fork bases (1.22.0) and so no single one.
    assert found_by([gaudi("meta-llama/Llama-3.1-8B-Instruct")], POLICY) == []
    newer = "vault.habana.ai/gaudi-docker/1.22.0/ubuntu24.04/habanalabs/vllm-fork:latest"
    assert found_by([gaudi("Qwen/Qwen3-Next-80B-A3B-Instruct-FP8", newer)], POLICY) == []


def test_a_publishers_quantized_copy_keeps_the_models_architecture():
    found = model_architecture("Qwen/Qwen3-Next-80B-A3B-Instruct-FP8")
    assert found is not None and found.architectures == ("Qwen3NextForCausalLM",)
    assert model_architecture("someone/unknown-model-FP8") is None


# Cut down from premmotgi/llmd-on-g4-gke deploy/plain-vllm/base/deployment.yaml at
# 18613f46ac20ff431bd31c5e52ca89cc518fa330 (held-out set 42): Gemma 4 (MODEL_ID google/gemma-4-E4B-it) on v0.11.0.
GEMMA4 = copy.deepcopy(NEMOTRON)
GEMMA4["metadata"] = {"name": "vllm-gemma"}
GEMMA4["spec"]["template"]["spec"]["containers"][0].update(
    image="vllm/vllm-openai:v0.11.0",
    command=["python3", "-m", "vllm.entrypoints.openai.api_server"],
    args=["--model", "google/gemma-4-E4B-it", "--max-model-len", "8192"],
)


def test_a_model_family_names_the_architectures_of_ids_no_table_lists():
    known = model_architecture("google/gemma-4-E4B-it")
    assert known is not None and set(known.architectures) == {"Gemma4ForCausalLM", "Gemma4ForConditionalGeneration"}
    assert known.model_type == "gemma4" and known.transformers_first == "5.5.0"
    assert architecture_table().releases_with("Gemma4ForConditionalGeneration")[0] == "0.19.0"
    assert model_architecture("google/gemma-4-unknown-future-size-it") is not None
    assert model_architecture("google/gemma-40-x") is None  # the prefix ends at its dash


def test_gemma4_on_a_fallback_release_is_advice_and_blocks_before_the_fallback():
    ((level, message),) = found_by([GEMMA4], POLICY)
    assert level == "advisory" and "transformers 5.5.0" in message and "first in vLLM 0.19.0" in message
    old = copy.deepcopy(GEMMA4)
    old["spec"]["template"]["spec"]["containers"][0]["image"] = "vllm/vllm-openai:v0.6.6"
    assert [level for level, _ in found_by([old], POLICY)] == ["mandatory"]


def test_gemma4_careful_forms_are_silent():
    # A release that lists Gemma 4, and set 36's HoussemDellai/aks-course gemma4-cu130 launch tag (no release named).
    for image in ("vllm/vllm-openai:v0.19.0", "vllm/vllm-openai:gemma4-cu130"):
        good = copy.deepcopy(GEMMA4)
        good["spec"]["template"]["spec"]["containers"][0]["image"] = image
        assert found_by([good], POLICY) == []
    # A family without a transformers release in the table (Gemma 3 on a fallback release) stays silent.
    gemma3 = copy.deepcopy(GEMMA4)
    gemma3["spec"]["template"]["spec"]["containers"][0]["args"][1] = "google/gemma-3-27b-it-qat"
    gemma3["spec"]["template"]["spec"]["containers"][0]["image"] = "vllm/vllm-openai:v0.7.3"
    assert found_by([gemma3], POLICY) == []


# Spent set 45: Nikhil-Kasam/agenticjobsearchlocal vllm-deployment.yaml (labelled S53 blocking): a third party's NVFP4
# copy of Qwen3.5 27B on vllm/vllm-openai:v0.8.5.post1. The */qwen3.5- family (any organisation) names Qwen3.5's
# architectures; transformers first ships model type qwen3_5 in 5.2.0 (wheel transformers/models/qwen3_5/, absent from
# 4.57.6, 5.0.0 and 5.1.0), vLLM lists Qwen3_5ForConditionalGeneration from 0.17.0.
QWEN35 = copy.deepcopy(GEMMA4)
QWEN35["metadata"] = {"name": "vllm-server"}
QWEN35["spec"]["template"]["spec"]["containers"][0].update(
    image="vllm/vllm-openai:v0.8.5.post1", args=["--model=kaitchup/Qwen3.5-27B-NVFP4", "--max-model-len=131072"]
)


def test_a_qwen35_copy_on_an_old_release_is_advice():
    known = model_architecture("kaitchup/Qwen3.5-27B-NVFP4")
    assert known is not None and known.model_type == "qwen3_5" and known.transformers_first == "5.2.0"
    ((level, message),) = found_by([QWEN35], POLICY)
    assert level == "advisory" and "transformers 5.2.0" in message and "first in vLLM 0.17.0" in message
    # Same class, another id of the family under the publisher's organisation, on a 0.10 release.
    moe = _with(QWEN35, "vllm/vllm-openai:v0.10.1", ["--model", "Qwen/Qwen3.5-35B-A3B"])
    assert [lv for lv, _ in found_by([moe], POLICY)] == ["advisory"]


def test_qwen35_careful_forms_are_silent():
    # A release that lists it; Qwen3 (not 3.5); a name that only contains the family's word.
    assert found_by([_with(QWEN35, "vllm/vllm-openai:v0.17.0")], POLICY) == []
    assert found_by([_with(QWEN35, None, ["--model", "Qwen/Qwen3-8B"])], POLICY) == []
    assert model_architecture("someone/my-qwen3.5-notes") is None
