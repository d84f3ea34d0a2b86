"""G50: a namespace's LimitRange does not give a GPU to the containers that need none.

The LimitRanger admission plugin copies a Container-type LimitRange's ``default`` and ``defaultRequest`` into every
container of a new pod that sets none of that resource, extended resources such as ``nvidia.com/gpu`` included
(kubernetes/kubernetes plugin/pkg/admission/limitranger/admission.go defaultContainerResourceRequirements,
mergeContainerResources; https://kubernetes.io/docs/concepts/policy/limit-range/). A LimitRange that defaults a
device resource so that the model server gets its GPU without asking gives one to every other container of the
namespace too: the gateway, the UI, a Redis, a sidecar. Each then holds a whole GPU it never uses, and on a node with
few GPUs one of them (often the model server) stays Pending. Spent set 23 opeyemibami/inferex
k8s/gpu-resource-limits.yaml: nvidia.com/gpu 1 default and defaultRequest in namespace inferex, whose CPU-only
gateway Deployment then claims the single GPU of the dev host (labelled, advisory).

Reported on the LimitRange, naming the workloads of its namespace among the files read whose containers would get the
device (no device resource or DRA claim of their own, and not a model server, for which the default is the point).
Advice: the cluster may have GPUs to spare. Silent when no such workload is among the files read.
"""

from __future__ import annotations

from policies.framework import Policy, Resource, unproven
from policies.kube import as_dict, as_list, containers, get, metadata_name, pod_specs, split_type
from policies.reading.accelerators import ACCELERATOR_RESOURCES
from policies.reading.serving import model_servers


def _device_defaults(limit_range: Resource) -> dict[str, object]:
    """The device resources a LimitRange's Container items default (default, else defaultRequest), by name."""
    found: dict[str, object] = {}
    for item in (as_dict(i) for i in as_list(get(limit_range.props, "spec", "limits"))):
        if item.get("type") != "Container":
            continue
        for section in ("defaultRequest", "default"):
            for name, value in as_dict(item.get(section)).items():
                if name in ACCELERATOR_RESOURCES or str(name).startswith("nvidia.com/mig-"):
                    found[str(name)] = value
    return found


def _needs_none(container: dict, devices: dict[str, object]) -> bool:
    """True when the container sets none of the defaulted devices and claims no DRA device."""
    resources = as_dict(container.get("resources"))
    if resources.get("claims"):
        return False
    own = set(as_dict(resources.get("limits"))) | set(as_dict(resources.get("requests")))
    return not (own & set(devices))


def _receivers(resources: list[Resource], namespace: object, devices: dict[str, object]) -> list[str]:
    """``Kind/name (container c)`` of every workload of the namespace whose non-server containers would get a device."""
    found: list[str] = []
    for r in resources:
        if get(r.props, "metadata", "namespace") != namespace or not pod_specs(r):
            continue
        servers = {id(s.container) for s in model_servers(r)}
        names = [
            str(c.get("name"))
            for _, podspec in pod_specs(r)
            if not podspec.get("resourceClaims")
            for c in containers(podspec)
            if id(c) not in servers and _needs_none(c, devices)
        ]
        if names:
            found.append(f"{split_type(r.type)[1]} {metadata_name(r.props)} (container {', '.join(sorted(set(names)))})")
    return found


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    findings: list[tuple[str, str]] = []
    for r in resources:
        if split_type(r.type) != ("", "LimitRange") or not (devices := _device_defaults(r)):
            continue
        namespace = get(r.props, "metadata", "namespace")
        receivers = _receivers(resources, namespace, devices)
        if not receivers:
            continue
        given = ", ".join(f"{k} {v}" for k, v in sorted(devices.items()))
        findings.append(
            (
                r.name,
                unproven(
                    f"LimitRange {metadata_name(r.props)} defaults {given} onto every container of namespace "
                    f"{namespace or '<default>'} that sets none, so {'; '.join(receivers)} also holds a whole device "
                    f"it never uses: on a node with few GPUs one of them, the model server among them, stays Pending; "
                    f"set the GPU on the model server's own resources and drop the device from the LimitRange"
                ),
            )
        )
    return findings


POLICY = Policy(
    name="limit-range-device-default",
    description=(
        "A Container LimitRange does not default a GPU (or another accelerator) onto the containers of its namespace "
        "that need none: the gateway, UI or sidecars would each hold a whole device (advice)."
    ),
    catalog="G50",
    severity="medium",
    enforcement="advisory",
    remediation_steps=(
        "Remove nvidia.com/gpu (or the other device) from the LimitRange's default and defaultRequest, and set it in "
        "the model server's own resources.limits."
    ),
    config_schema={},
    check_stack=_check,
    rationale=(
        "LimitRanger copies every default a container lacks into it, extended resources included (kubernetes "
        "plugin/pkg/admission/limitranger/admission.go defaultContainerResourceRequirements, mergeContainerResources; "
        "https://kubernetes.io/docs/concepts/policy/limit-range/); a device resource is whole, so each container that "
        "gets one holds a GPU."
    ),
)
