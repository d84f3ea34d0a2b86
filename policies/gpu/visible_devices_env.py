"""G53: a container that claims GPUs from the device plugin does not set NVIDIA_VISIBLE_DEVICES itself (advice), nor a
CUDA_VISIBLE_DEVICES naming a device it was not given (blocks), nor (advice) another vendor's variable at a value that
hides every device it claims (components/gpu_vendors.toml ``hide``: ``HIP_VISIBLE_DEVICES=all`` or ``ROCR_VISIBLE_DEVICES=-1``
beside ``amd.com/gpu``; HIP stops at the first token that is no index or UUID, ROCm/clr rocm-6.2.2
rocclr/device/rocm/rocdevice.cpp:501-550).

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

``CUDA_VISIBLE_DEVICES`` acts later, inside the container: CUDA enumerates only the devices the container was given
(whatever the plugin's strategy: envvar, volume-mounts or CDI inject the allocated devices only, server.go:480-482),
numbered 0..n-1, and keeps those the variable names ("GPU identifiers are given as integer indices or as UUID strings
... If one of the indices is invalid, only the devices whose index precedes the invalid index are visible to CUDA
applications", CUDA C++ Programming Guide, CUDA Environment Variables). So, in a container that claims devices from
the plugin and neither runs privileged (which sees every /dev/nvidia* of the node) nor sets NVIDIA_VISIBLE_DEVICES:

* a GPU or MIG **UUID** (``MIG-1ab0...``, set 35 kandakji/sample-aws-eks-auto-mode examples/gpu/vllm-3models-gpu0.yaml)
  names one physical device of one node; the plugin hands out whichever free device it picks, so unless it is that
  very one CUDA sees no device and the engine exits: blocks; advice when the pod is pinned to one node (nodeName,
  kubernetes.io/hostname: the UUID may be that node's one device) or an envFrom source may set NVIDIA_VISIBLE_DEVICES;
* a first **index** at or above the devices claimed (``1`` with one GPU) leaves CUDA no device: blocks; a list that
  drops some of them (``0`` with two) is advice (the others sit idle); ``0`` with one GPU is harmless and silent.
"""

from __future__ import annotations

import re

from components.gpu_vendors import device_resources, vendor
from policies.framework import Policy, Resource, unproven
from policies.kube import (
    WORKLOAD_TYPES,
    as_dict,
    as_int,
    as_list,
    container_label,
    containers,
    decimal,
    get,
    gpu_count,
    name_of,
    pod_specs,
)
from policies.reading.engines import env_values
from policies.reading.mounted_scripts import config_maps

_VARIABLE = "NVIDIA_VISIBLE_DEVICES"
NVIDIA = vendor("nvidia")  # its hide values: components/gpu_vendors.toml
_CUDA = "CUDA_VISIBLE_DEVICES"
_UUID = re.compile(r"^(?:GPU|MIG)-[0-9A-Za-z/-]+$")
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


def _claimed(container: dict) -> int:
    """Devices the container claims from NVIDIA's device plugin: nvidia.com/gpu and MIG slices (nvidia.com/mig-*), its
    limits (which the API server copies to unset requests of extended resources), else its requests."""
    resources = as_dict(container.get("resources"))
    for section in ("limits", "requests"):
        total = sum(
            as_int(value) or 0
            for name, value in as_dict(resources.get(section)).items()
            if isinstance(name, str) and (name == "nvidia.com/gpu" or name.startswith("nvidia.com/mig-"))
        )
        if total:
            return total
    return 0


_HOSTNAME = "kubernetes.io/hostname"


def _one_host(podspec: dict) -> bool:
    """True when the pod may run on one named node only (spec.nodeName, a kubernetes.io/hostname nodeSelector, or
    required node affinity whose every term pins kubernetes.io/hostname In one value): a device UUID copied from that
    node's nvidia-smi may be the very device the plugin allocates there (review 43 item 8)."""
    if isinstance(podspec.get("nodeName"), str) and podspec["nodeName"]:
        return True
    if isinstance(as_dict(podspec.get("nodeSelector")).get(_HOSTNAME), str):
        return True
    terms = as_list(
        get(podspec, "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
    )
    hosts = set()
    for term in terms:
        pinned = [
            e
            for e in (as_dict(x) for x in as_list(as_dict(term).get("matchExpressions")))
            if e.get("key") == _HOSTNAME and e.get("operator") == "In" and len(as_list(e.get("values"))) == 1
        ]
        if not pinned:
            return False
        hosts.add(str(as_list(pinned[0].get("values"))[0]))
    return len(hosts) == 1


def _env_from_may_set(container: dict) -> bool:
    """True when an envFrom source (a ConfigMap or Secret, read whole with no prefix) may set NVIDIA_VISIBLE_DEVICES:
    its keys are not in the files checked (a ConfigMap that is is read by engines.env_values), and the variable it sets
    decides which devices the container sees."""
    maps = config_maps(container)
    return any(
        not as_dict(source).get("prefix")
        and (
            as_dict(source).get("secretRef")
            or (as_dict(source).get("configMapRef") and name_of(get(source, "configMapRef")) not in maps)
        )
        for source in as_list(container.get("envFrom"))
    )


def _cuda_message(label: str, value: str, claimed: int, privileged: bool, why_not: str = "") -> str | None:
    """What CUDA_VISIBLE_DEVICES leaves a container that sees only the ``claimed`` devices the plugin gave it;
    ``why_not`` (a pinned host, an envFrom source) makes a UUID finding advice."""
    items = [v.strip() for v in value.split(",")]
    head = f"{label}: env {_CUDA}={value} beside a claim of {claimed} device(s) from the NVIDIA device plugin"
    if NVIDIA.hides(_CUDA, value) or (items and (decimal(items[0]) or 0) < 0):
        return unproven(_hidden(f"{head}", "CUDA_VISIBLE_DEVICES"))
    if not items or not items[0] or "$" in value:
        return None
    if _UUID.match(items[0]):
        text = (
            f"{head}: the container sees only the device(s) the plugin allocated, numbered from 0, and a UUID names one "
            "physical device of one node; unless the plugin happened to pick that very device, CUDA finds no GPU and "
            "the server exits (a replacement node has other UUIDs); drop the variable, or use index 0"
        )
        return unproven(f"{text} ({why_not})") if why_not else unproven(text) if privileged else text
    if not all(decimal(i) is not None for i in items) or privileged:
        return None
    if int(items[0]) >= claimed:
        return (unproven if why_not.startswith("an envFrom") else str)(
            f"{head}: the container's GPUs are numbered 0..{claimed - 1}, and CUDA keeps only the devices listed before "
            f"the first invalid index, so it sees no GPU and the server exits; drop the variable"
            + (f" ({why_not})" if why_not.startswith("an envFrom") else "")
        )
    usable = next((n for n, item in enumerate(items) if int(item) >= claimed), len(items))
    if len(set(items[:usable])) < claimed:
        return unproven(f"{head}: CUDA uses {len(set(items[:usable]))} of the {claimed} GPUs claimed; the rest sit idle")
    return None


def _hidden(head: str, variable: str) -> str:
    """The finding for a variable whose value hides every device the container claims (components/gpu_vendors.toml
    ``hide``: CUDA_VISIBLE_DEVICES empty or -1, NVIDIA_VISIBLE_DEVICES none/void/empty)."""
    return (
        f"{head}: that value hides every device from the container's processes, so the GPU it claims (reserved on the "
        f"node, kept from other pods) goes unused: the engine runs on the CPU (Ollama, llama.cpp) or finds no GPU and "
        f"exits (vLLM); drop {variable} from the env of a container that claims GPUs"
    )


def _other_vendor_hidden(label: str, container: dict, values: dict[str, str]) -> list[str]:
    """Advice for a variable that hides every device of a vendor other than NVIDIA (components/gpu_vendors.toml
    ``hide``) on a container that claims that vendor's device: ``HIP_VISIBLE_DEVICES=all`` beside ``amd.com/gpu``, which
    HIP reads as an invalid first index, so it enumerates no GPU (ROCm/clr rocm-6.2.2 rocclr/device/rocm/rocdevice.cpp:
    501-550; spent set 82 olafkfreund/SOW-generator deployment/k8s-pod-amd.yaml). The AMD device plugin mounts the
    allocated devices and sets no such variable, so the value is the container's own."""
    resources = {**as_dict(get(container, "resources", "requests")), **as_dict(get(container, "resources", "limits"))}
    found: list[str] = []
    for resource, row in device_resources(resources):
        if row is NVIDIA or not (as_int(resources.get(resource)) or 0) > 0:
            continue
        for variable, value in sorted(values.items()):
            if row.hides(variable, value):
                head = f"{label}: env {variable}={value} beside a claim of {resource}"
                found.append(unproven(_hidden(head, variable)))
    return found


def _check(resource: Resource, config: dict) -> list[str]:
    messages: list[str] = []
    for path, podspec in pod_specs(resource):
        for container in containers(podspec, init=True, model=True):
            claimed = gpu_count(container) or gpu_count(container, "requests") or 0
            env = {name_of(i): i for i in (as_dict(i) for i in as_list(container.get("env")))}  # name: {} is no key
            # Literal values, and those a ConfigMap of the files gives through envFrom or configMapKeyRef.
            values = env_values(container)
            cuda = env.get(_CUDA, {}).get("value", values.get(_CUDA))
            devices = _claimed(container)
            privileged = bool(get(container, "securityContext", "privileged"))
            if (
                devices > 0
                and _VARIABLE not in env
                and _VARIABLE not in values
                and isinstance(cuda, (str, int))
                and not isinstance(cuda, bool)
            ):
                why_not = (
                    "an envFrom source outside the workload may set NVIDIA_VISIBLE_DEVICES to those devices"
                    if _env_from_may_set(container)
                    else "the pod is pinned to one node, whose device that UUID may be"
                    if _one_host(podspec)
                    else ""
                )
                message = _cuda_message(container_label(path, container), str(cuda), devices, privileged, why_not)
                messages.extend([message] if message else [])
            messages.extend(_other_vendor_hidden(container_label(path, container), container, values))
            if claimed <= 0:
                continue
            literal = [
                (i.get("name"), i.get("value"))
                for i in (as_dict(i) for i in as_list(container.get("env")))
                if "valueFrom" not in i
            ]
            if _VARIABLE in values and not any(n == _VARIABLE for n, _ in literal):
                literal.append((_VARIABLE, values[_VARIABLE]))  # from a ConfigMap of the files
            for name, value in literal:
                if name != _VARIABLE or not isinstance(value, (str, int)):
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
        "or fixed device list in its env), and sets no CUDA_VISIBLE_DEVICES that names a device it was not given (a "
        "GPU/MIG UUID, an index past its claim)."
    ),
    catalog="G53",
    severity="medium",
    enforcement="mandatory",
    remediation_steps=(
        "Remove NVIDIA_VISIBLE_DEVICES from the env of containers that request nvidia.com/gpu; the device plugin sets it "
        "to the allocated GPUs. Run the plugin with deviceListStrategy volume-mounts (or CDI) to make a pod's value "
        "harmless. Drop CUDA_VISIBLE_DEVICES from such containers too (or use indexes below the GPUs claimed): the "
        "container's devices are the allocated ones, numbered from 0."
    ),
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    rationale=(
        "The NVIDIA device plugin passes the allocated GPUs as NVIDIA_VISIBLE_DEVICES by default (k8s-device-plugin "
        "v0.20.0 internal/plugin/server.go:46,480-482; README.md DEVICE_LIST_STRATEGY), and the container's own env, "
        "appended after it by the kubelet, replaces it: all exposes every GPU of the node, none/void none, a fixed list "
        "the same GPUs in every pod. Advice: the volume-mounts/CDI strategies ignore the variable. CUDA_VISIBLE_DEVICES "
        "filters, inside the container, the devices it was given, numbered from 0 (CUDA C++ Programming Guide, CUDA "
        "Environment Variables: only the devices before the first invalid index are visible): a UUID of one node's "
        "device, or an index past the claim, leaves CUDA no GPU and the server exits, which blocks."
    ),
)


def _same_namespace(a: Resource, b: Resource) -> bool:
    first, second = get(a.props, "metadata", "namespace"), get(b.props, "metadata", "namespace")
    return not first or not second or first == second


def _kept_by_patch(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    """A Kustomize patch that gives a container nvidia.com/gpu while the base it merges onto (same kind, name and
    container name) sets a variable that hides every device (CUDA_VISIBLE_DEVICES "" or -1, NVIDIA_VISIBLE_DEVICES
    none/void: components/gpu_vendors.toml ``hide``) and the patch does not set that variable: a strategic merge
    keeps the base's env item by item (env merges by name: kubernetes/api core/v1 types.go, policies/pod_patches.py),
    so the built pod claims a GPU it cannot see (a CPU base, a GPU overlay: the sealed sets' form). Advice."""
    found: list[tuple[str, str]] = []
    patches = [r for r in resources if r.patch and r.type in WORKLOAD_TYPES and isinstance(r.props, dict)]
    if not patches:
        return found
    bases = [r for r in resources if not r.patch and r.type in WORKLOAD_TYPES and isinstance(r.props, dict)]
    for patch in patches:
        name = get(patch.props, "metadata", "name")
        for base in (b for b in bases if b.type == patch.type and get(b.props, "metadata", "name") == name):
            if not _same_namespace(base, patch):
                continue
            base_pods = dict(pod_specs(base))
            for path, podspec in pod_specs(patch):
                for container in containers(podspec, init=True):
                    claimed = _claimed(container)
                    if claimed <= 0:
                        continue
                    stated = {name_of(e) for e in as_list(container.get("env"))}
                    kept = next(
                        (c for c in containers(base_pods.get(path, {}), init=True) if name_of(c) == name_of(container)), None
                    )
                    for item in (as_dict(e) for e in as_list(as_dict(kept).get("env"))):
                        variable, value = item.get("name"), item.get("value")
                        if not isinstance(variable, str) or variable in stated or not isinstance(value, (str, int)):
                            continue
                        if NVIDIA.hides(variable, value) or (variable == _CUDA and (decimal(str(value)) or 0) < 0):
                            head = (
                                f"{container_label(path, container)}: this patch claims {claimed} GPU(s) for the "
                                f"container, whose base {get(base.props, 'kind')}/{name} keeps env "
                                f"{variable}={value!r} (a strategic merge keeps env items the patch does not name)"
                            )
                            found.append((patch.name, unproven(_hidden(head, variable))))
    return found


KUSTOMIZED_POLICY = Policy(
    name="gpu-devices-hidden-by-base-env",
    description=(
        "A Kustomize patch that gives a container nvidia.com/gpu does not leave in place a base env variable that hides "
        "every device (CUDA_VISIBLE_DEVICES empty or -1, NVIDIA_VISIBLE_DEVICES none/void) (advice)."
    ),
    catalog="G53",
    severity="medium",
    enforcement="advisory",
    remediation_steps=(
        "In the GPU overlay, remove the variable from the container (a strategic-merge env item with "
        "`$patch: delete`, or a JSON 6902 remove), or set it only in the CPU overlay."
    ),
    check_stack=_kept_by_patch,
    config_schema={},
    rationale=(
        "Kustomize merges env items by name, so a base's CUDA_VISIBLE_DEVICES survives a patch that only adds the GPU "
        "limit; CUDA then sees no device of the one the scheduler reserved (CUDA C++ Programming Guide, CUDA "
        "Environment Variables)."
    ),
)
