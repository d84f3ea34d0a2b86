"""S3: fewer GPUs than vLLM's ranks stop the engine (blocking); more leave GPUs idle while it serves (advice).

Spent sets 13-37 filed the spare-GPU form advisory (set 28 brayanpena530/multiLLM-EKS-Deploy services/tinyllama.yaml
at 70aa73ebcec13afb9bf475107949dec242c0128f: TP 1 on 6 GPUs; set 28 natifridman/kserve-demo: 2 GPUs, no
--tensor-parallel-size) and the short form blocking (set 21 mohdamir/llm-on-k8: --tensor-parallel-size=4 on one GPU,
"world size 4 larger than the available GPUs" at start).
"""

from __future__ import annotations

from policy_fixtures import found_by

S3 = "vllm-tp-matches-gpu-limit"


def _vllm(args: list[str], gpus: int, image: str = "vllm/vllm-openai:v0.4.1") -> dict:
    container = {
        "name": "vllm-tinyllama",
        "image": image,
        "args": args,
        "resources": {"limits": {"nvidia.com/gpu": gpus}, "requests": {"nvidia.com/gpu": gpus}},
    }
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "vllm-tinyllama"},
        "spec": {
            "selector": {"matchLabels": {"app": "vllm-tinyllama"}},
            "template": {"metadata": {"labels": {"app": "vllm-tinyllama"}}, "spec": {"containers": [container]}},
        },
    }


def test_spare_gpus_are_advice():
    tiny = _vllm(["--model=TinyLlama/TinyLlama-1.1B-Chat-v1.0", "--max-model-len=2048"], gpus=6)
    found = found_by([tiny], S3)
    assert [level for level, _ in found] == ["advisory"]
    assert "tensor parallel 1 × pipeline parallel 1 = 1 GPU, but resources.limits nvidia.com/gpu is 6" in found[0][1]


def test_missing_gpus_block():
    short = _vllm(
        ["--model=mistralai/Mixtral-8x7B-Instruct-v0.1", "--tensor-parallel-size=4"], gpus=1, image="vllm/vllm-openai:v0.6.3"
    )
    assert [level for level, _ in found_by([short], S3)] == ["mandatory"]


def test_matching_gpus_stay_silent():
    assert found_by([_vllm(["--model=TinyLlama/TinyLlama-1.1B-Chat-v1.0", "--tensor-parallel-size=2"], gpus=2)], S3) == []
