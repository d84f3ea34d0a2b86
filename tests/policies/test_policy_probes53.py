"""Session 53, probe rules on every pod form a file makes (brief probes53): proxies, KServe runtimes, vendored charts.

Fires (spent sets, cut down):
- G5 on a LiteLLM proxy probed for readiness only: set 110 pocharlies-org/k8s-litellm-pocharlies@a7bdc67b
  k8s/manifest.yaml, and GuyBarros/vault_ars_minikube_keycloak_litellm@3de072ac deploy-k8s/litellm-gateway.yaml, whose
  Vault Agent template annotation (`{{ with secret ... }}`) had made the whole Deployment read as a Helm template;
- G6 on tcpSocket liveness and readiness probes of vLLM: set 108 xprilion/gemma3-vllm-tpu-gke-autoscaling@90aeeae6
  k8s/vllm-deployment.yaml;
- S16 on a ServingRuntime's kserve/huggingfaceserver:v0.14.0 container with a livenessProbe and no startupProbe: set
  109 sgleser/rhoai-model-serving@6358db6a kserve-huggingfaceserver/huggingface-backend/servingruntime.yaml;
- G4 on a Flux HelmRelease of a local-ai chart vendored into its Git repository: set 107 BSFishy/k8s-homelab
  kubernetes/apps/ai/local-ai/app/helmrelease.yaml.
Careful third-party forms stay silent: BerriAI/litellm@57a634d5 deploy/kubernetes/kub.yaml (liveness and readiness),
kubernetes-sigs/lws@060ab4da docs/examples/sglang/lws.yaml (an SGLang leader on a tcpSocket readiness: no engine fact
says its health endpoint checks more), kserve/kserve v0.20.0 config/runtimes/kserve-huggingfaceserver.yaml (no probe).
"""

from __future__ import annotations

import copy
from pathlib import Path

from policy_fixtures import found_by

from policies import evaluate
from policies.check import resources_of
from policies.manifests import read_manifests

G4, G5, G6, S16 = "serving-readiness-probe", "serving-liveness-probe", "readiness-waits-for-model", "llm-startup-probe-budget"


def _deployment(name: str, container: dict) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "litellm"},
        "spec": {
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [container]}},
        },
    }


# pocharlies-org/k8s-litellm-pocharlies k8s/manifest.yaml Deployment/litellm, cut to the proxy's probes.
LITELLM = {
    "name": "litellm",
    "image": "ghcr.io/berriai/litellm:v1.85.1",
    "args": ["--config=/config/config.yaml", "--host=0.0.0.0", "--port=4000"],
    "ports": [{"containerPort": 4000}],
    "readinessProbe": {"httpGet": {"path": "/health/readiness", "port": 4000}, "periodSeconds": 10},
}


def test_litellm_probed_for_readiness_only_is_advice() -> None:
    found = found_by([_deployment("litellm", LITELLM)], G5)
    assert [level for level, _ in found] == ["advisory"]
    assert found[0][1].startswith("container litellm: no livenessProbe on this LiteLLM proxy")
    assert "add a livenessProbe on GET /health/liveliness (port 4000 unless moved)" in found[0][1]


def test_litellm_with_both_probes_or_none_is_silent() -> None:
    # BerriAI/litellm@57a634d5 deploy/kubernetes/kub.yaml: liveness on /health/liveliness, readiness on /health/readiness.
    both = copy.deepcopy(LITELLM)
    both["livenessProbe"] = {"httpGet": {"path": "/health/liveliness", "port": 4000}, "initialDelaySeconds": 120}
    assert found_by([_deployment("litellm", both)], G5) == []
    bare = {k: v for k, v in LITELLM.items() if k != "readinessProbe"}
    assert found_by([_deployment("litellm", bare)], G5) == []  # no probe at all: G4's finding


# GuyBarros/vault_ars_minikube_keycloak_litellm deploy-k8s/litellm-gateway.yaml, cut down.
VAULT = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: litellm-gateway
spec:
  selector:
    matchLabels: {app: litellm-gateway}
  template:
    metadata:
      annotations:
        vault.hashicorp.com/agent-inject: "true"
        vault.hashicorp.com/agent-inject-template-actor-token: |
          {{- with secret "identity/oidc/token/agent-role" -}}
          {{ .Data.token }}
          {{- end -}}
      labels: {app: litellm-gateway}
    spec:
      containers:
        - name: litellm-gateway
          image: ghcr.io/berriai/litellm:main-stable
          args: ["--config", "/app/config.yaml", "--port", "4000"]
          readinessProbe:
            httpGet: {path: /health/liveliness, port: 4000}
"""


def _read(tmp_path: Path, text: str) -> list:
    path = tmp_path / "deployment.yaml"
    path.write_text(text)
    return list(evaluate(resources_of(read_manifests([str(path)]))))


def test_a_vault_agent_template_annotation_is_no_helm_template(tmp_path: Path) -> None:
    found = _read(tmp_path, VAULT)
    assert [v.policy for v in found if v.policy == G5] == [G5]
    assert not [v for v in found if v.policy == "manifest-is-kubernetes"]


def test_a_helm_action_elsewhere_in_the_document_is_still_a_template(tmp_path: Path) -> None:
    found = _read(tmp_path, VAULT.replace("image: ghcr.io/berriai/litellm:main-stable", "image: {{ .Values.image }}"))
    assert [v.policy for v in found] == ["manifest-is-kubernetes"]


# xprilion/gemma3-vllm-tpu-gke-autoscaling k8s/vllm-deployment.yaml, cut to the server and its probes.
VLLM_TCP = {
    "name": "vllm-tpu",
    "image": "vllm/vllm-tpu:nightly",
    "command": ["python3", "-m", "vllm.entrypoints.openai.api_server"],
    "args": ["--host=0.0.0.0", "--port=8000", "--model=google/gemma-3-4b-it", "--max-model-len=1024"],
    "ports": [{"containerPort": 8000}],
    "readinessProbe": {"tcpSocket": {"port": 8000}, "initialDelaySeconds": 120, "periodSeconds": 10},
    "livenessProbe": {"tcpSocket": {"port": 8000}, "initialDelaySeconds": 300, "periodSeconds": 30},
}


def test_tcp_probes_on_vllm_are_advice() -> None:
    found = found_by([_deployment("vllm-tpu", VLLM_TCP)], G6)
    assert found == [
        (
            "advisory",
            "container vllm-tpu: livenessProbe and readinessProbe only open a TCP connection, which the kernel completes "
            "on vLLM's listening port whether or not the server answers: a stuck API server passes it (GET /health would "
            "time out, and answers 503 once the engine is dead), so the check restarts nothing and keeps the pod in its "
            "Service; probe GET /health (port 8000 unless moved)",
        )
    ]


def test_http_or_startup_tcp_probes_on_vllm_are_silent() -> None:
    http = copy.deepcopy(VLLM_TCP)
    for kind in ("readinessProbe", "livenessProbe"):
        http[kind] = {"httpGet": {"path": "/health", "port": 8000}}
    http["startupProbe"] = {"tcpSocket": {"port": 8000}, "failureThreshold": 90, "periodSeconds": 10}
    assert found_by([_deployment("vllm-tpu", http)], G6) == []


def test_tcp_readiness_on_an_engine_without_the_fact_is_silent() -> None:
    # kubernetes-sigs/lws@060ab4da docs/examples/sglang/lws.yaml, the SGLang leader cut down.
    sglang = {
        "name": "sglang-leader",
        "image": "lmsysorg/sglang:latest",
        "command": [
            "python3",
            "-m",
            "sglang.launch_server",
            "--model-path",
            "meta-llama/Meta-Llama-3.1-8B-Instruct",
            "--port",
            "40000",
        ],
        "ports": [{"containerPort": 40000}],
        "readinessProbe": {"tcpSocket": {"port": 40000}, "initialDelaySeconds": 15, "periodSeconds": 10},
    }
    assert found_by([_deployment("sglang", sglang)], G6) == []


# sgleser/rhoai-model-serving kserve-huggingfaceserver/huggingface-backend/servingruntime.yaml, cut down.
RUNTIME = {
    "apiVersion": "serving.kserve.io/v1alpha1",
    "kind": "ServingRuntime",
    "metadata": {"name": "flan-t5-small-kservehuggingfaceserver"},
    "spec": {
        "supportedModelFormats": [{"name": "huggingface", "version": "1", "autoSelect": True}],
        "containers": [
            {
                "name": "kserve-container",
                "image": "docker.io/kserve/huggingfaceserver:v0.14.0",
                "ports": [{"containerPort": 8080, "name": "http", "protocol": "TCP"}],
                "livenessProbe": {
                    "httpGet": {"path": "/v2/health/live", "port": 8080},
                    "initialDelaySeconds": 120,
                    "periodSeconds": 30,
                    "timeoutSeconds": 10,
                    "failureThreshold": 5,
                },
                "readinessProbe": {"httpGet": {"path": "/v2/health/ready", "port": 8080}, "initialDelaySeconds": 120},
            }
        ],
    },
}


def _runtime(image: str, args: list[str] | None = None) -> dict:
    runtime = copy.deepcopy(RUNTIME)
    container = runtime["spec"]["containers"][0]
    container["image"] = image
    if args:
        container["args"] = args
    return runtime


def test_huggingfaceserver_runtime_liveness_without_startup_is_advice() -> None:
    found = found_by([RUNTIME], S16)
    assert found == [
        (
            "advisory",
            "container kserve-container: livenessProbe without a startupProbe restarts the pod while the server "
            "(kserve/huggingfaceserver before v0.15.0 loads the model before its HTTP server listens) is still loading "
            "the model; add a startupProbe on GET /v2/health/live with a budget of at least 600s",
        )
    ]
    later = found_by([_runtime("kserve/huggingfaceserver:v0.20.0", ["--backend=huggingface"])], S16)
    assert [level for level, _ in later] == ["advisory"]
    assert "with --backend=huggingface loads the model before its HTTP server listens" in later[0][1]


def test_huggingfaceserver_runtime_that_may_serve_while_loading_or_has_a_startup_probe_is_silent() -> None:
    # From v0.15.0 the vLLM backend starts its engine beside the HTTP server, and auto picks it by architecture.
    assert found_by([_runtime("kserve/huggingfaceserver:v0.20.0")], S16) == []
    assert found_by([_runtime("kserve/huggingfaceserver:latest")], S16) == []
    started = copy.deepcopy(RUNTIME)
    started["spec"]["containers"][0]["startupProbe"] = {
        "httpGet": {"path": "/v2/health/ready", "port": 8080},
        "failureThreshold": 90,
        "periodSeconds": 10,
    }
    assert found_by([started], S16) == []
    # kserve/kserve v0.20.0 config/runtimes/kserve-huggingfaceserver.yaml: no probe at all.
    bare = copy.deepcopy(RUNTIME)
    for kind in ("livenessProbe", "readinessProbe"):
        del bare["spec"]["containers"][0][kind]
    assert found_by([bare], S16) == []


# BSFishy/k8s-homelab kubernetes/apps/ai/local-ai/app/helmrelease.yaml: a local-ai chart vendored into the repository.
VENDORED = {
    "apiVersion": "helm.toolkit.fluxcd.io/v2",
    "kind": "HelmRelease",
    "metadata": {"name": "local-ai"},
    "spec": {
        "chart": {
            "spec": {
                "chart": "kubernetes/apps/ai/local-ai/chart",
                "sourceRef": {"kind": "GitRepository", "name": "flux-system", "namespace": "flux-system"},
            }
        },
        "values": {
            "deployment": {
                "image": {"repository": "quay.io/go-skynet/local-ai", "tag": "latest"},
                "env": {"LOCALAI_EXTERNAL_BACKENDS": "llama-cpp"},
            },
            "persistence": {"models": {"enabled": True, "existingClaim": "local-ai-models", "globalMount": "/models"}},
        },
    },
}


def test_vendored_local_ai_chart_is_read_as_the_chart() -> None:
    found = found_by([VENDORED], G4)
    assert [level for level, _ in found] == ["advisory"]
    assert found[0][1].startswith(
        "spec.values[local-ai chart as vendored at kubernetes/apps/ai/local-ai/chart, read as the published chart] "
        "container local-ai: no readinessProbe on this localai server"
    )
    # Only the pod rules read the copy: a value the published chart never reads is not said to be dropped (G107).
    assert found_by([VENDORED], "chart-value-unread") == []


def test_a_folder_chart_that_is_not_the_chart_is_not_read_as_it() -> None:
    other = copy.deepcopy(VENDORED)
    other["spec"]["values"]["server"] = {"replicas": 2}  # a key local-ai's templates never read: another chart
    assert found_by([other], G4) == []
    named = copy.deepcopy(VENDORED)
    named["spec"]["chart"]["spec"]["chart"] = "charts/my-app"
    assert found_by([named], G4) == []
    helm = copy.deepcopy(VENDORED)
    helm["spec"]["chart"]["spec"]["sourceRef"]["kind"] = "HelmRepository"  # a chart name, not a folder
    assert found_by([helm], G4) == []
