"""Problems labellers filed as NONE that the files prove (brief none50), each a third-party form that fires and a careful
form that stays silent.

- G96 quota-requests-set: a ResourceQuota on cpu/memory and a pod that states none: the ResourceQuota admission plugin
  refuses it (kubernetes/apiserver v0.33.0 pkg/admission/plugin/resourcequota/controller.go:468-472; kubernetes
  pkg/quota/v1/evaluator/core/pods.go validationSet, Constraints, enforcePodContainerConstraints at code index stored
  version 05e7cb29). Spent set 78: paravatha/k8s-llmops-iac@955ec2051d2a07517e351b5666adab9b48cd3c89:4-gpu/pytorch.yaml
  and 4-gpu/limits.yaml.
- G97 key-stated-once: a key written twice with different values: kubectl keeps the last (k8s.io/apimachinery v0.33.0
  pkg/util/yaml/decoder.go:125-132; sigs.k8s.io/yaml v1.4.0 yaml.go:50-57). Spent set 73:
  local-ops/graph-demo@00e749c0a9c42cb060ede13433e87f0bfb475276:k8s/ollama-pull-job.yaml (two env: keys).
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys

from policy_fixtures import found_by

from tests.conftest import ROOT

G96 = "quota-requests-set"
G97 = "key-stated-once"


# paravatha/k8s-llmops-iac@955ec205 4-gpu/limits.yaml: the quota of namespace test.
QUOTA = {
    "apiVersion": "v1",
    "kind": "ResourceQuota",
    "metadata": {"name": "compute-resources", "namespace": "test"},
    "spec": {
        "hard": {
            "pods": "20",
            "requests.cpu": "1",
            "requests.memory": "2Gi",
            "requests.ephemeral-storage": "5Gi",
            "limits.cpu": "4",
            "limits.memory": "8Gi",
            "limits.ephemeral-storage": "10Gi",
        }
    },
}

# paravatha/k8s-llmops-iac@955ec205 4-gpu/pytorch.yaml: a Pod of namespace test with only a GPU limit.
PYTORCH = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "pytorch", "namespace": "test"},
    "spec": {
        "restartPolicy": "OnFailure",
        "containers": [
            {
                "name": "main",
                "image": "nvcr.io/nvidia/pytorch:24.02-py3",
                "command": ["sleep", "360000"],
                "resources": {"limits": {"nvidia.com/gpu": 1}},
            }
        ],
    },
}


def test_a_pod_stating_no_cpu_or_memory_under_a_quota_blocks():
    ((level, message),) = found_by([QUOTA, PYTORCH], G96)
    assert level == "mandatory"
    assert "ResourceQuota compute-resources of namespace test" in message
    assert (
        "'failed quota: compute-resources: must specify limits.cpu for: main; limits.memory for: main; "
        "requests.cpu for: main; requests.memory for: main')" in message
    )


def test_limits_alone_satisfy_requests_and_a_missing_init_container_is_named():
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "vllm", "namespace": "test"},
        "spec": {
            "selector": {"matchLabels": {"app": "vllm"}},
            "template": {
                "metadata": {"labels": {"app": "vllm"}},
                "spec": {
                    "initContainers": [{"name": "fetch", "image": "busybox:1.36"}],
                    "containers": [
                        {
                            "name": "vllm",
                            "image": "vllm/vllm-openai:v0.8.5",
                            "resources": {"limits": {"cpu": "4", "memory": "16Gi", "nvidia.com/gpu": 1}},
                        }
                    ],
                },
            },
        },
    }
    ((level, message),) = found_by([QUOTA, deployment], G96)
    assert level == "mandatory"
    assert "must specify limits.cpu for: fetch; limits.memory for: fetch; requests.cpu for: fetch;" in message
    assert "vllm" not in message.split("must specify")[1]


def test_careful_forms_stay_silent():
    careful = copy.deepcopy(PYTORCH)
    careful["spec"]["containers"][0]["resources"] = {"limits": {"cpu": "2", "memory": "4Gi", "nvidia.com/gpu": 1}}
    assert found_by([QUOTA, careful], G96) == []
    # A LimitRange of the namespace defaults what the pod lacks (its max becomes the default when none is given).
    limit_range = {
        "apiVersion": "v1",
        "kind": "LimitRange",
        "metadata": {"name": "defaults", "namespace": "test"},
        "spec": {"limits": [{"type": "Container", "default": {"cpu": "1"}, "max": {"memory": "4Gi"}}]},
    }
    assert found_by([QUOTA, limit_range, PYTORCH], G96) == []
    # Another namespace, a scoped quota, a quota of other resources only.
    other = copy.deepcopy(PYTORCH)
    other["metadata"]["namespace"] = "serving"
    assert found_by([QUOTA, other], G96) == []
    scoped = copy.deepcopy(QUOTA)
    scoped["spec"]["scopes"] = ["NotBestEffort"]
    assert found_by([scoped, PYTORCH], G96) == []
    gpus_only = copy.deepcopy(QUOTA)
    gpus_only["spec"]["hard"] = {"requests.nvidia.com/gpu": "4", "pods": "10"}
    assert found_by([gpus_only, PYTORCH], G96) == []


def test_no_namespace_on_either_and_an_operator_resource_are_advice():
    quota, pod = copy.deepcopy(QUOTA), copy.deepcopy(PYTORCH)
    del quota["metadata"]["namespace"], pod["metadata"]["namespace"]
    ((level, message),) = found_by([quota, pod], G96)
    assert level == "advisory" and "neither states one" in message
    nim = {
        "apiVersion": "apps.nvidia.com/v1alpha1",
        "kind": "NIMService",
        "metadata": {"name": "llama", "namespace": "test"},
        "spec": {"image": {"repository": "nvcr.io/nim/meta/llama-3.1-8b-instruct", "tag": "1.3.3"}},
    }
    assert all(level == "advisory" for level, _ in found_by([QUOTA, nim], G96))


def test_bad_input_never_tracebacks():
    broken = copy.deepcopy(QUOTA)
    broken["spec"] = {"hard": ["cpu"]}
    assert found_by([broken, PYTORCH], G96) == []
    weird = copy.deepcopy(PYTORCH)
    weird["spec"]["containers"] = [{"name": "main", "image": "x", "resources": "none"}, "junk"]
    assert [level for level, _ in found_by([QUOTA, weird], G96)] == ["mandatory"]


# local-ops/graph-demo@00e749c0 k8s/ollama-pull-job.yaml, its shape: two env: keys in one container.
PULL_JOB = """apiVersion: batch/v1
kind: Job
metadata: {name: ollama-pull-models, namespace: lightrag-stack}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: pull
          image: ollama/ollama:0.6.5
          env:
            - name: OLLAMA_HOST
              value: "http://ollama.lightrag-stack.svc.cluster.local:11434"
          command: [/bin/sh, -c, 'ollama pull "${PULL_LLM_MODEL}"']
          env:
            - name: PULL_LLM_MODEL
              value: "qwen2.5:0.5b"
"""


def _rows(tmp_path, text: str) -> list[dict]:
    path = tmp_path / "job.yaml"
    path.write_text(text)
    proc = subprocess.run(
        [sys.executable, "-m", "policies", "check", str(path), "--format", "json"], cwd=ROOT, capture_output=True, text=True
    )
    return json.loads(proc.stdout)["violations"]


def test_two_env_lists_in_one_container_name_the_variable_dropped(tmp_path):
    rows = _rows(tmp_path, PULL_JOB)
    ((row),) = [r for r in rows if r["policy"] == G97]
    assert row["enforcement"] == "advisory"
    assert row["message"].startswith("spec.template.spec.containers[0].env is written twice with different values")
    assert "the first list's OLLAMA_HOST never reaches the object" in row["message"]
    # S27 still says the file is not strictly readable.
    assert [r["enforcement"] for r in rows if r["policy"] == "manifest-readable"] == ["advisory"]


def test_a_key_repeated_with_the_same_value_and_a_clean_file_stay_silent(tmp_path):
    twice = """apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  nodeSelector: {gpu: a100}
  containers: [{name: c, image: busybox:1.36}]
  nodeSelector: {gpu: a100}
"""
    assert not [r for r in _rows(tmp_path, twice) if r["policy"] == G97]
    clean = PULL_JOB.replace("          env:\n            - name: PULL_LLM_MODEL\n", "            - name: PULL_LLM_MODEL\n")
    assert not [r for r in _rows(tmp_path, clean) if r["policy"] == G97]
