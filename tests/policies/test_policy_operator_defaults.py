"""Operator defaults as data (policies/operator_defaults.py): what KubeRay and Knative add to the pods they render.

Fixtures follow third-party forms: a Knative Service running vLLM (the shape of KServe's Serverless predictor and of
knative docs' single-container services) and a KubeRay RayCluster with an 8-GPU worker group (ray-project/kuberay
ray-operator/config/samples/vllm/ray-cluster.vllm.yaml's shape). Each careful form is silent; the same pod where no
operator supplies the field fires.
"""

from __future__ import annotations

import copy

from policy_fixtures import messages, resource

from policies.k8s_generic.serving_readiness_probe import POLICY as READINESS
from policies.operator_defaults import ROWS, supplied
from policies.vllm.tensor_parallel_requires_dshm import POLICY as DSHM

_VLLM = {
    "name": "vllm",
    "image": "vllm/vllm-openai:v0.11.0",
    "args": ["--model", "Qwen/Qwen2.5-7B-Instruct"],
    "ports": [{"containerPort": 8000}],
    "resources": {"limits": {"nvidia.com/gpu": 1, "memory": "32Gi"}},
}
_KNATIVE = {
    "apiVersion": "serving.knative.dev/v1",
    "kind": "Service",
    "metadata": {"name": "qwen", "namespace": "llm"},
    "spec": {"template": {"spec": {"containers": [copy.deepcopy(_VLLM)]}}},
}


def _r(doc: dict):
    return resource(f"kubernetes:{doc['apiVersion']}:{doc['kind']}", copy.deepcopy(doc))


def test_every_row_cites_its_release():
    for row in ROWS:
        assert row.fields and row.kinds and any(marker in row.source for marker in (" v1.", " at ")), row.operator


def test_knative_gives_the_serving_container_a_readiness_probe():
    assert messages(READINESS, _r(_KNATIVE)) == []
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "qwen", "namespace": "llm"},
        "spec": {"template": {"spec": {"containers": [copy.deepcopy(_VLLM)]}}},
    }
    assert len(messages(READINESS, _r(deployment))) == 1  # no operator fills it in


def test_knative_leaves_a_second_container_without_ports_alone():
    """applyProbes runs on the only container, or on each one declaring ports: a model server beside a proxy that
    owns the port gets none."""
    svc = copy.deepcopy(_KNATIVE)
    server = svc["spec"]["template"]["spec"]["containers"][0]
    del server["ports"]
    svc["spec"]["template"]["spec"]["containers"].insert(
        0, {"name": "proxy", "image": "envoyproxy/envoy:v1.31.0", "ports": [{"containerPort": 8080}]}
    )
    assert [m.split(":")[0] for m in messages(READINESS, _r(svc))] == ["container vllm"]


_RAY = {
    "apiVersion": "ray.io/v1",
    "kind": "RayCluster",
    "metadata": {"name": "vllm", "namespace": "llm"},
    "spec": {
        "headGroupSpec": {
            "rayStartParams": {"num-gpus": "0"},
            "template": {"spec": {"containers": [{"name": "ray-head", "image": "rayproject/ray-llm:2.46.0-py311-cu124"}]}},
        },
        "workerGroupSpecs": [
            {
                "groupName": "gpu",
                "replicas": 1,
                "maxReplicas": 2,
                "rayStartParams": {},
                "template": {
                    "spec": {
                        "containers": [
                            {
                                "name": "ray-worker",
                                "image": "rayproject/ray-llm:2.46.0-py311-cu124",
                                "resources": {"limits": {"nvidia.com/gpu": 8, "memory": "512Gi"}},
                            }
                        ]
                    }
                },
            }
        ],
    },
}


def test_kuberay_supplies_shm_unless_the_object_store_moves():
    """pod.go:854-860 at v1.7.0: no /dev/shm is injected when rayStartParams sets plasma-directory; an 8-GPU Ray
    container then has the runtime's 64Mi for NCCL."""
    assert messages(DSHM, _r(_RAY)) == []
    moved = copy.deepcopy(_RAY)
    moved["spec"]["workerGroupSpecs"][0]["rayStartParams"]["plasma-directory"] = "/tmp/plasma"
    [message] = messages(DSHM, _r(moved))
    assert message.startswith("spec.workerGroupSpecs[0].template.spec container ray-worker: is a Ray pod with GPUs")
    assert "nothing is mounted at /dev/shm" in message


def test_kuberay_fills_in_the_ray_container_only():
    cluster = _r(_RAY)
    pod = cluster.props["spec"]["workerGroupSpecs"][0]["template"]["spec"]
    ray_container = pod["containers"][0]
    path = "spec.workerGroupSpecs[0].template.spec"
    assert supplied(cluster, path, pod, ray_container, "readinessProbe")
    assert supplied(cluster, path, pod, ray_container, "startupProbe") is None
    sidecar = {"name": "sidecar", "image": "busybox:1.36"}
    pod["containers"].append(sidecar)
    assert supplied(cluster, path, pod, sidecar, "readinessProbe") is None


# Set 6's erkerc/rhoai-autoscaling inferenceservice-autoscale.yaml @ dadfb7b9 (shape): a RawDeployment
# InferenceService whose predictor model is vLLM (modelFormat vLLM), with args and resources and no probe, its runtime
# in another file.
_ISVC = {
    "apiVersion": "serving.kserve.io/v1beta1",
    "kind": "InferenceService",
    "metadata": {
        "name": "qwen25-7b-instruct",
        "namespace": "autoscaling-demo",
        "annotations": {"serving.kserve.io/deploymentMode": "RawDeployment"},
    },
    "spec": {
        "predictor": {
            "model": {
                "name": "",
                "modelFormat": {"name": "vLLM"},
                "runtime": "qwen25-7b-instruct",
                "args": ["--max-model-len", "20000"],
                "resources": {"limits": {"nvidia.com/gpu": "1", "memory": "10Gi"}},
            }
        }
    },
}


def test_kserve_gives_the_kserve_container_a_readiness_probe():
    """KServe's reconciler gives kserve-container a TCP readinessProbe on its first port when it has none (kserve
    v0.20.0 deployment_reconciler.go:304-336; the same in opendatahub-io/kserve, RHOAI's fork); the predictor's model
    is kserve-container whatever its ``name`` says (components/predictor.go:432)."""
    assert messages(READINESS, _r(_ISVC)) == []
    # A ServingRuntime's kserve-container (set 6's erkerc/rhoai-autoscaling servingruntime.yaml @ dadfb7b9 shape): same.
    runtime = {
        "apiVersion": "serving.kserve.io/v1alpha1",
        "kind": "ServingRuntime",
        "metadata": {"name": "qwen3-8b"},
        "spec": {"containers": [dict(copy.deepcopy(_VLLM), name="kserve-container", ports=[{"containerPort": 8080}])]},
    }
    assert messages(READINESS, _r(runtime)) == []


def test_kserve_leaves_other_containers_alone():
    """Only kserve-container and transformer-container get the probe: a second vLLM container of another name in a
    runtime is still reported, and the same vLLM in a plain Deployment is."""
    runtime = {
        "apiVersion": "serving.kserve.io/v1alpha1",
        "kind": "ServingRuntime",
        "metadata": {"name": "two"},
        "spec": {
            "containers": [
                {"name": "kserve-container", "image": "example.com/router:1.0", "ports": [{"containerPort": 8080}]},
                dict(copy.deepcopy(_VLLM), name="engine"),
            ]
        },
    }
    found = READINESS.check_resource(_r(runtime), {})
    assert len(found) == 1 and "engine" in found[0]
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "kserve-container-lookalike", "namespace": "llm"},
        "spec": {"template": {"spec": {"containers": [dict(copy.deepcopy(_VLLM), name="kserve-container")]}}},
    }
    assert len(messages(READINESS, _r(deployment))) == 1
