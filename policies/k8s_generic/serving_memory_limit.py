"""G10: a model-server container needs a memory limit, and a CPU-only one a limit above the model it loads.

Loading weights goes through host memory, vLLM's CPU swap space and /dev/shm (a memory-backed
emptyDir) live there too, and tokenisation grows with traffic; with no limit one replica can push
the node into memory pressure, and the kubelet then evicts or OOM-kills its neighbours, which on
a GPU node means other models.

A KServe predictor that sets only a GPU does get a memory limit, from KServe: the defaulter fills the first container of
the predictor's own ``containers`` with the inferenceservice-config figure (kserve/kserve v0.20.0
pkg/apis/serving/v1beta1/predictor_custom.go:65-73, inference_service_defaults.go:59-95; 2Gi in the chart,
charts/kserve-resources/values.yaml:88-95, files/common/configmap-patch.yaml:137-141), and a predictor ``model`` its
built-in runtime's (config/runtimes/kserve-huggingfaceserver.yaml:34-40, kserve-vllmserver.yaml:45-51: 2Gi). A GPU LLM
server needs more host memory than that while it loads, so the advice names the figure it gets (below 8Gi) and the
OOM-kill at load it risks (advice: the cluster's config may give more).

A GPU server that sets no memory limit in a namespace whose LimitRange among the files defaults one below 8Gi gets that
limit from the LimitRanger admission plugin (kubernetes/kubernetes@8f672ecf2088fe8504495748577c0ab537999ab7
plugin/pkg/admission/limitranger/admission.go:190-209,221-227), judged as KServe's figure is (spent set 67
Electricpaper77/ai-rag-eval-platform: 4Gi under a vLLM GPU server).

A CPU-only server whose limit is below the model it loads is G10's other policy, cpu-model-memory-fits
(policies/models/cpu_model_fits.py).
"""

from __future__ import annotations

from typing import Any

from policies.framework import Policy, Resource, unproven
from policies.k8s_generic.serving_resource_requests import RUNTIME_ALONE
from policies.kube import as_quantity, get, gpu_count, split_type, workload_types
from policies.operators import OPERATOR_TYPES, operator_server
from policies.reading.gateway_apps import app_containers
from policies.reading.kserve_runtime import effective_resources, unclaimed_runtime_resources
from policies.reading.limit_ranges import filled_by, namespace_default
from policies.reading.lws_groups import presumed_servers, weighed_presumed
from policies.reading.serving import model_servers

# A memory limit filled in (by KServe, by a LimitRange) below this (bytes) is too small for a GPU LLM server's load:
# KServe's charts give 2Gi.
_FILLED_BELOW = 8 * 2**30


def _check(resource: Resource, config: dict) -> list[str]:
    found = []
    for s in model_servers(resource) + presumed_servers(resource):
        resources, merged = effective_resources(resource, s.path, s.container)
        alone = resources is None and (resources := unclaimed_runtime_resources(resource, s.container)) is not None
        unlimited = resources is not None and get(resources, "limits", "memory") is None
        filled = filled_by(resource, "limits", "memory") if unlimited else None
        if unlimited and filled is not None and resources is not None:
            # A LimitRange of the run fills it (LimitRanger admission): judged as a limit of its own.
            source = f" from LimitRange {filled[1]}'s default{merged} (the LimitRanger admission plugin fills it in)"
            found.extend(_filled(s.label, s.engine, s.container, filled[0], source))
        elif unlimited:
            message = (
                f"{s.label}: no resources.limits.memory on this {s.engine} server{merged}; host memory for weight "
                f"loading, /dev/shm and swap space is then unbounded and the node's other pods pay for it; set a memory limit"
            )
            found.append(weighed_presumed(s, unproven(f"{message}{RUNTIME_ALONE}") if alone else message))
        elif merged and resources is not None and get(s.container, "resources", "limits", "memory") is None:
            found.extend(_filled(s.label, s.engine, s.container, get(resources, "limits", "memory"), merged))
    found.extend(_kubeai_profile(resource))
    found.extend(_unlimited_apps(resource))
    server = operator_server(resource)
    if server is not None and server.memory_limit is None:
        found.append(
            f"{server.memory_field} is not set, so the {server.kind} operator renders the model server with no "
            f"memory limit; host memory for weight loading and /dev/shm is then unbounded and the node's other "
            f"pods pay for it; set it"
        )
    return found


def _filled(label: str, engine: str, container: dict, limit: Any, source: str) -> list[str]:
    """Advice on a GPU model server that sets no memory limit of its own and gets one filled in below 8Gi: by KServe
    (its defaulter, components/kserve_runtimes.toml [defaults], or its built-in runtime, [[runtime]]: 2Gi as the charts
    install them), or by a LimitRange of its namespace among the files (the LimitRanger admission plugin copies a
    Container item's ``default`` into every container that lacks that limit: kubernetes/kubernetes@8f672ecf2088fe8504495748577c0ab537999ab7
    plugin/pkg/admission/limitranger/admission.go:190-209 defaultContainerResourceRequirements, :221-227
    mergeContainerResources; spent set 67 Electricpaper77/ai-rag-eval-platform k8s/limitrange.yaml, 4Gi under a vLLM
    GPU server). That is less than a GPU LLM server holds in host memory while it loads (weights staged, CUDA context).
    """
    size = as_quantity(limit)
    if size is None or size >= _FILLED_BELOW or not (gpu_count(container) or 0) > 0:
        return []
    return [
        unproven(
            f"{label}: no resources.limits.memory of its own, so this {engine} server on a GPU gets limits.memory "
            f"{limit}{source}: a GPU LLM server needs more than that in host memory while it loads (the Python "
            f"runtime and CUDA context, weights read before they reach the GPU, /dev/shm), so it is likely OOM-killed at "
            f"load and restarted in a loop; set a memory limit sized for the model"
        )
    ]


def _unlimited_apps(resource: Resource) -> list[str]:
    """Advice on a serving-path app (an LLM proxy or router, components/serving_apps.toml) with no memory limit: a
    proxy's memory grows with the requests and streams it holds, and with no limit a leak is paid by the node's other
    pods (spent set 53 danielpenchev98/vllm-k8s, a LiteLLM proxy with no resources at all)."""
    return [
        unproven(
            f"{proxy.label}: no resources.limits.memory on this {proxy.app.display}, which every model request goes "
            f"through; the memory of the requests and streams it holds is then unbounded and the node's other pods pay "
            f"for a leak; set a memory limit"
        )
        for proxy in app_containers(resource)
        if get(proxy.container, "resources", "limits", "memory") is None
        and namespace_default(resource, "limits", "memory") is None
    ]


# KubeAI's Model names its pod's resources by a profile, ``spec.resourceProfile: <name>:<multiple>``: the controller
# copies the profile's requests and limits, each multiplied (substratusai/kubeai 2f32ef498da629f96fd417ddfaaf22c28d40787e
# internal/modelcontroller/model_controller.go:274-306) onto the server container (engine_vllm.go:92,
# engine_ollama.go:88). The profiles are the operator's Helm values; the stock ones (charts/kubeai/values.yaml:99-208)
# set limits on GPUs only, never on memory.
_KUBEAI_MODEL = ("kubeai.org", "Model")
_KUBEAI_STOCK_PROFILES = frozenset(
    {
        "cpu",
        "nvidia-gpu-t4",
        "nvidia-gpu-l4",
        "nvidia-gpu-l40s",
        "nvidia-gpu-h100",
        "nvidia-gpu-gh200",
        "nvidia-gpu-a100-80gb",
        "nvidia-gpu-a100-40gb",
        "nvidia-gpu-a16",
        "nvidia-gpu-rtx4070-8gb",
        "amd-gpu-mi300x",
    }
)


def _kubeai_profile(resource: Resource) -> list[str]:
    """Advice on a KubeAI Model whose resourceProfile is one of KubeAI's stock profiles: the server gets no memory
    limit, unless the cluster's Helm values give that profile one (spent set 27 leoho0722/gpu-delegater-based-on-kubeai
    backend/k8s/deploy/kubeai/llama3.3-70b-builtin.yaml: cpu:20, 40Gi requested, no limit, a ~43 GB model)."""
    profile = get(resource.props, "spec", "resourceProfile")
    if split_type(resource.type) != _KUBEAI_MODEL or not isinstance(profile, str):
        return []
    name, _, multiple = profile.partition(":")
    if name not in _KUBEAI_STOCK_PROFILES:
        return []
    return [
        unproven(
            f"spec.resourceProfile {profile}: KubeAI's stock profile {name} sets no memory limit (charts/kubeai "
            f"values.yaml resourceProfiles), and the operator gives the server the profile's requests and limits times "
            f"{multiple or '?'}, so it runs with no memory limit unless this cluster's KubeAI values add one; host memory "
            f"for weight loading is then unbounded and the node's other pods pay for it; give the profile a memory limit"
        )
    ]


POLICY = Policy(
    name="serving-memory-limit",
    description="Every model-server container must set resources.limits.memory.",
    catalog="G10",
    severity="high",
    # Advisory: a risk, not a failure the files prove (docs/policies.md "Enforcement levels"); --config raises it.
    enforcement="advisory",
    remediation_steps=(
        "Set resources.limits.memory on the model-server container, equal to its memory request (a GPU pod should "
        "be Guaranteed), sized for the weights' host-side staging plus /dev/shm plus --swap-space; "
        "`python -m stacks plan` prints the figure this project uses."
    ),
    resource_types=workload_types(*OPERATOR_TYPES),
    check_resource=_check,
    operator_fills="a memory limit",
    rationale=(
        "A container without a memory limit may use all of the node's memory; under pressure the kubelet evicts "
        "pods by QoS class (https://kubernetes.io/docs/concepts/scheduling-eviction/node-pressure-eviction/). "
        "Memory-backed emptyDir pages count against the container's limit "
        "(https://kubernetes.io/docs/concepts/storage/volumes/#emptydir), so the /dev/shm that tensor parallelism "
        "needs is bounded only by it. Catalogue row 10 (Polaris memoryLimitsMissing, kube-linter "
        "unset-memory-requirements, Checkov CKV_K8S_13). A KServe predictor model is judged with the ServingRuntime KServe selects merged in "
        "(KServe v0.20.0 MergeRuntimeContainers, policies/reading/kserve_runtime.py); a runtime not among the objects checked "
        "is not guessed (every built-in KServe runtime sets requests and limits). A LimitRange of the pod's namespace among "
        "the files read whose default sets the memory limit fills it (https://kubernetes.io/docs/concepts/policy/limit-range/; "
        "policies/reading/limit_ranges.py), and is judged as a written one: below 8Gi under a GPU server, below the model a "
        "CPU server loads."
    ),
)
