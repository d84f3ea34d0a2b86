"""Text Embeddings Inference as a row of the engine table: one device per server (max_gpus, read by S3) and its Hub
token flags (hub-token, read by S28), with its drain, endpoints and load facts (load_floor_seconds 0 keeps S16's
liveness finding advice: an embedding model loads in seconds).

Spent set 28 brayanpena530/multiLLM-EKS-Deploy services/jina_embeddings.yml (two labels NONE, now covered):
ghcr.io/huggingface/text-embeddings-inference:86-1.5 with nvidia.com/gpu 2 (TEI's CUDA backend takes device 0 only,
backends/candle/src/lib.rs L241 at v1.9.3) and --hf-api-token=huggingface-token, the name of the Secret its env HF_TOKEN
reads (TEI v1.5.0 router/src/lib.rs L78 sends the value as the bearer token). Careful forms: one GPU, the token left to
env HF_TOKEN, a flag filled from a variable, a local model.
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

S3, S28, S16 = "vllm-tp-matches-gpu-limit", "hf-token-not-empty", "llm-startup-probe-budget"


def _probe(**fields) -> dict:
    return {"httpGet": {"path": "/health", "port": 8080}, **fields}


# brayanpena530/multiLLM-EKS-Deploy services/jina_embeddings.yml, cut.
JINA = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "jina-embeddings", "namespace": "default"},
    "spec": {
        "replicas": 1,
        "selector": {"matchLabels": {"app": "jina-embeddings"}},
        "template": {
            "metadata": {"labels": {"app": "jina-embeddings"}},
            "spec": {
                "containers": [
                    {
                        "name": "text-embeddings",
                        "image": "ghcr.io/huggingface/text-embeddings-inference:86-1.5",
                        "resources": {
                            "limits": {"memory": "14Gi", "cpu": "1", "nvidia.com/gpu": 2},
                            "requests": {"memory": "5Gi", "cpu": "1", "nvidia.com/gpu": 2},
                        },
                        "readinessProbe": _probe(periodSeconds=5),
                        "livenessProbe": _probe(periodSeconds=10),
                        "startupProbe": _probe(periodSeconds=15, failureThreshold=10),
                        "args": ["--model-id=jinaai/jina-embeddings-v2-base-zh", "--hf-api-token=huggingface-token"],
                        "env": [
                            {"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": {"name": "huggingface-token", "key": "token"}}},
                            {"name": "PORT", "value": "8080"},
                        ],
                        "ports": [{"containerPort": 8080, "name": "http"}],
                    }
                ]
            },
        },
    },
}


def _container(obj: dict) -> dict:
    return obj["spec"]["template"]["spec"]["containers"][0]


def test_a_second_gpu_for_tei_idles():
    assert found_by([JINA], S3) == [
        (
            "advisory",
            "container text-embeddings: resources.limits nvidia.com/gpu is 2, but Text Embeddings Inference serves its "
            "model on 1 GPU whatever it is given (engine table max_gpus), so 1 GPU sits idle; request 1, and run more "
            "replicas for more throughput",
        )
    ]
    one = copy.deepcopy(JINA)
    for section in ("limits", "requests"):
        _container(one)["resources"][section]["nvidia.com/gpu"] = 1
    assert found_by([one], S3) == []


def test_a_secret_s_name_given_as_the_token_blocks():
    [(level, message)] = found_by([JINA], S28)
    assert level == "mandatory"
    assert message.startswith(
        "container text-embeddings: --hf-api-token is 'huggingface-token', the name of a Secret this pod reads, not a "
        "token: Text Embeddings Inference sends it to the Hub as the bearer token, the Hub answers 401"
    )


def test_the_token_from_env_a_variable_or_a_local_model_is_silent():
    from_env = copy.deepcopy(JINA)
    _container(from_env)["args"] = ["--model-id=jinaai/jina-embeddings-v2-base-zh"]
    variable = copy.deepcopy(JINA)
    _container(variable)["args"][1] = "--hf-api-token=$(HF_TOKEN)"
    local = copy.deepcopy(JINA)
    _container(local)["args"][0] = "--model-id=/data/jina-embeddings-v2-base-zh"
    for careful in (from_env, variable, local):
        assert found_by([careful], S28) == []


def test_a_short_liveness_without_startup_probe_on_tei_is_advice():
    bare = copy.deepcopy(JINA)
    del _container(bare)["startupProbe"]
    [(level, message)] = found_by([bare], S16)
    assert level == "advisory" and "livenessProbe without a startupProbe" in message
