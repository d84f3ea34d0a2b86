"""Session 51, probes that do not tell whether the model serves (G4, G5, S16 on every form).

Fires:
- G4: spent set 84 asifkhan03/ollamaverse K8S-Manifests/python/ollama-smollm2.yaml (and ollama-tinyllama.yaml),
  labelled G4: `ollama serve &`, then `ollama run MODEL` into a fresh emptyDir, readiness a tcpSocket on 11434, which
  passes once the server listens, while the model is still being pulled.
Careful forms stay silent: the model pulled in an init container (done before the server starts), and a readiness
exec that checks the model itself.
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

G4 = "serving-readiness-probe"


def _deployment(container: dict, init: list | None = None) -> dict:
    spec: dict = {"containers": [container], "volumes": [{"name": "ollama-models", "emptyDir": {}}]}
    if init:
        spec["initContainers"] = init
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "ollama-smollm2", "namespace": "aiops"},
        "spec": {
            "selector": {"matchLabels": {"app": "ollama-smollm2"}},
            "template": {"metadata": {"labels": {"app": "ollama-smollm2"}}, "spec": spec},
        },
    }


# asifkhan03/ollamaverse K8S-Manifests/python/ollama-smollm2.yaml (spent set 84), cut to the server container.
OLLAMA_TCP = {
    "name": "ollama",
    "image": "ollama/ollama:latest",
    "ports": [{"containerPort": 11434}],
    "env": [{"name": "OLLAMA_MODEL", "value": "smollm2:135m-instruct-q8_0"}],
    "volumeMounts": [{"name": "ollama-models", "mountPath": "/root/.ollama"}],
    "command": ["/bin/sh"],
    "args": ["-c", 'ollama serve &\nsleep 5\nollama run "$OLLAMA_MODEL"\nwait\n'],
    "readinessProbe": {"tcpSocket": {"port": 11434}, "initialDelaySeconds": 30, "periodSeconds": 10},
}


def test_ollama_tcp_readiness_while_the_model_is_pulled_is_advice() -> None:
    found = found_by([_deployment(OLLAMA_TCP)], G4)
    assert [level for level, _ in found] == ["advisory"]
    assert "readinessProbe tcpSocket passes as soon as ollama serve listens" in found[0][1]
    assert "smollm2:135m-instruct-q8_0" in found[0][1]


def test_ollama_tcp_readiness_after_an_init_pull_or_checking_the_model_is_silent() -> None:
    served = copy.deepcopy(OLLAMA_TCP)
    served["command"], served["args"] = ["ollama"], ["serve"]
    init = {
        "name": "pull",
        "image": "ollama/ollama:latest",
        "command": ["/bin/sh", "-c", "ollama serve & sleep 5; ollama pull smollm2:135m-instruct-q8_0"],
        "volumeMounts": [{"name": "ollama-models", "mountPath": "/root/.ollama"}],
    }
    assert found_by([_deployment(served, [init])], G4) == []
    checked = copy.deepcopy(OLLAMA_TCP)
    checked["readinessProbe"] = {"exec": {"command": ["sh", "-c", "ollama show smollm2:135m-instruct-q8_0"]}}
    assert found_by([_deployment(checked)], G4) == []


G5 = "serving-liveness-probe"


# amey2025/ollama ollama_deployment_nfs.yaml (spent set 88, labelled G5/G7), cut down: Ollama declares :11434 and has no
# probes; the node-exporter sidecar declares liveness and readiness on :11434.
def _ollama_with_exporter(liveness_on: str) -> dict:
    probe = {"httpGet": {"path": "/", "port": 11434}, "periodSeconds": 10}
    server: dict = {"name": "ollama", "image": "ollama/ollama:0.12.6", "ports": [{"containerPort": 11434, "name": "http"}]}
    exporter: dict = {
        "name": "ollama-metrics",
        "image": "prom/node-exporter:v1.7.0",
        "args": ["--path.procfs=/host/proc", "--collector.processes"],
        "ports": [{"containerPort": 9100, "name": "metrics"}],
        "readinessProbe": dict(probe),
    }
    (server if liveness_on == "ollama" else exporter)["livenessProbe"] = dict(probe)
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "ollama", "namespace": "ollama"},
        "spec": {
            "selector": {"matchLabels": {"app": "ollama"}},
            "template": {"metadata": {"labels": {"app": "ollama"}}, "spec": {"containers": [server, exporter]}},
        },
    }


def test_liveness_on_the_server_port_declared_on_a_sidecar_is_advice() -> None:
    found = found_by([_ollama_with_exporter("ollama-metrics")], G5)
    assert [level for level, _ in found] == ["advisory"]
    assert "the livenessProbe on its port is declared on container ollama-metrics" in found[0][1]
    assert "restarts ollama-metrics, never itself" in found[0][1]
    # The sidecar's readinessProbe on the server's port gates the pod: G4 stays silent (spent set 39 trap).
    assert found_by([_ollama_with_exporter("ollama-metrics")], G4) == []


def test_liveness_on_the_server_itself_is_silent() -> None:
    assert found_by([_ollama_with_exporter("ollama")], G5) == []


# explicitworkload/llamacpp-oai llm/llamacpp/servingruntime.yaml (spent set 54, labelled G4/S16), cut down: an in-house
# llama.cpp image on amd.com/gpu, no probe; KServe gives kserve-container a TCP readinessProbe (policies/
# operator_defaults.py, kserve v0.20.0 deployment_reconciler.go:304-336).
RUNTIME = {
    "apiVersion": "serving.kserve.io/v1alpha1",
    "kind": "ServingRuntime",
    "metadata": {"name": "llamacpp", "namespace": "john"},
    "spec": {
        "supportedModelFormats": [{"name": "gguf", "autoSelect": True}],
        "containers": [
            {
                "name": "kserve-container",
                "image": "quay.io/jgoh/llamacpp:latest",
                "command": ["/usr/local/bin/entrypoint.sh"],
                "env": [{"name": "CONTEXT_LENGTH", "value": "2048"}],
                "ports": [{"containerPort": 8080, "name": "http1", "protocol": "TCP"}],
                "resources": {"requests": {"amd.com/gpu": "1"}, "limits": {"amd.com/gpu": "1"}},
            }
        ],
    },
}

# brianlechthaler/llama-k8s generator/generator-a40-knative-serving.yml (spent set 87, labelled G4), cut down: a Knative
# Service whose gunicorn app fetches its model from S3 after binding :8080; Knative adds a TCP readinessProbe
# (knative/serving revision_defaults.go applyProbes).
KNATIVE = {
    "apiVersion": "serving.knative.dev/v1",
    "kind": "Service",
    "metadata": {"name": "generator-a40"},
    "spec": {
        "template": {
            "spec": {
                "containerConcurrency": 1,
                "containers": [
                    {
                        "name": "generator",
                        "image": "ghcr.io/brianlechthaler/llama-k8s/generator:main",
                        "env": [{"name": "APP_PORT", "value": "8080"}, {"name": "FILE_NAME", "value": "ggml-model-f16.gguf"}],
                        "resources": {"limits": {"cpu": 8, "memory": "32Gi", "nvidia.com/gpu": 3}},
                    }
                ],
            }
        }
    },
}


def _serving_container(resource: dict) -> dict:
    spec = resource["spec"]
    return (spec.get("template", {}).get("spec") or spec)["containers"][0]


def test_operator_tcp_readiness_on_a_gpu_server_no_row_names_is_advice() -> None:
    for resource, who in ((RUNTIME, "KServe"), (KNATIVE, "Knative Serving")):
        found = found_by([resource], G4)
        assert [level for level, _ in found] == ["advisory"], found
        assert f"no readinessProbe on this GPU model server, so {who} gives it a TCP one" in found[0][1]
        assert "whether or not the model is loaded" in found[0][1]


def test_operator_tcp_readiness_with_own_readiness_or_startup_is_silent() -> None:
    for resource in (RUNTIME, KNATIVE):
        for probe in ("readinessProbe", "startupProbe"):
            careful = copy.deepcopy(resource)
            _serving_container(careful)[probe] = {"httpGet": {"path": "/health", "port": 8080}}
            assert found_by([careful], G4) == [], probe
    # No accelerator: nothing says the container serves a model.
    cpu = copy.deepcopy(KNATIVE)
    del _serving_container(cpu)["resources"]["limits"]["nvidia.com/gpu"]
    assert found_by([cpu], G4) == []
