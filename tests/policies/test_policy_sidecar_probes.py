"""A probe another container of the pod runs on the model server's port counts for G4 (serving-readiness-probe) and
S16 (llm-startup-probe-budget): containers share the pod's network namespace, and a pod is Ready only when every
container is (policies/reading/pod_probes.py)."""

from __future__ import annotations

import copy

from policy_fixtures import found_by

G4 = "serving-readiness-probe"
S16 = "llm-startup-probe-budget"


def _probe(port: int, **extra) -> dict:
    return {"httpGet": {"path": "/", "port": port, "scheme": "HTTP"}, "periodSeconds": 5, **extra}


# arunudaiyar/openweb-ollama-k8s ollama-deploy.yaml at 853494900b266cc822a1faafffe92620d84e0a43 (spent set 39 trap, cut
# down): Ollama declares :11434 and has no probes; its curl sidecar load-model probes :11434 (readiness, startup).
OLLAMA = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "ollama", "namespace": "ollama"},
    "spec": {
        "selector": {"matchLabels": {"app": "ollama"}},
        "template": {
            "metadata": {"labels": {"app": "ollama"}},
            "spec": {
                "containers": [
                    {"name": "ollama", "image": "ollama/ollama:0.6.5", "ports": [{"containerPort": 11434}]},
                    {
                        "name": "load-model",
                        "image": "curlimages/curl:8.13.0",
                        "command": ["/bin/sh", "-c"],
                        "args": ["sleep infinity"],
                        "readinessProbe": _probe(11434, failureThreshold=3),
                        "startupProbe": _probe(11434, failureThreshold=30),
                    },
                ]
            },
        },
    },
}


def _vllm(sidecar_probe: dict | None) -> dict:
    # The same class on vLLM (constructed, no public manifest of it found): a server with no probes of its own and a
    # proxy sidecar whose probes ask either the server's port or its own.
    sidecar: dict = {"name": "proxy", "image": "envoyproxy/envoy:v1.33.0", "ports": [{"containerPort": 9901}]}
    if sidecar_probe is not None:
        sidecar["readinessProbe"] = sidecar_probe
        sidecar["startupProbe"] = dict(sidecar_probe, failureThreshold=120, periodSeconds=10)
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "vllm", "namespace": "llm"},
        "spec": {
            "selector": {"matchLabels": {"app": "vllm"}},
            "template": {
                "metadata": {"labels": {"app": "vllm"}},
                "spec": {
                    "containers": [
                        {
                            "name": "vllm",
                            "image": "vllm/vllm-openai:v0.10.1",
                            "args": ["--model", "Qwen/Qwen2.5-1.5B-Instruct", "--port", "8000"],
                            "ports": [{"containerPort": 8000}],
                            "resources": {"limits": {"nvidia.com/gpu": 1}},
                        },
                        sidecar,
                    ]
                },
            },
        },
    }


def test_a_sidecar_probe_on_the_servers_port_counts():
    assert found_by([OLLAMA], G4) == []
    # An exec probe curling localhost:8000 from the sidecar counts as well.
    curl = {"exec": {"command": ["sh", "-c", "curl -sf http://localhost:8000/health"]}, "periodSeconds": 5}
    for probe in (_probe(8000), {"tcpSocket": {"port": 8000}}, curl):
        objs = [_vllm({**probe, "failureThreshold": 3})]
        assert found_by(objs, G4) == [], probe
        assert [m for m in found_by(objs, S16) if "no startupProbe" in m[1]] == [], probe


def test_a_sidecar_probe_on_its_own_port_does_not():
    # The sidecar probing its own admin port says nothing of the server: both rules still speak.
    objs = [_vllm(_probe(9901))]
    ((level, message),) = found_by(objs, G4)
    assert message.startswith("container vllm: no readinessProbe on this vllm server")
    assert [m for m in found_by(objs, S16) if m[1].startswith("container vllm: no startupProbe")]
    # And the same server with no sidecar probe at all.
    assert found_by([_vllm(None)], G4)
    # A sidecar probing the server's port on another host is not the server.
    remote = copy.deepcopy(_probe(8000))
    remote["httpGet"]["host"] = "vllm.llm.svc"
    assert found_by([_vllm(remote)], G4)
