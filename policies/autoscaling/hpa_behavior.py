"""S8: LLM autoscalers scale in slowly, scale out within bounds, and never beyond their GPU pool.

A removed GPU replica takes minutes to come back (node, image pull, weight load: the public reports cited in components/capacity/cold_start.py
section 7), so scaling in on a short dip flaps expensive pods: the scale-down stabilization window
has a floor (the Kubernetes default, 300 s, when `behavior` is absent). Scale-out must be bounded
per period (each pod is a GPU node to buy). And `maxReplicas` x GPUs per pod above the Karpenter
NodePool's `limits["nvidia.com/gpu"]` promises replicas that stay Pending.

Applies to HPAs and KEDA ScaledObjects (whose HPA takes
`advanced.horizontalPodAutoscalerConfig.behavior`; maxReplicaCount defaults to 100) that target a
GPU workload of the set or scale on vLLM series. The pool limit is read from a NodePool of the same
set (stack, or one `policies check` run) named by the workload's `karpenter.sh/nodepool` node
selector; without one, that part is not judged.

A model server on the CPU (no GPU to buy) is judged on its scale-down window alone, as advice, when its engine drops
its in-flight requests on SIGTERM (the engine table's drain "aborts": Ollama closes its HTTP server, ollama/ollama
v0.32.15 server/routes.go L2021-2030): every scale-in on a short dip cuts the generations in flight on the pod removed
(spent set 28 gkoufie1/local-llm-serving-k8s, an Ollama HPA at 60 s).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Optional

from policies.autoscaling.embedded import embedded_scalers
from policies.autoscaling.scalers import (
    DEFAULT_SCALE_DOWN_STABILIZATION,
    NODEPOOL_LABEL,
    EmbeddedHPA,
    Workload,
    behavior,
    is_scaled_object,
    max_replicas,
    mentions_vllm,
    model_server_hint,
    model_word_hint,
    scale_target,
    scalers,
    target_in_set,
    triggers,
    workloads,
)
from policies.framework import Policy, Resource, preference, unproven
from policies.kube import (
    GPU_RESOURCE,
    ISVC_TYPE,
    KNATIVE_MODES,
    KNATIVE_SERVICE_TYPE,
    annotations_of,
    as_dict,
    as_float,
    as_int,
    as_list,
    as_quantity,
    fmt_number,
    get,
    kserve_default_mode_setting,
    kserve_deployment_mode,
    metadata_name,
    name_of,
    requests_gpu,
    split_type,
)
from policies.reading.nodepools import is_gpu_nodepool
from policies.reading.scalers_ext import (
    AIBRIX_COOLDOWN,
    AIBRIX_KPA_DELAY,
    KUBEAI_SCALE_DOWN_DEFAULT,
    kubeai_default_window,
    ray_serve_windows,
    scale_down_window,
)
from policies.reading.serving import model_servers

NODEPOOL_GROUP_KIND = ("karpenter.sh", "NodePool")


def _node_pools(resources: list[Resource]) -> dict[str, tuple[Resource, float]]:
    """NodePool name -> (resource, GPU limit) for pools that set limits["nvidia.com/gpu"]."""
    pools = {}
    for r in resources:
        if split_type(r.type) == NODEPOOL_GROUP_KIND:
            limit = as_quantity(get(r.props, "spec", "limits", GPU_RESOURCE))
            name = metadata_name(r.props)
            if name and limit is not None:
                pools[name] = (r, limit)
    return pools


def _pinned(scaler: Resource) -> bool:
    """Whether the scaler's floor reaches its ceiling, so it never scales (HPA minReplicas defaults to 1, a
    ScaledObject's minReplicaCount to 0: kedacore/keda v2.20.2 apis/keda/v1alpha1/scaledobject_types.go)."""
    _, ceiling = max_replicas(scaler)
    spec = as_dict(get(scaler.props, "spec"))
    floor = as_int(spec.get("minReplicaCount", 0)) if is_scaled_object(scaler) else as_int(spec.get("minReplicas", 1))
    return ceiling is not None and floor is not None and ceiling > 0 and floor >= ceiling


def _behavior_findings(scaler: Resource, config: dict) -> list[str]:
    path, spec = behavior(scaler)
    if scaler.type != ISVC_TYPE and not isinstance(scaler, EmbeddedHPA) and _pinned(scaler):
        return []
    found: list[str] = []
    floor = config["minScaleDownStabilizationSeconds"]
    down = as_dict(spec.get("scaleDown"))
    if down.get("selectPolicy") != "Disabled":
        window = as_float(down.get("stabilizationWindowSeconds"))
        shown = f"{path}.scaleDown.stabilizationWindowSeconds = {fmt_number(window)}" if window is not None else None
        if window is None:
            window = DEFAULT_SCALE_DOWN_STABILIZATION
        if window < floor and shown:
            found.append(
                preference(
                    f"{shown} is below {floor} s: a GPU replica removed on a short dip takes minutes to come back, "
                    f"so the service flaps and queues"
                )
            )
    up = as_dict(spec.get("scaleUp"))
    if up.get("selectPolicy") != "Disabled":
        limits = {"Pods": config["maxScaleUpPodsPerPeriod"], "Percent": config["maxScaleUpPercentPerPeriod"]}
        for i, policy in enumerate(as_list(up.get("policies"))):
            kind, value = name_of(policy, "type"), as_float(get(policy, "value"))
            if kind in limits and value is not None and value > limits[kind]:
                unit = " pods" if kind == "Pods" else "%"
                found.append(
                    preference(
                        f"{path}.scaleUp.policies[{i}] adds {fmt_number(value)}{unit} per "
                        f"{fmt_number(as_float(get(policy, 'periodSeconds')) or 0)} s, above the bound of {limits[kind]}{unit}: "
                        f"each pod is a GPU node to buy, so an unbounded burst overshoots the pool and the budget"
                    )
                )
    return found


def _cron_pinned(scaler: Resource) -> Optional[tuple[str, int]]:
    """(path, replicas) of the largest desiredReplicas a KEDA cron trigger holds the target at during its window."""
    best = None
    for path, trigger in triggers(scaler) if is_scaled_object(scaler) else ():
        wanted = as_int(get(trigger, "metadata", "desiredReplicas")) if trigger.get("type") == "cron" else None
        if wanted is not None and (best is None or wanted > best[1]):
            best = (f"{path}.metadata.desiredReplicas", wanted)
    return best


def _beyond_every_pool(scaler: Resource, field: str, ceiling: int, pools: dict[str, tuple[Resource, float]]) -> list[str]:
    """An LLM autoscaler whose target is in no file read, asking at least one GPU per replica for more replicas than
    every GPU NodePool of the set may hold together (their limits["nvidia.com/gpu"] summed): advice, since the pods
    and the pool they land on are not in the files."""
    gpu_pools = {name: limit for name, (r, limit) in pools.items() if limit > 0 and is_gpu_nodepool(r.props)}
    if not gpu_pools:
        return []
    total = sum(gpu_pools.values())
    shown = ", ".join(f"{name} {fmt_number(limit)}" for name, limit in sorted(gpu_pools.items()))
    found = []
    pinned = _cron_pinned(scaler)
    if pinned is not None and pinned[1] > total:
        found.append(
            f"{pinned[0]} = {pinned[1]} holds at least {pinned[1]} GPUs (one per replica) through the trigger's window, "
            f'above the {fmt_number(total)} the GPU NodePools of these files allow (limits["{GPU_RESOURCE}"]: {shown}): '
            f"replicas beyond it stay Pending every window"
        )
    elif ceiling > total:
        found.append(
            f"{field} = {ceiling} asks for at least {ceiling} GPUs (one per replica) at peak, above the "
            f'{fmt_number(total)} the GPU NodePools of these files allow (limits["{GPU_RESOURCE}"]: {shown}): replicas '
            f"beyond it stay Pending"
        )
    return [unproven(f"{m} (the target is in no file read)") for m in found]


# Knative's KPA (config-autoscaler defaults, https://knative.dev/docs/serving/autoscaling/scale-bounds/
# #scale-down-delay and .../kpa-specific/#stable-window): a scale-down decision is held for scale-down-delay
# (default 0 s) after a stable window of 60 s.
KNATIVE_SCALE_DOWN_DELAY = "autoscaling.knative.dev/scale-down-delay"
KNATIVE_WINDOW = "autoscaling.knative.dev/window"


def _knative_revision(resource: Resource, config: dict) -> tuple[str, dict, bool] | None:
    """(what, annotations, proven) of a GPU model server's Knative revision: a GPU InferenceService in Knative mode
    (KServe puts its annotations, the predictor's merged over them, on the revision template: kserve v0.20.0
    pkg/controller/v1beta1/inferenceservice/reconcilers/knative/ksvc_reconciler.go L192-204), proven when its own
    annotation sets the mode; or a Knative Service whose revision template runs a GPU model server."""
    if resource.type == KNATIVE_SERVICE_TYPE:
        template = as_dict(get(resource.props, "spec", "template"))
        if not requests_gpu(as_dict(template.get("spec"))) or not model_servers(resource):
            return None
        return "Knative's KPA scales this Knative Service's GPU model server in", annotations_of(template), True
    if resource.type != ISVC_TYPE:
        return None
    predictor = as_dict(get(resource.props, "spec", "predictor"))
    mode, annotated = kserve_deployment_mode(resource.props, config["kserveDefaultDeploymentMode"])
    if mode not in KNATIVE_MODES or not requests_gpu(predictor):
        return None
    how = "annotation" if annotated else "no annotation: setting kserveDefaultDeploymentMode"
    merged = {**annotations_of(resource.props), **as_dict(predictor.get("annotations"))}
    return f"deploymentMode {mode} ({how}): Knative's KPA scales this GPU InferenceService in", merged, annotated


_KPA_BOUNDS = (
    ("autoscaling.knative.dev/min-scale", "autoscaling.knative.dev/minScale"),
    ("autoscaling.knative.dev/max-scale", "autoscaling.knative.dev/maxScale"),
)


def _kpa_pinned(resource: Resource, merged: dict) -> bool:
    """Whether the revision's KPA can never scale in: its floor reaches its (bounded) ceiling. KServe writes min-scale
    from spec.predictor.minReplicas (1 when unset) and max-scale from maxReplicas unless that is 0, unbounded (kserve
    v0.20.0 pkg/controller/v1alpha1/utils/utils.go:69-80); a Knative Service states both annotations itself."""
    low, high = (next((as_int(merged[k]) for k in keys if k in merged), None) for keys in _KPA_BOUNDS)
    if resource.type == ISVC_TYPE:
        predictor = as_dict(get(resource.props, "spec", "predictor"))
        low = as_int(predictor.get("minReplicas", 1))
        ceiling = as_int(predictor.get("maxReplicas", 0))
        high = ceiling if ceiling else high
    return low is not None and high is not None and high > 0 and low >= high


def _kpa_findings(resource: Resource, config: dict) -> list[str]:
    """A GPU model server's Knative revision whose KPA scales in before the floor: autoscaling.knative.dev/
    scale-down-delay on the revision governs it (Knative's default 0 s: knative/serving knative-v1.23.0
    pkg/autoscaler/config/config.go:60)."""
    from policies.reading.route_path import duration_seconds

    read = _knative_revision(resource, config)
    if read is None:
        return []
    what, merged, proven = read
    if merged.get("autoscaling.knative.dev/class", "kpa.autoscaling.knative.dev") != "kpa.autoscaling.knative.dev":
        return []
    if _kpa_pinned(resource, merged):
        return []
    floor = config["minScaleDownStabilizationSeconds"]
    raw = merged.get(KNATIVE_SCALE_DOWN_DELAY)
    delay = duration_seconds(raw) if isinstance(raw, str) else None
    if delay is not None and delay >= floor:
        return []
    window = merged.get(KNATIVE_WINDOW)
    shown = f"{KNATIVE_SCALE_DOWN_DELAY} {raw}" if delay is not None else f"{KNATIVE_SCALE_DOWN_DELAY} unset (Knative's 0s)"
    message = (
        f"{what} with {shown} after a stable window of {window if isinstance(window, str) else '60s (Knative default)'}, "
        f"below {floor} s: a GPU replica removed on a short dip takes minutes to come back; set "
        f"{KNATIVE_SCALE_DOWN_DELAY} to at least {floor}s"
    )
    # Without the annotation the mode is the cluster's default (the setting), which the manifest does not show. An
    # unset delay is the cluster's config-autoscaler scale-down-delay (not in the files), and Knative's own default of
    # 0 s after a 60 s averaged window is a flapping risk the manifest did not choose, not a server that fails: advice.
    if raw is None:
        proven = False
    stable = duration_seconds(window) if isinstance(window, str) else None
    if stable is not None and stable >= floor:
        # The KPA sizes on the load averaged over the stable window (knative/serving knative-v1.23.0
        # pkg/autoscaler/scaling/autoscaler.go:172,196 desired = ceil(stable average / target);
        # pkg/autoscaler/aggregation/bucketing.go:201-231 WindowAverage), so a dip shorter than the window only partly
        # lowers the count: a brake like the HPA's window, but an average, not its max over the window.
        proven = False
        message += (
            f" (advisory: the stable window of {window} averages the load, so a dip much shorter than it barely lowers "
            "the count; a longer one still removes replicas in proportion before the floor)"
        )
    return [preference(message) if proven else unproven(message)]


def _kpa_unbounded(resource: Resource, config: dict) -> list[str]:
    """Advice for a GPU InferenceService in Knative mode with no spec.predictor.maxReplicas (0, or unset) and no
    max-scale annotation: KServe then writes no max-scale (kserve v0.20.0 pkg/controller/v1alpha1/utils/utils.go:76-80)
    and Knative's config-autoscaler max-scale defaults to 0, unbounded (knative/serving knative-v1.23.0
    pkg/autoscaler/config/config.go:65), so a burst asks for as many GPU replicas as the load over the target (set 22,
    AlexanderOllman/PodManager inferenceservice.yaml). The cluster's max-scale is not in the files: advice."""
    read = _knative_revision(resource, config) if resource.type == ISVC_TYPE else None
    if read is None:
        return []
    predictor = as_dict(get(resource.props, "spec", "predictor"))
    if as_int(predictor.get("maxReplicas", 0)) or any(k in read[1] for k in _KPA_BOUNDS[1]):
        return []
    return [
        unproven(
            f"{read[0].split(': Knative')[0]}: spec.predictor.maxReplicas is not set (0: unbounded), so KServe writes "
            "no autoscaling.knative.dev/max-scale "
            "and Knative's KPA may add GPU replicas without limit on a burst (config-autoscaler max-scale 0 as shipped), "
            "each a GPU node to buy; set maxReplicas to what the GPU pool and budget hold"
        )
    ]


def _operator_window_findings(resource: Resource, config: dict) -> list[str]:
    """An AIBrix PodAutoscaler, KubeAI Model or Ray Serve GPU deployment whose explicit scale-down window is below the
    floor (policies/reading/scalers_ext.py: the annotation or field each controller reads, and its default)."""
    floor = config["minScaleDownStabilizationSeconds"]
    found = [
        f"{field} = {raw!r}: Ray Serve removes replicas after {fmt_number(seconds)} s of lower load (its default is 600 s), "
        f"below {floor} s; a GPU replica removed on a short dip takes minutes to come back; set it to at least {floor}"
        for field, raw, seconds in ray_serve_windows(resource)
        if seconds is not None and seconds < floor
    ]
    window = scale_down_window(resource)
    if window is None and kubeai_default_window(resource) and KUBEAI_SCALE_DOWN_DEFAULT < floor:
        default = fmt_number(KUBEAI_SCALE_DOWN_DEFAULT)
        found.append(
            f"spec.scaleDownDelaySeconds is not set, so KubeAI scales this GPU Model in {default} s after load drops "
            f"(its default), below {floor} s; a GPU replica removed on a short dip takes minutes to come back; set it "
            f"to at least {floor}"
        )
    if window is None:
        return found
    field, raw, seconds = window
    if seconds is None or seconds >= floor:
        return found
    if field.endswith(AIBRIX_KPA_DELAY):
        # Read by AIBrix v0.4.x only (v0.4.1 pkg/controller/podautoscaler/scaler/kpa.go:70); v0.5.0 and later ignore it
        # and hold scale-down for autoscaling.aibrix.ai/scale-down-cooldown-window (v0.7.0
        # pkg/controller/podautoscaler/types/annotations.go:49-51, 300 s unset: context/context.go:113).
        return [
            f"{field} = {raw!r}: AIBrix before v0.5.0 scales in after {fmt_number(seconds)} s of lower load, below "
            f"{floor} s, and from v0.5.0 on ignores this annotation; a GPU replica removed on a short dip takes minutes "
            f"to come back; set {AIBRIX_COOLDOWN} to at least {floor}s instead"
        ]
    return [
        f"{field} = {raw!r}: the controller scales in after {fmt_number(seconds)} s of lower load, below {floor} s; a GPU "
        f"replica removed on a short dip takes minutes to come back; set it to at least {floor}s"
    ]


def _aborting_engine(target: Optional[Workload]) -> Optional[str]:
    """The engine a CPU target's model server runs when the engine table says it aborts in-flight requests on SIGTERM
    (drain "aborts"), else None."""
    from policies.reading.serving import engine_row

    if target is None or target.gpus_per_pod > 0:
        return None
    for server in model_servers(target.resource):
        row = engine_row(server.engine)
        if row is not None and row.drain == "aborts":
            return row.display
    return None


def _cpu_window_findings(scaler: Resource, engine: str, config: dict) -> list[str]:
    """Advice on a short scale-down window in front of a CPU model server whose engine aborts in-flight requests."""
    path, spec = behavior(scaler)
    down = as_dict(spec.get("scaleDown"))
    window = as_float(down.get("stabilizationWindowSeconds"))
    floor = config["minScaleDownStabilizationSeconds"]
    if down.get("selectPolicy") == "Disabled" or window is None or window >= floor:
        return []
    return [
        unproven(
            f"{path}.scaleDown.stabilizationWindowSeconds = {fmt_number(window)} is below {floor} s: every scale-in on a "
            f"short dip stops a replica, and {engine} drops the requests in flight on SIGTERM (engine table drain: "
            f"aborts), so frequent scale-ins cut running generations"
        )
    ]


def llm_scaler(scaler: Resource, resources: list[Resource], target: Optional[Workload]) -> Optional[str]:
    """Whether the scaler scales an LLM server: "" when the set shows it (a GPU target of the set, or vLLM series in
    its metrics), the hint when only its names suggest it (its target is in no file read), None when it does not."""
    if (target is not None and target.gpus_per_pod > 0) or mentions_vllm(scaler):
        return ""
    if target is not None or target_in_set(scaler, resources):
        return None
    hint = model_server_hint(scaler)
    return None if hint is None else f"its target is in no file read, but {hint}"


def _named_server(scaler: Resource, target: Optional[Workload]) -> Optional[str]:
    """The hint for a target of the files in which the readers see no model server and no GPU, while its names say it
    serves a model (scalers.model_word_hint): spent set 79 yashbhangale/Karpenter-GPU-Autoscaling@cb9bd7ce
    eks_manifest/hpa.yaml, HPA demo-model-a-hpa on Deployment demo-model-a, whose image is left empty (two labels, G15
    and S8, missed). A target whose pods run an engine the readers know on CPU keeps llm_scaler's reading (None)."""
    if target is None or target.gpus_per_pod > 0 or model_servers(target.resource):
        return None
    hint = model_word_hint(scaler)
    return None if hint is None else f"the readers see no engine in {target.kind}/{target.name}, but {hint}"


def _scalers_with_targets(resources: list[Resource]) -> list[tuple[Resource, Optional[Workload], Optional[str]]]:
    """Every autoscaler (HPA, ScaledObject, an operator's embedded HPA) with its target (None when not in the set) and
    whether it scales an LLM server (llm_scaler; an operator's embedded HPA scales its model server: "")."""
    candidates = workloads(resources)
    found: list[tuple[Resource, Optional[Workload], Optional[str]]] = []
    for scaler in scalers(resources):
        target = scale_target(scaler, candidates)
        relevance = llm_scaler(scaler, resources, target)
        found.append((scaler, target, _named_server(scaler, target) if relevance is None else relevance))
    found.extend((hpa, target, "") for hpa, target in embedded_scalers(resources))
    return found


def serving_scalers(resources: list[Resource]) -> list[tuple[Resource, Optional[Workload], Optional[str]]]:
    """The autoscalers of the set with their targets and whether they scale a model server, as llm-hpa-behavior reads
    them: "" proven, a hint (advice), None not a model server's."""
    return _scalers_with_targets(resources)


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    pools = _node_pools(resources)
    findings: list[tuple[str, str]] = []
    per_pool: dict[str, list[tuple[Resource, int, int]]] = defaultdict(list)
    for scaler, target, relevance in _scalers_with_targets(resources):
        on_gpu = target is not None and target.gpus_per_pod > 0
        if relevance is None:
            engine = _aborting_engine(target)
            findings.extend((scaler.name, m) for m in (_cpu_window_findings(scaler, engine, config) if engine else []))
            continue
        for message in _behavior_findings(scaler, config):
            # Only a hint that the target serves a model (its pods are in no file read): the finding is unproven.
            findings.append((scaler.name, message if relevance == "" else unproven(f"{message} ({relevance})")))
        field, ceiling = max_replicas(scaler)
        if target is None and ceiling is not None:
            findings.extend((scaler.name, m) for m in _beyond_every_pool(scaler, field, ceiling, pools))
        if target is None or not on_gpu or ceiling is None or target.pool is None or target.pool not in pools:
            continue
        _, limit = pools[target.pool]
        need = ceiling * target.gpus_per_pod
        per_pool[target.pool].append((scaler, ceiling, target.gpus_per_pod))
        if need > limit:
            findings.append(
                (
                    scaler.name,
                    f"{field} = {ceiling} x {target.gpus_per_pod} GPUs per {'group' if target.kind == 'LeaderWorkerSet' else 'pod'} "
                    f"of {target.kind}/{target.name} = "
                    f'{need} GPUs exceeds NodePool {target.pool} limits["{GPU_RESOURCE}"] = {fmt_number(limit)}: '
                    f"replicas beyond it stay Pending",
                )
            )
    for r in resources:
        findings.extend((r.name, m) for m in _kpa_findings(r, config))
        findings.extend((r.name, m) for m in _kpa_unbounded(r, config))
        # An operator's own scale-down window (AIBrix, KubeAI, Ray Serve) set short is a flapping risk, not a failure:
        # advice (fresh set 27: KubeAI scaleDownDelaySeconds 30, which no labeller called a breakage).
        findings.extend((r.name, unproven(m)) for m in _operator_window_findings(r, config))
    for pool, entries in sorted(per_pool.items()):
        pool_resource, limit = pools[pool]
        total = sum(c * g for _, c, g in entries)
        if len(entries) > 1 and total > limit and all(c * g <= limit for _, c, g in entries):
            parts = " + ".join(f"{s.name} {c} x {g}" for s, c, g in entries)
            findings.append(
                (
                    pool_resource.name,
                    f"the autoscalers on NodePool {pool} may together ask for {parts} = {total} GPUs, "
                    f'above its limits["{GPU_RESOURCE}"] = {fmt_number(limit)}: at peak some replicas stay Pending',
                )
            )
    return findings


POLICY = Policy(
    name="llm-hpa-behavior",
    description=(
        "LLM autoscalers (HPAs, KEDA ScaledObjects, the HPAs and ScaledObjects KServe and the NIM operator render, "
        "KServe's Knative KPA and a GPU model server's Knative Service, AIBrix PodAutoscalers, KubeAI Models, Ray Serve GPU deployments) must "
        "scale in after a stabilization window of at least 300 s, scale out by bounded steps and stay within their GPU "
        "pool's limit; where the target is in another file and only names suggest a model server, or a Knative "
        "revision leaves scale-down-delay to the cluster's default, this is advice; an autoscaler whose floor equals its "
        "ceiling never scales and is not judged; the window floor and the scale-up bound are house thresholds, so "
        "falling short of them is advice, while exceeding the GPU pool's limit blocks."
    ),
    catalog="S8",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Set behavior.scaleDown.stabilizationWindowSeconds to at least 300 (HPA spec.behavior, or a ScaledObject's "
        "spec.advanced.horizontalPodAutoscalerConfig.behavior), keep scaleUp policies within the configured pods "
        f'and percent per period, and keep maxReplicas x GPUs per pod within the NodePool\'s limits["{GPU_RESOURCE}"] '
        f"(the pool named by the pods' {NODEPOOL_LABEL} node selector): lower maxReplicas or raise the pool limit."
    ),
    config_schema={
        "minScaleDownStabilizationSeconds": {
            "type": "integer",
            "minimum": 0,
            "default": 300,
            "description": "Shortest scale-down stabilization window allowed, seconds (default 300, the Kubernetes default).",
        },
        "maxScaleUpPodsPerPeriod": {
            "type": "integer",
            "minimum": 1,
            "default": 10,
            "description": "Most pods one scaleUp policy may add per period (default 10).",
        },
        "kserveDefaultDeploymentMode": kserve_default_mode_setting(
            "The deployment mode of an InferenceService without the serving.kserve.io/deploymentMode "
            "annotation (the cluster's inferenceservice-config deploy.defaultDeploymentMode); default "
            "Serverless, as KServe v0.20.0 ships it. The same setting as "
            "gpu-workload-no-resource-metric-hpa's. In Serverless mode the KPA's "
            "autoscaling.knative.dev/scale-down-delay is held to minScaleDownStabilizationSeconds."
        ),
        "maxScaleUpPercentPerPeriod": {
            "type": "integer",
            "minimum": 1,
            "default": 100,
            "description": "Largest percent one scaleUp policy may add per period (default 100, doubling).",
        },
    },
    check_stack=_check,
    rationale=(
        "Without `behavior`, an HPA scales down after a 300 s window and up by up to 100% or 4 pods per 15 s "
        "(https://kubernetes.io/docs/tasks/run-application/horizontal-pod-autoscale/#default-behavior): for GPU replicas "
        "that take minutes to return, a shorter window flaps them and unbounded scale-out buys nodes in bursts. Replicas "
        "beyond the Karpenter NodePool's nvidia.com/gpu limit stay Pending (https://karpenter.sh/docs/concepts/nodepools/#speclimits). "
        "Catalogue S8."
    ),
)


_DEFAULTS = (
    "Kubernetes' defaults, made for pods that start in seconds: after 300 s of lower load it may remove every "
    "replica above the floor at once (100% per 15 s), and it adds up to 100% or 4 pods every 15 s while the GPU pods "
    "it added are still loading; state the behavior: scaleDown by one pod per period after a window of at least 300 s, "
    "scaleUp bounded per period"
)


def _unset_check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    """LLM autoscalers (as llm-hpa-behavior reads them) that state no behavior at all."""
    findings = []
    for scaler, _, relevance in _scalers_with_targets(resources):
        path, spec = behavior(scaler)
        if spec or relevance is None:
            continue
        if is_scaled_object(scaler):
            # KEDA: cooldownPeriod is "only relevant when minReplicaCount = 0 or idleReplicaCount = 0" (kedacore/keda
            # v2.20.2 apis/keda/v1alpha1/scaledobject_webhook.go:352), so it does not stand for a scale-down window.
            what = f"{path} is not set, so the HPA KEDA creates for it takes {_DEFAULTS} (cooldownPeriod governs scaling to zero only)"
        elif isinstance(scaler, EmbeddedHPA) and scaler.lead:
            what = (
                f"{scaler.lead} takes {_DEFAULTS}" if scaler.lead.endswith(" else") else f"{scaler.lead}, so it takes {_DEFAULTS}"
            )
            what = what if scaler.settled else unproven(what)
        elif isinstance(scaler, EmbeddedHPA):
            what = f"{path} is not set, so the HPA the operator renders from it takes {_DEFAULTS}"
        else:
            what = f"{path} is not set, so the HPA takes {_DEFAULTS}"
        findings.append((scaler.name, what if relevance == "" else f"{what} ({relevance})"))
    return findings


UNSET_POLICY = Policy(
    name="llm-autoscaler-behavior-explicit",
    description=(
        "LLM autoscalers (HPAs and KEDA ScaledObjects on a GPU workload, on model-server or GPU series, or named for a "
        "model server whose pods are in another file; a NIMService's spec.scale.hpa) should state their scaling "
        "behavior instead of taking Kubernetes' defaults."
    ),
    catalog="S8",
    severity="medium",
    enforcement="advisory",
    remediation_steps=(
        "Set spec.behavior on the HPA (spec.advanced.horizontalPodAutoscalerConfig.behavior on a ScaledObject): "
        "scaleDown.stabilizationWindowSeconds of at least 300 with a Pods policy of 1 per period, and scaleUp "
        "policies bounded per period."
    ),
    config_schema={},
    check_stack=_unset_check,
    rationale=(
        "Without `behavior` an HPA scales down after a 300 s window by up to 100% of its pods per 15 s, and up by "
        "up to 100% or 4 pods per 15 s (https://kubernetes.io/docs/tasks/run-application/horizontal-pod-autoscale/"
        "#default-behavior): defaults sized for pods that start in seconds, not GPU replicas that take minutes. "
        "Advisory: the defaults are a choice the manifest may make on purpose. Catalogue S8."
    ),
)
