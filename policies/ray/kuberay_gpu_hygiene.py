"""S18: KubeRay GPU hygiene: a GPU-less head that says so, bounded workers.

- The head runs Ray's GCS and (here) vLLM's API server and engine core; a GPU on it is idle and
  paid for. It must request none and set `rayStartParams` num-gpus "0": the vLLM images set
  NVIDIA_VISIBLE_DEVICES=all, so on a GPU node Ray on the head would otherwise see, and schedule
  engine ranks on, GPUs that belong to the workers' pods. KubeRay only writes num-gpus from a
  GPU limit (pod.go addWellKnownAcceleratorResources), never "0" by itself.
- Worker groups the in-tree autoscaler moves are bounded: maxReplicas set below the CRD default (2147483647, i.e.
  unbounded) and not below minReplicas (without the autoscaler a group runs its `replicas`); with the in-tree autoscaler, `autoscalerOptions.idleTimeoutSeconds`
  is set (policy catalogue S18: otherwise idle GPU workers linger on the autoscaler's default).
- (GPU worker pods tolerate the GPU taint: gpu-pod-tolerates-and-targets, S15, reports that with every other GPU pod,
  against the selected NodePool's taints when the set holds it.)
- No HorizontalPodAutoscaler or KEDA ScaledObject aims at a RayCluster, RayService or RayJob: a
  multi-node engine's workers are fixed by tensor x pipeline parallelism (adding or removing one
  breaks the engine rather than adding a replica), autoscaling such replicas is out of scope here
  as in KServe and NIM, and KubeRay's CRDs have no scale subresource
  (ray-project/kuberay v1.7.0 ray-operator/config/crd/bases: `subresources: {status: {}}` only), so such an autoscaler never acts.
"""

from __future__ import annotations

from policies.framework import Policy, Resource, unproven
from policies.kube import GPU_RESOURCE, HPA_TYPES, SCALED_OBJECT_TYPE, as_dict, as_int, as_list, get, requests_gpu
from policies.reading.gpu_pools import platform_adds_toleration
from policies.reading.ray_cluster import RAY_TYPES, cluster_spec, groups

_CRD_DEFAULT_MAX = 2147483647
_RAY_KINDS = ("RayCluster", "RayService", "RayJob")
_AUTOSCALER_TYPES = (*HPA_TYPES, SCALED_OBJECT_TYPE)


def _check_autoscaler(resource: Resource) -> list[str]:
    ref = get(resource.props, "spec", "scaleTargetRef")
    if not isinstance(ref, dict):
        return []
    api_version, kind = ref.get("apiVersion"), ref.get("kind")
    if not isinstance(api_version, str) or not api_version.startswith("ray.io/") or kind not in _RAY_KINDS:
        return []
    return [
        f"spec.scaleTargetRef: aims at {kind} {ref.get('name')!r} ({api_version}); a multi-node engine's "
        f"workers are fixed by tensor x pipeline parallelism and KubeRay has no scale subresource, so "
        f"autoscaling it is out of scope: remove the autoscaler and size the Ray cluster in the capacity plan"
    ]


def _tolerates_gpu(podspec: dict) -> bool:
    for toleration in as_list(podspec.get("tolerations")):
        t = as_dict(toleration)
        if (
            t.get("key") == GPU_RESOURCE
            and t.get("operator", "Equal") in ("Exists", "Equal")
            and t.get("effect") in (None, "", "NoSchedule")
        ):
            return True
        if t.get("operator") == "Exists" and not t.get("key"):
            return True  # tolerates every taint
    return False


# Node labels whose values say a node has no GPU (a CPU pool or instance class).
_CPU_CATEGORIES = {"c", "m", "r", "t", "x", "z", "i"}


def _selects_cpu_nodes(podspec: dict) -> bool:
    """True when the pod's nodeSelector or required node affinity can only match nodes without GPUs: a label
    value naming a CPU pool (``cpu`` and not ``gpu``), ``karpenter.k8s.aws/instance-gpu-count`` 0 or absent,
    CPU instance categories, or ``cloud.google.com/gke-accelerator`` / ``nvidia.com/gpu.present`` absent."""
    selector = as_dict(podspec.get("nodeSelector"))
    for value in selector.values():
        text = str(value).lower()
        if "cpu" in text and "gpu" not in text:
            return True
    if str(selector.get("karpenter.k8s.aws/instance-gpu-count", "")).strip() == "0":
        return True
    terms = as_list(
        get(podspec, "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
    )
    return bool(terms) and all(_term_selects_cpu(as_dict(t)) for t in terms)


def _term_selects_cpu(term: dict) -> bool:
    for e in as_list(term.get("matchExpressions")):
        e = as_dict(e)
        key, op, values = e.get("key"), e.get("operator"), [str(v).lower() for v in as_list(e.get("values"))]
        if op == "DoesNotExist" and key in (
            "karpenter.k8s.aws/instance-gpu-count",
            "cloud.google.com/gke-accelerator",
            "nvidia.com/gpu.present",
        ):
            return True
        if op == "In" and key == "karpenter.k8s.aws/instance-gpu-count" and values and all(v == "0" for v in values):
            return True
        if op == "In" and key == "karpenter.k8s.aws/instance-category" and values and set(values) <= _CPU_CATEGORIES:
            return True
        if op == "In" and values and all("cpu" in v and "gpu" not in v for v in values):
            return True
    return False


def _head_may_see_gpus(podspec: dict, on_gke: bool) -> bool:
    """Whether the head pod can land on a GPU node, where Ray would see GPUs it does not own.

    Not when it selects CPU-only nodes. Nor on GKE (a pod group of the cluster selects a GKE node label) when
    the head tolerates no GPU taint: GKE taints every GPU node nvidia.com/gpu NoSchedule and its admission adds
    the toleration only to pods that request GPUs (https://cloud.google.com/kubernetes-engine/docs/how-to/gpus),
    so the scheduler keeps such a head off GPU nodes
    (https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/). Elsewhere whether GPU
    nodes are tainted is the cluster's choice, so the head is taken to reach them.
    """
    if _selects_cpu_nodes(podspec):
        return False
    return not (on_gke and not _tolerates_gpu(podspec))


def _check(resource: Resource, config: dict) -> list[str]:
    if resource.type in _AUTOSCALER_TYPES:
        return _check_autoscaler(resource)
    found = cluster_spec(resource)
    if found is None:
        return []
    prefix, spec = found
    cap = config["maxWorkerReplicas"]
    messages = []
    cluster_groups = list(groups(resource))
    on_gke = any(platform_adds_toleration(g.podspec) for g in cluster_groups)
    for g in cluster_groups:
        if g.is_head:
            if requests_gpu(g.podspec):
                messages.append(
                    f"{g.path}: the head requests {GPU_RESOURCE}; the head runs Ray's control plane and "
                    f"vLLM's API server, so its GPU sits idle (give the GPUs to a worker group)"
                )
            num_gpus = g.start_params.get("num-gpus")
            if (num_gpus is None or as_int(num_gpus) != 0) and _head_may_see_gpus(g.podspec, on_gke):
                shown = "is not set" if num_gpus is None else f"is {num_gpus!r}"
                message = (
                    f'{g.path}.rayStartParams num-gpus {shown}; set it to "0" so Ray schedules no GPU '
                    f"work on the head (on a GPU node the vLLM image sees the node's GPUs unrequested)"
                )
                # A head that tolerates the GPU taint can reach GPU nodes: proven. Otherwise whether it can depends on
                # whether the cluster taints its GPU nodes, which the manifest does not show.
                messages.append(message if _tolerates_gpu(g.podspec) else unproven(message))
            continue
        max_replicas = as_int(g.spec.get("maxReplicas"))
        min_replicas = as_int(g.spec.get("minReplicas", 0))
        if spec.get("enableInTreeAutoscaling") is not True and (max_replicas is None or max_replicas >= _CRD_DEFAULT_MAX):
            pass  # no autoscaler: the group runs `replicas` (KubeRay v1.7.0 utils/util.go:389-407), nothing moves it
        elif max_replicas is None or max_replicas >= _CRD_DEFAULT_MAX:
            messages.append(
                f"{g.path} ({g.name}): maxReplicas is not set, so the group is unbounded; set it to the "
                f"most nodes the engine needs"
            )
        elif max_replicas > cap:
            messages.append(
                f"{g.path} ({g.name}): maxReplicas {max_replicas} is above the bound {cap}; a GPU worker "
                f"group that large is almost certainly a mistake"
            )
        elif min_replicas is not None and max_replicas < min_replicas:
            messages.append(f"{g.path} ({g.name}): maxReplicas {max_replicas} is below minReplicas {min_replicas}")
    if spec.get("enableInTreeAutoscaling") is True and get(spec, "autoscalerOptions", "idleTimeoutSeconds") is None:
        # Unset, the Ray autoscaler's own idle timeout still releases idle workers (the field is optional in KubeRay
        # v1.7.0's RayCluster CRD); choosing it on purpose is advice, nothing the manifest shows to be broken.
        messages.append(
            unproven(
                f"{prefix}.autoscalerOptions.idleTimeoutSeconds is not set while enableInTreeAutoscaling is "
                f"true; set it so idle GPU workers are released on purpose, not on the autoscaler's default"
            )
        )
    return messages


POLICY = Policy(
    name="kuberay-gpu-hygiene",
    description=(
        'A KubeRay head requests no GPU and sets num-gpus "0"; worker groups are bounded and no autoscaler '
        "aims at a Ray cluster; the in-tree autoscaler has an idle timeout (GPU workers' tolerations: S15)."
    ),
    catalog="S18",
    severity="high",
    # Advisory: a risk, not a failure the files prove (docs/policies.md "Enforcement levels"); --config raises it.
    # A GPU on the head is waste, not a failure (a head may run pipeline stage 0 on purpose).
    enforcement="advisory",
    remediation_steps=(
        'Remove nvidia.com/gpu from the head\'s containers and set headGroupSpec.rayStartParams.num-gpus: "0"; '
        "set every worker group's maxReplicas (>= minReplicas, within maxWorkerReplicas); with "
        "enableInTreeAutoscaling set autoscalerOptions.idleTimeoutSeconds; delete any HPA or ScaledObject whose "
        "scaleTargetRef is a RayCluster, RayService or RayJob (a multi-node model runs one fixed-size Ray cluster)."
    ),
    config_schema={
        "maxWorkerReplicas": {
            "type": "integer",
            "minimum": 1,
            "default": 64,
            "description": "Largest maxReplicas a worker group may have. Default 64.",
        },
        "gpuNodesTainted": {
            "type": "boolean",
            "default": True,
            "description": (
                "No longer read here: gpu-pod-tolerates-and-targets (S15) reports the GPU worker groups' "
                "tolerations, with its own gpuNodesTainted setting. Kept so existing settings files stay valid."
            ),
        },
    },
    resource_types=(*RAY_TYPES, *_AUTOSCALER_TYPES),
    check_resource=_check,
    rationale=(
        'A Ray head that requests a GPU idles it, and without rayStartParams num-gpus "0" Ray may place engine '
        "ranks on GPUs it can see but does not own (https://docs.ray.io/en/latest/cluster/kubernetes/user-guides/config.html). "
        "Worker groups without maxReplicas are unbounded (the RayCluster CRD defaults it to 2147483647), idle GPU "
        "workers linger without autoscalerOptions.idleTimeoutSeconds. Catalogue S18."
    ),
)
