"""G26: containers must not run privileged, and a serving container keeps its seccomp filter.

The NVIDIA device plugin hands a container its GPUs (device nodes, driver libraries) without
privileges; a privileged container instead sees every device of the node, all GPUs included, and
can escape to the host.

Session 52 (brief appsettings52) widened the row to ``seccompProfile: {type: Unconfined}`` on a serving container (a
model server of the engine table, a serving-path app or a chat UI: policies/reading/serving_containers.py), written on
the container or on its pod and not overridden by the container (core/v1 SecurityContext.seccompProfile: "If
seccomp options are provided at both the pod & container level, the container options override the pod options"):
the container runtime's default syscall filter is off, so a foothold through the model API may call every syscall
the kernel offers. The baseline Pod Security Standard forbids an explicit Unconfined ("Seccomp profile must not be
explicitly set to Unconfined", https://kubernetes.io/docs/concepts/security/pod-security-standards/#baseline). Only the
explicit value is reported (an unset profile is the kubelet's choice, not the file's). An operator's custom resource
with no pod template of its own that names an engine image and hands a security context to the pod it renders
(``spec.podSecurityContext``, ``spec.securityContext``) is read the same way (spent set 91 Tanguille/cluster@7caefd26
kubernetes/apps/ai/llmkube/models/qwen38-27b-vllm.yaml, an llmkube InferenceService; set 92 Nabelops/n8s@9ed59e7d apps/vllm/
deployment.yaml, a ROCm vLLM Deployment's container; both labelled). Advice, as the row is.

Silent on vLLM's CPU backend (a vLLM server whose pod asks for no accelerator of any vendor nor DRA devices, or an engine CR whose vLLM image names cpu):
vLLM documents ``seccompProfile: Unconfined`` with SYS_NICE for it, so that ``migrate_pages`` for its NUMA binding is
allowed (vllm-project/vllm 3ff2de9c docs/getting_started/installation/cpu.md, FAQ "Why do I see get_mempolicy:
Operation not permitted when running in Docker?"; spent sets 71 Sanmay-Das/LLM-Serving-Benchmark vllm-deployment.yaml
and 97 rajinikanthvadla-ai/kserve-triton-ray-llm-stack 03-vllm-cpu-lab/manifests/vllm-cpu.yaml, not labelled).
"""

from __future__ import annotations

from collections.abc import Mapping

from policies.framework import Policy, Resource
from policies.kube import (
    WORKLOAD_TYPES,
    container_label,
    containers,
    get,
    pod_specs,
)
from policies.reading.accelerators import claims_devices, requests_accelerator
from policies.reading.node_agents import weighed
from policies.reading.serving import model_server_engine
from policies.reading.serving_containers import serving_containers, spec_security_contexts

_UNCONFINED = "Unconfined"
_COST = (
    "turns the container runtime's default syscall filter off, so whoever reaches it through its API (a remote-code "
    "model, a tool call, an engine bug) may call every syscall the kernel offers (the baseline Pod Security Standard "
    "forbids an explicit Unconfined); keep RuntimeDefault, or a Localhost profile that allows what the server needs"
)


def _seccomp(context: object) -> object:
    return get(context, "seccompProfile", "type") if isinstance(context, Mapping) else None


def _unconfined(resource: Resource) -> list[str]:
    pods = dict(pod_specs(resource))
    found = []
    for path, container, what in serving_containers(resource):
        own = _seccomp(container.get("securityContext"))
        pod = _seccomp(get(pods.get(path, {}), "securityContext"))
        if own == _UNCONFINED or (own is None and pod == _UNCONFINED):
            if _vllm_cpu(container, pods.get(path, {})):
                continue
            where = "securityContext" if own is not None else "the pod's securityContext"
            found.append(f"{container_label(path, container)}: {where} seccompProfile Unconfined on this {what} {_COST}")
    return found


def _vllm_cpu(container: Mapping, podspec: Mapping) -> bool:
    """True for vLLM's CPU backend (a vLLM server whose pod asks for no accelerator), whose docs ask for Unconfined (module
    docstring)."""
    if requests_accelerator(podspec) or claims_devices(podspec):
        return False
    return model_server_engine(container) == "vllm"


def _spec_unconfined(resource: Resource) -> list[str]:
    """Seccomp Unconfined in the security context an engine CR with no pod template hands to the pod it renders."""
    return [
        f"spec.{c.key}: seccompProfile Unconfined, handed by the operator to the {c.what} it renders, {_COST}"
        for c in spec_security_contexts(resource)
        if _seccomp(c.context) == _UNCONFINED and not (c.engine == "vllm" and any("cpu" in i.lower() for i in c.images))
    ]


def _check(resource: Resource, config: dict) -> list[str]:
    privileged = [
        f"{container_label(path, c)}: securityContext.privileged: true gives the container every device of the "
        f"node (all GPUs included) and a way out to the host; the GPU device plugin needs no privileges"
        for path, podspec in pod_specs(resource)
        for c in containers(podspec, init=True, model=True)
        if get(c, "securityContext", "privileged") is True
    ]
    if resource.template:
        return weighed(resource, privileged)
    return weighed(resource, privileged + _unconfined(resource) + _spec_unconfined(resource))


POLICY = Policy(
    name="no-privileged",
    description="Containers must not set securityContext.privileged: true, and a serving container (model server, "
    "serving-path app, chat UI; or an engine CR's spec security context) must not set seccompProfile Unconfined.",
    catalog="G26",
    severity="critical",
    # Advisory: a risk, not a failure the files prove (docs/policies.md "Enforcement levels"); --config raises it.
    enforcement="advisory",
    remediation_steps=(
        'Remove privileged: true; request GPUs through resources.limits["nvidia.com/gpu"] and add only the '
        "capabilities the workload needs (IPC_LOCK for RDMA/EFA). Leave seccompProfile at RuntimeDefault (or a "
        "Localhost profile) on model servers."
    ),
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    rationale=(
        "A privileged container has all capabilities and the host's devices "
        "(https://kubernetes.io/docs/concepts/security/pod-security-standards/#baseline). GPUs are exposed by the "
        "device plugin without it (https://github.com/NVIDIA/k8s-device-plugin). The baseline standard also forbids "
        "an explicit seccompProfile Unconfined. Catalogue row 26."
    ),
)
