"""Catalogue rows added for issue 32 by the "rows" slice: each with a third-party form that fires and a careful
third-party form that stays silent (minimal hand-written shapes of the cited upstream files)."""

from __future__ import annotations

import copy
from pathlib import Path

import yaml
from policy_fixtures import RISK_ROWS, found_by

from tests.conftest import shared_path


def found(objs: list[dict], policy: str, config=None) -> list[tuple[str, str]]:
    # The risk rows raised (S31 advises by default): proven findings block, unproven ones advise.
    return found_by(objs, policy, {policy: RISK_ROWS[policy]} if config is None and policy in RISK_ROWS else config)


def deployment(name: str, container: dict, labels=None) -> dict:
    labels = labels or {"app": name}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "llm"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": labels},
            "template": {"metadata": {"labels": labels}, "spec": {"containers": [container]}},
        },
    }


# S36 debug-switches-off ------------------------------------------------------------------------------------------

# aws-samples/gen-ai-on-eks gen_ai_eks_workshop_files/vllm-deployment.yaml at df6d26c4b7b12c0f544301942b5cd1e1be679bf6
# (held-out set 3, row 8): vLLM by digest on one GPU with CUDA_LAUNCH_BLOCKING=1 beside PYTORCH_CUDA_ALLOC_CONF.
MISTRAL = deployment(
    "mistral",
    {
        "name": "vllm",
        "image": "docker.io/vllm/vllm-openai@sha256:4f4037303e8c7b69439db1077bb849a0823517c0f785b894dc8e96d58ef3a0c2",
        "args": ["--port=8080", "--model=/local-storage/models/mistral-7b-v0-3", "--max-model-len=2048"],
        "env": [
            {"name": "CUDA_LAUNCH_BLOCKING", "value": "1"},
            {"name": "PYTORCH_CUDA_ALLOC_CONF", "value": "max_split_size_mb:512"},
        ],
        "resources": {"requests": {"nvidia.com/gpu": 1}, "limits": {"nvidia.com/gpu": 1}},
    },
)


def test_cuda_launch_blocking_in_a_vllm_pod_blocks():
    assert found([MISTRAL], "debug-switches-off") == [
        (
            "mandatory",
            "container vllm: env CUDA_LAUNCH_BLOCKING=1 makes every CUDA kernel launch synchronous (CUDA: for debugging "
            "only), so the GPU idles between kernels; remove it from the serving pod",
        )
    ]


def test_the_other_switches_and_their_off_values():
    for name, value in (("PYTORCH_NO_CUDA_MEMORY_CACHING", "1"), ("VLLM_TRACE_FUNCTION", "1")):
        form = copy.deepcopy(MISTRAL)
        form["spec"]["template"]["spec"]["containers"][0]["env"] = [{"name": name, "value": value}]
        ((level, message),) = found([form], "debug-switches-off")
        assert level == "mandatory" and f"env {name}={value} " in message
    for name, value in (("CUDA_LAUNCH_BLOCKING", "0"), ("VLLM_TRACE_FUNCTION", "0")):
        form = copy.deepcopy(MISTRAL)
        form["spec"]["template"]["spec"]["containers"][0]["env"] = [{"name": name, "value": value}]
        assert found([form], "debug-switches-off") == []
    assert found([MISTRAL], "debug-switches-off", {"debug-switches-off": {"allowedVariables": ["CUDA_LAUNCH_BLOCKING"]}}) == []


def test_logging_switches_are_advice():
    # kserve/kserve docs/samples/llmisvc/dp-ep/deepseek-r1-gpu-rdma-roce/llm-inference-service-dp-ep-deepseek-r1-gpu-naive.yaml
    # (corpus manifests-v2: VLLM_LOGGING_LEVEL and NCCL_DEBUG=INFO) and vllm-project/aibrix
    # samples/disaggregation/vllm/1p1d.yaml (manifests-v2: NCCL_DEBUG=INFO; its VLLM_SERVER_DEV_MODE=1 is advice on
    # AIBrix's pods and blocks elsewhere since set 11: tests/policies/test_policy_engine_set11.py).
    # Debug logging left on is advice (held-out sets 6 and 8 labelled NCCL_DEBUG=INFO and LOG_LEVEL=debug so, after
    # their measurement); a careful sample may set it while bringing a model up, so it never blocks.
    form = copy.deepcopy(MISTRAL)
    form["spec"]["template"]["spec"]["containers"][0]["env"] = [
        {"name": "VLLM_LOGGING_LEVEL", "value": "DEBUG"},
        {"name": "NCCL_DEBUG", "value": "INFO"},
    ]
    found_here = found([form], "debug-switches-off")
    assert [level for level, _ in found_here] == ["advisory", "advisory"]
    assert "env NCCL_DEBUG=INFO makes NCCL log" in found_here[0][1] + found_here[1][1]
    quiet = copy.deepcopy(MISTRAL)
    quiet["spec"]["template"]["spec"]["containers"][0]["env"] = [
        {"name": "VLLM_LOGGING_LEVEL", "value": "INFO"},
        {"name": "NCCL_DEBUG", "value": "WARN"},
        {"name": "LOG_LEVEL", "value": "info"},
        {"name": "VLLM_SERVER_DEV_MODE", "value": "0"},
    ]
    assert found([quiet], "debug-switches-off") == []


# G40 api-version-served / api-version-deprecated ---------------------------------------------------------------

# aws-samples/awsome-inference 2.projects/nims-inference/nim-deploy/helm/scaling-lb-monitoring/scaling/karpenter-config.yaml
# at d3236c8cfabb5699c4292f7e0351e4dbc9099de3 (held-out set 3, row 3): a karpenter.sh/v1beta1 NodePool on p instances
# and its karpenter.k8s.aws/v1beta1 EC2NodeClass.
V1BETA1_POOL = {
    "apiVersion": "karpenter.sh/v1beta1",
    "kind": "NodePool",
    "metadata": {"name": "default"},
    "spec": {
        "template": {
            "spec": {
                "nodeClassRef": {"apiVersion": "karpenter.k8s.aws/v1beta1", "kind": "EC2NodeClass", "name": "default"},
                "requirements": [{"key": "karpenter.k8s.aws/instance-category", "operator": "In", "values": ["p"]}],
            }
        },
        "disruption": {"consolidationPolicy": "WhenUnderutilized", "expireAfter": "720h"},
    },
}
V1BETA1_CLASS = {
    "apiVersion": "karpenter.k8s.aws/v1beta1",
    "kind": "EC2NodeClass",
    "metadata": {"name": "default"},
    "spec": {"amiFamily": "AL2", "role": "KarpenterNodeRole"},
}


def test_karpenter_v1beta1_objects_are_refused_where_the_cluster_runs_karpenter_1_1_or_later():
    """Which Karpenter the cluster runs is not in the files (session 24 cold review F5: a v0.37 or v1.0 cluster still
    serves v1beta1, kubernetes-sigs/karpenter v1.0.0 pkg/apis/crds/karpenter.sh_nodepools.yaml lists v1 and v1beta1),
    so without karpenterVersion the findings are advice; stated at 1.1 or later they block, before it they are silent."""
    assert found([V1BETA1_POOL, V1BETA1_CLASS], "api-version-served") == [
        (
            "advisory",
            "apiVersion karpenter.k8s.aws/v1beta1 EC2NodeClass is not served by Karpenter 1.1 and later (Karpenter serves "
            "v1 alone from v1.1.0 (aws/karpenter-provider-aws pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml; pinned "
            "v1.14.1)), so the API server refuses the object there; use karpenter.k8s.aws/v1 (the cluster's Karpenter "
            "release is not in the files read: set karpenterVersion)",
        ),
        (
            "advisory",
            "apiVersion karpenter.sh/v1beta1 NodePool is not served by Karpenter 1.1 and later (Karpenter serves v1 alone "
            "from v1.1.0 (kubernetes-sigs/karpenter pkg/apis/crds/karpenter.sh_nodepools.yaml; pinned v1.14.1)), so the "
            "API server refuses the object there; use karpenter.sh/v1 (the cluster's Karpenter release is not in the "
            "files read: set karpenterVersion)",
        ),
    ]
    for release in ("1.14", "v1.14.1"):
        stated = {"api-version-served": {"karpenterVersion": release}}
        assert [level for level, _ in found([V1BETA1_POOL, V1BETA1_CLASS], "api-version-served", stated)] == ["mandatory"] * 2
    older = {"api-version-served": {"karpenterVersion": "1.0"}}
    assert found([V1BETA1_POOL, V1BETA1_CLASS], "api-version-served", older) == []


def test_the_v1_forms_and_a_version_before_its_removal_are_silent():
    # aws-samples/karpenter-blueprints blueprints/nvidia-gpu-workload/gpu-nodepool.yaml (corpus 1): karpenter.sh/v1.
    v1_pool = {**copy.deepcopy(V1BETA1_POOL), "apiVersion": "karpenter.sh/v1"}
    v1_class = {**copy.deepcopy(V1BETA1_CLASS), "apiVersion": "karpenter.k8s.aws/v1"}
    assert found([v1_pool, v1_class], "api-version-served") == []
    hpa = {
        "apiVersion": "autoscaling/v2beta2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "vllm"},
        "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "vllm"}, "maxReplicas": 2},
    }
    assert found([hpa], "api-version-served", {"api-version-served": {"kubernetesVersion": "1.25"}}) == []
    ((level, message),) = found([hpa], "api-version-served", {"api-version-served": {"kubernetesVersion": "1.26"}})
    assert level == "mandatory" and message.startswith(
        "apiVersion autoscaling/v2beta2 HorizontalPodAutoscaler is not served by Kubernetes 1.26 and later"
    )


def test_ray_v1alpha1_is_deprecated_not_refused():
    # aws-samples/gen-ai-on-eks ray_serve_manifests/00_ray_serve_fine_tuned.yaml at
    # df6d26c4b7b12c0f544301942b5cd1e1be679bf6 (held-out set 3, row 9): a ray.io/v1alpha1 RayService.
    service = {"apiVersion": "ray.io/v1alpha1", "kind": "RayService", "metadata": {"name": "rayservice"}, "spec": {}}
    assert found([service], "api-version-served") == []
    ((level, message),) = found([service], "api-version-deprecated")
    assert level == "advisory" and message.endswith("a later release stops serving it; write ray.io/v1")
    assert found([{**service, "apiVersion": "ray.io/v1"}], "api-version-deprecated") == []


# sozercan/k8s-distributed-inference configs/k8s/resource-claim-template.yaml@c7bfd9ed6134b1f0b667aec639d6574acf6dca07
# (spent set 82, labelled G40): a ResourceClaimTemplate for MIG devices in resource.k8s.io/v1alpha3, an alpha version the
# API server serves only under --runtime-config (kubernetes pkg/controlplane/instance.go
# alphaAPIGroupVersionsDisabledByDefault).
MIG_CLAIM_TEMPLATE = {
    "apiVersion": "resource.k8s.io/v1alpha3",
    "kind": "ResourceClaimTemplate",
    "metadata": {"name": "mig-devices", "namespace": "localai"},
    "spec": {"spec": {"devices": {"requests": [{"name": "mig-1g-10gb", "deviceClassName": "mig.nvidia.com"}]}}},
}


def test_an_alpha_version_of_a_kubernetes_group_is_advised():
    ((level, message),) = found([MIG_CLAIM_TEMPLATE], "api-version-alpha")
    assert level == "advisory"
    assert message.startswith("apiVersion resource.k8s.io/v1alpha3 is an alpha version of a Kubernetes API group")
    assert "alphaAPIGroupVersionsDisabledByDefault" in message
    # The careful forms: the beta and GA versions, and a custom resource's alpha version (its CRD serves it).
    assert found([{**MIG_CLAIM_TEMPLATE, "apiVersion": "resource.k8s.io/v1beta1"}], "api-version-alpha") == []
    assert found([{**MIG_CLAIM_TEMPLATE, "apiVersion": "resource.k8s.io/v1"}], "api-version-alpha") == []
    lws = {"apiVersion": "leaderworkerset.x-k8s.io/v1alpha1", "kind": "LeaderWorkerSet", "metadata": {"name": "vllm"}}
    assert found([lws], "api-version-alpha") == []


# A Service without a selector and its hand-written core/v1 Endpoints bridging to an Ollama server off the cluster: the
# form of a public Ollama bridge manifest in the code index (kubernetes/ollama/service-external.yaml, stored version id
# 61841153192). Kubernetes 1.33 deprecates core/v1 Endpoints (KEP-4974; https://kubernetes.io/blog/2025/04/24/
# endpoints-deprecation/): advice, the type stays served.
OLLAMA_ENDPOINTS = {
    "apiVersion": "v1",
    "kind": "Endpoints",
    "metadata": {"name": "ollama", "namespace": "ollama"},
    "subsets": [{"addresses": [{"ip": "192.168.1.158"}], "ports": [{"name": "http", "port": 11434}]}],
}


def test_core_v1_endpoints_is_deprecated_from_1_33():
    assert found([OLLAMA_ENDPOINTS], "api-version-served") == []
    ((level, message),) = found([OLLAMA_ENDPOINTS], "api-version-deprecated")
    assert level == "advisory"
    assert message.startswith("apiVersion v1 Endpoints is deprecated from Kubernetes 1.33 (Kubernetes 1.33, KEP-4974")
    assert message.endswith("use discovery.k8s.io/v1 EndpointSlice (labelled kubernetes.io/service-name: <the Service>)")
    # A cluster before 1.33, and the EndpointSlice that replaces it, are silent.
    assert found([OLLAMA_ENDPOINTS], "api-version-deprecated", {"api-version-deprecated": {"kubernetesVersion": "1.32"}}) == []
    slice_ = {
        "apiVersion": "discovery.k8s.io/v1",
        "kind": "EndpointSlice",
        "metadata": {"name": "ollama-1", "namespace": "ollama", "labels": {"kubernetes.io/service-name": "ollama"}},
        "addressType": "IPv4",
        "endpoints": [{"addresses": ["192.168.1.158"]}],
        "ports": [{"name": "http", "port": 11434}],
    }
    assert found([slice_], "api-version-deprecated") == []


def _schema_names(minor: str) -> set[str]:
    import kubernetes_validate  # type: ignore[import-untyped]

    folder = Path(kubernetes_validate.__file__).parent / "kubernetes-json-schema" / f"v{minor}.0-local"
    return {p.name for p in folder.glob("*.json")}


def _schema_file(api_version: str, kind: str) -> str:
    group, version = api_version.split("/") if "/" in api_version else ("", api_version)
    return f"{kind.lower()}-{group.split('.')[0]}-{version}.json" if group else f"{kind.lower()}-{version}.json"


def test_every_kubernetes_row_matches_kubernetes_validate_schemas():
    """Rows removed at 1.25 or later: the schema exists one minor before and not at the removal; earlier removals
    are absent from the oldest schema kubernetes-validate ships (1.25). Mutation: a wrong removed_in fails here."""
    from policies.k8s_generic.api_version_served import REMOVED

    oldest = _schema_names("1.25")
    checked = 0
    for row in (r for r in REMOVED if r.removed_in is not None):
        major, minor = (int(p) for p in row.removed_in.split("."))
        for kind in row.kinds:
            name = _schema_file(row.api_version, kind)
            if minor > 25:
                assert name in _schema_names(f"{major}.{minor - 1}"), (row, kind)
                assert name not in _schema_names(row.removed_in), (row, kind)
            else:
                assert name not in oldest, (row, kind)
            # The replacement is served today.
            checked += 1
    assert checked >= 15


# The CRDs are large (KubeRay's RayService is megabytes): libyaml's loader reads them in a fraction of the time.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def test_karpenter_and_kuberay_rows_match_the_pinned_crds():
    from policies.k8s_generic.api_version_served import DEPRECATED, REMOVED

    served: dict[str, dict[str, tuple[bool, bool]]] = {}
    for path in [*shared_path("crds", "karpenter.sh").glob("*.yaml"), *shared_path("crds", "karpenter.k8s.aws").glob("*.yaml")]:
        crd = yaml.load(path.read_text(), Loader=_LOADER)
        for v in crd["spec"]["versions"]:
            served.setdefault(f"{crd['spec']['group']}/{v['name']}", {})[crd["spec"]["names"]["kind"]] = (
                bool(v.get("served")),
                bool(v.get("deprecated")),
            )
    for path in shared_path("crds", "ray.io").glob("*.yaml"):
        crd = yaml.load(path.read_text(), Loader=_LOADER)
        for v in crd["spec"]["versions"]:
            served.setdefault(f"ray.io/{v['name']}", {})[crd["spec"]["names"]["kind"]] = (
                bool(v.get("served")),
                bool(v.get("deprecated")),
            )
    for row in (r for r in REMOVED if r.removed_in is None):
        for kind in row.kinds:
            assert not served.get(row.api_version, {}).get(kind, (False, False))[0], (row.api_version, kind)
    assert served["karpenter.sh/v1"]["NodePool"] == (True, False)
    assert served["karpenter.k8s.aws/v1"]["EC2NodeClass"] == (True, False)
    for row in (r for r in DEPRECATED if not r.deprecated_in):  # CRD rows; Kubernetes' own (deprecated_in) below
        for kind in row.kinds:
            assert served[row.api_version][kind] == (True, True), (row.api_version, kind)


def test_kubernetes_deprecated_rows_are_served_at_their_minor():
    # A deprecated Kubernetes kind is still served (kubernetes-validate holds its schema at the minor it is deprecated).
    from policies.k8s_generic.api_version_served import DEPRECATED

    for row in (r for r in DEPRECATED if r.deprecated_in):
        for kind in row.kinds:
            assert _schema_file(row.api_version, kind) in _schema_names(row.deprecated_in), (row.api_version, kind)


# G1 image-tag-pinned: branch-like moving tags -------------------------------------------------------------------

# nebius/ml-cookbook knative-llamacpp/llamacpp.yml at 83f160fe3f6ce3c70f84927b38dd72e20a6a4b85 (held-out set 3, row 10):
# a llama.cpp server Pod on ghcr.io/.../knative-llamacpp:main (a branch's head, rebuilt on every push).
LLAMACPP_POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "knative-python-demo--chat"},
    "spec": {
        "containers": [
            {
                "name": "l3test",
                "image": "ghcr.io/brianlechthaler/ml-cookbook-knative-testing/knative-llamacpp:main",
                "env": [{"name": "LLAMA_ARG_MODEL", "value": "/mnt/models/l3.1-8B-F16.gguf"}],
            }
        ]
    },
}


def _with_image(image: str) -> dict:
    pod = copy.deepcopy(LLAMACPP_POD)
    pod["spec"]["containers"][0]["image"] = image
    return pod


def test_a_branch_tag_is_a_moving_reference():
    assert found([LLAMACPP_POD], "image-tag-pinned") == [
        (
            "advisory",
            "container l3test: image ghcr.io/brianlechthaler/ml-cookbook-knative-testing/knative-llamacpp:main uses the "
            "mutable tag main; pin a version tag (ideally a digest, image@sha256:...)",
        )
    ]
    for tag in ("nightly", "Develop", "edge", "latest-gpu", "master-cublas-cuda12", "main-gpu"):
        assert len(found([_with_image(f"registry.example/llm:{tag}")], "image-tag-pinned")) == 1, tag


def test_version_tags_that_mention_a_branch_word_pass():
    # sgl-project/ome config/runtimes/srt/Qwen/Qwen3-32B-rt.yaml at 17b77edad23bae262e0c9adb7f12039397a5d33d (held-out
    # set 3, row 7): its router image fra.ocir.io/idqj093njucb/smg:v0.2.4.post1-dev, a version tag.
    for image in ("fra.ocir.io/idqj093njucb/smg:v0.2.4.post1-dev", "registry.example/llm:main-2024.06.01", "x/y:1.2-nightly"):
        assert found([_with_image(image)], "image-tag-pinned") == [], image
    assert found([LLAMACPP_POD], "image-tag-pinned", {"image-tag-pinned": {"disallowedTags": ["latest"]}}) == []


# S6 autoscaling-signal-not-throughput ---------------------------------------------------------------------------


def scaled_object(name: str, target: str, trigger: dict) -> dict:
    return {
        "apiVersion": "keda.sh/v1alpha1",
        "kind": "ScaledObject",
        "metadata": {"name": name, "namespace": "llm"},
        "spec": {"scaleTargetRef": {"name": target}, "minReplicaCount": 1, "maxReplicaCount": 2, "triggers": [trigger]},
    }


# kedify/examples samples/llmd-pd-disaggregation-autoscaling/llmd-pd-disaggregation-so.yaml at
# 68ab1b012dd335db4eba70db354f2c6c62db157b (held-out set 3, row 12): the decode Deployment scaled by Kedify's OTel
# scaler on the rate of vllm:request_success_total, target 0.5.
DECODE_SO = scaled_object(
    "decode-sidecar",
    "pd-llm-d-modelservice-decode",
    {
        "type": "external",
        "metadata": {
            "scalerAddress": "keda-otel-scaler.keda.svc:4318",
            "metricQuery": "sum(vllm:request_success_total{deployment=pd-llm-d-modelservice-decode})",
            "operationOverTime": "rate",
            "targetValue": "0.5",
        },
    },
)


def test_scaling_on_the_rate_of_completed_requests_is_advisory():
    assert found([DECODE_SO], "autoscaling-signal-not-throughput") == [
        (
            "advisory",
            "spec.triggers[0]: external trigger scales on the rate of request_success_total: a throughput rate levels "
            "off once the replicas saturate while the queue keeps growing, so it stops asking for replicas exactly when "
            "they are needed; scale on queue depth (vllm:num_requests_waiting) or running requests",
        )
    ]
    prometheus = scaled_object(
        "tokens",
        "vllm",
        {"type": "prometheus", "metadata": {"query": "sum(rate(vllm:generation_tokens_total[1m]))", "threshold": "2000"}},
    )
    ((_, message),) = found([prometheus], "autoscaling-signal-not-throughput")
    assert "prometheus trigger scales on the rate of generation_tokens_total" in message
    hpa = {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "vllm", "namespace": "llm"},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "vllm"},
            "maxReplicas": 4,
            "metrics": [
                {
                    "type": "Pods",
                    "pods": {
                        "metric": {"name": "vllm_request_success_per_second"},
                        "target": {"type": "AverageValue", "averageValue": "2"},
                    },
                }
            ],
        },
    }
    ((_, message),) = found([hpa], "autoscaling-signal-not-throughput")
    assert message.startswith("spec.metrics[0].pods: metric vllm_request_success_per_second is a throughput rate")
    # A per-request latency target (opea-project/GenAIInfra microservices-connector/config/HPA/tgi.yaml: an Object
    # metric tgi_request_latency, Value 4) follows the answers' length as much as the load: advice too.
    latency = copy.deepcopy(hpa)
    latency["spec"]["metrics"][0]["pods"]["metric"]["name"] = "tgi_request_latency"
    ((level, message),) = found([latency], "autoscaling-signal-not-throughput")
    assert level == "advisory" and "metric tgi_request_latency is a per-request latency" in message


def test_queue_depth_and_averaged_qps_are_silent():
    # vllm-project/production-stack tutorials/assets/keda-scaled-object.yaml (corpus 1): query vllm:num_requests_waiting;
    # kedify/examples samples/vllm-autoscaling/vllm-so.yaml (set 3, row 11): metricQuery sum(vllm:current_qps), avg.
    waiting = scaled_object(
        "vllm-scaledobject",
        "vllm-llama3-deployment-vllm",
        {"type": "prometheus", "metadata": {"query": "vllm:num_requests_waiting"}},
    )
    qps = scaled_object(
        "vllm-so",
        "vllm-router",
        {"type": "external", "metadata": {"metricQuery": "sum(vllm:current_qps)", "operationOverTime": "avg"}},
    )
    # The rate of a counter that is not work done (preemptions) is not a throughput signal.
    total = scaled_object("t", "vllm", {"type": "prometheus", "metadata": {"query": "rate(vllm:num_preemptions_total[5m])"}})
    assert found([waiting, qps, total], "autoscaling-signal-not-throughput") == []


# S31 serving-code-pinned (widened) and serving-start-installs -----------------------------------------------------


def ray_service(serve_config: str, worker: dict | None = None) -> dict:
    workers = [] if worker is None else [{"groupName": "gpu", "template": {"spec": {"containers": [worker]}}}]
    return {
        "apiVersion": "ray.io/v1",
        "kind": "RayService",
        "metadata": {"name": "ray-svc", "namespace": "llm"},
        "spec": {
            "serveConfigV2": serve_config,
            "rayClusterConfig": {
                "headGroupSpec": {"template": {"spec": {"containers": [{"name": "ray-head", "image": "rayproject/ray:2.41.0"}]}}},
                "workerGroupSpecs": workers,
            },
        },
    }


# aws-samples/gen-ai-on-eks ray_serve_manifests/00_ray_serve_fine_tuned.yaml at df6d26c4b7b12c0f544301942b5cd1e1be679bf6
# (held-out set 3, row 9): the application's runtime_env pip list (awscli bare, the rest ==) and a GPU worker whose
# command runs `pip install deepspeed==0.9.2`.
FINETUNED = ray_service(
    "applications:\n"
    "  - name: falcon_finetuned_financial_data\n"
    "    import_path: serve_script.deployment_finetuned\n"
    "    runtime_env:\n"
    "      pip:\n"
    "        - awscli\n"
    "        - transformers==4.33.1\n"
    "        - torch==2.0.1\n",
    {
        "name": "ray-worker",
        "image": "rayproject/ray-ml:2.6.3-py38-gpu",
        "command": ["DS_BUILD_CPU_ADAM=1 pip install deepspeed==0.9.2"],
        "resources": {"limits": {"nvidia.com/gpu": 1}},
    },
)


def test_a_bare_package_in_a_runtime_env_blocks_and_pinned_ones_are_advisory():
    assert found([FINETUNED], "serving-code-pinned") == [
        (
            "mandatory",
            "spec.serveConfigV2: applications[0].runtime_env.pip: installs awscli with no pinned version at every start, "
            "so each restart may run a release nobody tested; pin it (name==version) or bake it into the image",
        )
    ]
    assert sorted(m for _, m in found([FINETUNED], "serving-start-installs")) == [
        "spec.rayClusterConfig.workerGroupSpecs[0].template.spec container ray-worker: installs deepspeed==0.9.2 at every "
        "start: each cold start waits for the downloads and fails when the package index is unreachable; bake them into "
        "the image",
        "spec.serveConfigV2: applications[0].runtime_env.pip: installs transformers==4.33.1, torch==2.0.1 at every start: "
        "each cold start waits for the downloads and fails when the package index is unreachable; bake them into the image",
    ]


def test_a_branch_archive_as_working_dir_blocks():
    # GoogleCloudPlatform/kubernetes-engine-samples ai-ml/gke-ray/rayserve/llm/llama-3-8b/ray-service.yaml (corpus
    # manifests-v2, row 12): working_dir .../archive/main.zip and pip ["vllm==0.4.3","transformers[torch]==4.40.2"].
    gke = ray_service(
        "applications:\n"
        "  - name: llm\n"
        "    runtime_env:\n"
        '      working_dir: "https://github.com/GoogleCloudPlatform/kubernetes-engine-samples/archive/main.zip"\n'
        '      pip: ["vllm==0.4.3","transformers[torch]==4.40.2"]\n'
    )
    ((level, message),) = found([gke], "serving-code-pinned")
    assert level == "mandatory" and message.startswith(
        "spec.serveConfigV2: applications[0].runtime_env.working_dir: Ray downloads "
        "https://github.com/GoogleCloudPlatform/kubernetes-engine-samples/archive/main.zip (the moving 'main' reference)"
    )
    pinned = gke["spec"]["serveConfigV2"].replace("archive/main.zip", "archive/2b5036514162a489145c5e5570bc320efbcb37bf.zip")
    assert found([{**gke, "spec": {**gke["spec"], "serveConfigV2": pinned}}], "serving-code-pinned") == []


def test_a_version_range_is_advisory_and_a_runtime_env_without_installs_is_silent():
    # awslabs/data-on-eks data-stacks/ray-on-eks/examples/ray-batch-inference/03-rayservice-deepseek-r1-8b.yaml (corpus
    # 1): runtime_env pip ["runai-model-streamer[s3]>=0.15.7"]; awslabs/ai-on-eks
    # blueprints/inference/vllm-rayserve-gpu/ray-service-vllm.yaml (corpus 1): runtime_env env_vars only.
    ranged = ray_service(
        'applications:\n  - name: llm\n    runtime_env:\n      pip:\n        - "runai-model-streamer[s3]>=0.15.7"\n'
    )
    assert found([ranged], "serving-code-pinned") == []
    ((level, message),) = found([ranged], "serving-start-installs")
    assert level == "advisory" and "a range still takes the newest release inside it" in message
    env_only = ray_service(
        'applications:\n  - name: llm\n    runtime_env:\n      env_vars:\n        MODEL_ID: "mistralai/Mistral-7B-Instruct-v0.2"\n'
    )
    assert found([env_only], "serving-code-pinned") == found([env_only], "serving-start-installs") == []


def test_command_line_installs():
    from policies.reading.installs import command_installs

    got = command_installs(
        'pip install --no-cache-dir "huggingface_hub" -r requirements.txt && uv pip install vllm==0.33.0 . '
        "&& conda install -c conda-forge numpy=1.26 && pip install git+https://github.com/org/repo && pip3 install -U 'torch>=2'",
        "c",
    )
    assert [(i.requirement, i.pinned, i.bare) for i in got] == [
        ("huggingface_hub", False, True),
        ("-r requirements.txt", False, True),  # a requirements file without --require-hashes (forms48)
        ("vllm==0.33.0", True, False),
        ("numpy=1.26", True, False),
        ("torch>=2", False, False),
    ]
    assert command_installs("pip list && pip show vllm && python -m pip --version", "c") == []
    # Session 24 review F8: the installer's own upgrade and a path in the image (".", "-e /app", a wheel file) are no
    # package from an index.
    assert (
        command_installs("pip install --upgrade pip setuptools wheel && pip install -e /app ./x dist/a-1.0-py3-none-any.whl", "c")
        == []
    )


def test_session_24_review_forms_of_installs_and_clones():
    """Session 24 cold review: F7 a fine-tuning Job (restartPolicy Never) installs once, not at every start of a server;
    F9 a clone pinned afterwards (git reset --hard <sha>, git -c k=v -C dir checkout <sha>) is pinned; R1 a clone of
    --branch main is a moving reference; F10 CUDA_LAUNCH_BLOCKING=true is not the documented switch (1)."""
    from policies.models.serving_code_pinned import moving_fetches

    assert moving_fetches("git clone https://github.com/org/plugin /app && cd /app && git reset --hard 1a2b3c4d && run") == []
    assert (
        moving_fetches("git clone https://github.com/org/p /app && git -c advice.detachedHead=false -C /app checkout 1a2b3c4")
        == []
    )
    assert moving_fetches("git clone --revision=1a2b3c4d5e https://github.com/org/p /app") == []
    assert moving_fetches("git clone --branch v1.2.0 https://github.com/org/p /app") == []
    assert moving_fetches("git clone --branch main https://github.com/org/p /app") == [
        "clones the moving branch 'main' (git clone --branch) at every start"
    ]
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "tune"},
        "spec": {
            "template": {
                "spec": {
                    "restartPolicy": "Never",
                    "containers": [
                        {
                            "name": "train",
                            "image": "pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime",
                            "command": ["sh", "-c", "pip install peft trl && python /scripts/train.py"],
                            "resources": {"limits": {"nvidia.com/gpu": 1}},
                        }
                    ],
                }
            }
        },
    }
    # Session 46: a Job installs at each run (and retry): advice from serving-start-installs, never serving-code-pinned.
    assert found([job], "serving-code-pinned") == []
    ((level, message),) = found([job], "serving-start-installs")
    assert level == "advisory" and message == (
        "container train: installs peft, trl at every run (each retry too): each run waits for the "
        "downloads and fails when the package index is unreachable; an unpinned name takes whatever the index holds at "
        "that run; bake them into the image"
    )
    server = copy.deepcopy(job)
    server["kind"], server["apiVersion"] = "Deployment", "apps/v1"
    server["spec"] = {"replicas": 1, "selector": {}, "template": {"spec": dict(job["spec"]["template"]["spec"])}}
    server["spec"]["template"]["spec"].pop("restartPolicy")
    assert [level for level, _ in found([server], "serving-code-pinned")] == ["mandatory", "mandatory"]
    for value, levels in (("true", []), ("1", ["mandatory"])):
        debug = copy.deepcopy(server)
        debug["spec"]["template"]["spec"]["containers"][0]["env"] = [{"name": "CUDA_LAUNCH_BLOCKING", "value": value}]
        assert [level for level, _ in found([debug], "debug-switches-off")] == levels, value


def test_only_the_annotation_makes_an_ingress_gkes():
    """kubernetes/ingress-gce v1.41.1 pkg/utils/utils.go:331-357: GKE's controller reads the kubernetes.io/ingress.class
    annotation, and an Ingress with spec.ingressClassName is never its own (session 24 review F11)."""
    base = {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "Ingress",
        "metadata": {"name": "tgi"},
        "spec": {"defaultBackend": {"service": {"name": "tgi", "port": {"number": 8080}}}},
    }
    by_annotation = copy.deepcopy(base)
    by_annotation["metadata"]["annotations"] = {"kubernetes.io/ingress.class": "gce"}
    by_field = copy.deepcopy(base)
    by_field["spec"]["ingressClassName"] = "gce"
    # Advice: the backend tgi is not in the set, so it may not be a model (F11's remainder).
    assert [level for level, _ in found([by_annotation], "external-gce-ingress-guarded")] == ["advisory"]
    assert found([by_field], "external-gce-ingress-guarded") == []
    assert found([by_field], "public-model-endpoint-guarded") == []  # no GKE load balancer, nor any other
