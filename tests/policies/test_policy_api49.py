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
                "spec": {
                    "containers": [{"name": "ollama", "image": "ollama/ollama:0.6.5", "ports": [{"containerPort": 11434}]}]
                },
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
