"""S17 on a GPU model server of no known engine: the model it names by a common flag or variable
(policies/reading/model_ids.py) with no revision beside it is advice."""

from __future__ import annotations

import copy

from policy_fixtures import found_by

POLICY = "model-source-pinned"


def _deployment(name: str, container: dict) -> dict:
    container = {**container, "resources": {"limits": {"nvidia.com/gpu": 1, "memory": "32Gi"}}}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [container]}},
        },
    }


# deepaksatna/LLM-Inference-Server-Benchmarking-Framework k8s/tgi/deployment.yaml@54df88d2b4708821b5c584ba85890da128194df3
# (spent set 26, labelled S17): TGI's launcher in the team's own image, --model-id with no --revision.
TGI = _deployment(
    "tgi-server",
    {
        "name": "tgi",
        "image": "fra.ocir.io/frntrd2vyxvi/models:llm-tgi-offline-v1",
        "args": ["--model-id", "mistralai/Mistral-7B-Instruct-v0.2", "--port", "8000", "--dtype", "float16"],
        "env": [{"name": "HF_HOME", "value": "/data"}, {"name": "HF_HUB_OFFLINE", "value": "0"}],
    },
)
# aws-samples/scalable-hw-agnostic-inference mistral/mistral-g5-deploy.yaml@ed2cb2646d45f188efd18cf1660ae0db7067af42
# (spent set 31, labelled S17): /run-llama.sh reads MODEL_ID from the environment.
ENTRYPOINT = _deployment(
    "mistral-g5",
    {
        "name": "app",
        "image": "123456789012.dkr.ecr.us-west-2.amazonaws.com/stablediffusion:amd64-cuda",
        "command": ["/run-llama.sh"],
        "args": ["run-llama"],
        "env": [{"name": "MODEL_ID", "value": "mistralai/Mistral-7B-Instruct-v0.3"}],
    },
)
# brayanpena530/multiLLM-EKS-Deploy services/jina_embeddings.yml@70aa73ebcec13afb9bf475107949dec242c0128f (spent set 28):
# text-embeddings-inference given --model-id=jinaai/jina-embeddings-v2-base-zh (read by its engine row where the table has
# one, else by the common flag: advice either way).
TEI = _deployment(
    "jina-embeddings",
    {
        "name": "text-embeddings",
        "image": "ghcr.io/huggingface/text-embeddings-inference:86-1.5",
        "args": ["--model-id=jinaai/jina-embeddings-v2-base-zh"],
    },
)


def test_tgi_in_a_team_image_without_a_revision_is_advice():
    assert found_by([TGI], POLICY) == [
        (
            "advisory",
            "container tgi: --model-id names the Hugging Face model mistralai/Mistral-7B-Instruct-v0.2 with no revision "
            "beside it; if the image downloads it (the engine is not one the pack knows), each pod serves whatever the "
            "repository holds when it starts; pin --revision to a commit SHA, or bake or mount the weights",
        )
    ]


def test_a_model_id_variable_read_by_an_entrypoint_is_advice():
    [(level, message)] = found_by([ENTRYPOINT], POLICY)
    assert level == "advisory"
    assert message.startswith("container app: env MODEL_ID names the Hugging Face model mistralai/Mistral-7B-Instruct-v0.3")
    assert "pin env REVISION to a commit SHA" in message


def test_text_embeddings_inference_model_id_is_advice():
    [(level, message)] = found_by([TEI], POLICY)
    assert level == "advisory" and "jinaai/jina-embeddings-v2-base-zh" in message


def test_a_revision_offline_mode_or_a_local_path_stays_silent():
    pinned = copy.deepcopy(TGI)
    pinned["spec"]["template"]["spec"]["containers"][0]["args"] += ["--revision", "41b61a33a2483885c981aa79e0df6b32407ed873"]
    offline = copy.deepcopy(ENTRYPOINT)
    offline["spec"]["template"]["spec"]["containers"][0]["env"].append({"name": "HF_HUB_OFFLINE", "value": "1"})
    local = copy.deepcopy(TEI)
    local["spec"]["template"]["spec"]["containers"][0]["args"] = ["--model-id=/data/jina-embeddings-v2-base-zh"]
    assert found_by([pinned, offline, local], POLICY) == []


S19 = "gpu-pod-ephemeral-storage"


def test_the_hub_download_of_an_unknown_engine_lands_in_the_container_layer_as_advice():
    [(level, message)] = found_by([ENTRYPOINT], S19)
    assert level == "advisory"
    assert message.startswith(
        "container app: downloads mistralai/Mistral-7B-Instruct-v0.3 from the Hugging Face Hub into "
        "/root/.cache/huggingface/hub on the node's ephemeral storage but requests no ephemeral-storage"
    )
    assert "the engine is not one the pack knows" in message
    # The TGI form's cache is HF_HOME=/data on no volume: the same finding, at $HF_HOME/hub.
    [(_, tgi)] = found_by([TGI], S19)
    assert "into /data/hub on the node's ephemeral storage" in tgi


def test_a_cache_on_a_claim_or_a_request_stays_silent():
    on_claim = copy.deepcopy(ENTRYPOINT)
    pod = on_claim["spec"]["template"]["spec"]
    pod["volumes"] = [{"name": "hf", "persistentVolumeClaim": {"claimName": "hf-cache"}}]
    pod["containers"][0]["env"].append({"name": "HF_HOME", "value": "/cache"})
    pod["containers"][0]["volumeMounts"] = [{"name": "hf", "mountPath": "/cache"}]
    requested = copy.deepcopy(TGI)
    requested["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"] = {"ephemeral-storage": "40Gi"}
    assert found_by([on_claim, requested], S19) == []


S37 = "gated-model-has-token"


def test_a_gated_model_of_an_unknown_engine_without_a_token_is_advice():
    # Mistral-7B-Instruct-v0.2 is gated (components/hub_gated.toml); the deepaksatna form's HF_TOKEN is commented out.
    [(level, message)] = found_by([TGI], S37)
    assert level == "advisory" and "the pod gives the Hub client no token" in message
    assert "is not the engine's own image, and its cache may hold the model" in message
    # With the cache on an emptyDir (the spent-set form: /data) nothing but the unknown engine makes it advice.
    on_empty_dir = copy.deepcopy(TGI)
    pod = on_empty_dir["spec"]["template"]["spec"]
    pod["volumes"] = [{"name": "model-cache", "emptyDir": {}}]
    pod["containers"][0]["volumeMounts"] = [{"name": "model-cache", "mountPath": "/data"}]
    [(level, message)] = found_by([on_empty_dir], S37)
    assert level == "advisory" and "the engine is not one the pack knows" in message


def test_an_optional_token_for_a_gated_model_of_an_unknown_engine_is_advice():
    # Narden91/llm-k8s-test llm-manifest.yml (spent set 28, labelled S37): MODEL_ID of a gated Mistral and HF_TOKEN
    # from a Secret marked optional: true.
    optional = copy.deepcopy(ENTRYPOINT)
    container = optional["spec"]["template"]["spec"]["containers"][0]
    container["env"] = [
        {"name": "MODEL_ID", "value": "mistralai/Mistral-7B-Instruct-v0.3"},
        {"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": {"name": "llm-secrets", "key": "HF_TOKEN", "optional": True}}},
    ]
    [(level, message)] = found_by([optional], S37)
    assert level == "advisory" and "marked optional: true" in message
    # The careful form: the same Secret, required.
    del container["env"][1]["valueFrom"]["secretKeyRef"]["optional"]
    assert found_by([optional], S37) == []


def _config_map(name: str, data: dict) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data}


# OPEA's native text-generation server loads the model LLM_MODEL_ID names
# (opea-project/GenAIComps@e17e6bd5a77d0c69269a492f9a20e8fe07184217 comps/llms/src/text-generation/integrations/native.py:33);
# a run hands it over from a ConfigMap (envFrom), the form of spent sets' OPEA-style manifests (brief forms48 #2).
LLM_CONFIG = _config_map("llm-config", {"LLM_MODEL_ID": "Qwen/Qwen2.5-0.5B-Instruct"})
NATIVE = _deployment(
    "textgen-native",
    {"name": "server", "image": "opea/llm-textgen-gaudi:1.2", "envFrom": [{"configMapRef": {"name": "llm-config"}}]},
)


def test_a_model_id_from_a_config_map_is_read_through_env_from():
    [(level, message)] = found_by([LLM_CONFIG, NATIVE], POLICY)
    assert level == "advisory"
    assert message.startswith("container server: env LLM_MODEL_ID names the Hugging Face model Qwen/Qwen2.5-0.5B-Instruct")


def test_a_revision_beside_llm_model_id_pins_nothing():
    """OPEA's native server loads LLM_MODEL_ID with model_revision "main" hardcoded
    (opea-project/GenAIComps@2dce237a93d079a973c0ef6ae75cfc0b9ae8310d comps/llms/src/text-generation/integrations/native.py:33
    and :82; review48b item 1, /tmp/r48b/s17/a.yaml): a MODEL_REVISION in the ConfigMap is never read, so the model
    stays unpinned, and the advice is a local snapshot, not a revision setting the server has not got."""
    with_revision = _config_map(
        "llm-config",
        {"LLM_MODEL_ID": "Qwen/Qwen2.5-0.5B-Instruct", "MODEL_REVISION": "7ae557604adf67be50417f59c2c2f167def9a775"},
    )
    for config in (with_revision, LLM_CONFIG):
        [(level, message)] = found_by([config, NATIVE], POLICY)
        assert level == "advisory"
        assert "takes no revision" in message and "--revision" not in message
        assert message.endswith("point LLM_MODEL_ID at its local path")


def test_llm_model_id_naming_a_mounted_snapshot_stays_silent():
    local = _config_map("llm-config", {"LLM_MODEL_ID": "/models/qwen2.5-0.5b-instruct-7ae5576"})
    assert found_by([local, NATIVE], POLICY) == []


def test_a_client_without_a_gpu_naming_llm_model_id_stays_silent():
    client = copy.deepcopy(NATIVE)
    client["spec"]["template"]["spec"]["containers"][0]["resources"] = {"limits": {"memory": "1Gi"}}
    assert found_by([LLM_CONFIG, client], POLICY) == []
