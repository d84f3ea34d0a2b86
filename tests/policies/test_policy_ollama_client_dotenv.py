"""S57/S65 ollama-client-model-pulled: a client's dotenv ConfigMap, prefix-paired model variables, and a claim store.

Fires: spent set 81, uaiso-serious/infra apps/anythingllm/anythingllm.yaml: ConfigMap anythingllm-env holds AnythingLLM's
`.env` (read with dotenv, Mintplex-Labs/anything-llm v1.16.0 server/index.js:1-3) with OLLAMA_BASE_PATH
http://ollama-service.ollama-cuda.svc.cluster.local:11434 and OLLAMA_MODEL_PREF granite4:3b, EMBEDDING_BASE_PATH the same
and EMBEDDING_MODEL_PREF embeddinggemma:latest (server/utils/AiProviders/ollama/index.js:24-25,
EmbeddingEngines/ollama/index.js:16-17), while apps/ollama-cuda/ollama-cuda.yaml runs Ollama on a claim and nothing in
the files pulls a model (labelled S65 advisory).
Silent: the run pulls the model; an embedding model whose paired engine is another provider; a client whose URL
reaches no Ollama server of the files while every store is a claim.
"""

from __future__ import annotations

import copy

from tests.policies.policy_fixtures import config_map, found_by, service, workload

_DOTENV = """LLM_PROVIDER='ollama'
OLLAMA_BASE_PATH='http://ollama-service.ollama-cuda.svc.cluster.local:11434'
OLLAMA_MODEL_PREF='granite4:3b'
EMBEDDING_ENGINE='ollama'
EMBEDDING_BASE_PATH='http://ollama-service.ollama-cuda.svc.cluster.local:11434'
EMBEDDING_MODEL_PREF='embeddinggemma:latest'
"""

_CLIENT_MAP = config_map("anythingllm-env", {".env": _DOTENV}, namespace="anythingllm")
_OLLAMA = workload(
    "ollama",
    [
        {
            "name": "ollama",
            "image": "ollama/ollama:0.14.2",
            "ports": [{"containerPort": 11434}],
            "volumeMounts": [{"name": "data", "mountPath": "/root/.ollama"}],
        }
    ],
    kind="StatefulSet",
    namespace="ollama-cuda",
    volumes=[{"name": "data", "persistentVolumeClaim": {"claimName": "ollama-data"}}],
    service_name="ollama-service",
)
_SERVICE = service("ollama-service", "ollama", [{"port": 11434}], namespace="ollama-cuda")


def _found(objs: list[dict]) -> list[tuple[str, str]]:
    return found_by(objs, "ollama-client-model-pulled")


def test_the_spent_dotenv_client_of_a_claim_store_is_advised():
    found = _found([_CLIENT_MAP, _OLLAMA, _SERVICE])
    assert [e for e, _ in found] == ["advisory", "advisory"]
    text = " ".join(m for _, m in found)
    assert "OLLAMA_MODEL_PREF asks Ollama for granite4:3b" in text and "embeddinggemma:latest" in text
    assert "a claim keeps only what someone pulled by hand" in text


def test_a_pull_of_the_model_or_another_engine_stays_silent():
    pulled = copy.deepcopy(_OLLAMA)
    pulled["spec"]["template"]["spec"]["containers"][0]["lifecycle"] = {
        "postStart": {"exec": {"command": ["sh", "-c", "sleep 5; ollama pull granite4:3b"]}}
    }
    other = copy.deepcopy(_CLIENT_MAP)
    other["data"][".env"] = _DOTENV.replace("EMBEDDING_ENGINE='ollama'", "EMBEDDING_ENGINE='openai'").replace(
        "EMBEDDING_BASE_PATH='http://ollama-service.ollama-cuda.svc.cluster.local:11434'",
        "EMBEDDING_BASE_PATH='https://api.openai.com/v1'",
    )
    found = _found([other, pulled, _SERVICE])
    assert found == []


def test_a_client_reaching_no_server_of_the_files_stays_silent_on_a_claim():
    outside = copy.deepcopy(_CLIENT_MAP)
    outside["data"][".env"] = _DOTENV.replace("ollama-service.ollama-cuda.svc.cluster.local", "gpu-box.lan")
    assert _found([outside, _OLLAMA, _SERVICE]) == []
