"""S24 vllm-quantization-supported, widened (policies/vllm/quantization_on_gpu.py): a --quantization method whose least compute capability, at the image's vLLM
release, is above the pinned GPU's (components/vllm_quantization.py, read from the 0.12.0-0.14.0 wheels)."""

from __future__ import annotations

import copy

import pytest
from policy_fixtures import found_by

from components.vllm_quantization import min_capability

POLICY = "vllm-quantization-supported"


def _brian_minaya(image: str, method: str = "awq_marlin", pinned: bool = True) -> dict:
    # BrianMinaya/pdf-rag-on-eks k8s/vllm/deployment.yaml at c1a4e8440713063e317a023241a4854217f4b557 (spent set 37):
    # Llama 3.1 8B AWQ with --quantization awq_marlin, image vllm/vllm-openai:latest, on the repository's g4dn (T4)
    # node group, which the file selects only through a custom label (workload: gpu) and names in its comments. Here
    # the T4 is pinned by its instance type where `pinned`, and the image tag varies.
    spec: dict = {
        "containers": [
            {
                "name": "vllm",
                "image": image,
                "args": ["--model", "hugging-quants/Meta-Llama-3.1-8B-Instruct-AWQ-INT4", "--quantization", method],
                "resources": {"limits": {"nvidia.com/gpu": 1}},
            }
        ],
        "nodeSelector": {"node.kubernetes.io/instance-type": "g4dn.xlarge"} if pinned else {"workload": "gpu"},
    }
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "vllm", "namespace": "pdf-rag-chatbot"},
        "spec": {
            "selector": {"matchLabels": {"app": "vllm"}},
            "template": {"metadata": {"labels": {"app": "vllm"}}, "spec": spec},
        },
    }


def test_the_table_follows_the_wheels():
    assert (min_capability("awq_marlin", "0.13.0"), min_capability("awq_marlin", "0.14.0")) == (80, 75)
    assert (min_capability("fp8", "0.12.0"), min_capability("fp8", None)) == (80, 75)
    assert min_capability("fp8", "0.10.0") is None  # before the first release read: not judged
    assert min_capability("awq_marlin", "0.6.3") == 80  # Marlin needed 8.0 until vllm-project/vllm#29901


@pytest.mark.parametrize(("image", "method"), [("vllm/vllm-openai:v0.13.0", "awq_marlin"), ("vllm/vllm-openai:v0.12.0", "fp8")])
def test_a_method_above_the_pinned_gpu_at_the_images_release_blocks(image, method):
    ((level, message),) = found_by([_brian_minaya(image, method)], POLICY)
    assert level == "mandatory"
    assert f"--quantization {method} needs a GPU of compute capability 8.0" in message and "the T4 has 7.5" in message


def test_a_release_the_tag_does_not_name_is_advice():
    digest = "vllm/vllm-openai@sha256:" + "0" * 64
    ((level, message),) = found_by([_brian_minaya(digest)], POLICY)
    assert level == "advisory" and "before 0.14" in message


def test_careful_forms_stay_silent():
    # The spent-set file as written: :latest (the newest release: Marlin runs on Turing) and no GPU pinned.
    assert found_by([_brian_minaya("vllm/vllm-openai:latest", pinned=False)], POLICY) == []
    # 0.14 and later run Marlin on a T4; plain awq runs there on every release read; an A10G (8.6) runs them all.
    assert found_by([_brian_minaya("vllm/vllm-openai:v0.14.0")], POLICY) == []
    assert found_by([_brian_minaya("vllm/vllm-openai:v0.13.0", "awq")], POLICY) == []
    a10g = copy.deepcopy(_brian_minaya("vllm/vllm-openai:v0.13.0"))
    a10g["spec"]["template"]["spec"]["nodeSelector"] = {"node.kubernetes.io/instance-type": "g5.xlarge"}
    assert found_by([a10g], POLICY) == []


def test_a_rebuild_or_a_choice_of_gpus_is_advice():
    # Review 43 #1: a rebuild's tag is its owner's version (registry.example.com/team/vllm-awq:v0.1.0 is no vLLM 0.1.0).
    rebuild = _brian_minaya("registry.example.com/team/vllm-awq:v0.1.0")
    assert [lv for lv, _ in found_by([rebuild], POLICY)] == ["advisory"]
    # Review 43 #2: a selection that allows a T4 or an A10G (values of one label are alternatives): the A10G runs it.
    either = copy.deepcopy(_brian_minaya("vllm/vllm-openai:v0.13.0"))
    spec = either["spec"]["template"]["spec"]
    spec.pop("nodeSelector")
    term = {"matchExpressions": [{"key": "karpenter.k8s.aws/instance-gpu-name", "operator": "In", "values": ["t4", "a10g"]}]}
    spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}}}
    ((level, message),) = found_by([either], POLICY)
    assert level == "advisory" and "also allows" in message
    # Only T4s allowed: blocks.
    term["matchExpressions"][0]["values"] = ["t4"]
    assert [lv for lv, _ in found_by([either], POLICY)] == ["mandatory"]
