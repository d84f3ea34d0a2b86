"""S29 model-cache-fits-checkpoint: vLLM downloads a repository's consolidated copy of the weights beside its shards.

With the default load format vLLM lists the repository and downloads every file of the first pattern of
["*.safetensors", "*.bin"] that matches (vllm v0.6.6.post2 model_loader/loader.py L232, weight_utils.py
download_weights_from_hf L215-262, read at the upstream tag in the HabanaAI/vllm-fork mirror); only then does
filter_duplicate_safetensors_files (L301-306, whose comment names Mistral-7B-v0.3) drop the consolidated file. A
repository that holds both (components/capacity/model_catalog.py consolidated_copy_bytes) needs room for both.

Fixture: set 29, QuanHNguyen232/ML-pipeline kubernetes/vllm-deployment.yaml and kubernetes/vllm-pvc.yaml
@c556e27ea2a526afb2b8d07982eed6944fcc1645 (vllm/vllm-openai:latest serving mistralai/Mistral-7B-Instruct-v0.3 from a
20Gi claim at /root/.cache/huggingface), here on v0.13.0: from 0.14.0 vLLM fetches only the files the safetensors index
lists (0.14.0 weight_utils.py L456), so the file as published (:latest) fits. Silent: the same with --load-format mistral (consolidated*.safetensors only,
loader.py L236-238), a 40Gi claim, and a model whose repository holds one copy.
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

_ARGS = "vllm serve mistralai/Mistral-7B-Instruct-v0.3 --trust-remote-code --enable-chunked-prefill --max_num_batched_tokens 1024"
_DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "vllm-server"},
    "spec": {
        "replicas": 1,
        "selector": {"matchLabels": {"app.kubernetes.io/name": "vllm"}},
        "template": {
            "metadata": {"labels": {"app.kubernetes.io/name": "vllm"}},
            "spec": {
                "volumes": [
                    {"name": "model-cache", "persistentVolumeClaim": {"claimName": "vllm-models"}},
                    {"name": "shm", "emptyDir": {"medium": "Memory", "sizeLimit": "2Gi"}},
                ],
                "containers": [
                    {
                        "name": "vllm",
                        "image": "vllm/vllm-openai:latest",
                        "command": ["/bin/sh", "-c"],
                        "args": [_ARGS],
                        "ports": [{"containerPort": 8000}],
                        "resources": {"limits": {"nvidia.com/gpu": 1}, "requests": {"nvidia.com/gpu": 1}},
                        "volumeMounts": [
                            {"name": "model-cache", "mountPath": "/root/.cache/huggingface"},
                            {"name": "shm", "mountPath": "/dev/shm"},
                        ],
                    }
                ],
            },
        },
    },
}
_PVC = {
    "apiVersion": "v1",
    "kind": "PersistentVolumeClaim",
    "metadata": {"name": "vllm-models"},
    "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "20Gi"}}},
}
# A default StorageClass of the run whose provisioner creates volumes of the size asked (EBS CSI): the claim's size
# is then enforced and the finding blocks.
_EBS = {
    "apiVersion": "storage.k8s.io/v1",
    "kind": "StorageClass",
    "metadata": {"name": "gp3", "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}},
    "provisioner": "ebs.csi.aws.com",
}


def _with(args: str = _ARGS, storage: str = "20Gi", image: str = "vllm/vllm-openai:v0.13.0") -> list[dict]:
    deployment, pvc = copy.deepcopy(_DEPLOYMENT), copy.deepcopy(_PVC)
    deployment["spec"]["template"]["spec"]["containers"][0]["args"] = [args]
    deployment["spec"]["template"]["spec"]["containers"][0]["image"] = image
    pvc["spec"]["resources"]["requests"]["storage"] = storage
    return [deployment, pvc]


def test_both_copies_do_not_fit_the_claim():
    (found,) = found_by(_with(), "model-cache-fits-checkpoint")
    assert found[0] == "advisory"  # the cluster's default class is not in the files: its provisioner may not enforce
    assert "its consolidated copy (14 GiB): 27 GiB" in found[1]
    ((level, _),) = found_by([*_with(), _EBS], "model-cache-fits-checkpoint")
    assert level == "mandatory"


def test_from_vllm_0_14_only_the_indexed_shards_are_fetched():
    # Cold review 29b, finding 6: from 0.14.0 download_weights_from_hf takes the files the safetensors index lists
    # (0.14.0 weight_utils.py L456; 0.13.0 still takes every match), so the set-29 fixture as published (:latest, a
    # moving tag read at the newest release) and a v0.15.1 image fit their 20Gi claim with the shards alone.
    for image in ("vllm/vllm-openai:latest", "vllm/vllm-openai:v0.15.1"):
        assert found_by([*_with(image=image), _EBS], "model-cache-fits-checkpoint") == [], image


def test_one_copy_or_room_for_both_stays_silent():
    assert found_by([*_with(f"{_ARGS} --load-format mistral"), _EBS], "model-cache-fits-checkpoint") == []
    assert found_by([*_with(storage="40Gi"), _EBS], "model-cache-fits-checkpoint") == []
    # A repository with one copy (Qwen2.5-7B-Instruct, ~15 GiB of shards) fits 20Gi.
    qwen = _ARGS.replace("mistralai/Mistral-7B-Instruct-v0.3", "Qwen/Qwen2.5-7B-Instruct")
    assert found_by([*_with(qwen), _EBS], "model-cache-fits-checkpoint") == []
