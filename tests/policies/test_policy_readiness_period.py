"""G4: a model server's readinessProbe that runs only every few minutes makes the pod Ready late and keeps a dead
engine in the Service for failureThreshold x periodSeconds.

Fixture: the shape of set 41's AurelioAguirre/multi-model-orchestrator k8s/inference/vllm-deployment.yaml @
a56a9ccc9c72ad14adf481caf7e8a3fee83768b2 (label filed none: readiness periodSeconds 300, first at 30 s). A second
third-party form of the class: set 36's HoussemDellai/aks-course 805_llm_on_aks_gpu kubernetes
deployment_gemma4_31b.yaml (periodSeconds 240, failureThreshold 4).
"""

from __future__ import annotations

import copy

import pytest
from policy_fixtures import messages, resource

from policies.k8s_generic.serving_readiness_probe import POLICY

_VLLM = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "llm-vllm", "namespace": "inference"},
    "spec": {
        "replicas": 1,
        "selector": {"matchLabels": {"app": "llm-vllm"}},
        "template": {
            "metadata": {"labels": {"app": "llm-vllm"}},
            "spec": {
                "containers": [
                    {
                        "name": "vllm",
                        "image": "vllm/vllm-openai:v0.8.4",
                        "args": ["--model", "/models/qwen", "--port", "8013"],
                        "ports": [{"containerPort": 8013}],
                        "readinessProbe": {
                            "httpGet": {"path": "/health", "port": 8013},
                            "initialDelaySeconds": 30,
                            "periodSeconds": 300,
                        },
                        "resources": {"limits": {"nvidia.com/gpu": "1"}},
                    }
                ]
            },
        },
    },
}


def _r(doc: dict):
    return resource(f"kubernetes:{doc['apiVersion']}:{doc['kind']}", copy.deepcopy(doc))


def _probe(doc: dict) -> dict:
    return doc["spec"]["template"]["spec"]["containers"][0]["readinessProbe"]


def test_a_readiness_probe_every_five_minutes_is_advised():
    assert messages(POLICY, _r(_VLLM)) == [
        "container vllm: readinessProbe periodSeconds 300 (probed first at initialDelaySeconds 30s, then every 300s): "
        "the pod becomes Ready only at a probe run, so a server that has loaded its model waits up to 300s more before "
        "the Service sends it requests (each scale-out and restart that much longer), and a failed engine keeps "
        "receiving requests for failureThreshold 3 x 300s = 900s before it leaves the Service; probe every 5-10s (a "
        "startupProbe is what waits for the load)"
    ]


def test_the_houssem_form_counts_its_own_failure_threshold():
    doc = copy.deepcopy(_VLLM)
    _probe(doc).update({"initialDelaySeconds": 60, "periodSeconds": 240, "failureThreshold": 4, "timeoutSeconds": 240})
    (message,) = messages(POLICY, _r(doc))
    assert "failureThreshold 4 x 240s = 960s" in message


@pytest.mark.parametrize("period", [None, 5, 10, 30, 60])
def test_a_careful_period_is_silent(period):
    doc = copy.deepcopy(_VLLM)
    if period is None:
        _probe(doc).pop("periodSeconds")
    else:
        _probe(doc)["periodSeconds"] = period
    assert messages(POLICY, _r(doc)) == []


def test_the_bound_is_a_setting():
    assert messages(POLICY, _r(_VLLM), config={"maxReadinessPeriodSeconds": 300}) == []
