"""S15: a GPU pod tolerates its pool's taint and targets a GPU type (stack policy: pod spec against NodePool); a
KubeRay GPU worker group tolerates its pool's taint and targets a GPU type too.

Without the toleration the pod stays Pending on a tainted GPU pool; without a selector on a GPU
type it may land on the wrong GPU (an L4 instead of an H100), where the KV budget the plan sized
does not exist.
"""

from __future__ import annotations

from components.derive.karpenter import tolerates_taint
from policies.framework import Policy, Resource, unproven
from policies.kube import as_dict, as_list, get, is_ray, metadata_name
from policies.reading.gpu_pools import (
    GpuWorkload,
    gpu_workloads,
    label_pools,
    node_label_keys,
    nodepools,
    platform_adds_toleration,
    required_pools,
    target_pool,
)
from policies.reading.nodepools import NODEPOOL_TYPES, taints
from policies.reading.ray_cluster import ray_gpu_workers

# Node labels that name a GPU type or a pool of one GPU type.
GPU_TYPE_LABELS = (
    "karpenter.sh/nodepool",
    "karpenter.k8s.aws/instance-gpu-name",
    "karpenter.k8s.aws/instance-family",
    "node.kubernetes.io/instance-type",
    "nvidia.com/gpu.product",
    "cloud.google.com/gke-accelerator",
    # A GKE compute class names the machines (GPU type and count included) its nodes are made of, and a GKE
    # node pool has one machine type (https://cloud.google.com/kubernetes-engine/docs/concepts/about-custom-compute-classes).
    "cloud.google.com/compute-class",
    "cloud.google.com/gke-nodepool",
    # One named node (kubernetes.io/hostname, a well-known label every kubelet sets: https://kubernetes.io/docs/
    # reference/labels-annotations-taints/#kubernetesiohostname): the pod lands on that node's GPU and no other.
    "kubernetes.io/hostname",
)
DEFAULT_TAINT = {"key": "nvidia.com/gpu", "effect": "NoSchedule"}
# Node labels Karpenter's AWS provider sets from the instance type that keep a pod on GPU instances without naming the
# GPU (aws/karpenter-provider-aws v1.14.1 pkg/apis/v1/labels.go:161 LabelInstanceGPUManufacturer): GPU placement, with the pool's
# own GPU types (spent set 123b: pulumi/example-ai.cluster infra/app-llms/index.ts, labelled a trap).
GPU_VENDOR_LABELS = frozenset({"karpenter.k8s.aws/instance-gpu-manufacturer"})


def admitted_tolerations(podspec: dict, config: dict) -> list[dict]:
    """The tolerations the ExtendedResourceToleration admission plugin adds to the pod (pack setting
    extendedResourceToleration, default true): for every extended resource a container or init container requests
    (a limit alone counts: API defaulting copies it into the request before admission), {key: that resource,
    operator: Exists, effect: NoSchedule} (kubernetes plugin/pkg/admission/extendedresourcetoleration/admission.go
    Admit, code index stored version 143ac994). EKS enables the plugin on every platform version since 1.19
    (https://docs.aws.amazon.com/eks/latest/userguide/platform-versions.html; aws/containers-roadmap#739), AKS shipped
    it (Azure/AKS#1449, closed resolution/shipped) and GKE documents it for its GPU nodes: a GPU pod there tolerates a
    nvidia.com/gpu:NoSchedule taint without writing it. Spent set 80 skamalj/azure-terraform@5865145f (AKS Karpenter
    pools tainted nvidia.com/gpu=true:NoSchedule, vLLM workers without the toleration) drew five mandatory findings
    its labeller did not label: they are advice now."""
    if not config.get("extendedResourceToleration", True):
        return []
    names: set[str] = set()
    for key in ("containers", "initContainers"):
        for container in as_list(podspec.get(key)):
            resources = as_dict(as_dict(container).get("resources"))
            for part in ("requests", "limits"):
                names |= {n for n in as_dict(resources.get(part)) if _extended(n)}
    return [{"key": n, "operator": "Exists", "effect": "NoSchedule"} for n in sorted(names)]


def _extended(name: object) -> bool:
    """Kubernetes' IsExtendedResourceName: a qualified name outside the kubernetes.io namespace, not a quota key."""
    return (
        isinstance(name, str)
        and "/" in name
        and not name.startswith("requests.")
        and not name.split("/", 1)[0].endswith("kubernetes.io")
    )


def tolerates(podspec: dict, taint: dict) -> bool:
    """True when one of the pod's tolerations matches the taint (Kubernetes' matching rules, the derivations'
    matcher: components/derive/karpenter.py tolerates_taint)."""
    return tolerates_taint(as_list(podspec.get("tolerations")), taint)


def targets_gpu_type(podspec: dict) -> bool:
    """True when a node selector or a required affinity term names a GPU type or pool label, or a
    node-group label of the cluster's own whose value names a GPU group (``NodeGroupType:
    g5-gpu-karpenter``, ``instanceType: g5-gpu-karpenter``)."""
    if podspec.get("nodeName"):
        return True  # bound to one node by name, past the scheduler
    selector = as_dict(podspec.get("nodeSelector"))
    if any(isinstance(v, str) and "gpu" in v.lower() for v in selector.values()):
        return True
    return bool(node_label_keys(podspec) & set(GPU_TYPE_LABELS))


def tolerated_pools(podspec: dict, pools: dict[str, Resource]) -> list[str]:
    """The GPU NodePools of the set that taint their nodes and whose every taint the pod's own tolerations match,
    where its nodeSelector asks no other value of a template label of theirs: the pools Karpenter launches its nodes
    from (a GPU pod needs a GPU node, and these are the set's). The set's NodePools then say which taint GPU nodes
    carry, and the pod tolerates it (spent set 123b: eks.pulumi.com/gpu-workload-taint Exists)."""
    selector = as_dict(podspec.get("nodeSelector"))
    found = []
    for name, pool in pools.items():
        hard = hard_taints(pool.props)
        labels = as_dict(get(pool.props, "spec", "template", "metadata", "labels"))
        if hard and all(tolerates(podspec, t) for t in hard):
            if not any(k in labels and str(labels[k]) != str(v) for k, v in selector.items()):
                found.append(name)
    return found


def assumed_taints(config: dict, podspec: dict | None = None) -> list[dict]:
    """The taints a GPU node carries when no NodePool of the set says (pack setting gpuNodesTainted)."""
    if podspec is not None and platform_adds_toleration(podspec):
        return []
    return [DEFAULT_TAINT] if config.get("gpuNodesTainted", True) else []


def hard_taints(nodepool: dict) -> list[dict]:
    """The taints of a Karpenter NodePool that a pod must tolerate to get a node: all of them, PreferNoSchedule too.

    Karpenter checks every taint of the NodePool whatever its effect when it provisions (kubernetes-sigs/karpenter
    v1.14.1 pkg/scheduling/taints.go:83-95) and adds a PreferNoSchedule toleration only as its last preference
    relaxation, after it dropped the pod's spread and preferred affinities (pkg/controllers/provisioning/scheduling/
    preferences.go:38-57, 132-146): a GPU pod without the toleration loses its zone spread first.
    """
    return [t for t in taints(nodepool) if t.get("effect") in ("NoSchedule", "NoExecute", "PreferNoSchedule")]


def _ray_worker_taints(path: str, podspec: dict, pools: dict, config: dict) -> list[str]:
    """A Ray GPU worker group's untolerated taints: its NodePool's when one of the set is selected (proven, or advice
    when only admission's tolerations let it in: _untolerated_pools), else the assumed nvidia.com/gpu taint (setting
    gpuNodesTainted; unproven). Its pods then stay Pending and Ray Serve never gets their GPUs."""
    name = target_pool(podspec)
    pool = pools.get(name) if name else None
    if pool is not None and name:
        return _untolerated_pools(path, "a Ray worker group requests GPUs", podspec, {name: pool}, config, RAY_PENDING)
    admitted = admitted_tolerations(podspec, config)
    owner = "GPU nodes (setting gpuNodesTainted: true, no NodePool in this set says otherwise)"
    return [
        unproven(
            f"{path}: a Ray worker group requests GPUs but does not tolerate the {taint.get('key')}:{taint.get('effect')} "
            f"taint of {owner}; {RAY_PENDING}" + (ADMITTED if tolerates_taint(admitted, taint) else "")
        )
        for taint in assumed_taints(config, podspec)
        if not tolerates(podspec, taint)
    ]


RAY_PENDING = "its pods stay Pending and Ray Serve never gets their GPUs"


def _pool_taints(w: GpuWorkload, pools: dict, config: dict) -> list[str]:
    """The taint finding of one GPU workload: against the NodePool it names, else against the NodePools of the set
    whose template labels its node selection accepts (it is Pending only if it tolerates none of them: one finding
    naming them all), else against the assumed GPU taint (setting gpuNodesTainted; unproven). A pool the pod reaches
    only through the tolerations the ExtendedResourceToleration admission plugin adds is advice (admitted_tolerations)."""
    named = [w.pool] if w.pool and w.pool in pools else label_pools(w.podspec, pools)
    if named:
        return _untolerated_pools(w.path, "requests GPUs", w.podspec, {n: pools[n] for n in named}, config, "it stays Pending")
    if tolerated_pools(w.podspec, pools):
        return []  # the set's GPU NodePools taint their nodes otherwise, and the pod tolerates one's taints
    owner = "GPU nodes (setting gpuNodesTainted: true, no NodePool in this set says otherwise)"
    # The setting only assumes the taint (an untainted node group would schedule the pod): unproven.
    admitted = admitted_tolerations(w.podspec, config)
    return [
        unproven(
            f"{w.path}: requests GPUs but does not tolerate the {t.get('key')}:{t.get('effect')} taint of {owner}; "
            f"it stays Pending" + (ADMITTED if tolerates_taint(admitted, t) else "")
        )
        for t in assumed_taints(config, w.podspec)
        if not tolerates(w.podspec, t)
    ]


# Said of a taint only the tolerations the ExtendedResourceToleration admission plugin adds let the pod past.
ADMITTED = (
    " on a cluster without the ExtendedResourceToleration admission plugin (advisory: EKS, AKS and GKE run it, and it "
    "gives a pod that requests an extended resource {key: that resource, operator: Exists, effect: NoSchedule}; write "
    "the toleration so the manifest does not rely on it)"
)


def _untolerated_pools(path: str, what: str, podspec: dict, pools: dict[str, Resource], config: dict, tail: str) -> list[str]:
    """One finding when the pod tolerates the taints of none of these NodePools (Karpenter checks every taint of a pool:
    hard_taints): mandatory when even the tolerations admission adds leave it out of all of them, advice when only
    those added tolerations let it in (a cluster without the ExtendedResourceToleration plugin keeps it Pending)."""
    admitted = admitted_tolerations(podspec, config)
    written: dict[str, list[dict]] = {}
    for name, pool in pools.items():
        missing = [t for t in hard_taints(pool.props) if not tolerates(podspec, t)]
        if not missing:
            return []  # a pool it selects whose taints it tolerates: it schedules there
        written[name] = missing
    taints = ", ".join(
        f"the {t.get('key')}:{t.get('effect')} taint of NodePool {name}" for name, missing in written.items() for t in missing
    )
    message = f"{path}: {what} but does not tolerate {taints}; {tail}"
    if any(all(tolerates_taint(admitted, t) for t in missing) for missing in written.values()):
        return [unproven(message + ADMITTED)]
    return [message]


# The NodePools EKS Auto Mode creates itself, which no manifest defines
# (https://docs.aws.amazon.com/eks/latest/userguide/set-builtin-node-pools.html).
BUILT_IN_POOLS = frozenset({"general-purpose", "system"})


def defined_pools(resources: list[Resource]) -> frozenset[str] | None:
    """The names of every NodePool the files define (GPU or not); None where a name is not known (a NodePool rendered
    from a template or with an unrendered name), since then any name may be among them."""
    names: set[str] = set()
    for r in resources:
        if r.type not in NODEPOOL_TYPES:
            continue
        name = metadata_name(r.props)
        if r.template or not isinstance(name, str) or any(c in name for c in "{$<%"):
            return None
        names.add(name)
    return frozenset(names)


def missing_pool(path: str, podspec: dict, defined: frozenset[str] | None) -> str | None:
    """A pod spec that requires a NodePool by name that none of the files' NodePools is (advice: the pool may be
    created elsewhere). Karpenter labels each NodePool's nodes with ``karpenter.sh/nodepool: <its name>`` and schedules
    against those labels (kubernetes-sigs/karpenter v1.14.1 pkg/controllers/provisioning/scheduling/
    nodeclaimtemplate.go:78-84), so no other pool can take the pod. Silent where the files define no NodePool."""
    wanted = required_pools(podspec)
    if not defined or not wanted or wanted & (defined | BUILT_IN_POOLS):
        return None
    if any(any(c in name for c in "{$<%") for name in wanted):
        return None
    return unproven(
        f"{path}: requires NodePool {' or '.join(sorted(wanted))} (karpenter.sh/nodepool), which none of the NodePools "
        f"of the files read is ({', '.join(sorted(defined))}): unless one of that name is created elsewhere, Karpenter "
        f"has no pool to launch a node from for it and the pod stays Pending; select one of those pools"
    )


def _placed(podspec: dict, pools: dict[str, Resource]) -> bool:
    """True for a GPU pod that selects a GPU type or pool, GPU instances by vendor (GPU_VENDOR_LABELS), the set's
    NodePools by their template labels, or tolerates a taint of the set's GPU NodePools other than its GPU resource's
    (tolerated_pools, _dedicated)."""
    return bool(
        targets_gpu_type(podspec)
        or node_label_keys(podspec) & GPU_VENDOR_LABELS
        or label_pools(podspec, pools)
        or any(_dedicated(pools[name], podspec) for name in tolerated_pools(podspec, pools))
    )


def _dedicated(pool: Resource, podspec: dict) -> bool:
    """True for a pool with a taint of its own (``eks.pulumi.com/gpu-workload-taint``), not only the taint of the GPU
    resource the pod requests, which every GPU node of every pool may carry: tolerating it is choosing the pool."""
    requested = {t["key"] for t in admitted_tolerations(podspec, {})}
    return any(t.get("key") not in requested for t in hard_taints(pool.props))


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    pools = nodepools(resources)
    defined = defined_pools(resources)
    findings = []
    seen: set[tuple[str, str]] = set()
    for w in gpu_workloads(resources):
        if missing := missing_pool(w.path, w.podspec, defined):
            findings.append((w.resource.name, missing))
        findings += [(w.resource.name, m) for m in _pool_taints(w, pools, config)]
        # A pod that selects NodePools of the set by their template labels lands on those pools' GPUs. One that
        # selects no GPU type may land on another GPU, but whether that GPU is too small for the model is not in the
        # selector: advice (unproven), even where the set has several GPU pools (spent set 18: taixingbi/eks-vllm).
        if not _placed(w.podspec, pools):
            findings.append(
                (
                    w.resource.name,
                    unproven(
                        f"{w.path}: requests GPUs without a nodeSelector or required affinity on a GPU "
                        f"type or pool label ({', '.join(GPU_TYPE_LABELS[:3])}, ...); it may land on a "
                        f"GPU the capacity plan did not size"
                    ),
                )
            )
    # KubeRay worker groups (gpu_workloads leaves Ray aside): a GPU worker group must tolerate its pool's taints like
    # any GPU pod (set 15: blublinsky/vllm-ray-serve pure_vllm/ray-service.vllm.yaml@ec92c0f selects A100 nodes with
    # no toleration), and one that targets no GPU type may land on any GPU node, where Ray Serve places the engine.
    for r in resources:
        if not is_ray(r.type):
            continue
        for path, podspec, _ in ray_gpu_workers(r):
            if (r.name, path) in seen:
                continue
            seen.add((r.name, path))
            if missing := missing_pool(path, podspec, defined):
                findings.append((r.name, missing))
            findings += [(r.name, m) for m in _ray_worker_taints(path, podspec, pools, config)]
            if not targets_gpu_type(podspec):
                findings.append(
                    (
                        r.name,
                        unproven(
                            f"{path}: a Ray worker group requests GPUs without a nodeSelector or required affinity on a "
                            f"GPU type or pool label ({', '.join(GPU_TYPE_LABELS[:3])}, ...); Ray Serve may place the "
                            f"engine on a GPU the capacity plan did not size"
                        ),
                    )
                )
    return findings


POLICY = Policy(
    name="gpu-pod-tolerates-and-targets",
    description="A GPU pod must tolerate its NodePool's taints and select a GPU type or pool; a pool it requires by "
    "name (karpenter.sh/nodepool) that none of the files' NodePools is leaves it Pending (advice: it may be created "
    "elsewhere).",
    rationale="A pod without a toleration for the GPU pool's taint stays Pending (https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/), and a GPU pod that selects no GPU type may land on a smaller GPU than its KV-cache plan assumed (an L4 instead of an L40S), where vLLM fails to start.",
    catalog="S15",
    severity="high",
    enforcement="mandatory",
    remediation_steps="Add the toleration {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule} and a nodeSelector "
    "on karpenter.sh/nodepool and karpenter.k8s.aws/instance-gpu-name.",
    config_schema={
        "extendedResourceToleration": {
            "type": "boolean",
            "default": True,
            "description": (
                "Whether the cluster's API server runs the ExtendedResourceToleration admission plugin, which gives a "
                "pod that requests an extended resource (nvidia.com/gpu) the toleration {key: that resource, operator: "
                "Exists, effect: NoSchedule} (default true: EKS since 1.19, AKS and GKE enable it; a pool the pod "
                "reaches only through it is advice). Set false for a cluster without it (kubeadm, k3s and kind leave "
                "it off): a missing toleration then blocks."
            ),
        },
        "gpuNodesTainted": {
            "type": "boolean",
            "default": True,
            "description": (
                "Whether GPU nodes carry the nvidia.com/gpu:NoSchedule taint when no NodePool of the checked set "
                "says (default true: this project's Karpenter pools and EKS's GPU AMIs taint them; a pod that requests "
                "nvidia.com/gpu tolerates it anyway where extendedResourceToleration holds). Set false where GPU node "
                "groups are untainted; a NodePool in the set always decides for its own pods."
            ),
        },
    },
    check_stack=_check,
)
