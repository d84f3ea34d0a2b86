"""S17 model-source-pinned for a model a Job downloads with no revision into a claim the GPU servers mount (advice):
a minimal hand-written shape of the form the brief describes (`huggingface-cli download` in a command, here a one-off
Job filling a PVC); careful forms stay silent."""

from __future__ import annotations

from policy_fixtures import found_by

SHA = "0123456789abcdef0123456789abcdef01234567"


def _job(download: str, claim: str = "models") -> dict:
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "fetch-model", "namespace": "llm"},
        "spec": {
            "template": {
                "spec": {
                    "restartPolicy": "OnFailure",
                    "containers": [
                        {
                            "name": "dl",
                            "image": "python:3.11-slim",
                            "command": ["sh", "-c", f"pip install -U huggingface_hub && {download}"],
                            "volumeMounts": [{"name": "d", "mountPath": "/data"}],
                        }
                    ],
                    "volumes": [{"name": "d", "persistentVolumeClaim": {"claimName": claim}}],
                }
            }
        },
    }


SERVER = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "llama", "namespace": "llm"},
    "spec": {
        "selector": {"matchLabels": {"app": "llama"}},
        "template": {
            "metadata": {"labels": {"app": "llama"}},
            "spec": {
                "containers": [
                    {
                        "name": "vllm",
                        "image": "vllm/vllm-openai:v0.8.5",
                        "args": ["--model", "/data/llama"],
                        "volumeMounts": [{"name": "d", "mountPath": "/data"}],
                        "resources": {"limits": {"nvidia.com/gpu": "1"}},
                    }
                ],
                "volumes": [{"name": "d", "persistentVolumeClaim": {"claimName": "models"}}],
            },
        },
    },
}
DOWNLOAD = "huggingface-cli download meta-llama/Llama-3.1-8B-Instruct --local-dir /data/llama"


def _claim_findings(objs: list[dict]) -> list[tuple[str, str]]:
    return [f for f in found_by(objs, "model-source-pinned") if "into claim" in f[1]]


def test_a_job_filling_the_servers_claim_without_a_revision_is_advice():
    ((level, message),) = _claim_findings([_job(DOWNLOAD), SERVER])
    assert level == "advisory"
    assert message.startswith(
        "container dl: downloads meta-llama/Llama-3.1-8B-Instruct from the Hugging Face Hub with no revision into claim "
        "models, which the GPU pods of Deployment/llama mount"
    )


def test_careful_downloads_stay_silent():
    assert _claim_findings([_job(f"{DOWNLOAD} --revision {SHA}"), SERVER]) == []
    assert _claim_findings([_job(DOWNLOAD, claim="scratch"), SERVER]) == []  # no GPU pod mounts that claim
    assert _claim_findings([_job(DOWNLOAD)]) == []  # no server among the files read
    dataset = "huggingface-cli download tatsu-lab/alpaca --repo-type dataset --local-dir /data/alpaca"
    assert _claim_findings([_job(dataset), SERVER]) == []
