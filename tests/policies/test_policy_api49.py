"""What the API server refuses, read on every object of the run (brief api49), each a third-party form that fires and
a careful form that stays silent.

- G88 live-object-export: an object exported from a running cluster (``kubectl get -o yaml``) with its
  metadata.resourceVersion: kubernetes/apiserver v0.33.0 pkg/storage/etcd3/store.go:261-263 refuses the create
  (pkg/storage/errors.go:29 "resourceVersion should not be set on objects to be created"); an update with another
  version is a Conflict (pkg/registry/generic/registry/store.go:732-734). Spent set 71:
  Sanmay-Das/LLM-Serving-Benchmark@a1b672cf165beb47406a63923b99f015b138686a:ollama-deployment.yaml (and
  vllm-deployment.yaml, ray-serve-deployment.yaml).
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

G88 = "live-object-export"


def _ollama_export() -> dict:
    """The shape of Sanmay-Das/LLM-Serving-Benchmark@a1b672cf:ollama-deployment.yaml: a Deployment as kubectl get -o
    yaml prints it (server-written metadata and a status)."""
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "annotations": {"deployment.kubernetes.io/revision": "1"},
            "creationTimestamp": "2026-03-27T08:37:07Z",
            "generation": 2,
            "name": "ollama",
            "namespace": "default",
            "resourceVersion": "143521",
            "uid": "c5f8d696-37ce-4c42-8886-159a0329628c",
        },
        "spec": {
            "replicas": 0,
            "selector": {"matchLabels": {"app": "ollama"}},
            "template": {
                "metadata": {"creationTimestamp": None, "labels": {"app": "ollama"}},
                "spec": {"containers": [{"name": "ollama", "image": "ollama/ollama:0.6.5", "ports": [{"containerPort": 11434}]}]},
            },
        },
        "status": {"observedGeneration": 2},
    }


def test_an_exported_deployment_with_its_resource_version_blocks():
    ((level, message),) = found_by([_ollama_export()], G88)
    assert level == "mandatory"
    assert message.startswith("metadata.resourceVersion '143521' (with metadata.uid, metadata.creationTimestamp,")
    assert "resourceVersion should not be set on objects to be created" in message


def test_a_custom_resource_and_an_integer_version_block_too():
    ray = {
        "apiVersion": "ray.io/v1",
        "kind": "RayService",
        "metadata": {"name": "ray-serve", "resourceVersion": 145374},
        "spec": {"serveConfigV2": "applications: []"},
    }
    ((level, message),) = found_by([ray], G88)
    assert level == "mandatory" and "this RayService is an export" in message


def test_the_other_server_fields_alone_are_advice():
    export = _ollama_export()
    del export["metadata"]["resourceVersion"]
    export["metadata"]["ownerReferences"] = [{"kind": "Deployment", "name": "ollama", "uid": "0d9a"}]
    ((level, message),) = found_by([export], G88)
    assert level == "advisory"
    assert message.startswith("metadata.uid, metadata.creationTimestamp, metadata.generation, status set")
    assert "owner Deployment/ollama by the uid" in message
    not_a_number = _ollama_export()
    not_a_number["metadata"]["resourceVersion"] = "${RV}"
    ((level, message),) = found_by([not_a_number], G88)
    assert level == "advisory" and message.startswith("metadata.resourceVersion, metadata.uid")


def test_a_dry_run_output_and_an_unset_version_are_silent():
    """What kubectl create --dry-run=client -o yaml writes (creationTimestamp null, empty status), an empty or "0"
    resourceVersion (the store reads 0 as unset), and a generated empty status are not an export."""
    export = _ollama_export()
    meta = export["metadata"]
    for key in ("uid", "generation"):
        del meta[key]
    meta["creationTimestamp"] = None
    export["status"] = {}
    for version in ("", "0", None):
        obj = copy.deepcopy(export)
        obj["metadata"]["resourceVersion"] = version
        assert found_by([obj], G88) == []
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "ollama", "creationTimestamp": None},
        "spec": {"selector": {"app": "ollama"}, "ports": [{"port": 11434}]},
        "status": {"loadBalancer": {}},
    }
    assert found_by([service], G88) == []


# G35 on server-enforced keys (components/server_keys.toml): LiteLLM's master key and vLLM's API key are what the
# server checks every caller against, so a committed value is the credential however it reads. Spent set 71:
# yduman/ai-platform-poc@d8d989fdd04a6d2a05c00cc34b707a81b4ed6db3:litellm-config.yaml (master_key "sk-local-dev") and
# litellm-deployment.yaml (LITELLM_MASTER_KEY "sk-local-dev").
G35 = "no-literal-secret-env"
_LITELLM_CONFIG = """model_list:
  - model_name: qwen-coder
    litellm_params:
      model: openai/qwen-coder
      api_base: http://vllm:8000/v1
      api_key: "none"
general_settings:
  master_key: "{key}"
"""


def _config_map(key: str) -> dict:
    data = {"config.yaml": _LITELLM_CONFIG.format(key=key)}
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "litellm-config", "namespace": "ai"}, "data": data}


def _deployment(name: str, image: str, env: list, args: list | None = None) -> dict:
    container: dict = {"name": name, "image": image, "env": env}
    if args:
        container["args"] = args
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "ai"},
        "spec": {
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [container]}},
        },
    }


def test_a_stand_in_worded_master_key_blocks_on_the_server():
    ((level, message),) = found_by([_config_map("sk-local-dev")], G35)
    assert level == "mandatory" and "sets general_settings.master_key to a literal value" in message
    litellm = _deployment(
        "litellm", "ghcr.io/berriai/litellm:main-v1.55.0", [{"name": "LITELLM_MASTER_KEY", "value": "sk-local-dev"}]
    )
    ((level, message),) = found_by([litellm], G35)
    assert level == "mandatory" and "env LITELLM_MASTER_KEY has a literal value, the key this server checks" in message


def test_a_vllm_servers_own_api_key_blocks_in_stand_in_words():
    env = [{"name": "VLLM_API_KEY", "value": "sk-test-key"}]
    server = _deployment("vllm", "vllm/vllm-openai:v0.8.5", env, ["--model", "Qwen/Qwen2.5-0.5B-Instruct"])
    ((level, message),) = found_by([server], G35)
    assert level == "mandatory" and "env VLLM_API_KEY has a literal value, the key this server" in message
    flag = _deployment("vllm", "vllm/vllm-openai:v0.8.5", [], ["--model", "Qwen/Qwen2.5-0.5B-Instruct", "--api-key", "local-dev"])
    ((level, message),) = found_by([flag], G35)
    assert level == "mandatory" and "--api-key has a literal value" in message


def test_clients_and_fill_ins_stay_silent():
    """The client forms of spent set 60 (a key to a server that checks none) and a fill-in or reference on a server."""
    client = _deployment("webui", "ghcr.io/open-webui/open-webui:v0.6.5", [{"name": "VLLM_API_KEY", "value": "sk-local-dev"}])
    assert found_by([client], G35) == []
    for key in ("os.environ/LITELLM_MASTER_KEY", "<your-master-key>", "CHANGE_ME", "dummy"):
        assert found_by([_config_map(key)], G35) == []
    for value in ("not-needed", "EMPTY", "sk-xxxx"):
        env = [{"name": "VLLM_API_KEY", "value": value}]
        server = _deployment("vllm", "vllm/vllm-openai:v0.8.5", env, ["--model", "Qwen/Qwen2.5-0.5B-Instruct"])
        assert [level for level, _ in found_by([server], G35)] in ([], ["advisory"])
