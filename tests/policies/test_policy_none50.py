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
- G84 claim-writable-by-user, widened to well-known apps with a fixed non-root user (components/image_users.toml:
  grafana/helm-charts grafana-8.15.0 charts/grafana/values.yaml:148-152, UID 472; prometheus/prometheus v3.1.0
  Dockerfile:16-24, nobody). Spent set 78: Brayantcw/kserve_k8s_setup k8s/monitoring/grafana.yaml (grafana/grafana:11.4.0
  over a gp3 claim, no fsGroup).
- G98 host-port-rollout: a Deployment holding a hostPort whose maxUnavailable resolves to 0 needs a spare node for
  its surge pod (https://kubernetes.io/docs/concepts/configuration/overview/ hostPort uniqueness;
  .../controllers/deployment/#max-unavailable rounding down). Spent set 79:
  aknot242/genai-stack k8s/llm-deployment.yaml (kompose output, hostPort 11434, one replica, default strategy).
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
G84 = "claim-writable-by-user"
G98 = "host-port-rollout"


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
    assert found_by([QUOTA, weird], G96) == []  # resources not a mapping: nothing the files state (review50c)


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


def _grafana(storage_class="gp3", pod_context=None, image="grafana/grafana:11.4.0") -> list[dict]:
    """Brayantcw/kserve_k8s_setup k8s/monitoring/grafana.yaml, its shape: Grafana over a gp3 claim, no fsGroup."""
    pod = {
        "containers": [
            {
                "name": "grafana",
                "image": image,
                "ports": [{"containerPort": 3000}],
                "volumeMounts": [
                    {"name": "dashboards", "mountPath": "/var/lib/grafana/dashboards"},
                    {"name": "grafana-storage", "mountPath": "/var/lib/grafana"},
                ],
            }
        ],
        "volumes": [
            {"name": "dashboards", "configMap": {"name": "grafana-dashboards"}},
            {"name": "grafana-storage", "persistentVolumeClaim": {"claimName": "grafana-pvc"}},
        ],
    }
    if pod_context is not None:
        pod["securityContext"] = pod_context
    claim_spec = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "5Gi"}}}
    if storage_class is not None:
        claim_spec["storageClassName"] = storage_class
    return [
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "grafana", "namespace": "monitoring"},
            "spec": {
                "selector": {"matchLabels": {"app": "grafana"}},
                "template": {"metadata": {"labels": {"app": "grafana"}}, "spec": pod},
            },
        },
        {
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": {"name": "grafana-pvc", "namespace": "monitoring"},
            "spec": claim_spec,
        },
    ]


def test_grafana_over_a_new_gp3_claim_without_fs_group_blocks():
    ((level, message),) = found_by(_grafana(), G84)
    assert level == "mandatory"
    assert message.startswith("container grafana: grafana/grafana runs as user 472 and must write /var/lib/grafana")
    assert "set securityContext.fsGroup: 472" in message


def test_grafana_careful_forms():
    assert found_by(_grafana(pod_context={"fsGroup": 472}), G84) == []
    assert found_by(_grafana(pod_context={"runAsUser": 0}), G84) == []
    # No class, or a class of the files whose provisioner makes world-writable folders: advice.
    assert [level for level, _ in found_by(_grafana(storage_class=None), G84)] == ["advisory"]
    local = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "gp3"}}
    local["provisioner"] = "rancher.io/local-path"
    assert [level for level, _ in found_by([*_grafana(), local], G84)] == ["advisory"]
    # An init container that chowns the folder; an image the table does not list.
    objs = _grafana()
    objs[0]["spec"]["template"]["spec"]["initContainers"] = [
        {
            "name": "init-chown-data",
            "image": "busybox:1.36",
            "command": ["chown", "-R", "472:472", "/var/lib/grafana"],
            "volumeMounts": [{"name": "grafana-storage", "mountPath": "/var/lib/grafana"}],
        }
    ]
    assert found_by(objs, G84) == []
    assert found_by(_grafana(image="bitnami/grafana:11.4.0"), G84) == []


def test_prometheus_with_a_moved_tsdb_path_on_an_ebs_class_of_the_files():
    ebs = {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass",
        "metadata": {"name": "fast"},
        "provisioner": "ebs.csi.aws.com",
    }
    prometheus = {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": "prometheus", "namespace": "monitoring"},
        "spec": {
            "serviceName": "prometheus",
            "selector": {"matchLabels": {"app": "prometheus"}},
            "template": {
                "metadata": {"labels": {"app": "prometheus"}},
                "spec": {
                    "containers": [
                        {
                            "name": "prometheus",
                            "image": "prom/prometheus:v3.1.0",
                            "args": ["--config.file=/etc/prometheus/prometheus.yml", "--storage.tsdb.path=/data"],
                            "volumeMounts": [{"name": "data", "mountPath": "/data"}],
                        }
                    ]
                },
            },
            "volumeClaimTemplates": [
                {"metadata": {"name": "data"}, "spec": {"storageClassName": "fast", "accessModes": ["ReadWriteOnce"]}}
            ],
        },
    }
    ((level, message),) = found_by([ebs, prometheus], G84)
    assert level == "mandatory" and "prom/prometheus runs as user 65534 and must write /data" in message
    # Mounted where the flag no longer points: silent.
    prometheus["spec"]["template"]["spec"]["containers"][0]["volumeMounts"][0]["mountPath"] = "/prometheus"
    assert found_by([ebs, prometheus], G84) == []


def _llm(strategy=None, replicas=1, host_network=False) -> dict:
    """aknot242/genai-stack k8s/llm-deployment.yaml, its shape: kompose's Ollama Deployment with hostPort 11434."""
    port = {"containerPort": 11434, "protocol": "TCP"}
    if not host_network:
        port["hostPort"] = 11434
    pod: dict = {"containers": [{"name": "llm", "image": "ollama/ollama:0.6.5", "ports": [port]}]}
    if host_network:
        pod["hostNetwork"] = True
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "llm"},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"io.kompose.service": "llm"}},
            "strategy": strategy if strategy is not None else {},
            "template": {"metadata": {"labels": {"io.kompose.service": "llm"}}, "spec": pod},
        },
    }


def test_a_host_port_with_the_default_rolling_update_is_advice():
    ((level, message),) = found_by([_llm()], G98)
    assert level == "advisory"
    assert message.startswith("container llm hostPort 11434: a pod holding a host port runs only on a node")
    assert "maxUnavailable resolves to 0 for 1 replica(s)" in message
    ((level, _),) = found_by([_llm(replicas=3, host_network=True)], G98)
    assert level == "advisory"


def test_host_port_careful_forms_stay_silent():
    assert found_by([_llm(strategy={"type": "Recreate"})], G98) == []
    assert found_by([_llm(strategy={"rollingUpdate": {"maxSurge": 0, "maxUnavailable": 1}})], G98) == []
    assert found_by([_llm(replicas=4)], G98) == []  # 25% of 4 rounds down to 1
    no_port = _llm()
    del no_port["spec"]["template"]["spec"]["containers"][0]["ports"][0]["hostPort"]
    assert found_by([no_port], G98) == []
    assert found_by([_llm(strategy={"rollingUpdate": {"maxUnavailable": "{{ .Values.x }}"}})], G98) == []
