"""G8 workload-resource-requests and G10 workload-memory-limit: the generic hygiene rows on every running container of
every pod template the readers reach, beside the model-server rows (serving-resource-requests, serving-memory-limit).

Firing forms (third-party, spent set 76 and 79): cncf/llm-in-action@64ff29db8732253d0178ca14b2d67994d9ab7541
kubernetes/deployment.yaml (Deployment keynote, a Streamlit front end with no resources) and
a-anurag1024/rinlekha@41c78c93736ae3e976e5999517cfb0c84bb1fb31 k8s/eval-job.yaml (an Indexed eval Job, no resources).
Careful forms that stay silent: a container with requests and a memory limit; a limit alone; a LimitRange default of
the namespace; a VPA that writes the requests (G8); pod-level resources; a Job with resources; a model server (its own
row's message, not a second one); a KServe InferenceService (its defaulter fills resources); an init container.
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

REQUESTS = "workload-resource-requests"
LIMIT = "workload-memory-limit"

# cncf/llm-in-action@64ff29db8732253d0178ca14b2d67994d9ab7541 kubernetes/deployment.yaml (abridged: env left out).
KEYNOTE = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "keynote", "labels": {"app": "keynote"}},
    "spec": {
        "replicas": 1,
        "selector": {"matchLabels": {"app": "keynote"}},
        "template": {
            "metadata": {"labels": {"app": "keynote"}},
            "spec": {
                "containers": [
                    {
                        "name": "keynote",
                        "image": "ghcr.io/cncf/keynote",
                        "imagePullPolicy": "IfNotPresent",
                        "ports": [{"containerPort": 8501}],
                    }
                ]
            },
        },
    },
}

# a-anurag1024/rinlekha@41c78c93736ae3e976e5999517cfb0c84bb1fb31 k8s/eval-job.yaml (abridged: env and volumes left out).
EVAL_JOB = {
    "apiVersion": "batch/v1",
    "kind": "Job",
    "metadata": {"name": "rinlekha-evaluation", "namespace": "rinlekha"},
    "spec": {
        "completions": 3,
        "parallelism": 3,
        "completionMode": "Indexed",
        "template": {
            "spec": {
                "restartPolicy": "Never",
                "containers": [{"name": "eval-worker", "image": "rinlekha/eval:latest", "imagePullPolicy": "Never"}],
            }
        },
    },
}


def _with(obj: dict, **container_fields: object) -> dict:
    out = copy.deepcopy(obj)
    out["spec"]["template"]["spec"]["containers"][0].update(container_fields)
    return out


def _levels(objs: list[dict], policy: str) -> list[str]:
    return [level for level, _ in found_by(objs, policy)]


def test_front_end_with_no_resources_is_advised_once_naming_the_container() -> None:
    requests = found_by([KEYNOTE], REQUESTS)
    assert [level for level, _ in requests] == ["advisory"]
    assert "container keynote (cpu and memory)" in requests[0][1]
    limit = found_by([KEYNOTE], LIMIT)
    assert [level for level, _ in limit] == ["advisory"] and "container keynote" in limit[0][1]


def test_eval_job_with_no_resources_is_advised() -> None:
    assert _levels([EVAL_JOB], REQUESTS) == ["advisory"]
    assert _levels([EVAL_JOB], LIMIT) == ["advisory"]


def test_one_finding_names_every_container_and_a_native_sidecar() -> None:
    obj = copy.deepcopy(KEYNOTE)
    pod = obj["spec"]["template"]["spec"]
    pod["containers"].append({"name": "worker", "image": "ghcr.io/cncf/worker:1.0", "resources": {"requests": {"cpu": "1"}}})
    pod["initContainers"] = [
        {"name": "proxy", "image": "envoyproxy/envoy:v1.31.0", "restartPolicy": "Always"},
        {"name": "migrate", "image": "ghcr.io/cncf/migrate:1.0"},
    ]
    [(_, message)] = found_by([obj], REQUESTS)
    assert "container keynote (cpu and memory)" in message
    assert "container worker (memory)" in message
    assert "container proxy (cpu and memory)" in message
    assert "migrate" not in message  # an init container that runs before the pod serves


def test_requests_and_limit_stay_silent() -> None:
    obj = _with(KEYNOTE, resources={"requests": {"cpu": "250m", "memory": "512Mi"}, "limits": {"memory": "1Gi"}})
    assert found_by([obj], REQUESTS) == [] and found_by([obj], LIMIT) == []
    # A limit alone: the API server defaults the request to it.
    limits_only = _with(EVAL_JOB, resources={"limits": {"cpu": "2", "memory": "4Gi"}})
    assert found_by([limits_only], REQUESTS) == [] and found_by([limits_only], LIMIT) == []


def test_requests_without_a_memory_limit_are_advised_by_g10_only() -> None:
    obj = _with(KEYNOTE, resources={"requests": {"cpu": "250m", "memory": "512Mi"}})
    assert found_by([obj], REQUESTS) == []
    assert _levels([obj], LIMIT) == ["advisory"]


def test_limit_range_default_fills_both() -> None:
    limit_range = {
        "apiVersion": "v1",
        "kind": "LimitRange",
        "metadata": {"name": "defaults", "namespace": "rinlekha"},
        "spec": {"limits": [{"type": "Container", "default": {"cpu": "1", "memory": "1Gi"}}]},
    }
    assert found_by([EVAL_JOB, limit_range], REQUESTS) == []
    assert found_by([EVAL_JOB, limit_range], LIMIT) == []
    other = copy.deepcopy(limit_range)
    other["metadata"]["namespace"] = "elsewhere"
    assert _levels([EVAL_JOB, other], REQUESTS) == ["advisory"]


def test_vpa_writes_the_requests() -> None:
    vpa = {
        "apiVersion": "autoscaling.k8s.io/v1",
        "kind": "VerticalPodAutoscaler",
        "metadata": {"name": "keynote"},
        "spec": {"targetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "keynote"}},
    }
    assert found_by([KEYNOTE, vpa], REQUESTS) == []
    off = copy.deepcopy(vpa)
    off["spec"]["updatePolicy"] = {"updateMode": "Off"}
    assert _levels([KEYNOTE, off], REQUESTS) == ["advisory"]


def test_pod_level_resources_count() -> None:
    obj = copy.deepcopy(KEYNOTE)
    obj["spec"]["template"]["spec"]["resources"] = {"requests": {"cpu": "1", "memory": "1Gi"}, "limits": {"memory": "2Gi"}}
    assert found_by([obj], REQUESTS) == [] and found_by([obj], LIMIT) == []


def test_model_server_keeps_its_own_message() -> None:
    vllm = _with(KEYNOTE, image="vllm/vllm-openai:v0.8.5", name="vllm")
    assert found_by([vllm], REQUESTS) == [] and found_by([vllm], LIMIT) == []
    assert found_by([vllm], "serving-resource-requests") != []


def test_kserve_predictor_is_left_to_its_defaulter() -> None:
    isvc = {
        "apiVersion": "serving.kserve.io/v1beta1",
        "kind": "InferenceService",
        "metadata": {"name": "yolo"},
        "spec": {"predictor": {"containers": [{"name": "kserve-container", "image": "ghcr.io/x/yolo:1.0"}]}},
    }
    assert found_by([isvc], REQUESTS) == [] and found_by([isvc], LIMIT) == []


def test_unreadable_resources_are_not_judged() -> None:
    obj = _with(KEYNOTE, resources="{{ .Values.resources }}")
    assert found_by([obj], REQUESTS) == [] and found_by([obj], LIMIT) == []
    broken = _with(KEYNOTE, resources={"requests": ["cpu"]})
    assert found_by([broken], REQUESTS) == []


# --- G4 workload-readiness-probe -------------------------------------------------------------------------------------
PROBE = "workload-readiness-probe"

# cncf/llm-in-action@64ff29db8732253d0178ca14b2d67994d9ab7541 kubernetes/service.yaml.
KEYNOTE_SERVICE = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "keynote"},
    "spec": {
        "type": "ClusterIP",
        "selector": {"app": "keynote"},
        "ports": [{"protocol": "TCP", "port": 8501, "targetPort": 8501}],
    },
}


def test_front_end_behind_its_service_with_no_probe_is_advised() -> None:
    [(level, message)] = found_by([KEYNOTE, KEYNOTE_SERVICE], PROBE)
    assert level == "advisory" and "container keynote" in message and "Service keynote selects it" in message


def test_declared_port_with_no_service_of_the_files_is_advised() -> None:
    [(level, message)] = found_by([KEYNOTE], PROBE)
    assert level == "advisory" and "none among the files" in message


def test_single_container_with_no_declared_port_counts_when_a_service_targets_a_number() -> None:
    obj = _with(KEYNOTE, ports=None)
    assert _levels([obj, KEYNOTE_SERVICE], PROBE) == ["advisory"]
    assert found_by([obj], PROBE) == []  # no port and no Service: a worker


def test_readiness_probe_anywhere_in_the_pod_stays_silent() -> None:
    probed = _with(KEYNOTE, readinessProbe={"httpGet": {"path": "/_stcore/health", "port": 8501}})
    assert found_by([probed, KEYNOTE_SERVICE], PROBE) == []
    sidecar = copy.deepcopy(KEYNOTE)
    sidecar["spec"]["template"]["spec"]["containers"].append(
        {
            "name": "probe",
            "image": "curlimages/curl:8.8.0",
            "readinessProbe": {"exec": {"command": ["curl", "-fs", "http://localhost:8501/_stcore/health"]}},
        }
    )
    assert found_by([sidecar, KEYNOTE_SERVICE], PROBE) == []
    # A sidecar probe that cannot fail (`true`) holds nothing back (session 55, pod_probes.inert_exec).
    sidecar["spec"]["template"]["spec"]["containers"][1]["readinessProbe"] = {"exec": {"command": ["true"]}}
    assert _levels([sidecar, KEYNOTE_SERVICE], PROBE) == ["advisory"]


def test_jobs_and_model_servers_are_left_alone() -> None:
    job = copy.deepcopy(EVAL_JOB)
    job["spec"]["template"]["spec"]["containers"][0]["ports"] = [{"containerPort": 8080}]
    assert found_by([job], PROBE) == []
    vllm = _with(KEYNOTE, image="vllm/vllm-openai:v0.8.5", name="vllm")
    assert found_by([vllm, KEYNOTE_SERVICE], PROBE) == []  # serving-readiness-probe's


# --- G36 emptydir-bounded --------------------------------------------------------------------------------------------
EMPTYDIR = "emptydir-bounded"

# djleeam/kuberay-eks@517dd105b288b762e78ee5b62ab2d3a5113f6dc0 clusters/ray-cluster.complete.yaml (abridged: the head
# group only, its /tmp/ray log volume).
RAY_CLUSTER = {
    "apiVersion": "ray.io/v1",
    "kind": "RayCluster",
    "metadata": {"name": "raycluster-complete"},
    "spec": {
        "rayVersion": "2.8.0",
        "headGroupSpec": {
            "rayStartParams": {"dashboard-host": "0.0.0.0"},
            "template": {
                "spec": {
                    "containers": [
                        {
                            "name": "ray-head",
                            "image": "rayproject/ray:2.8.0-aarch64",
                            "resources": {"limits": {"cpu": "1", "memory": "2G"}, "requests": {"cpu": "1", "memory": "2G"}},
                            "volumeMounts": [{"mountPath": "/tmp/ray", "name": "ray-logs"}],
                        }
                    ],
                    "volumes": [{"name": "ray-logs", "emptyDir": {}}],
                }
            },
        },
    },
}


def test_unbounded_disk_emptydir_is_advised_on_any_pod_template() -> None:
    [(level, message)] = found_by([RAY_CLUSTER], EMPTYDIR)
    assert level == "advisory" and "emptyDir ray-logs" in message


def test_bounded_emptydir_forms_stay_silent() -> None:
    sized = copy.deepcopy(RAY_CLUSTER)
    sized["spec"]["headGroupSpec"]["template"]["spec"]["volumes"][0]["emptyDir"] = {"sizeLimit": "5Gi"}
    assert found_by([sized], EMPTYDIR) == []
    asked = copy.deepcopy(RAY_CLUSTER)
    asked["spec"]["headGroupSpec"]["template"]["spec"]["containers"][0]["resources"]["requests"]["ephemeral-storage"] = "10Gi"
    assert found_by([asked], EMPTYDIR) == []
    memory = copy.deepcopy(RAY_CLUSTER)
    memory["spec"]["headGroupSpec"]["template"]["spec"]["volumes"][0]["emptyDir"] = {"medium": "Memory"}
    assert found_by([memory], EMPTYDIR) == []  # memory-emptydir-size-limit's
    limit_range = {
        "apiVersion": "v1",
        "kind": "LimitRange",
        "metadata": {"name": "disk"},
        "spec": {"limits": [{"type": "Container", "defaultRequest": {"ephemeral-storage": "1Gi"}}]},
    }
    assert found_by([RAY_CLUSTER, limit_range], EMPTYDIR) == []


# --- G11 on a KServe predictor written with a framework key -------------------------------------------------------------
# wbe7/torchrt@2db3af4d946a423594b89c11b3cc4ce3ad4744e5 inferenceservice-full.yaml (abridged): a triton predictor
# (kserve v0.20.0 predictor.go:47-48, a PredictorExtensionSpec inlining corev1.Container, :122-135) with one GPU, memory
# 1Gi requested under a 4Gi limit.
TRITON_ISVC = {
    "apiVersion": "serving.kserve.io/v1beta1",
    "kind": "InferenceService",
    "metadata": {"name": "california-housing", "namespace": "torchrt"},
    "spec": {
        "predictor": {
            "triton": {
                "storageUri": "s3://models/torchrt/models/",
                "resources": {
                    "requests": {"cpu": "1", "memory": "1Gi", "nvidia.com/gpu": "1"},
                    "limits": {"cpu": "2", "memory": "4Gi", "nvidia.com/gpu": "1"},
                },
            }
        }
    },
}


def test_framework_predictor_gpu_pod_burstable_is_advised() -> None:
    [(level, message)] = found_by([TRITON_ISVC], "gpu-memory-request-equals-limit")
    assert level == "advisory" and "1Gi differs from its limit 4Gi" in message
    equal = copy.deepcopy(TRITON_ISVC)
    equal["spec"]["predictor"]["triton"]["resources"]["requests"]["memory"] = "4Gi"
    assert found_by([equal], "gpu-memory-request-equals-limit") == []


# --- G27 on a native sidecar ------------------------------------------------------------------------------------------
def test_model_server_in_a_native_sidecar_is_held_to_g27() -> None:
    # CivicPulse/geo-api@454a876aa8bb1fc7591f29b10b5ef80b114ec85b k8s/base/deployment.yaml (abridged): Ollama as a
    # native sidecar (an init container with restartPolicy Always) with no securityContext.
    obj = copy.deepcopy(KEYNOTE)
    obj["spec"]["template"]["spec"]["initContainers"] = [
        {"name": "ollama", "image": "ollama/ollama:0.5.7", "restartPolicy": "Always", "ports": [{"containerPort": 11434}]}
    ]
    found = found_by([obj], "serving-privilege-escalation")
    assert [level for level, _ in found] == ["advisory"] and "container ollama" in found[0][1]
    careful = copy.deepcopy(obj)
    careful["spec"]["template"]["spec"]["initContainers"][0]["securityContext"] = {"allowPrivilegeEscalation": False}
    assert found_by([careful], "serving-privilege-escalation") == []
    once = copy.deepcopy(obj)
    del once["spec"]["template"]["spec"]["initContainers"][0]["restartPolicy"]  # a pull that runs before the pod
    assert found_by([once], "serving-privilege-escalation") == []


# --- G1 a locally built tag -----------------------------------------------------------------------------------------
def test_local_build_tag_is_moving() -> None:
    # DemecosChambers/GPUArchitectureAWS@57c81b41e83b096113c5c14a3cb6662aa8bd3245 k8s/apps/inference.yaml: inference:local.
    local = _with(KEYNOTE, image="inference:local")
    assert [level for level, _ in found_by([local], "image-tag-pinned")] == ["advisory"]
    assert found_by([_with(KEYNOTE, image="inference:1.4.2")], "image-tag-pinned") == []


def test_chat_ui_keeps_its_own_g4_finding() -> None:
    webui = _with(KEYNOTE, image="ghcr.io/open-webui/open-webui:v0.6.5", ports=[{"containerPort": 8080}])
    assert found_by([webui, KEYNOTE_SERVICE], PROBE) == []
    assert found_by([webui, KEYNOTE_SERVICE], "serving-readiness-probe") != []


# --- review50b: operator kinds that fill the probe, and run-to-completion kinds of other operators -------------------


def test_knative_service_gets_its_readiness_probe_from_knative() -> None:
    """Knative's webhook gives the serving container a TCP readinessProbe when it has none (knative/serving
    knative-v1.23.0 pkg/apis/serving/v1/revision_defaults.go:134-138 applyDefault, :160-170
    applyUserContainerDefaultReadinessProbe), so G4's generic row stays silent; G8 still advises (config-defaults
    sets no revision-cpu-request unless the operator configures one: pkg/apis/config/defaults.go:80-93)."""
    knative = {
        "apiVersion": "serving.knative.dev/v1",
        "kind": "Service",
        "metadata": {"name": "web", "namespace": "demo"},
        "spec": {
            "template": {
                "spec": {
                    "containers": [{"name": "web", "image": "ghcr.io/example/web:1.2.3", "ports": [{"containerPort": 8080}]}]
                }
            }
        },
    }
    assert found_by([knative], PROBE) == []
    assert _levels([knative], REQUESTS) == ["advisory"]


def test_training_operator_jobs_run_to_completion() -> None:
    """A Kubeflow PyTorchJob's pods run to completion (the replica's restartPolicy, not the pod's): its master port is
    the rendezvous of the workers, not a Service's traffic to probe."""
    job = {
        "apiVersion": "kubeflow.org/v1",
        "kind": "PyTorchJob",
        "metadata": {"name": "train", "namespace": "demo"},
        "spec": {
            "pytorchReplicaSpecs": {
                "Master": {
                    "replicas": 1,
                    "restartPolicy": "OnFailure",
                    "template": {
                        "spec": {
                            "containers": [
                                {
                                    "name": "pytorch",
                                    "image": "ghcr.io/example/train:1.0",
                                    "ports": [{"containerPort": 23456, "name": "pytorchjob-port"}],
                                }
                            ]
                        }
                    },
                }
            }
        },
    }
    assert found_by([job], PROBE) == []
    jobset = {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": {"name": "train", "namespace": "demo"},
        "spec": {
            "replicatedJobs": [
                {
                    "name": "workers",
                    "template": {
                        "spec": {
                            "template": {
                                "spec": {
                                    "containers": [
                                        {"name": "w", "image": "ghcr.io/example/train:1.0", "ports": [{"containerPort": 8476}]}
                                    ]
                                }
                            }
                        }
                    },
                }
            ]
        },
    }
    assert found_by([jobset], PROBE) == []


def test_a_critical_node_agent_is_not_told_it_is_evicted_first() -> None:
    """review50b: the kubelet never evicts a critical pod (priority >= 2000000000: system-node-critical,
    system-cluster-critical; kubernetes pkg/kubelet/eviction/eviction_manager.go evictPod, IsCriticalPod: 'cannot evict a
    critical pod'). NVIDIA's device plugin DaemonSet as its static manifest ships it (spent set 69 juancavallotti/k8s-ssm
    k8s/nvidia-device-plugin.yaml, priorityClassName system-node-critical, no resources) keeps the scheduling advice only."""
    plugin = {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": "nvidia-device-plugin-daemonset", "namespace": "kube-system"},
        "spec": {
            "selector": {"matchLabels": {"name": "nvidia-device-plugin-ds"}},
            "template": {
                "metadata": {"labels": {"name": "nvidia-device-plugin-ds"}},
                "spec": {
                    "priorityClassName": "system-node-critical",
                    "containers": [{"name": "nvidia-device-plugin", "image": "nvcr.io/nvidia/k8s-device-plugin:v0.17.0"}],
                },
            },
        },
    }
    [(level, message)] = found_by([plugin], REQUESTS)
    assert level == "advisory" and "container nvidia-device-plugin" in message and "evicts" not in message
    [(_, keynote)] = found_by([KEYNOTE], REQUESTS)
    assert "first pods the kubelet evicts" in keynote
