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
import json
from pathlib import Path

from policy_fixtures import found_by

from policies.check import main

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


# S26 api-object-valid: a probe or hook with more than one handler ("One and only one of the fields must be specified",
# kubernetes/api v0.33.0 core/v1/types.go:2946-2961; validation.go "may not specify more than 1 handler type"), as a
# Kustomize strategic merge builds it: spent set 69 nohdol97/Nexus k8s/overlays/gpu/model-worker-deployment.yaml (a
# tcpSocket patch over the base's httpGet probes; the set's k8s/kustomization.yaml is not among its files and is
# written here as the overlay's `../../` needs it).
S26 = "api-object-valid"
_BASE = """apiVersion: apps/v1
kind: Deployment
metadata: {name: model-worker, namespace: nexus}
spec:
  replicas: 1
  selector: {matchLabels: {app: model-worker}}
  template:
    metadata: {labels: {app: model-worker}}
    spec:
      containers:
        - name: model-worker
          image: nexus-model-worker:1.0
          ports: [{containerPort: 8001}]
          readinessProbe: {httpGet: {path: /health, port: 8001}, periodSeconds: 5}
          livenessProbe: {httpGet: {path: /health, port: 8001}, periodSeconds: 10}
"""
_PATCH = """apiVersion: apps/v1
kind: Deployment
metadata: {name: model-worker, namespace: nexus}
spec:
  template:
    spec:
      containers:
        - name: model-worker
          image: vllm/vllm-openai:v0.8.5
          readinessProbe: {tcpSocket: {port: 8001}, periodSeconds: 10}
"""


def _nexus(root, patch: str) -> None:
    files = {
        "k8s/kustomization.yaml": "resources:\n  - model-worker/deployment.yaml\n",
        "k8s/model-worker/deployment.yaml": _BASE,
        "k8s/overlays/gpu/kustomization.yaml": "resources:\n  - ../../\npatches:\n  - path: model-worker-deployment.yaml\n",
        "k8s/overlays/gpu/model-worker-deployment.yaml": patch,
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def test_a_patch_probe_with_another_handler_builds_a_refused_probe(tmp_path, capsys):
    _nexus(tmp_path, _PATCH)
    assert main([str(tmp_path), "--format", "json"]) == 1
    found = [v for v in json.loads(capsys.readouterr().out)["violations"] if v["policy"] == S26]
    assert [(v["enforcement"], Path(v["file"]).name) for v in found] == [("mandatory", "model-worker-deployment.yaml")]
    assert "readinessProbe states 2 handlers (httpGet, tcpSocket)" in found[0]["message"]


def test_a_patch_that_clears_the_base_handler_is_silent(tmp_path, capsys):
    _nexus(tmp_path, _PATCH.replace("{tcpSocket: {port: 8001},", "{httpGet: null, tcpSocket: {port: 8001},"))
    main([str(tmp_path), "--format", "json"])
    assert [v for v in json.loads(capsys.readouterr().out)["violations"] if v["policy"] == S26] == []


def test_a_written_probe_with_two_handlers_blocks_and_one_handler_is_silent():
    deployment = _deployment("vllm", "vllm/vllm-openai:v0.8.5", [], ["--model", "Qwen/Qwen2.5-0.5B-Instruct"])
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    container["startupProbe"] = {"httpGet": {"path": "/health", "port": 8000}, "exec": {"command": ["true"]}}
    ((level, message),) = found_by([deployment], S26)
    assert level == "mandatory" and "startupProbe states 2 handlers (exec, httpGet)" in message
    container["startupProbe"] = {"httpGet": {"path": "/health", "port": 8000}, "exec": None}
    container["lifecycle"] = {"preStop": {"sleep": {"seconds": 10}}}
    assert found_by([deployment], S26) == []


# S26: an Ingress rule host the API server refuses (validateIngressRules: a DNS-1123 subdomain, not an IP). Spent set 68
# jakepage91/operating-llms-on-kubernetes kubernetes/open-webui-ingress.yaml (host 'webui.<YOUR-NODE-EXTERNAL-IP>.sslip.io').
def _ingress(host: str) -> dict:
    backend = {"service": {"name": "open-webui", "port": {"number": 8080}}}
    rule = {"host": host, "http": {"paths": [{"path": "/", "pathType": "Prefix", "backend": backend}]}}
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "Ingress",
        "metadata": {"name": "open-webui", "namespace": "llm"},
        "spec": {"ingressClassName": "traefik", "rules": [rule]},
    }


def test_an_ingress_host_left_as_a_fill_in_is_refused():
    ((level, message),) = found_by([_ingress("webui.<YOUR-NODE-EXTERNAL-IP>.sslip.io")], S26)
    assert level == "mandatory" and message.startswith("spec.rules[0].host 'webui.<YOUR-NODE-EXTERNAL-IP>.sslip.io' is not")
    ((level, message),) = found_by([_ingress("10.0.0.12")], S26)
    assert level == "mandatory" and "an IP address" in message
    ((level, _),) = found_by([_ingress("${WEBUI_HOST}")], S26)
    assert level == "advisory"  # rendered by a pipeline before apply
    # A sed step's marker is rendered before apply too: fresh set 103 archham/kube.web-ui@5cd101e1 06_ingress.yml
    # (host __FQDN__, filled by its setup.sh; labelled S27 advisory, a wrong blocking S26 before session 52's fix).
    ((level, message),) = found_by([_ingress("__FQDN__")], S26)
    assert level == "advisory" and "fill in the host before applying" in message


def test_a_valid_or_wildcard_ingress_host_is_silent():
    for host in ("webui.192.168.1.20.sslip.io", "*.apps.example.com", "chat.example.com"):
        assert found_by([_ingress(host)], S26) == []


# S28 hf-token-not-empty on the committed Secret: an empty HF token that a model server of the files reads as HF_TOKEN
# to download a gated model (components/hub_gated.toml). Spent set 69 nohdol97/Nexus
# k8s/overlays/gpu/model-worker-secret.yaml (stringData HF_TOKEN "") read by the overlay's vLLM serving
# meta-llama/Meta-Llama-3-8B-Instruct.
S28 = "hf-token-not-empty"


def _token_secret(value: str = "") -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": "model-worker-secrets", "namespace": "nexus"},
        "type": "Opaque",
        "stringData": {"HF_TOKEN": value},
    }


def _worker(model: str, extra_env: list | None = None) -> dict:
    env = [{"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": {"name": "model-worker-secrets", "key": "HF_TOKEN"}}}]
    worker = _deployment("model-worker", "vllm/vllm-openai:v0.8.5", env + (extra_env or []), ["--model", model])
    worker["metadata"]["namespace"] = "nexus"
    return worker


def _on_secret(objs: list) -> list[tuple[str, str]]:
    return [(level, message) for level, message in found_by(objs, S28) if message.startswith("key HF_TOKEN")]


def test_an_empty_token_secret_read_for_a_gated_model_blocks():
    ((level, message),) = _on_secret([_token_secret(), _worker("meta-llama/Meta-Llama-3-8B-Instruct")])
    assert level == "mandatory"
    assert "Deployment/model-worker container model-worker reads it" in message
    assert "gated meta-llama/Meta-Llama-3-8B-Instruct" in message


def test_an_empty_token_secret_is_advice_or_silent_when_the_files_cannot_prove_a_401():
    ((level, _),) = _on_secret([_token_secret(), _worker("Qwen/Qwen2.5-0.5B-Instruct")])  # a public model
    assert level == "advisory"
    other = [{"name": "HF_TOKEN_PATH", "value": "/var/run/hf/token"}]  # another token source
    ((level, _),) = _on_secret([_token_secret(), _worker("meta-llama/Meta-Llama-3-8B-Instruct", other)])
    assert level == "advisory"
    assert _on_secret([_token_secret()]) == []  # nobody reads it
    assert _on_secret([_token_secret("hf_" + "a1B2" * 9), _worker("meta-llama/Meta-Llama-3-8B-Instruct")]) == []


# G38 namespace-set on operator kinds whose CRD says `scope: Namespaced` at the cited release (KubeAI Model v0.21.0
# charts/kubeai/templates/crds/kubeai.org_models.yaml:15). Spent set 67 wellflat/k8s-dev kubeai/llama-model.yaml.
G38 = "namespace-set"


def _model(namespace: str | None = None) -> dict:
    model = {
        "apiVersion": "kubeai.org/v1",
        "kind": "Model",
        "metadata": {"name": "llama-3.1-8b-instruct-cpu"},
        "spec": {"features": ["TextGeneration"], "url": "hf://meta-llama/Meta-Llama-3.1-8B-Instruct", "engine": "VLLM"},
    }
    if namespace:
        model["metadata"]["namespace"] = namespace
    return model


def test_a_kubeai_model_without_a_namespace_is_advice(tmp_path, capsys):
    (tmp_path / "llama-model.yaml").write_text(json.dumps(_model()))
    (tmp_path / "elyza-model.yaml").write_text(
        json.dumps({**_model("kubeai"), "metadata": {"name": "elyza", "namespace": "kubeai"}})
    )
    main([str(tmp_path), "--format", "json"])
    found = [v for v in json.loads(capsys.readouterr().out)["violations"] if v["policy"] == G38]
    assert [(v["enforcement"], Path(v["file"]).name) for v in found] == [("advisory", "llama-model.yaml")]
    assert found[0]["message"].startswith("Model/llama-3.1-8b-instruct-cpu states no metadata.namespace")


def test_an_unknown_operator_kind_stays_silent(tmp_path, capsys):
    unknown = {**_model(), "apiVersion": "example.com/v1", "kind": "Widget"}  # may be cluster-scoped
    (tmp_path / "widget.yaml").write_text(json.dumps(unknown))
    main([str(tmp_path), "--format", "json"])
    assert [v for v in json.loads(capsys.readouterr().out)["violations"] if v["policy"] == G38] == []
