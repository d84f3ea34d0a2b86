"""What the simulator runs: each model's settings, read from its capacity plan and from the rendered manifests.

Nothing here restates a number of the plan. Engine limits and the KV cache come from the
``ServingPlan`` (components/capacity/plan.py); everything a controller acts on comes from the
manifests the builders rendered for the stack (the same dicts `python -m stacks plan` writes):

* the InferenceService: vLLM's ``--max-num-seqs``, ``--max-num-batched-tokens``,
  ``--max-num-queued-reqs`` and ``--shutdown-timeout``, the preStop sleep,
  ``terminationGracePeriodSeconds``, min/max replicas;
* the HPA (or KEDA ScaledObject): target, min/max, behavior (stabilization windows and policies),
  KEDA's pollingInterval;
* the PodMonitor's scrape interval and the Prometheus Adapter's ``metricsRelistInterval``;
* the pool's NodePool (``limits.nvidia.com/gpu``, ``consolidateAfter``) and its buffer (placeholder
  Deployment or CapacityBuffer: replicas and GPUs per pod);
* the Ingress (ALB idle timeout, least-outstanding-requests) and the Istio VirtualService (route
  timeout, retries and what they retry on).

``seed_defaults`` gives the same models under the defaults a stack starts from without this
project: a CPU HPA at 80% with Kubernetes' default behavior, ALB idle 60 s, no route timeout,
no preStop, Kubernetes' default grace period (30 s) and vLLM's default ``--shutdown-timeout`` (0:
abort), so the drain window is 0 s, no buffer, vLLM's own batch defaults with no admission queue
and the model's full context at utilization 0.9.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from typing import Any, Iterable, Mapping, Optional

from ..capacity.gpus import INSTANCES
from ..capacity.layout import IMAGE_PULL_SECONDS, NODE_READY_SECONDS
from ..capacity.plan import ServingPlan
from .roofline import Roofline, roofline_for

# kube-controller-manager --horizontal-pod-autoscaler-sync-period default (not rendered: a cluster flag).
HPA_SYNC_SECONDS = 15
# The HPA's default tolerance (--horizontal-pod-autoscaler-tolerance): no change within 10% of the target.
HPA_TOLERANCE = 0.1
# metrics-server's default resolution (--metric-resolution 15s): how fresh a CPU HPA's signal is.
METRICS_SERVER_SECONDS = 15
# The seeds' CPU HPA target (averageUtilization 80).
CPU_TARGET = 0.8
# A vLLM pod's CPU as a CPU HPA sees it (modelling choice, docs/simulate.md "The seed defaults' CPU HPA"):
#   cores = busy share x one core per GPU process (each rank's process runs the step loop while the GPU works)
#         + tokens/s x CPU_SECONDS_PER_TOKEN (the API server: tokenizing prompts, detokenizing and streaming output)
#   utilisation = cores / the container's CPU request.
# CPU_SECONDS_PER_TOKEN is an upper bound: one V1 API server process (Python, one core at most) kept up with
# 55.99 requests/s of 250 prompt + 200 output tokens, within 3% of the offline engine (vllm-project/vllm PR
# 11636, "Current main API server is within 3% of the LLM performance"): at most 1 core / (56 x 450 tokens/s),
# about 40 us a token. Taking the bound (and a whole core per stepping process) errs towards a CPU that scales.
CPU_SECONDS_PER_TOKEN = 40e-6
# Kubernetes' default terminationGracePeriodSeconds (k8s.io/api core/v1 PodSpec: "Defaults to 30 seconds").
K8S_DEFAULT_GRACE_SECONDS = 30.0
# vLLM's default --shutdown-timeout: 0, abort in-flight requests on SIGTERM ("0 = abort, >0 = wait", read in the
# 0.33.0 wheel, components/vllm_flags.py); releases before the flag cancel the server on SIGTERM (same effect).
VLLM_DEFAULT_SHUTDOWN_SECONDS = 0.0


@dataclass(frozen=True)
class Policy:
    """One HPA scaling policy."""

    type: str  # "Pods" or "Percent"
    value: int
    period_seconds: int


@dataclass(frozen=True)
class Rules:
    """HPAScalingRules of one direction."""

    stabilization_seconds: int
    select: str  # "Max", "Min" or "Disabled"
    policies: tuple[Policy, ...]


@dataclass(frozen=True)
class Scaling:
    """How a model's replica count follows its load."""

    signal: str  # "in-flight" (Pods metric via the adapter), "keda" (external, KEDA), "cpu", "fixed"
    min_replicas: int
    max_replicas: int
    target: float  # per pod: requests in flight, or CPU utilisation (0-1)
    up: Rules
    down: Rules
    scrape_seconds: float
    relist_seconds: Optional[float]  # the adapter's series discovery; None: none (KEDA, metrics-server)
    sync_seconds: float = HPA_SYNC_SECONDS
    tolerance: float = HPA_TOLERANCE


@dataclass(frozen=True)
class Route:
    """The path in front of the pods."""

    alb_idle_seconds: float
    route_timeout_seconds: Optional[float]  # Envoy route timeout; None: none
    retry_on_503: bool
    balancer: str  # "p2c" (Envoy LEAST_REQUEST) or "lor" (ALB least outstanding requests straight to pods)


@dataclass(frozen=True)
class EngineLimits:
    """The scheduler's limits of one replica."""

    max_num_seqs: int
    max_num_batched_tokens: int
    max_num_queued_reqs: Optional[int]
    num_blocks: int
    block_size: int
    max_model_len: int


@dataclass(frozen=True)
class ModelSettings:
    """Everything the simulation needs of one served model (or long-context sibling)."""

    name: str
    pool: str
    gpus_per_pod: int
    node_gpus: int  # GPUs of the node Karpenter launches for one pod
    nodes_per_replica: int  # > 1 for a multi-node (Ray) replica, which never scales
    roofline: Roofline
    engine: EngineLimits
    scaling: Scaling
    route: Route
    drain_seconds: float  # after a scale-down picks the pod: in-flight requests left past it are cut
    container_start_seconds: float  # process start, weights, compile (the plan's startup parts)
    node_ready_seconds: float
    image_pull_seconds: float
    in_flight_target: int  # the plan's per-pod target: the yardstick of "time to scale out" in both runs
    ttft_slo_seconds: float
    long_sibling: Optional[str]
    cpu_request: float = 1.0  # the serving container's CPU request (cores): what a CPU HPA's utilisation is relative to


@dataclass(frozen=True)
class PoolSettings:
    """A Karpenter NodePool and its warm buffer."""

    name: str
    gpu_limit: int
    consolidate_after_seconds: float
    buffer_pods: int
    buffer_gpus: int
    buffer_node_gpus: int


@dataclass(frozen=True)
class StackSettings:
    """Every model and pool of the stack, as the simulator runs them."""

    models: tuple[ModelSettings, ...]
    pools: tuple[PoolSettings, ...]
    label: str  # "derived" or "seed defaults"


class SettingsError(ValueError):
    """The rendered manifests lack something the simulation needs (a bug in the builders, not user input)."""


def _seconds(text: Any) -> float:
    """A Kubernetes/Prometheus duration ("15s", "1m30s", "15m", "164h") or a number of seconds."""
    if isinstance(text, (int, float)):
        return float(text)
    total = 0.0
    for number, unit in re.findall(r"(\d+(?:\.\d+)?)(ms|s|m|h|d)", str(text)):
        total += float(number) * {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400}[unit]
    return total


def _args(container: Mapping[str, Any]) -> dict[str, str]:
    """``--flag=value`` arguments of a container (its command and args), flag -> value."""
    out: dict[str, str] = {}
    words: list[str] = []
    for part in [*(container.get("command") or []), *(container.get("args") or [])]:
        words.extend(str(part).split())
    for w in words:
        if w.startswith("--") and "=" in w:
            k, v = w[2:].split("=", 1)
            out[k] = v
    return out


def _rules(raw: Mapping[str, Any], default_stabilization: int) -> Rules:
    return Rules(
        stabilization_seconds=int(raw.get("stabilizationWindowSeconds", default_stabilization)),
        select=str(raw.get("selectPolicy", "Max")),
        policies=tuple(Policy(str(p["type"]), int(p["value"]), int(p["periodSeconds"])) for p in raw.get("policies", [])),
    )


# Kubernetes' HPA behavior when none is given (k8s.io/api autoscaling/v2 types.go, HPAScalingRules docs):
# scale up: no stabilization, max(100% or 4 pods per 15 s); scale down: 300 s window, 100% per 15 s.
K8S_DEFAULT_UP = Rules(0, "Max", (Policy("Percent", 100, 15), Policy("Pods", 4, 15)))
K8S_DEFAULT_DOWN = Rules(300, "Max", (Policy("Percent", 100, 15),))


class Manifests:
    """The rendered objects of one stack, looked up by kind and name."""

    def __init__(self, objects: Iterable[Mapping[str, Any]], helm: Iterable[Mapping[str, Any]] = ()):
        self.by_kind: dict[tuple[str, str], Mapping[str, Any]] = {}
        for o in objects:
            if isinstance(o, Mapping) and "kind" in o:
                self.by_kind[(o["kind"], (o.get("metadata") or {}).get("name", ""))] = o
        self.helm = {h.get("name"): h for h in helm if isinstance(h, Mapping)}

    def get(self, kind: str, name: str) -> Optional[Mapping[str, Any]]:
        """The object of ``kind`` called ``name``, or None."""
        return self.by_kind.get((kind, name))

    def of_kind(self, kind: str) -> list[Mapping[str, Any]]:
        """Every object of ``kind``, by name."""
        return [o for (k, _), o in sorted(self.by_kind.items(), key=lambda kv: kv[0]) if k == kind]


def _route(man: Manifests, name: str) -> Route:
    idle = 60.0
    balancer = "lor"
    for ing in man.of_kind("Ingress"):
        ann = (ing.get("metadata") or {}).get("annotations") or {}
        for attr in str(ann.get("alb.ingress.kubernetes.io/load-balancer-attributes", "")).split(","):
            if attr.startswith("idle_timeout.timeout_seconds="):
                idle = float(attr.split("=", 1)[1])
    vs = man.get("VirtualService", name)
    timeout, retry_503 = None, False
    if vs is not None:
        balancer = "p2c"
        http = ((vs.get("spec") or {}).get("http") or [{}])[-1]
        if http.get("timeout"):
            timeout = _seconds(http["timeout"])
        retries = http.get("retries") or {}
        retry_503 = int(retries.get("attempts", 0)) > 0 and "503" in str(retries.get("retryOn", "")).split(",")
    return Route(idle, timeout, retry_503, balancer)


def _scaling(man: Manifests, name: str, plan: ServingPlan, fixed_replicas: Optional[int]) -> Scaling:
    podmon = man.get("PodMonitor", f"{name}-vllm")
    scrape = 30.0  # Prometheus' default scrape_interval is 1m; the operator's 30s
    if podmon is not None:
        eps = (podmon.get("spec") or {}).get("podMetricsEndpoints") or [{}]
        scrape = _seconds(eps[0].get("interval", "30s"))
    if fixed_replicas is not None:
        return Scaling(
            "fixed",
            fixed_replicas,
            fixed_replicas,
            float(plan.target_in_flight_per_pod),
            K8S_DEFAULT_UP,
            K8S_DEFAULT_DOWN,
            scrape,
            None,
        )
    hpa = man.get("HorizontalPodAutoscaler", name)
    so = man.get("ScaledObject", name)
    if hpa is not None:
        spec = hpa["spec"]
        target = float(spec["metrics"][0]["pods"]["target"]["averageValue"])
        beh = spec.get("behavior") or {}
        adapter = man.helm.get("prometheus-adapter")
        relist = _seconds(((adapter or {}).get("values") or {}).get("metricsRelistInterval", "1m")) if adapter else 60.0
        return Scaling(
            "in-flight",
            int(spec["minReplicas"]),
            int(spec["maxReplicas"]),
            target,
            _rules(beh.get("scaleUp") or {}, 0) if beh.get("scaleUp") else K8S_DEFAULT_UP,
            _rules(beh.get("scaleDown") or {}, 300) if beh.get("scaleDown") else K8S_DEFAULT_DOWN,
            scrape,
            relist,
        )
    if so is not None:
        spec = so["spec"]
        target = float(spec["triggers"][0]["metadata"]["threshold"])
        beh = (((spec.get("advanced") or {}).get("horizontalPodAutoscalerConfig") or {}).get("behavior")) or {}
        return Scaling(
            "keda",
            int(spec["minReplicaCount"]),
            int(spec["maxReplicaCount"]),
            target,
            _rules(beh.get("scaleUp") or {}, 0) if beh.get("scaleUp") else K8S_DEFAULT_UP,
            _rules(beh.get("scaleDown") or {}, 300) if beh.get("scaleDown") else K8S_DEFAULT_DOWN,
            scrape,
            None,
        )
    raise SettingsError(f"{name}: no HorizontalPodAutoscaler or ScaledObject was rendered")


def _pod_spec(man: Manifests, name: str) -> tuple[Mapping[str, Any], Mapping[str, Any]]:
    """(pod spec, serving container) of a model: its InferenceService predictor or its RayCluster head."""
    isvc = man.get("InferenceService", name)
    if isvc is not None:
        pred = isvc["spec"]["predictor"]
        return pred, pred["containers"][0]
    ray = man.get("RayCluster", name)
    if ray is not None:
        pod = ray["spec"]["headGroupSpec"]["template"]["spec"]
        return pod, pod["containers"][0]
    raise SettingsError(f"{name}: no InferenceService or RayCluster was rendered")


def drain_window(pre_stop: float, shutdown_timeout: float, grace: float) -> float:
    """How long a pod being removed keeps its in-flight requests before they are cut.

    vLLM drains for ``--shutdown-timeout`` after SIGTERM (0 aborts at once); SIGTERM comes after the preStop hook;
    the kubelet kills the container at the grace period whatever is left."""
    return min(grace, pre_stop + shutdown_timeout) if shutdown_timeout > 0 else min(grace, pre_stop)


def _cpu_cores(text: Any) -> float:
    """A Kubernetes CPU quantity ("6", "500m", 2) in cores."""
    t = str(text)
    return float(t[:-1]) / 1000 if t.endswith("m") else float(t)


def model_settings(
    plan: ServingPlan, man: Manifests, pool: str, tp: int, pp: int, long_sibling: Optional[str], ttft_slo: float
) -> ModelSettings:
    """One model's settings from its plan and the rendered manifests."""
    pod, container = _pod_spec(man, plan.name)
    args = _args(container)
    lifecycle = (container.get("lifecycle") or {}).get("preStop") or {}
    pre_stop = float(((lifecycle.get("sleep") or {}).get("seconds")) or 0)
    grace = float(pod.get("terminationGracePeriodSeconds", K8S_DEFAULT_GRACE_SECONDS))
    shutdown = float(args.get("shutdown-timeout", VLLM_DEFAULT_SHUTDOWN_SECONDS))
    drain = drain_window(pre_stop, shutdown, grace)
    cpu_request = _cpu_cores(((container.get("resources") or {}).get("requests") or {}).get("cpu", plan.resources.cpu))
    layout = plan.layout
    # A multi-node (Ray) replica never scales: one replica, fixed.
    fixed = 1 if layout is not None else None
    engine = EngineLimits(
        max_num_seqs=int(args.get("max-num-seqs", plan.max_num_seqs)),
        max_num_batched_tokens=int(args.get("max-num-batched-tokens", plan.max_num_batched_tokens)),
        max_num_queued_reqs=int(args["max-num-queued-reqs"]) if "max-num-queued-reqs" in args else None,
        num_blocks=int(plan.memory.kv_cache_tokens // int(args.get("block-size", 16))),
        block_size=int(args.get("block-size", 16)),
        max_model_len=int(args.get("max-model-len", plan.memory.max_model_len)),
    )
    return ModelSettings(
        name=plan.name,
        pool=pool,
        gpus_per_pod=plan.resources.gpus,
        node_gpus=INSTANCES[plan.node_instance_type].gpu_count,
        nodes_per_replica=layout.nodes if layout is not None else 1,
        roofline=_roofline(plan, tp, pp),
        engine=engine,
        scaling=_scaling(man, plan.name, plan, fixed),
        route=_route(man, plan.name),
        drain_seconds=drain,
        container_start_seconds=float(
            plan.startup.sum_seconds
            if plan.startup is not None and plan.startup.parts
            else plan.startup_failure_threshold * plan.startup_period_seconds
        ),
        node_ready_seconds=float(NODE_READY_SECONDS),
        image_pull_seconds=float(IMAGE_PULL_SECONDS),
        in_flight_target=plan.target_in_flight_per_pod,
        ttft_slo_seconds=ttft_slo,
        long_sibling=long_sibling,
        cpu_request=cpu_request,
    )


def _roofline(plan: ServingPlan, tp: int, pp: int) -> Roofline:
    m = plan.memory
    fp8 = "fp8" in str(plan.model.arch.quant_method or "") or "fp8" in str(plan.model.arch.checkpoint_dtype)
    return roofline_for(plan.model.arch, plan.gpu.name, m.weights_gib * 2**30, m.kv_bytes_per_token, tp, pp, fp8=fp8)


def pool_settings(name: str, man: Manifests) -> PoolSettings:
    """A pool's GPU limit, consolidation delay and buffer, from its NodePool and buffer objects."""
    np_ = man.get("NodePool", name)
    if np_ is None:
        raise SettingsError(f"pool {name}: no NodePool was rendered")
    spec = np_["spec"]
    limit = int(float((spec.get("limits") or {}).get("nvidia.com/gpu", 10**6)))
    consolidate = _seconds((spec.get("disruption") or {}).get("consolidateAfter", "0s"))
    pods, gpus = 0, 0
    dep = man.get("Deployment", f"gpu-buffer-{name}")
    cb = man.get("CapacityBuffer", f"gpu-buffer-{name}")
    if dep is not None:
        pods = int(dep["spec"].get("replicas", 0))
        gpus = int(dep["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"].get("nvidia.com/gpu", 0))
    elif cb is not None:
        pods = int(cb["spec"].get("replicas", 0))
        tmpl = man.get("PodTemplate", cb["spec"].get("podTemplateRef", {}).get("name", ""))
        if tmpl is not None:
            gpus = int(tmpl["template"]["spec"]["containers"][0]["resources"]["requests"].get("nvidia.com/gpu", 0))
    types = []
    for req in ((spec.get("template") or {}).get("spec") or {}).get("requirements", []):
        if req.get("key") == "node.kubernetes.io/instance-type":
            types = list(req.get("values") or [])
    fitting = sorted((INSTANCES[t].gpu_count, t) for t in types if t in INSTANCES and INSTANCES[t].gpu_count >= max(1, gpus))
    node_gpus = fitting[0][0] if fitting else max(1, gpus)
    return PoolSettings(name, limit, consolidate, pods if gpus else 0, gpus, node_gpus)


def seed_defaults(stack: StackSettings, default_plans: Mapping[str, ServingPlan]) -> StackSettings:
    """The same stack under the seeds' defaults (what the derived settings replace); ``default_plans`` are the models
    re-planned at utilization 0.9 with no context cap and vLLM's batch defaults."""
    models = []
    for m in stack.models:
        p = default_plans.get(m.name)
        engine = m.engine
        roof = m.roofline
        if p is not None:
            engine = EngineLimits(
                p.max_num_seqs,
                p.max_num_batched_tokens,
                None,
                int(p.memory.kv_cache_tokens // engine.block_size),
                engine.block_size,
                p.memory.max_model_len,
            )
            roof = _roofline(p, m.roofline.tp, m.roofline.pp)
        else:
            engine = replace(engine, max_num_queued_reqs=None)
        scaling = m.scaling
        if scaling.signal != "fixed":
            scaling = Scaling(
                "cpu",
                scaling.min_replicas,
                scaling.max_replicas,
                CPU_TARGET,
                K8S_DEFAULT_UP,
                K8S_DEFAULT_DOWN,
                METRICS_SERVER_SECONDS,
                None,
            )
        models.append(
            replace(
                m,
                engine=engine,
                roofline=roof,
                scaling=scaling,
                route=Route(60.0, None, False, m.route.balancer),
                # No preStop, the default grace period, vLLM's default shutdown: in-flight requests are aborted at SIGTERM.
                drain_seconds=drain_window(0.0, VLLM_DEFAULT_SHUTDOWN_SECONDS, K8S_DEFAULT_GRACE_SECONDS),
            )
        )
    pools = tuple(replace(p, buffer_pods=0) for p in stack.pools)
    return StackSettings(tuple(models), pools, "seed defaults")


def ceil_div(a: float, b: float) -> int:
    """ceil(a / b) for positive b."""
    return int(math.ceil(a / b - 1e-9))
