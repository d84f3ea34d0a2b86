"""G53: a container that claims GPUs from the device plugin does not set NVIDIA_VISIBLE_DEVICES itself (advice).

With the NVIDIA device plugin's default ``envvar`` strategy, the plugin tells the NVIDIA container runtime which GPUs
the container was allocated by setting ``NVIDIA_VISIBLE_DEVICES`` in its Allocate response (NVIDIA/k8s-device-plugin
v0.20.0 internal/plugin/server.go:46 ``deviceListEnvVar``, :480-482 ``updateResponseForDeviceListEnvVar``; README.md
"DEVICE_LIST_STRATEGY", ``envvar`` the default). The kubelet puts the container's own ``env`` after the device plugin's
variables (kubernetes pkg/kubelet/kubelet_pods.go GenerateRunContainerOptions: the container manager's options, then
``opts.Envs = append(opts.Envs, envs...)``) and the runtime keeps the last value of a name, so a manifest value
replaces the allocation the runtime hook reads:

* ``all``: the container sees every GPU of the node though it claimed ``nvidia.com/gpu: 1``; its engine sizes itself
  on GPUs the scheduler gave to other pods (set 16: egdcrypto/microk8s-gpu-stack applications/ollama/ollama-gpu.yaml);
* ``none`` / ``void`` / empty: no GPU at all, although one was claimed;
* device indexes or UUIDs (``0``, ``0,1``): the same GPUs in every pod of the node, whatever was allocated.

The device plugin's ``volume-mounts`` and CDI strategies (README.md: a list passed as mounts "instead of as an
environment variable") and the container toolkit's ``accept-nvidia-visible-devices-envvar-when-unprivileged = false``
ignore the variable, so the files do not prove the override takes effect: advice. A container that claims no GPU
(``runtimeClassName: nvidia`` sharing, a sidecar) is not this rule's.
"""

from __future__ import annotations

import re

from policies.framework import Policy, Resource, unproven
from policies.kube import WORKLOAD_TYPES, as_dict, as_list, container_label, containers, gpu_count, pod_specs

_VARIABLE = "NVIDIA_VISIBLE_DEVICES"
_DEVICE_LIST = re.compile(
    r"^(?:\d+|GPU-[0-9a-fA-F-]+|MIG-[0-9a-zA-Z/-]+)(?:\s*,\s*(?:\d+|GPU-[0-9a-fA-F-]+|MIG-[0-9a-zA-Z/-]+))*$"
)


def _effect(value: str, claimed: int) -> str | None:
    text = value.strip()
    if text.lower() == "all":
        return f"the container sees every GPU of the node although it claims {claimed}"
    if text.lower() in ("none", "void", ""):
        return f"the container gets no GPU although it claims {claimed}"
    if _DEVICE_LIST.match(text):
        return "every pod on the node gets those same GPUs, whichever the device plugin allocated"
    return None


def _check(resource: Resource, config: dict) -> list[str]:
    messages: list[str] = []
    for path, podspec in pod_specs(resource):
        for container in containers(podspec, init=True, model=True):
            claimed = gpu_count(container) or gpu_count(container, "requests") or 0
            if claimed <= 0:
                continue
            for item in (as_dict(i) for i in as_list(container.get("env"))):
                value = item.get("value")
                if item.get("name") != _VARIABLE or "valueFrom" in item or not isinstance(value, (str, int)):
                    continue
                effect = _effect(str(value), claimed)
                if effect is None:
                    continue
                messages.append(
                    unproven(
                        f"{container_label(path, container)}: env {_VARIABLE}={value} beside an nvidia.com/gpu "
                        f"claim of {claimed} replaces the device plugin's own {_VARIABLE} (its default envvar "
                        f"strategy: the kubelet appends the container's env after the plugin's), so {effect}; drop "
                        "the variable and let the device plugin set it"
                    )
                )
    return messages


POLICY = Policy(
    name="gpu-visible-devices-left-to-plugin",
    description=(
        "A container that claims nvidia.com/gpu leaves NVIDIA_VISIBLE_DEVICES to the device plugin (no all, none, void "
        "or fixed device list in its env)."
    ),
    catalog="G53",
    severity="medium",
    enforcement="advisory",
    remediation_steps=(
        "Remove NVIDIA_VISIBLE_DEVICES from the env of containers that request nvidia.com/gpu; the device plugin sets it "
        "to the allocated GPUs. Run the plugin with deviceListStrategy volume-mounts (or CDI) to make a pod's value "
        "harmless."
    ),
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    rationale=(
        "The NVIDIA device plugin passes the allocated GPUs as NVIDIA_VISIBLE_DEVICES by default (k8s-device-plugin "
        "v0.20.0 internal/plugin/server.go:46,480-482; README.md DEVICE_LIST_STRATEGY), and the container's own env, "
        "appended after it by the kubelet, replaces it: all exposes every GPU of the node, none/void none, a fixed list "
        "the same GPUs in every pod. Advice: the volume-mounts/CDI strategies ignore the variable."
    ),
)
