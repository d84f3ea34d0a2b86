"""S25 vllm-dtype-supported-by-gpu: --dtype auto on a bfloat16 checkpoint, on a GPU below compute capability 8.0, before
vLLM 0.9.0. Until 0.9.0 "auto" keeps the checkpoint's bfloat16 (0.4.3 vllm/config.py:1126-1133) and the worker refuses it
on the device (0.4.3 vllm/worker/worker.py:353-363); 0.9.0 falls back to float16 (vllm/config.py:3084-3100)."""

from __future__ import annotations

import copy

from policy_fixtures import found_by

from components.capacity.architecture import parse_config
from components.capacity.startup import BY_NAME, Settings

POLICY = "vllm-dtype-supported-by-gpu"

# Cut down from obaida7/gke-vllm-serving k8s/vllm-inferenceservice.yaml at 2dcde4b83f393174aac3873a9bca0b28e97081fc
# (held-out set 13): vLLM 0.4.3 serving Qwen2.5-0.5B-Instruct from a bucket mount on a GKE T4, dtype left auto.
QWEN_T4 = {
    "apiVersion": "serving.kserve.io/v1beta1",
    "kind": "InferenceService",
    "metadata": {
        "name": "qwen-vllm",
        "namespace": "kserve-test",
        "annotations": {"serving.kserve.io/deploymentMode": "RawDeployment"},
    },
    "spec": {
        "predictor": {
            "containers": [
                {
                    "name": "kserve-container",
                    "image": "vllm/vllm-openai:v0.4.3",
                    "command": ["python3", "-m", "vllm.entrypoints.openai.api_server"],
                    "args": [
                        "--model=/mnt/models/Qwen2.5-0.5B-Instruct",
                        "--port=8080",
                        "--gpu-memory-utilization=0.90",
                        "--max-model-len=4096",
                    ],
                    "resources": {"limits": {"cpu": "4", "memory": "16Gi", "nvidia.com/gpu": "1"}},
                }
            ],
            "nodeSelector": {"cloud.google.com/gke-accelerator": "nvidia-tesla-t4"},
        }
    },
}


def _with(image: str | None = None, args: list[str] | None = None, accelerator: str | None = None) -> dict:
    changed = copy.deepcopy(QWEN_T4)
    container = changed["spec"]["predictor"]["containers"][0]
    if image:
        container["image"] = image
    if args is not None:
        container["args"] = args
    if accelerator:
        changed["spec"]["predictor"]["nodeSelector"]["cloud.google.com/gke-accelerator"] = accelerator
    return changed


def test_the_rule_follows_the_release():
    arch = parse_config({"model_type": "qwen2", "num_hidden_layers": 2, "hidden_size": 64, "intermediate_size": 128,
                         "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 100,
                         "max_position_embeddings": 4096, "torch_dtype": "bfloat16"})  # fmt: skip
    rule = BY_NAME[POLICY]
    t4 = {"tensor_parallel_size": 1, "max_model_len": 4096, "max_num_seqs": 1, "max_num_batched_tokens": 4096}
    assert rule.refusal(arch, Settings(**t4, gpu="T4", compute_capability=(7, 5), release="0.8.5"))
    assert rule.refusal(arch, Settings(**t4, gpu="T4", compute_capability=(7, 5), release="0.9.0")) is None
    assert rule.refusal(arch, Settings(**t4, gpu="T4", compute_capability=(7, 5))) is None  # no release named
    assert rule.refusal(arch, Settings(**t4, gpu="L4", compute_capability=(8, 9), release="0.4.3")) is None


def test_a_path_named_after_a_bfloat16_model_is_advice():
    ((level, message),) = found_by([QWEN_T4], POLICY)
    assert level == "advisory"
    assert message == (
        "container kserve-container: /mnt/models/Qwen2.5-0.5B-Instruct does not start if it holds "
        "Qwen/Qwen2.5-0.5B-Instruct (the folder's name): --dtype auto keeps the checkpoint's bfloat16 in vLLM 0.4.3 "
        "(the fallback to float16 came in 0.9.0), and bfloat16 needs a GPU of compute capability 8.0 or above, and the "
        'T4 has 7.5; vLLM refuses it at start-up ("Bfloat16 is only supported on GPUs with compute capability of at '
        'least 8.0"); use --dtype float16'
    )


def test_a_hub_id_blocks():
    ((level, message),) = found_by([_with(args=["--model=Qwen/Qwen2.5-0.5B-Instruct", "--max-model-len=4096"])], POLICY)
    assert level == "mandatory"
    assert message.startswith("container kserve-container: Qwen/Qwen2.5-0.5B-Instruct does not start: --dtype auto")


def test_careful_forms_are_silent():
    assert found_by([_with(image="vllm/vllm-openai:v0.9.0")], POLICY) == []  # auto falls back to float16
    assert found_by([_with(image="vllm/vllm-openai:latest")], POLICY) == []  # the release is not named
    half = ["--model=/mnt/models/Qwen2.5-0.5B-Instruct", "--dtype=half", "--max-model-len=4096"]
    assert found_by([_with(args=half)], POLICY) == []  # float16 asked for
    assert found_by([_with(accelerator="nvidia-l4")], POLICY) == []  # an Ampere-or-later GPU
    other = ["--model=/mnt/models/my-finetune", "--max-model-len=4096"]
    assert found_by([_with(args=other)], POLICY) == []  # a folder no catalogue model names
