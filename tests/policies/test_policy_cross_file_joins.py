"""`policies check FOLDER` reads the folder as one set: an HTTPRoute joins its Gateway in another file (G32), an HPA its
Deployment in another file (S6), and each finding carries the file of the object it is on."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from tests.conftest import check_in_process

# velrite/project7-ai-inference-platform k8s/vllm-deployment.yaml at 1d0d4e3 (cut down, namespace llm): vLLM on one
# GPU; a Gateway of GKE's external managed class in its own file (GoogleCloudPlatform/kubernetes-engine-samples
# ai-ml/gke-ray/rayserve/ingress layout: gateway.yaml beside httproute.yaml), and a CPU HPA in a third.
FILES = {
    "deploy.yaml": {
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
                            "image": "vllm/vllm-openai:v0.8.5",
                            "args": ["--model=Qwen/Qwen2.5-7B-Instruct", "--max-model-len=8192"],
                            "resources": {"limits": {"nvidia.com/gpu": 1}},
                        }
                    ]
                },
            },
        },
    },
    "gateway.yaml": {
        "apiVersion": "gateway.networking.k8s.io/v1",
        "kind": "Gateway",
        "metadata": {"name": "external-http", "namespace": "llm"},
        "spec": {
            "gatewayClassName": "gke-l7-global-external-managed",
            "listeners": [{"name": "http", "protocol": "HTTP", "port": 80}],
        },
    },
    "route.yaml": {
        "apiVersion": "gateway.networking.k8s.io/v1",
        "kind": "HTTPRoute",
        "metadata": {"name": "vllm-route", "namespace": "llm"},
        "spec": {"parentRefs": [{"name": "external-http"}], "rules": [{"backendRefs": [{"name": "vllm", "port": 8000}]}]},
    },
    "svc.yaml": {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "vllm", "namespace": "llm"},
        "spec": {"selector": {"app": "vllm"}, "ports": [{"port": 8000, "targetPort": 8000}]},
    },
    "hpa.yaml": {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "vllm", "namespace": "llm"},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "vllm"},
            "minReplicas": 1,
            "maxReplicas": 3,
            "metrics": [
                {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 70}}}
            ],
        },
    },
}


def check(folder: Path) -> list[dict]:
    done = check_in_process(str(folder), "--format", "json")  # `python -m policies check`, in this process
    return json.loads(done.stdout)["violations"]


def test_objects_in_other_files_of_the_folder_are_joined_and_findings_name_their_own_file(tmp_path):
    for name, obj in FILES.items():
        (tmp_path / name).write_text(yaml.safe_dump(obj))
    found = {(v["policy"], Path(v["file"]).name, v["enforcement"]) for v in check(tmp_path)}
    # The route (route.yaml) publishes a model through a public Gateway and nothing guards it: blocking, on the Gateway
    # that owns the listener and the Service (gateway.yaml; spent sets 17 and 18 label the Gateway).
    assert ("public-model-endpoint-guarded", "gateway.yaml", "mandatory") in found
    # The HPA's target (deploy.yaml) is joined: the finding on hpa.yaml knows it is a GPU workload (CPU scaling of a GPU
    # workload is advice since session 43: CPU may still reach the target).
    s6 = "gpu-workload-no-resource-metric-hpa"
    joined = [v["message"] for v in check(tmp_path) if v["policy"] == s6 and Path(v["file"]).name == "hpa.yaml"]
    assert any(" is a GPU workload but " in m for m in joined), joined
    # Checked alone, the HPA's target is in no file read: the finding says so.
    alone = tmp_path / "alone"
    alone.mkdir()
    (alone / "hpa.yaml").write_text(yaml.safe_dump(FILES["hpa.yaml"]))
    assert not [v for v in check(alone) if v["policy"] == s6 and " is a GPU workload but " in v["message"]]
