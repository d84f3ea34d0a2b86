"""GPU model servers no engine row names (engine "GPU model", policies/reading/serving.py GPU_SERVER): where they are
recognised (serving apps, bare Pods that restart, custom resources read generically) and what S16 and S10 can honestly
say of them (advisory: how the server loads and what it does on SIGTERM are unknown).

The firing form is a minimal hand-written shape of aws-samples/awsome-inference "2.projects/trtllm-inference/2. Setup
Container/manifest.yaml" at d3236c8cfabb5699c4292f7e0351e4dbc9099de3 (set 3, /work/heldout3/PROVENANCE.md row 1): a
TensorRT-LLM server behind the image's own script, a livenessProbe on /healthz with no startupProbe, no preStop, the
default grace period. The bare-Pod form follows nebius/ml-cookbook knative-llamacpp/llamacpp.yml at 83f160fe (row 10),
with the llama.cpp LLAMA_ARG_ settings left out so that no engine row names it.
"""

from __future__ import annotations

import copy

from policies import evaluate
from policies.framework import Resource
from policies.reading.serving import GPU_SERVER, model_servers

TRT = {
    "name": "trtllm-inference-container",
    "image": "123456789012.dkr.ecr.us-east-2.amazonaws.com/trtllm-inference-registry:v1.2.0",
    "livenessProbe": {"httpGet": {"path": "/healthz", "port": 8080}, "initialDelaySeconds": 300, "periodSeconds": 30},
    "readinessProbe": {"httpGet": {"path": "/healthz", "port": 8080}, "initialDelaySeconds": 300, "periodSeconds": 30},
    "ports": [{"name": "http", "containerPort": 8000}],
    "resources": {"requests": {"cpu": "1100m", "memory": "19000Mi"}, "limits": {"nvidia.com/gpu": "1"}},
}


def _deployment(container: dict, **pod: object) -> Resource:
    props = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "llama3", "namespace": "llm"},
        "spec": {"replicas": 1, "template": {"spec": {"containers": [container], **pod}}},
    }
    return Resource(type="kubernetes:apps/v1:Deployment", name="llama3", props=props)


def _levels(resource: Resource, catalog: str) -> list[tuple[str, str]]:
    return [(v.enforcement, v.message) for v in evaluate([resource]) if v.catalog == catalog]


def test_a_custom_trtllm_server_gets_advisory_startup_and_drain_findings():
    deployment = _deployment(copy.deepcopy(TRT))
    assert [s.engine for s in model_servers(deployment)] == [GPU_SERVER]
    s16 = _levels(deployment, "S16")
    assert [level for level, _ in s16] == ["advisory"] and "livenessProbe without a startupProbe" in s16[0][1]
    assert "GET /healthz" in s16[0][1]
    s10 = _levels(deployment, "S10")
    assert {level for level, _ in s10} == {"advisory"} and len(s10) == 2, s10
    assert any("no preStop hook" in m for _, m in s10) and any("terminationGracePeriodSeconds 30" in m for _, m in s10)


def test_the_careful_custom_server_is_silent_on_startup_and_drain():
    careful = dict(
        copy.deepcopy(TRT),
        startupProbe={"httpGet": {"path": "/healthz", "port": 8080}, "periodSeconds": 10, "failureThreshold": 90},
        lifecycle={"preStop": {"sleep": {"seconds": 15}}},
    )
    deployment = _deployment(careful, terminationGracePeriodSeconds=360)
    assert _levels(deployment, "S16") == [] and _levels(deployment, "S10") == []
    # No probe at all on an unknown engine: it may serve at once, so S16 says nothing (G4 speaks of readiness).
    bare = {k: v for k, v in TRT.items() if k not in ("livenessProbe", "readinessProbe")}
    assert _levels(_deployment(bare), "S16") == []


def _pod(restart: str | None = None) -> Resource:
    spec: dict = {
        "containers": [
            {
                "name": "l3test",
                "image": "ghcr.io/brianlechthaler/ml-cookbook-knative-testing/knative-llamacpp:v1",
                "env": [{"name": "MODEL_KEY", "value": "l3.1-8B-F16.gguf"}],
                "resources": {"limits": {"nvidia.com/gpu": 1}},
            }
        ]
    }
    if restart:
        spec["restartPolicy"] = restart
    props = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "chat", "namespace": "llm"}, "spec": spec}
    return Resource(type="kubernetes:core/v1:Pod", name="chat", props=props)


def test_a_bare_gpu_pod_that_restarts_is_a_model_server_and_a_run_to_completion_is_not():
    pod = _pod()
    assert [s.engine for s in model_servers(pod)] == [GPU_SERVER]
    assert _levels(pod, "G8") and _levels(pod, "G10")
    for restart in ("Never", "OnFailure"):
        assert model_servers(_pod(restart)) == []
        # A run-to-completion pod is no model server: the server wording is absent; the generic workload row
        # (workload-resource-requests, session 50) still advises on its containers, as on any pod.
        g8 = _levels(_pod(restart), "G8")
        assert g8 and all(level == "advisory" and "server" not in message for level, message in g8), g8


def _cr(kind: str) -> Resource:
    container = {"name": "server", "image": "registry.example.com/llm-server:1.0", "resources": {"limits": {"nvidia.com/gpu": 2}}}
    props = {
        "apiVersion": "serving.example.com/v1",
        "kind": kind,
        "metadata": {"name": "m", "namespace": "llm"},
        "spec": {"template": {"spec": {"containers": [container]}}},
    }
    return Resource(type=f"kubernetes:serving.example.com/v1:{kind}", name="m", props=props)


def test_a_generic_custom_resource_gpu_container_counts_unless_the_kind_is_batch_work():
    assert [s.engine for s in model_servers(_cr("ModelDeployment"))] == [GPU_SERVER]
    g10 = _levels(_cr("ModelDeployment"), "G10")
    assert g10 and {level for level, _ in g10} == {"advisory"}  # an operator may fill the memory limit
    for kind in ("PyTorchJob", "TrainJob", "FineTuning", "Workflow", "Notebook"):
        assert model_servers(_cr(kind)) == [], kind
    run_once = _cr("ModelDeployment")
    run_once.props["spec"]["template"]["spec"]["restartPolicy"] = "OnFailure"
    assert model_servers(run_once) == []
