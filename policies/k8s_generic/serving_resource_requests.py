"""G8: a model server must request CPU and memory.

Karpenter picks the instance type from the pending pods' requests, and the scheduler packs by
them. A GPU container that requests only `nvidia.com/gpu` lets the node fill with other pods
until tokenisation, detokenisation and weight loading starve for CPU and memory. (A limit
without a request counts: Kubernetes then defaults the request to the limit.) A server that
requests memory but not CPU is advice: CPU is compressible, so it is slowed, not killed.

A serving-path app in front of the model servers (an LLM proxy or router, components/serving_apps.toml) with no CPU or
memory request is advice too: every request goes through it.
"""

from __future__ import annotations

from policies.framework import Policy, Resource, unproven
from policies.kube import get, workload_types
from policies.operators import OPERATOR_TYPES, operator_server
from policies.reading.gateway_apps import app_containers
from policies.reading.kserve_runtime import effective_resources, unclaimed_runtime_resources
from policies.reading.limit_ranges import namespace_default
from policies.reading.lws_groups import presumed_servers, weighed_presumed
from policies.reading.serving import model_servers

# A runtime no InferenceService of the files selects: the pods are an InferenceService's, which may set what it lacks.
RUNTIME_ALONE = " (no InferenceService of the files selects this runtime; one that does may set them in its predictor)"
# CPU is compressible, memory is not: a container short of CPU is throttled and keeps running, one short of memory is
# OOM-killed or evicted first (https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/
# "How Pods with resource limits are run"; node-pressure eviction ranks pods by memory usage above requests). With
# memory requested, a missing CPU request slows the server under contention but does not stop it serving.
_CPU_ONLY = " (advisory: memory is requested, and a server short of CPU is throttled, not killed)"


def _check(resource: Resource, config: dict) -> list[str]:
    # An HPA scaling on utilisation over a workload without the request is the autoscaler's finding
    # (policies/autoscaling/utilization_requests.py).
    messages: list[str] = []
    for server in model_servers(resource) + presumed_servers(resource):
        resources, merged = effective_resources(resource, server.path, server.container)
        alone = resources is None and (resources := unclaimed_runtime_resources(resource, server.container)) is not None
        if resources is None:
            continue  # a KServe runtime not among the objects checked completes this container
        missing = [
            r
            for r in ("cpu", "memory")
            if get(resources, "requests", r) is None
            and get(resources, "limits", r) is None
            # A LimitRange of the run's namespace fills the request (its defaultRequest, else its default limit).
            and namespace_default(resource, "requests", r) is None
            and namespace_default(resource, "limits", r) is None
        ]
        if missing:
            message = (
                f"{server.label}: no {' or '.join(missing)} request on this {server.engine} server{merged}, so "
                f"Karpenter sizes the node and the scheduler packs it as if it needed none; request "
                f"what the engine uses besides the GPU"
            )
            if alone:
                messages.append(unproven(f"{message}{RUNTIME_ALONE}"))
            else:
                messages.append(weighed_presumed(server, unproven(message + _CPU_ONLY) if missing == ["cpu"] else message))
    messages.extend(_unrequested_apps(resource))
    operator = operator_server(resource)
    if operator is not None and operator.unrequested:
        fields = " and ".join(f for _, f in operator.unrequested)
        messages.append(
            f"{fields} not set, so the {operator.kind} operator renders a model server with no "
            f"{' or '.join(r for r, _ in operator.unrequested)} request; Karpenter sizes the node and the "
            f"scheduler packs it as if it needed none; request what the engine uses besides the GPU"
        )
    return messages


def _unrequested_apps(resource: Resource) -> list[str]:
    """A serving-path app (an LLM proxy or router, components/serving_apps.toml) that requests no CPU or memory: every
    model request goes through it, and a BestEffort pod is the first the kubelet evicts under node pressure (spent set
    53 danielpenchev98/vllm-k8s, a LiteLLM proxy with no resources at all)."""
    found: list[str] = []
    for proxy in app_containers(resource):
        missing = [
            r
            for r in ("cpu", "memory")
            if get(proxy.container, "resources", "requests", r) is None
            and get(proxy.container, "resources", "limits", r) is None
            and namespace_default(resource, "requests", r) is None
            and namespace_default(resource, "limits", r) is None
        ]
        if missing:
            found.append(
                unproven(
                    f"{proxy.label}: no {' or '.join(missing)} request on this {proxy.app.display}, which every model "
                    f"request goes through, so the scheduler packs it as if it needed none"
                    + (
                        ", and with no memory request it is among the first pods the kubelet evicts under node pressure"
                        if "memory" in missing
                        else ""
                    )
                    + "; request what it uses"
                )
            )
    return found


POLICY = Policy(
    name="serving-resource-requests",
    description="Every model-server container must request CPU and memory (a limit alone counts).",
    catalog="G8",
    severity="medium",
    # Advisory: a risk, not a failure the files prove (docs/policies.md "Enforcement levels"); --config raises it.
    enforcement="advisory",
    remediation_steps=(
        "Set resources.requests.cpu and resources.requests.memory on the model-server container (vLLM: a few cores per "
        "GPU for tokenisation and scheduling, memory for weight staging and swap space); `python -m stacks plan` "
        "prints the figures this project uses."
    ),
    resource_types=workload_types(*OPERATOR_TYPES),
    check_resource=_check,
    operator_fills="cpu and memory requests",
    rationale=(
        "The scheduler and Karpenter place pods by their requests "
        "(https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/; "
        "https://karpenter.sh/docs/concepts/scheduling/). Catalogue row 8 (Polaris cpuRequestsMissing, kube-linter "
        "unset-cpu-requirements, Checkov CKV_K8S_10/12), applied to model servers. A KServe predictor model is judged with the ServingRuntime KServe selects merged in "
        "(KServe v0.20.0 MergeRuntimeContainers, policies/reading/kserve_runtime.py); a runtime not among the objects checked "
        "is not guessed (every built-in KServe runtime sets requests and limits). A LimitRange of the pod's namespace among "
        "the files read whose defaultRequest or default sets the resource fills the request "
        "(https://kubernetes.io/docs/concepts/policy/limit-range/; policies/reading/limit_ranges.py)."
    ),
)
