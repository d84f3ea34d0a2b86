"""Issue 18's policies: what KServe, KubeRay, the EFA device plugin and Karpenter do with third parties'
manifests. Each has a third-party form that fires and a careful form that must not."""

from __future__ import annotations

import copy

import pytest

from policies.gpu import efa_device_plugin
from policies.karpenter import multi_node_expiry
from policies.models import hf_token_on_service_account as hf
from policies.ray import cluster_pdb, serving_priority
from policies.registry import evaluate
from tests.policies.policy_fixtures import manifest, messages, resource

ISVC = "kubernetes:serving.kserve.io/v1beta1:InferenceService"
CACHE = "kubernetes:serving.kserve.io/v1alpha1:LocalModelCache"
SA = "kubernetes:core/v1:ServiceAccount"
SECRET = "kubernetes:core/v1:Secret"
RAY = "kubernetes:ray.io/v1:RayCluster"
PDB = "kubernetes:policy/v1:PodDisruptionBudget"
PC = "kubernetes:scheduling.k8s.io/v1:PriorityClass"
DEPLOY = "kubernetes:apps/v1:Deployment"
LWS = "kubernetes:leaderworkerset.x-k8s.io/v1:LeaderWorkerSet"
NODEPOOL = "kubernetes:karpenter.sh/v1:NodePool"
RELEASE = "kubernetes:helm.sh/v3:Release"
DS = "kubernetes:apps/v1:DaemonSet"


# --- S17 kserve-hf-token-on-service-account ------------------------------------------------------


def kserve_hf_isvc(**predictor):
    # KServe's documented Hugging Face runtime form (docs: "Deploy the Llama3 model with Hugging Face LLM Serving Runtime").
    return {
        "apiVersion": "serving.kserve.io/v1beta1",
        "kind": "InferenceService",
        "metadata": {"name": "huggingface-llama3", "namespace": "llm"},
        "spec": {
            "predictor": {
                "model": {
                    "modelFormat": {"name": "huggingface"},
                    "args": ["--model_name=llama3"],
                    "storageUri": "hf://meta-llama/meta-llama-3-8b-instruct",
                    "resources": {"limits": {"nvidia.com/gpu": "1"}},
                },
                **predictor,
            }
        },
    }


def token_secret(key="HF_TOKEN", ns="llm"):
    return resource(
        SECRET,
        {
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": {"name": "hf-secret", "namespace": ns},
            "type": "Opaque",
            "stringData": {key: "hf_xxx"},
        },
    )


def account(ns="llm", name="hf-reader", secrets=("hf-secret",)):
    return resource(
        SA,
        {
            "apiVersion": "v1",
            "kind": "ServiceAccount",
            "metadata": {"name": name, "namespace": ns},
            "secrets": [{"name": s} for s in secrets],
        },
        f"{ns}-{name}",
    )


def test_hf_gated_model_on_the_default_account_fires():
    # The third-party form: an env HF_TOKEN on the container (KServe does not copy it to the storage initializer).
    props = kserve_hf_isvc()
    props["spec"]["predictor"]["model"]["env"] = [
        {"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": {"name": "hf-secret", "key": "HF_TOKEN"}}}
    ]
    assert messages(hf.POLICY, resource(ISVC, props), token_secret()) == [
        "InferenceService huggingface-llama3: hf://meta-llama/meta-llama-3-8b-instruct is gated and its ServiceAccount "
        "default lists no Secret with the key HF_TOKEN; KServe's storage initializer takes the token only from there "
        "(an HF_TOKEN env on the container is not copied), so the download gets 401"
    ]


def test_hf_secret_keyed_token_fires():
    props = kserve_hf_isvc(serviceAccountName="hf-reader")
    assert messages(hf.POLICY, resource(ISVC, props), account(), token_secret(key="token"))


def test_hf_careful_forms_are_quiet():
    assert messages(hf.POLICY, resource(ISVC, kserve_hf_isvc(serviceAccountName="hf-reader")), account(), token_secret()) == []
    annotated = kserve_hf_isvc()
    annotated["metadata"]["annotations"] = {"serving.kserve.io/secretName": "hf-secret"}
    assert messages(hf.POLICY, resource(ISVC, annotated), token_secret()) == []
    public = kserve_hf_isvc()
    public["spec"]["predictor"]["model"]["storageUri"] = "hf://Qwen/Qwen3-8B"
    assert messages(hf.POLICY, resource(ISVC, public)) == []


def test_hf_custom_container_storage_uri_env_is_read():
    props = {
        "apiVersion": "serving.kserve.io/v1beta1",
        "kind": "InferenceService",
        "metadata": {"name": "chat", "namespace": "llm"},
        "spec": {
            "predictor": {
                "containers": [
                    {
                        "name": "kserve-container",
                        "image": "vllm/vllm-openai:v0.33.0",
                        "env": [{"name": "STORAGE_URI", "value": "hf://mistralai/Mistral-7B-Instruct-v0.3"}],
                    }
                ]
            }
        },
    }
    assert messages(hf.POLICY, resource(ISVC, props))
    props["spec"]["predictor"]["serviceAccountName"] = "hf-reader"
    assert messages(hf.POLICY, resource(ISVC, props), account(), token_secret()) == []


def cache(**spec):
    return resource(
        CACHE,
        {
            "apiVersion": "serving.kserve.io/v1alpha1",
            "kind": "LocalModelCache",
            "metadata": {"name": "llama3-8b"},
            "spec": {
                "sourceModelUri": "hf://meta-llama/Llama-3.1-8B-Instruct",
                "modelSize": "20Gi",
                "nodeGroups": ["gpu"],
                **spec,
            },
        },
    )


def test_gated_cache_without_an_account_fires_and_with_one_in_the_job_namespace_is_quiet():
    # KServe's docs form names neither serviceAccountName nor storage.
    assert messages(hf.POLICY, cache()) == [
        "LocalModelCache llama3-8b: hf://meta-llama/Llama-3.1-8B-Instruct is gated and it names no ServiceAccount; KServe "
        "injects download credentials only from the ServiceAccount a cache names, looked up in its job namespace, so "
        "every node's download gets 401"
    ]
    # An account in the model's namespace is not where the job looks.
    assert messages(hf.POLICY, cache(serviceAccountName="hf-reader"), account(), token_secret())
    ns = "kserve-localmodel-jobs"
    assert messages(hf.POLICY, cache(serviceAccountName="hf-reader"), account(ns), token_secret(ns=ns)) == []


# --- G22 kuberay-serving-priority and G18 kuberay-cluster-pdb ---------------------------------------


def ray_cluster(priority=None, annotations=None):
    # KubeRay's vLLM multi-node sample shape: a CPU head and one GPU worker group of two pods.
    def pod(gpus):
        spec = {
            "containers": [
                {
                    "name": "ray",
                    "image": "vllm/vllm-openai:v0.33.0",
                    "resources": {"limits": {"nvidia.com/gpu": str(gpus)}} if gpus else {},
                }
            ]
        }
        if priority:
            spec["priorityClassName"] = priority
        return {"metadata": {"annotations": annotations or {}}, "spec": spec}

    return resource(
        RAY,
        {
            "apiVersion": "ray.io/v1",
            "kind": "RayCluster",
            "metadata": {"name": "vllm-405b", "namespace": "llm"},
            "spec": {
                "headGroupSpec": {"rayStartParams": {"num-gpus": "0"}, "template": pod(0)},
                "workerGroupSpecs": [
                    {
                        "groupName": "gpu",
                        "replicas": 2,
                        "minReplicas": 2,
                        "maxReplicas": 2,
                        "rayStartParams": {},
                        "template": pod(8),
                    }
                ],
            },
        },
    )


def serving_deployment(priority="llm-serving-inference"):
    return resource(
        DEPLOY,
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "chat", "namespace": "llm"},
            "spec": {
                "replicas": 2,
                "selector": {"matchLabels": {"app": "chat"}},
                "template": {
                    "metadata": {"labels": {"app": "chat"}},
                    "spec": {
                        "priorityClassName": priority,
                        "containers": [
                            {
                                "name": "vllm",
                                "image": "vllm/vllm-openai:v0.33.0",
                                "command": ["vllm", "serve"],
                                "args": ["meta-llama/Llama-3.1-8B-Instruct"],
                                "resources": {"limits": {"nvidia.com/gpu": "1"}},
                            }
                        ],
                    },
                },
            },
        },
    )


def priority_class(name="llm-serving-inference", value=1000):
    return resource(
        PC,
        {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {"name": name},
            "value": value,
            "preemptionPolicy": "PreemptLowerPriority",
        },
    )


def test_ray_below_its_neighbours_priority_fires():
    found = messages(serving_priority.POLICY, ray_cluster(), serving_deployment(), priority_class())
    assert found[0] == (
        "spec.headGroupSpec.template.spec.priorityClassName: none (0) is below Deployment chat's "
        "llm-serving-inference (1000); with PreemptLowerPriority a scale-out of that model can preempt "
        "this Ray pod and stop the whole engine"
    )
    assert len(found) == 2


def test_ray_at_the_serving_priority_or_alone_is_quiet():
    assert messages(serving_priority.POLICY, ray_cluster("llm-serving-inference"), serving_deployment(), priority_class()) == []
    assert messages(serving_priority.POLICY, ray_cluster()) == []


def test_ray_cluster_without_pdb_fires_and_with_one_is_quiet():
    assert messages(cluster_pdb.POLICY, ray_cluster()) == [
        "RayCluster vllm-405b: no PodDisruptionBudget selects its GPU worker pods (KubeRay creates none), so a drain or "
        "Karpenter consolidation can evict them together and stop the engine; add a PDB (maxUnavailable: 0 for a multi-node engine) on "
        "ray.io/cluster: vllm-405b"
    ]
    pdb = resource(
        PDB,
        {
            "apiVersion": "policy/v1",
            "kind": "PodDisruptionBudget",
            "metadata": {"name": "vllm-405b", "namespace": "llm"},
            "spec": {"maxUnavailable": 1, "selector": {"matchLabels": {"ray.io/cluster": "vllm-405b"}}},
        },
    )
    assert messages(cluster_pdb.POLICY, ray_cluster(), pdb) == []
    other_ns = copy.deepcopy(pdb.props)
    other_ns["metadata"]["namespace"] = "other"
    assert messages(cluster_pdb.POLICY, ray_cluster(), resource(PDB, other_ns))


# --- S15 gpu-efa-device-plugin-present ------------------------------------------------------------


def lws_with_efa():
    # The LeaderWorkerSet form of AWS's multi-node vLLM guides: every pod asks for the node's EFA interfaces.
    pod = {
        "spec": {
            "containers": [
                {
                    "name": "vllm",
                    "image": "vllm/vllm-openai:v0.33.0",
                    "resources": {"limits": {"nvidia.com/gpu": "8", "vpc.amazonaws.com/efa": "32"}},
                }
            ],
            "nodeSelector": {"karpenter.sh/nodepool": "p5"},
        }
    }
    return resource(
        LWS,
        {
            "apiVersion": "leaderworkerset.x-k8s.io/v1",
            "kind": "LeaderWorkerSet",
            "metadata": {"name": "vllm", "namespace": "llm"},
            "spec": {"replicas": 1, "leaderWorkerTemplate": {"size": 2, "leaderTemplate": pod, "workerTemplate": pod}},
        },
    )


def test_efa_without_plugin_fires():
    found = messages(efa_device_plugin.POLICY, lws_with_efa())
    assert found[0] == (
        "spec.leaderWorkerTemplate.leaderTemplate.spec.containers[0] (vllm): requests vpc.amazonaws.com/efa, "
        "which only the aws-efa-k8s-device-plugin DaemonSet advertises, and the stack installs no such plugin; "
        "the pod stays Pending on every node"
    )


def test_efa_on_workload_manifests_alone_is_advice_and_a_platform_set_blocks():
    # hustshawn/deepseek-on-eks-demo k8s-manifest/lws/lws-deepseek-r1.yaml@3b79615f (held-out set 9): an SGLang LWS
    # asking for vpc.amazonaws.com/efa in a set with no DaemonSet, Helm release or stack; on EKS the EFA add-on or
    # the accelerated AMI supplies the plugin outside any manifest, so the files do not prove it missing.
    plain = manifest(lws_with_efa().props)
    found = [(v.enforcement, v.message) for v in evaluate([plain], None, policies=[efa_device_plugin.POLICY])]
    assert [level for level, _ in found] == ["advisory", "advisory"]
    assert "no platform pieces" in found[0][1]
    # The same set with a node agent DaemonSet (here NVIDIA's device plugin) holds the platform: blocking.
    nvidia = {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": "nvidia-device-plugin", "namespace": "kube-system"},
        "spec": {"template": {"spec": {"containers": [{"name": "p", "image": "nvcr.io/nvidia/k8s-device-plugin:v0.17.0"}]}}},
    }
    found = [v.enforcement for v in evaluate([plain, manifest(nvidia)], None, policies=[efa_device_plugin.POLICY])]
    assert found == ["mandatory", "mandatory"]


def test_efa_with_plugin_release_daemonset_or_config_is_quiet():
    release = resource(RELEASE, {"chart": "aws-efa-k8s-device-plugin", "version": "v0.5.30", "metadata": {"name": "efa"}}, "efa")
    assert messages(efa_device_plugin.POLICY, lws_with_efa(), release) == []
    ds = resource(
        DS,
        {
            "apiVersion": "apps/v1",
            "kind": "DaemonSet",
            "metadata": {"name": "efa", "namespace": "kube-system"},
            "spec": {
                "selector": {},
                "template": {
                    "spec": {
                        "containers": [
                            {
                                "name": "plugin",
                                "image": "602401143452.dkr.ecr.us-west-2.amazonaws.com/eks/aws-efa-k8s-device-plugin:v0.5.20",
                            }
                        ]
                    }
                },
            },
        },
    )
    assert messages(efa_device_plugin.POLICY, lws_with_efa(), ds) == []
    assert messages(efa_device_plugin.POLICY, lws_with_efa(), config={"pluginInstalled": True}) == []


# --- S14 karpenter-multi-node-pool-never-expires -------------------------------------------------


def nodepool(expire=None):
    spec = {
        "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "p5"},
        "requirements": [{"key": "karpenter.k8s.aws/instance-gpu-name", "operator": "In", "values": ["h100"]}],
    }
    if expire is not None:
        spec["expireAfter"] = expire
    return resource(
        NODEPOOL,
        {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "p5"}, "spec": {"template": {"spec": spec}}},
    )


@pytest.mark.parametrize("expire, shown", [(None, "unset (720h)"), ("720h", "720h")])
def test_multi_node_engine_on_an_expiring_pool_fires(expire, shown):
    assert messages(multi_node_expiry.POLICY, lws_with_efa(), nodepool(expire)) == [
        f"spec.template.spec.expireAfter: {shown} on NodePool p5, which hosts the multi-node engine LeaderWorkerSet vllm; "
        f"expiry is forceful (no budget or do-not-disrupt stops it), so its nodes are replaced together and the engine "
        f"cold-starts; set Never and roll AMIs by drift in a window"
    ]


def test_never_or_a_single_node_engine_is_quiet():
    assert messages(multi_node_expiry.POLICY, lws_with_efa(), nodepool("Never")) == []
    single = copy.deepcopy(lws_with_efa().props)
    single["spec"]["leaderWorkerTemplate"]["size"] = 1
    assert messages(multi_node_expiry.POLICY, resource(LWS, single), nodepool("720h")) == []


def test_ray_engine_on_a_pool_by_affinity_fires():
    cluster = copy.deepcopy(ray_cluster().props)
    worker = cluster["spec"]["workerGroupSpecs"][0]["template"]["spec"]
    worker["affinity"] = {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {"matchExpressions": [{"key": "karpenter.sh/nodepool", "operator": "In", "values": ["p5"]}]}
                ]
            }
        }
    }
    assert messages(multi_node_expiry.POLICY, resource(RAY, cluster), nodepool())


# --- The stacks' own objects: the policies see them, and a mutation of each fires ------------------


@pytest.fixture(scope="module")
def prod_resources(tmp_path_factory):
    from stacks.offline import load_stack_file, run_program
    from stacks.plan import policy_resources

    return policy_resources(run_program(load_stack_file("prod")))


def _without(resources, predicate):
    return [r for r in resources if not predicate(r)]


def test_prod_passes_and_each_mutation_fires(prod_resources):
    from policies.framework import Resource

    res = prod_resources
    for policy in (hf.POLICY, serving_priority.POLICY, cluster_pdb.POLICY, efa_device_plugin.POLICY, multi_node_expiry.POLICY):
        assert messages(policy, *res) == [], policy.name

    # The chat-8b model's account without the Secret; its cache's account in the job namespace likewise.
    def strip_secrets(r):
        if r.type == SA:
            return Resource(type=r.type, name=r.name, props={**r.props, "secrets": []}, urn=r.urn)
        return r

    # chat-8b's InferenceService (STORAGE_URI hf://meta-llama/...) and its LocalModelCache; qwen3-32b is downloaded
    # by vLLM itself (no storageUri), llama-70b streams from S3.
    found = messages(hf.POLICY, *[strip_secrets(r) for r in res])
    assert [m.split(":")[0] for m in found] == ["InferenceService chat-8b", "LocalModelCache chat-8b"]
    assert messages(
        cluster_pdb.POLICY, *_without(res, lambda r: r.type == PDB and r.props["metadata"]["name"].endswith("-ray-pdb"))
    )
    assert messages(efa_device_plugin.POLICY, *_without(res, lambda r: r.type == RELEASE and "efa" in r.name))

    def expiring(r):
        if r.type == NODEPOOL and r.props["metadata"]["name"] == "h100-ray":
            props = copy.deepcopy(r.props)
            props["spec"]["template"]["spec"]["expireAfter"] = "720h"
            return Resource(type=r.type, name=r.name, props=props, urn=r.urn)
        return r

    assert messages(multi_node_expiry.POLICY, *[expiring(r) for r in res])

    def low_priority(r):
        if r.type == RAY:
            props = copy.deepcopy(r.props)
            props["spec"]["workerGroupSpecs"][0]["template"]["spec"].pop("priorityClassName")
            return Resource(type=r.type, name=r.name, props=props, urn=r.urn)
        return r

    assert messages(serving_priority.POLICY, *[low_priority(r) for r in res])


def test_hf_account_defined_outside_the_set_is_not_judged():
    # KServe's docs sample (docs/samples/storage/hf/hf_isvc.yaml) names hfserviceacc, created by another file.
    assert messages(hf.POLICY, resource(ISVC, kserve_hf_isvc(serviceAccountName="hfserviceacc"))) == []


def test_ray_below_a_class_outside_the_files_is_advice_and_a_non_preempting_class_is_quiet():
    # A neighbour's class that no PriorityClass of the run defines (a platform's shared class) may rank below the
    # Ray pods or never preempt: the finding rests on an object outside the files read.
    found = messages(serving_priority.POLICY, ray_cluster(), serving_deployment())
    assert found and all("llm-serving-inference (unknown)" in m for m in found)
    levels = {v.enforcement for v in evaluate([ray_cluster(), serving_deployment()], None, policies=[serving_priority.POLICY])}
    assert levels == {"advisory"}
    # The class defined with preemptionPolicy Never cannot preempt the Ray pods.
    never = priority_class()
    never.props["preemptionPolicy"] = "Never"
    assert messages(serving_priority.POLICY, ray_cluster(), serving_deployment(), never) == []
