"""Careful third-party forms that long-standing mandatory rules once blocked because they assumed this project's own
conventions; each keeps a form the rule must still block."""

from __future__ import annotations

import copy

from policy_fixtures import RAISED
from policy_fixtures import found_by as _pack_found_by


def found_by(objs: list[dict], policy: str, config: dict | None = None) -> list[tuple[str, str]]:
    """The pack's findings with the advisory hygiene rows raised (policy_fixtures.RAISED), so this file's
    proven-blocks / unproven-advises pairs stay told apart."""
    return _pack_found_by(objs, policy, RAISED if config is None else config)


# A vLLM Deployment that sets no cpu/memory requests or limits of its own (shape of the held-out set 8 file
# aatchison/deploy-vllm-k8s deploy-gemma4-31B-bf16-tp2.yaml, reduced: only nvidia.com/gpu under limits).
SERVER = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "vllm", "namespace": "vllm"},
    "spec": {
        "selector": {"matchLabels": {"app": "vllm"}},
        "template": {
            "metadata": {"labels": {"app": "vllm"}},
            "spec": {
                "containers": [
                    {
                        "name": "vllm",
                        "image": "vllm/vllm-openai:v0.10.1",
                        "args": ["--model", "/models/qwen"],
                        "resources": {"limits": {"nvidia.com/gpu": 1}},
                    }
                ]
            },
        },
    },
}
# Kubernetes' documented namespace defaults ("Configure Default Memory Requests and Limits for a Namespace",
# kubernetes.io/docs/tasks/administer-cluster/manage-resources/memory-default-namespace/, memory-defaults.yaml:
# a Container LimitRange with default and defaultRequest), here with cpu too.
LIMIT_RANGE = {
    "apiVersion": "v1",
    "kind": "LimitRange",
    "metadata": {"name": "mem-limit-range", "namespace": "vllm"},
    "spec": {"limits": [{"type": "Container", "default": {"memory": "64Gi", "cpu": "8"}, "defaultRequest": {"memory": "32Gi"}}]},
}


def test_a_namespace_limit_range_in_the_run_fills_requests_and_limits():
    for policy in ("serving-memory-limit", "serving-resource-requests"):
        assert [e for e, _ in found_by([SERVER], policy)] == ["mandatory"], policy
        assert found_by([SERVER, LIMIT_RANGE], policy) == [], policy
    # A LimitRange of another namespace, or one without the field, fills nothing.
    elsewhere = copy.deepcopy(LIMIT_RANGE)
    elsewhere["metadata"]["namespace"] = "other"
    assert [e for e, _ in found_by([SERVER, elsewhere], "serving-memory-limit")] == ["mandatory"]
    cpu_only = copy.deepcopy(LIMIT_RANGE)
    cpu_only["spec"]["limits"][0] = {"type": "Container", "default": {"cpu": "8"}}
    (finding,) = found_by([SERVER, cpu_only], "serving-resource-requests")
    assert finding[0] == "mandatory" and "no memory request" in finding[1]
    pod_type = copy.deepcopy(LIMIT_RANGE)
    pod_type["spec"]["limits"][0]["type"] = "Pod"
    assert [e for e, _ in found_by([SERVER, pod_type], "serving-memory-limit")] == ["mandatory"]


def _image(image: str) -> dict:
    server = copy.deepcopy(SERVER)
    server["spec"]["template"]["spec"]["containers"][0]["image"] = image
    return server


def test_a_per_commit_nightly_image_is_pinned_and_the_moving_nightly_is_not():
    # vLLM's per-commit nightly images, vllm/vllm-openai:nightly-<commit> (full or short id; e.g. the public Dockerfile
    # ARG VLLM_BASE_IMAGE=vllm/vllm-openai:nightly-d00df624f313a6a5a7a6245b71448b068b080cd7 found in the code index),
    # name one build each.
    for image in ("vllm/vllm-openai:nightly-d00df624f313a6a5a7a6245b71448b068b080cd7", "vllm/vllm-openai:nightly-d223c90"):
        assert found_by([_image(image)], "image-tag-pinned") == [], image
    for image in ("vllm/vllm-openai:nightly", "vllm/vllm-openai:nightly-aarch64", "vllm/vllm-openai:cu130-nightly-x86_64"):
        assert [e for e, _ in found_by([_image(image)], "image-tag-pinned")] == ["mandatory"], image


def _pdb(selector: dict, **spec) -> dict:
    return {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": "budget", "namespace": "vllm"},
        "spec": {"selector": {"matchLabels": selector}, **spec},
    }


def test_a_zero_budget_on_a_multi_node_engine_is_advice():
    # The form kuberay-cluster-pdb itself recommends for one engine over several nodes: maxUnavailable 0 on
    # ray.io/cluster (KubeRay labels the pods it creates so).
    assert [e for e, _ in found_by([_pdb({"ray.io/cluster": "llama-405b"}, maxUnavailable=0)], "pdb-allows-disruption")] == [
        "advisory"
    ]
    assert [
        e for e, _ in found_by([_pdb({"leaderworkerset.sigs.k8s.io/name": "vllm"}, minAvailable="100%")], "pdb-allows-disruption")
    ] == ["advisory"]
    # The same budget on a plain serving Deployment still blocks every drain.
    assert [e for e, _ in found_by([SERVER, _pdb({"app": "vllm"}, maxUnavailable=0)], "pdb-allows-disruption")] == ["mandatory"]


def test_min_available_is_judged_against_the_hpa_floor():
    two = copy.deepcopy(SERVER)
    two["spec"]["replicas"] = 1
    hpa = {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "vllm", "namespace": "vllm"},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "vllm"},
            "minReplicas": 2,
            "maxReplicas": 4,
        },
    }
    budget = _pdb({"app": "vllm"}, minAvailable=1)
    assert [e for e, _ in found_by([two, budget], "pdb-below-replicas")] == ["mandatory"]
    assert found_by([two, budget, hpa], "pdb-below-replicas") == []  # the HPA keeps two replicas


def _qwen(*args: str, image: str = "vllm/vllm-openai:v0.10.1") -> dict:
    server = copy.deepcopy(SERVER)
    container = server["spec"]["template"]["spec"]["containers"][0]
    container["image"] = image
    container["args"] = ["--model", "Qwen/Qwen2.5-7B-Instruct", *args]
    server["spec"]["template"]["spec"]["nodeSelector"] = {"karpenter.k8s.aws/instance-gpu-name": "h100"}
    return server


YARN = '{"rope_scaling": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}}'


def test_a_rope_scaling_override_lifts_the_context_limit():
    # Qwen2.5's long-context recipe as public serve scripts write it (code-index file 52449457435: `vllm serve
    # .../Qwen2.5-Coder-7B-Instruct --max-model-len 131072 --hf-overrides '{"rope_scaling": {"rope_type": "yarn",
    # "factor": 4.0, "original_max_position_embeddings": 32768}}'`): vLLM derives 131,072 from the overridden config.
    plain = _qwen("--max-model-len", "131072")
    assert [e for e, _ in found_by([plain], "vllm-context-within-model-limit")] == ["mandatory"]
    for server in (
        _qwen("--max-model-len", "131072", "--hf-overrides", YARN),
        _qwen("--max-model-len", "65536", "--rope-scaling", YARN[len('{"rope_scaling": ') : -1], image="vllm/vllm-openai:v0.8.5"),
    ):
        assert found_by([server], "vllm-context-within-model-limit") == []
        # S2's plan makes the same start-up check: it leaves it to S23's row (and its override) too.
        assert not [m for _, m in found_by([server], "vllm-max-model-len-fits-kv-cache") if "model's maximum" in m]
    allowed = _qwen("--max-model-len", "65536")
    allowed["spec"]["template"]["spec"]["containers"][0]["env"] = [{"name": "VLLM_ALLOW_LONG_MAX_MODEL_LEN", "value": "1"}]
    assert not [m for _, m in found_by([allowed], "vllm-max-model-len-fits-kv-cache") if "model's maximum" in m]


def test_a_startup_probe_holds_traffic_until_the_model_is_loaded():
    # startupProbe and livenessProbe on /health, no readinessProbe: un-Ready until the startup probe answers, and a
    # dead engine restarted within the liveness window; advice. A startupProbe alone still blocks (a dead engine keeps
    # its traffic), and the message no longer claims traffic before the model loads.
    server = copy.deepcopy(SERVER)
    container = server["spec"]["template"]["spec"]["containers"][0]
    container["startupProbe"] = {"httpGet": {"path": "/health", "port": 8000}, "failureThreshold": 90, "periodSeconds": 10}
    container["livenessProbe"] = {"httpGet": {"path": "/health", "port": 8000}}
    ((level, message),) = found_by([server], "serving-readiness-probe")
    assert level == "advisory" and "until the livenessProbe restarts it" in message
    del container["livenessProbe"]
    ((level, message),) = found_by([server], "serving-readiness-probe")
    assert level == "mandatory" and "receives requests after the engine dies" in message
    del container["startupProbe"]
    ((level, message),) = found_by([server], "serving-readiness-probe")
    assert level == "mandatory" and "before the model is loaded" in message


def test_a_bare_client_pod_is_advice_and_a_helm_test_hook_is_no_workload():
    # The bare model server of held-out set 3 (nebius/ml-cookbook knative-llamacpp/llamacpp.yml @ 83f160fe, reduced:
    # a llama.cpp server image with one GPU) blocks; a bare curl client beside a model does not.
    server = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "knative-python-demo--chat"},
        "spec": {
            "containers": [
                {
                    "name": "l3test",
                    "image": "ghcr.io/brianlechthaler/ml-cookbook-knative-testing/knative-llamacpp:main",
                    "env": [{"name": "LLAMA_ARG_MODEL", "value": "/mnt/models/l3.1-8B-F16.gguf"}],
                    "resources": {"limits": {"nvidia.com/gpu": 1}},
                }
            ]
        },
    }
    assert [e for e, _ in found_by([server], "no-bare-pods")] == ["mandatory"]
    client = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "curl-test", "namespace": "vllm"},
        "spec": {
            "restartPolicy": "Never",
            "containers": [
                {"name": "c", "image": "curlimages/curl:8.10.1", "command": ["curl", "-s", "http://vllm:8000/v1/models"]}
            ],
        },
    }
    assert [e for e, _ in found_by([client], "no-bare-pods")] == ["advisory"]
    hook = copy.deepcopy(client)
    hook["metadata"]["annotations"] = {"helm.sh/hook": "test"}
    assert found_by([hook], "no-bare-pods") == []


# NVIDIA's device plugin as its repository ships it for the CPU manager (NVIDIA/k8s-device-plugin
# deployments/static/nvidia-device-plugin-compat-with-cpumanager.yml @ 5ae507ef6c204d56eb39db7d098311c2e6a7377c,
# reduced): privileged, and the kubelet's device-plugin socket folder mounted writable from the host.
DEVICE_PLUGIN = {
    "apiVersion": "apps/v1",
    "kind": "DaemonSet",
    "metadata": {"name": "nvidia-device-plugin-daemonset", "namespace": "kube-system"},
    "spec": {
        "selector": {"matchLabels": {"name": "nvidia-device-plugin-ds"}},
        "template": {
            "metadata": {"labels": {"name": "nvidia-device-plugin-ds"}},
            "spec": {
                "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
                "priorityClassName": "system-node-critical",
                "containers": [
                    {
                        "image": "nvcr.io/nvidia/k8s-device-plugin:v0.17.1",
                        "name": "nvidia-device-plugin-ctr",
                        "env": [{"name": "PASS_DEVICE_SPECS", "value": "true"}],
                        "securityContext": {"privileged": True},
                        "volumeMounts": [{"name": "device-plugin", "mountPath": "/var/lib/kubelet/device-plugins"}],
                    }
                ],
                "volumes": [{"name": "device-plugin", "hostPath": {"path": "/var/lib/kubelet/device-plugins"}}],
            },
        },
    },
}


def test_a_node_agent_daemonset_needs_the_host_by_design():
    for policy in ("no-privileged", "host-path-read-only"):
        ((level, message),) = found_by([DEVICE_PLUGIN], policy)
        assert level == "advisory" and "node agent" in message, policy
    # The same pod spec serving a model (a GPU model server as a DaemonSet) keeps the rules' level.
    serving = copy.deepcopy(DEVICE_PLUGIN)
    container = serving["spec"]["template"]["spec"]["containers"][0]
    container.update({"image": "vllm/vllm-openai:v0.10.1", "args": ["--model", "/models/x"]})
    container["resources"] = {"limits": {"nvidia.com/gpu": 1}}
    for policy in ("no-privileged", "host-path-read-only"):
        assert [e for e, _ in found_by([serving], policy)] == ["mandatory"], policy
    # A Deployment is never a node agent.
    deployment = copy.deepcopy(DEVICE_PLUGIN)
    deployment["kind"] = "Deployment"
    assert [e for e, _ in found_by([deployment], "no-privileged")] == ["mandatory"]


POOL = {
    "apiVersion": "karpenter.sh/v1",
    "kind": "NodePool",
    "metadata": {"name": "gpu"},
    "spec": {
        "template": {
            "spec": {
                "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "gpu"},
                "requirements": [{"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": ["g6e"]}],
                "taints": [{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}],
            }
        },
        "limits": {"nvidia.com/gpu": 8},
    },
}


def _tolerating(*tolerations: dict) -> dict:
    server = copy.deepcopy(SERVER)
    spec = server["spec"]["template"]["spec"]
    spec["nodeSelector"] = {"karpenter.sh/nodepool": "gpu"}
    spec["tolerations"] = list(tolerations)
    return server


def test_tolerations_other_people_write():
    # Kubernetes' toleration matching (core/v1 Toleration: an empty key with operator Exists matches every taint; an
    # empty effect matches every effect): each of these lands on the pool's nvidia.com/gpu=true:NoSchedule nodes.
    for careful in (
        {"operator": "Exists"},
        {"operator": "Exists", "effect": "NoSchedule"},
        {"key": "nvidia.com/gpu", "operator": "Exists"},
        {"key": "nvidia.com/gpu", "operator": "Equal", "value": "true", "effect": "NoSchedule"},
    ):
        assert found_by([POOL, _tolerating(careful)], "gpu-pod-tolerates-and-targets") == [], careful
    # Tolerating another key (GKE's or AKS's own taints) does not admit it to this pool on a cluster without the
    # ExtendedResourceToleration admission plugin (setting extendedResourceToleration false) ...
    off = {"gpu-pod-tolerates-and-targets": {"extendedResourceToleration": False}}
    for other in (
        {"key": "sku", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"},
        {"key": "nvidia.com/gpu.present", "operator": "Exists"},
    ):
        assert [e for e, _ in found_by([POOL, _tolerating(other)], "gpu-pod-tolerates-and-targets", off)] == ["mandatory"], other
        # ... while on EKS, AKS and GKE (the default) the plugin gives the pod that requests nvidia.com/gpu the
        # toleration {nvidia.com/gpu, Exists, NoSchedule}: advice to write it (spent set 80 skamalj/azure-terraform).
        assert [e for e, _ in found_by([POOL, _tolerating(other)], "gpu-pod-tolerates-and-targets")] == ["advisory"], other
    # The plugin tolerates NoSchedule only, and only the resources the pod requests: a NoExecute taint, or a taint
    # keyed by another name, still keeps the pod off the pool.
    for taint in (
        {"key": "nvidia.com/gpu", "value": "true", "effect": "NoExecute"},
        {"key": "gpu", "value": "true", "effect": "NoSchedule"},
    ):
        pool = copy.deepcopy(POOL)
        pool["spec"]["template"]["spec"]["taints"] = [taint]
        assert [e for e, _ in found_by([pool, _tolerating()], "gpu-pod-tolerates-and-targets")] == ["mandatory"], taint
    # Without the pool in the files, a toleration by another key is advice (the cluster's taint is not shown).
    assert [e for e, _ in found_by([_tolerating({"key": "gpu", "operator": "Exists"})], "gpu-pod-tolerates-and-targets")] == [
        "advisory"
    ]


def test_a_startup_budget_blocks_only_below_the_fastest_load_of_its_model():
    def budget(model: str, seconds: int) -> list[str]:
        server = copy.deepcopy(SERVER)
        container = server["spec"]["template"]["spec"]["containers"][0]
        container["args"] = ["--model", model]
        container["startupProbe"] = {
            "httpGet": {"path": "/health", "port": 8000},
            "periodSeconds": 10,
            "failureThreshold": seconds // 10,
        }
        container["readinessProbe"] = {"httpGet": {"path": "/health", "port": 8000}}
        return [e for e, _ in found_by([server], "llm-startup-probe-budget")]

    # A demo's 0.5B model under a 300 s budget: it may well start (advice).
    assert budget("Qwen/Qwen2.5-0.5B-Instruct", 300) == ["advisory"]
    # 70B (about 140 GiB) cannot load in 70 s even at the fastest measured load (8 GiB/s) plus the 60 s floor.
    assert budget("meta-llama/Llama-3.1-70B-Instruct", 70) == ["mandatory"]
    assert budget("meta-llama/Llama-3.1-70B-Instruct", 300) == ["advisory"]


# ai-on-eks's GPU NodePool (corpus manifests-v2, awslabs/ai-on-eks infra/base/terraform/karpenter-resources/karpenter/
# gpu.yaml @ 5f336be68eb5786e40bccf28fe79f5d3aafd5346, reduced): WhenEmptyOrUnderutilized with only nodes: 10%.
AI_ON_EKS_POOL = {
    "apiVersion": "karpenter.sh/v1",
    "kind": "NodePool",
    "metadata": {"name": "gpu"},
    "spec": {
        "disruption": {
            "budgets": [{"nodes": "10%"}],
            "consolidateAfter": "300s",
            "consolidationPolicy": "WhenEmptyOrUnderutilized",
        },
        "template": {
            "metadata": {"labels": {"accelerator": "nvidia"}},
            "spec": {
                "expireAfter": "720h",
                "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "gpu"},
                "requirements": [{"key": "karpenter.k8s.aws/instance-category", "operator": "In", "values": ["g"]}],
                "taints": [{"effect": "NoSchedule", "key": "nvidia.com/gpu"}],
            },
        },
    },
}


def test_do_not_disrupt_keeps_consolidation_off_serving_nodes():
    assert [e for e, _ in found_by([AI_ON_EKS_POOL], "karpenter-gpu-nodepool-disruption-budget")] == ["mandatory"]
    # Node-level control, the NodePool form (karpenter.sh/docs/concepts/disruption/#node-level-controls).
    pool = copy.deepcopy(AI_ON_EKS_POOL)
    pool["spec"]["template"]["metadata"]["annotations"] = {"karpenter.sh/do-not-disrupt": "true"}
    assert found_by([pool], "karpenter-gpu-nodepool-disruption-budget") == []
    # Pod-level control on the GPU serving pods of the run: advice (which pool they land on is not proven).
    server = copy.deepcopy(SERVER)
    server["spec"]["template"]["metadata"]["annotations"] = {"karpenter.sh/do-not-disrupt": "true"}
    ((level, message),) = found_by([AI_ON_EKS_POOL, server], "karpenter-gpu-nodepool-disruption-budget")
    assert level == "advisory" and "karpenter.sh/do-not-disrupt" in message
