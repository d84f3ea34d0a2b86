"""S40 model-path-downloaded across a LeaderWorkerSet's two templates: the model one template's loader downloads is
missing in the other template's pods, whose ranks load it too (vllm v0.33.0 model_executor/model_loader/
default_loader.py:163,213-221). A minimal hand-written shape of the form the brief's held-out misses describe (a
multi-node vLLM LWS whose leader alone runs `hf download --local-dir` into an emptyDir; workers join by `ray start`),
with the careful forms that stay silent."""

from __future__ import annotations

import copy

from policy_fixtures import found_by

POLICY = "model-path-downloaded"
SHA = "0123456789abcdef0123456789abcdef01234567"
LOADER = {
    "name": "fetch",
    "image": "python:3.12-slim",
    "command": [
        "sh",
        "-c",
        f"pip install huggingface_hub && hf download Qwen/Qwen2.5-72B-Instruct --revision {SHA} --local-dir /models/qwen",
    ],
    "volumeMounts": [{"name": "models", "mountPath": "/models"}],
}
GPU = {"limits": {"nvidia.com/gpu": "8", "memory": "400Gi"}, "requests": {"cpu": "32", "memory": "400Gi"}}


def _lws(worker_volume: dict | None, worker_loader: bool = False, leader_loader: bool = True, size: int = 2) -> dict:
    leader = {
        "initContainers": [copy.deepcopy(LOADER)] if leader_loader else [],
        "containers": [
            {
                "name": "vllm-leader",
                "image": "vllm/vllm-openai:v0.33.0",
                "command": [
                    "sh",
                    "-c",
                    "ray start --head --port=6379 && vllm serve /models/qwen --tensor-parallel-size 8 "
                    "--pipeline-parallel-size 2 --distributed-executor-backend ray",
                ],
                "resources": GPU,
                "volumeMounts": [{"name": "models", "mountPath": "/models"}],
            }
        ],
        "volumes": [{"name": "models", "emptyDir": {}}],
    }
    worker: dict = {
        "initContainers": [copy.deepcopy(LOADER)] if worker_loader else [],
        "containers": [
            {
                "name": "vllm-worker",
                "image": "vllm/vllm-openai:v0.33.0",
                "command": ["sh", "-c", "ray start --address=$(LWS_LEADER_ADDRESS):6379 --block"],
                "resources": GPU,
            }
        ],
    }
    if worker_volume is not None:
        worker["containers"][0]["volumeMounts"] = [{"name": "models", "mountPath": "/models"}]
        worker["volumes"] = [{"name": "models", **worker_volume}]
    return {
        "apiVersion": "leaderworkerset.x-k8s.io/v1",
        "kind": "LeaderWorkerSet",
        "metadata": {"name": "qwen72b", "namespace": "llm"},
        "spec": {
            "replicas": 1,
            "leaderWorkerTemplate": {
                "size": size,
                "leaderTemplate": {"metadata": {"labels": {"role": "leader"}}, "spec": leader},
                "workerTemplate": {"spec": worker},
            },
        },
    }


def _group(manifest: dict) -> list[tuple[str, str]]:
    return [f for f in found_by([manifest], POLICY) if "group never serves" in f[1]]


def test_only_the_leader_downloads_and_the_workers_mount_an_empty_volume():
    ((level, message),) = _group(_lws({"emptyDir": {}}))
    assert level == "mandatory"
    assert message.startswith(
        "spec.leaderWorkerTemplate.workerTemplate.spec: the leader's pod downloads the model to /models/qwen "
    )
    assert "its volume models at /models/qwen starts empty, so their ranks find no model" in message


def test_workers_that_mount_nothing_there_are_advice():
    assert [level for level, _ in _group(_lws(None))] == ["advisory"]


def test_only_the_workers_download():
    ((level, message),) = _group(_lws({"emptyDir": {}}, worker_loader=True, leader_loader=False))
    assert message.startswith("spec.leaderWorkerTemplate.leaderTemplate.spec: the worker's pod downloads")
    # The leader's script runs two commands (ray start, then vllm serve): it could fetch the files itself, so advice.
    assert level == "advisory"


def test_careful_groups_stay_silent():
    assert _group(_lws({"emptyDir": {}}, worker_loader=True)) == []  # both templates download
    assert _group(_lws({"persistentVolumeClaim": {"claimName": "qwen"}})) == []  # workers mount storage that persists
    assert _group(_lws({"emptyDir": {}}, size=1)) == []  # no worker pod is created


def test_a_worker_that_may_fill_the_volume_itself_is_advice():
    synced = _lws({"emptyDir": {}})
    worker = synced["spec"]["leaderWorkerTemplate"]["workerTemplate"]["spec"]
    worker["containers"][0]["command"][2] = "aws s3 sync s3://models/qwen /models/qwen && ray start --address=x:6379 --block"
    assert [level for level, _ in _group(synced)] == ["advisory"]
    sidecar = _lws({"emptyDir": {}})
    worker = sidecar["spec"]["leaderWorkerTemplate"]["workerTemplate"]["spec"]
    worker["initContainers"] = [
        {"name": "sync", "image": "rclone/rclone:1.68", "volumeMounts": [{"name": "models", "mountPath": "/models"}]}
    ]
    assert [level for level, _ in _group(sidecar)] == ["advisory"]
