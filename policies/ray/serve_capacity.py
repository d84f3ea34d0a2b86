"""S48: a RayService's Ray Serve LLM replicas fit the GPUs its Ray cluster can ever have.

Ray Serve LLM reserves, per replica, one placement-group bundle of ``{"GPU": 1}`` for each of the engine's
tensor x pipeline parallel workers (ray-project/ray python/ray/llm/_internal/serve/.../vllm/vllm_models.py
``placement_bundles``: ``num_devices = tensor_parallel_size * pipeline_parallel_size`` bundles, read in the code index
across the Ray 2.4x-2.5x releases; a ``placement_group_config`` replaces them and is not judged). A replica whose bundles
cannot be reserved stays pending and the application never reaches its target (Serve reports DEPLOYING, then
UNHEALTHY). The floor is ``deployment_config.num_replicas`` or ``autoscaling_config.min_replicas``.

The cluster's GPUs: each group's pods times the GPUs Ray sees in one pod (``num-gpus``, else the Ray container's GPU
limit, which KubeRay passes to ``ray start``: policies/reading/ray_cluster.py). With in-tree autoscaling off a worker
group has its ``replicas`` pods (x numOfHosts); with it on, at most ``maxReplicas``. Both are the ceiling KubeRay
keeps, so a floor above it is proven by the manifest alone.

Configurations are read from ``serveConfigV2`` (``applications[].args.llm_configs``) and from ``LLMConfig(...)`` calls
in a ConfigMap the pods mount for the application's import_path (policies/reading/serve_python.py). Custom vLLM
applications count too (policies/reading/serve_apps.py): a replica needs its ray_actor_options.num_gpus and the
engine's tensor x pipeline parallel GPUs, from ``args``, an ``engine_args`` mapping, or (advice only: the app's code
reads them) its runtime_env variables (``_app_needs``; sets 14 and 15: datvodinh/serve-llm, taigetco/ray-worker).
A replica whose num_gpus exceeds every pod's GPUs never places, whatever the total (``_too_big_for_a_node``).

Serve autoscaling beyond the ceiling (advice, ``_scale_up_beyond``): the most GPUs Serve may ask for are each
LLMConfig's max_replicas x tensor x pipeline parallel GPUs, and each other deployment's autoscaling_config.max_replicas
(else its fixed num_replicas) x ray_actor_options.num_gpus, whatever engine it runs (``_deployment_tops``; fractional
num_gpus summed, a lower bound on the GPUs they pack into). A worker group whose maxReplicas lies above its replicas
still cannot grow when enableInTreeAutoscaling is not true: KubeRay injects the autoscaler into the head pod only then
(ray-project/kuberay v1.7.0 ray-operator/controllers/ray/common/pod.go:242-243, utils/util.go:751-753; v1.0.0
common/pod.go:103-104), and without it keeps each group at replicas, clamped to [minReplicas, maxReplicas]
(v1.7.0 utils/util.go:389-407), so the message names that maxReplicas as unused (set 38 aabhimittal/
Ray-serve-multi-model-GPU-autoscaling deploy/kuberay/rayservice.yaml: gpu-workers replicas 1, maxReplicas 8).
"""

from __future__ import annotations

from typing import Optional

from policies.framework import Policy, Resource, unproven
from policies.kube import as_dict, as_int, as_list, get, split_type
from policies.reading.ollama_weights import selects_gpu_nodes
from policies.reading.ray_cluster import cluster_spec, groups
from policies.reading.serve_apps import ServeAppEngine, actor_gpus, replica_floor, serve_app_engines
from policies.reading.serve_llm import llm_configs
from policies.reading.serve_python import conditional
from policies.reading.serving import serve_config

RAY_SERVICE_TYPES = ("kubernetes:ray.io/v1:RayService", "kubernetes:ray.io/v1alpha1:RayService")


def _gpu_ceiling(resource: Resource) -> Optional[tuple[int, list[str]]]:
    """The most GPUs the Ray cluster can have, and how (one line per group); None when a figure is unknown."""
    found = cluster_spec(resource)
    if found is None:
        return None
    spec = found[1]
    autoscaling = get(spec, "enableInTreeAutoscaling") is True
    total, parts = 0, []
    for group in groups(resource):
        gpus = group.pod_gpus()
        if gpus is None:
            return None
        if group.is_head:
            pods: Optional[int] = 1
        elif autoscaling:
            top, hosts = as_int(group.spec.get("maxReplicas")), as_int(group.spec.get("numOfHosts", 1))
            pods = None if top is None or hosts is None else top * hosts
        else:
            pods = group.pods()
        if pods is None:
            return None
        total += pods * gpus
        if gpus:
            parts.append(f"{group.name} {pods} pod(s) x {gpus} GPU")
    return total, parts


def _runtime_gpus(resource: Resource) -> bool:
    """True when a group counted with no GPU may still see some: it states no num-gpus and no GPU limit, yet selects or
    tolerates GPU nodes, where a node whose default runtime is NVIDIA's hands every device to a CUDA image, and Ray
    detects what it sees when KubeRay passes no --num-gpus (kuberay v1.7.0 pod.go:1453-1455 passes it only from a
    limit). Sealed set 74 vilovnok/ray_vllm k8s/ray-service.yaml (GPU limits commented out, a gpunode toleration,
    num_gpus 0.05 actors) was a wrong blocking finding at session 49's freeze 2."""
    return any(
        not g.is_head and g.pod_gpus() == 0 and "num-gpus" not in g.start_params and selects_gpu_nodes(g.podspec)
        for g in groups(resource)
    )


def _floor(config: dict) -> Optional[int]:
    """A Ray Serve LLM config's fewest replicas: num_replicas, else autoscaling_config.min_replicas."""
    deployment = as_dict(config.get("deployment_config"))
    replicas = deployment.get("num_replicas")
    if isinstance(replicas, int) and not isinstance(replicas, bool):
        return replicas
    low = get(deployment, "autoscaling_config", "min_replicas")
    return low if isinstance(low, int) and not isinstance(low, bool) else None


def _top(config: dict) -> Optional[int]:
    """A Ray Serve LLM config's most replicas: an explicit autoscaling_config.max_replicas, else num_replicas."""
    deployment = as_dict(config.get("deployment_config"))
    top = as_int(get(deployment, "autoscaling_config", "max_replicas"))
    return top if top is not None else as_int(deployment.get("num_replicas"))


def _gpus_per_replica(config: dict) -> Optional[int]:
    if config.get("placement_group_config"):
        return None
    kwargs = as_dict(config.get("engine_kwargs"))
    tp, pp = kwargs.get("tensor_parallel_size", 1), kwargs.get("pipeline_parallel_size", 1)
    if not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in (tp, pp)):
        return None
    return tp * pp


def _deployment_tops(resource: Resource) -> list[tuple[str, int, float]]:
    """(label, most replicas, num_gpus) of each serveConfigV2 deployment that reserves GPUs through
    ray_actor_options.num_gpus, in applications without llm_configs (those are read as LLMConfigs): its
    autoscaling_config.max_replicas, else an integer num_replicas (``"auto"`` and unset are left out)."""
    found = []
    for app in (as_dict(a) for a in as_list(get(serve_config(resource), "applications"))):
        if get(app, "args", "llm_configs"):
            continue
        for i, deployment in enumerate(as_dict(d) for d in as_list(app.get("deployments"))):
            gpus = actor_gpus(deployment)
            top = as_int(get(deployment, "autoscaling_config", "max_replicas"))
            if top is None and not isinstance(deployment.get("num_replicas"), str):
                top = as_int(deployment.get("num_replicas"))
            if gpus > 0 and top is not None and top > 0:
                name = deployment.get("name", "?")
                found.append((f"serveConfigV2 application {app.get('name', '?')} deployments[{i}] ({name})", top, gpus))
    return found


def _frozen_groups(resource: Resource) -> str:
    """A clause naming the GPU worker groups whose maxReplicas KubeRay never uses because in-tree autoscaling is off
    (module docstring), or ""."""
    found = cluster_spec(resource)
    if found is None or get(found[1], "enableInTreeAutoscaling") is True:
        return ""
    unused = []
    for group in groups(resource):
        pods, top, hosts = group.pods(), as_int(group.spec.get("maxReplicas")), as_int(group.spec.get("numOfHosts", 1))
        if group.is_head or not group.pod_gpus() or pods is None or top is None or hosts is None:
            continue
        if top * hosts > pods:
            unused.append(f"{group.name} stays at {pods} pod(s), its maxReplicas {top} unused")
    if not unused:
        return ""
    return f"enableInTreeAutoscaling is not true, so KubeRay runs no autoscaler and {'; '.join(unused)}"


def _app_needs(resource: Resource) -> list[tuple[str, int, float, bool]]:
    """(label, replicas, GPUs per replica, proven) of each custom vLLM Serve application (policies.reading.serve_apps).

    A replica needs at least its ray_actor_options.num_gpus, and the engine's tensor x pipeline parallel GPUs: vLLM
    run in a Ray cluster reserves a placement group of world_size {GPU: 1} bundles and waits for it, raising
    ValueError when it never fits (vllm/executor/ray_utils.py initialize_ray_cluster and _wait_until_pg_ready:
    v0.6.3 lines 275-297 and 161-197 as set 15's labels cite them; the same code at 01eec549 of the code index);
    without Ray its worker processes need as many GPUs on the replica's node. The engine's replicas are those of the
    app's one listed deployment, else Ray Serve's default of one. A single-GPU engine runs in the replica's own
    process, where replicas with fractional num_gpus may share a device: it proves only that one GPU must exist."""
    found = []
    for app in serve_app_engines(resource):
        per_engine = app.gpus_per_replica()
        listed = [(replica_floor(d), actor_gpus(d)) for d in app.deployments]
        engine_floor = listed[0][0] if len(listed) == 1 and per_engine != 1 else 1
        actors = sum(floor * gpus for floor, gpus in listed)
        engine = engine_floor * per_engine if per_engine is not None else 0
        if engine >= actors and engine > 0:
            found.append((f"{app.label} ({_spelled_parallel(app)})", engine_floor, float(per_engine or 0), app.proven))
        elif actors > 0:
            shown = "; ".join(f"{floor} x num_gpus {gpus:g}" for floor, gpus in listed if gpus)
            found.append((f"{app.label} (ray_actor_options: {shown})", 1, actors, True))
    return found


def _spelled_parallel(app: ServeAppEngine) -> str:
    parts = [f"{app.spell(f)} {app.args[f]}" for f in ("tensor-parallel-size", "pipeline-parallel-size") if f in app.args]
    return ", ".join(parts) or "tensor and pipeline parallel size 1"


def _too_big_for_a_node(resource: Resource) -> list[str]:
    """A custom app's replica whose ray_actor_options.num_gpus exceeds the GPUs of every pod of the cluster: Ray
    schedules an actor only on a node that has all of its resources (https://docs.ray.io/en/latest/ray-core/scheduling/
    resources.html), so the replica never starts however many pods there are."""
    per_pod = [g.pod_gpus() for g in groups(resource)]
    if not per_pod or any(p is None for p in per_pod):
        return []
    largest = max(p or 0 for p in per_pod)
    out = []
    for app in serve_app_engines(resource):
        for i, d in enumerate(app.deployments):
            if actor_gpus(d) > max(largest, 1):
                out.append(
                    f"{app.label} deployments[{i}] ({d.get('name', '?')}): ray_actor_options.num_gpus {actor_gpus(d):g} "
                    f"but no pod of the Ray cluster has more than {largest} GPU(s); Ray places an actor on one node "
                    f"holding all of its resources, so the replica never starts; give a worker group pods of at least "
                    f"{actor_gpus(d):g} GPUs or lower num_gpus"
                )
    return out


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    findings = []
    for resource in (r for r in resources if r.type in RAY_SERVICE_TYPES):
        findings += [(resource.name, m) for m in _too_big_for_a_node(resource)]
        needs: list[tuple[str, int, float, bool]] = []
        tops: list[tuple[str, int, float]] = []
        for label, llm in llm_configs(resource, resources):
            floor, per, top = _floor(llm), _gpus_per_replica(llm), _top(llm)
            if floor is not None and per is not None and floor * per > 0:
                needs.append((label, floor, float(per), not conditional(label)))  # a branch may never run
            if top is not None and per is not None and top * per > 0:
                tops.append((label, top, float(per)))
        needs += _app_needs(resource)
        tops += _deployment_tops(resource)
        ceiling = _gpu_ceiling(resource) if needs or tops else None
        if ceiling is None:
            continue
        need = sum(floor * per for _, floor, per, _ in needs)
        if need <= ceiling[0]:
            findings += [(resource.name, m) for m in _scale_up_beyond(resource, tops, ceiling)]
            continue
        asked = "; ".join(f"{label}: {floor} replica(s) x {per:g} GPU" for label, floor, per, _ in needs)
        has = ", ".join(ceiling[1]) or "no group with GPUs"
        kind, frozen = split_type(resource.type)[1], _frozen_groups(resource)
        message = (
            f"{kind} {get(resource.props, 'metadata', 'name')}: Ray Serve needs at least {need:g} GPU(s) ({asked}; "
            f"one GPU per tensor x pipeline parallel worker) but the Ray cluster can have at most "
            f"{ceiling[0]} ({has}{'; ' + frozen if frozen else ''}); the replicas beyond it never place and the application "
            f"never reaches its target; raise the GPU worker group's replicas/maxReplicas or lower min_replicas"
        )
        # Settings an app's own code reads from its variables are not proven to reach the engine.
        proven = need - sum(f * p for _, f, p, sure in needs if not sure) > ceiling[0] and not _runtime_gpus(resource)
        findings.append((resource.name, message if proven else unproven(message)))
    return findings


def _scale_up_beyond(resource: Resource, tops: list[tuple[str, int, float]], ceiling: tuple[int, list[str]]) -> list[str]:
    """Advice when Serve autoscaling's max_replicas x GPUs per replica exceeds the most GPUs the Ray cluster can ever
    have: the floor fits, so the application serves, but each scale-up beyond the ceiling reserves a placement group
    that never places and stays pending (sets 16 and 17: jimmyshah83/gpt-oss-k8s-gpu-inferencing gpt-oss-20b,
    akamai-developers/kuberay-gpu-llm-quickstart: max_replicas 4 x tensor_parallel_size 2 on one fixed 2-GPU pod)."""
    most = sum(top * per for _, top, per in tops)
    if most <= ceiling[0]:
        return []
    asked = "; ".join(f"{label}: max_replicas {top} x {per:g} GPU" for label, top, per in tops)
    has = ", ".join(ceiling[1]) or "no group with GPUs"
    kind = split_type(resource.type)[1]
    how = _frozen_groups(resource) or "replicas with in-tree autoscaling off, maxReplicas with it on"
    bases = {
        "ray_actor_options.num_gpus per replica" if " deployments[" in label else "one GPU per tensor x pipeline parallel worker"
        for label, _, _ in tops
    }
    basis = ", ".join(sorted(bases, reverse=True))
    return [
        unproven(
            f"{kind} {get(resource.props, 'metadata', 'name')}: Ray Serve autoscaling may ask for {most:g} GPU(s) "
            f"({asked}; {basis}) but the Ray cluster can have at most {ceiling[0]} ({has}; {how}); the replicas beyond "
            f"it stay pending under load; lower max_replicas or let the GPU worker group grow (enableInTreeAutoscaling with maxReplicas)"
        )
    ]


POLICY = Policy(
    name="ray-serve-replicas-fit-cluster",
    description=(
        "A RayService's Ray Serve replicas (num_replicas or min_replicas x tensor x pipeline parallel GPUs, from "
        "serveConfigV2 or LLMConfig(...) code in a mounted ConfigMap; a custom vLLM app's engine settings and "
        "ray_actor_options.num_gpus) fit the GPUs its worker groups can ever have (replicas with in-tree autoscaling "
        "off, maxReplicas with it on, x GPUs per pod), and no replica asks more GPUs than one pod holds; Serve autoscaling's max_replicas x GPUs per replica (LLMConfig parallel workers, any deployment's ray_actor_options.num_gpus) beyond that ceiling is advice, naming a worker group's maxReplicas that in-tree autoscaling off leaves unused."
    ),
    catalog="S48",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Give the GPU worker group replicas (or maxReplicas with enableInTreeAutoscaling) x GPUs per pod of at least "
        "the Serve floor: min_replicas x tensor_parallel_size x pipeline_parallel_size, summed over the models."
    ),
    check_stack=_check,
    rationale=(
        "Ray Serve LLM reserves one {GPU: 1} bundle per tensor x pipeline parallel worker for each replica "
        "(ray python/ray/llm/_internal/serve vllm_models.py placement_bundles), vLLM run under Ray a placement group of "
        "world_size {GPU: 1} bundles (vllm/executor/ray_utils.py initialize_ray_cluster), and a replica its "
        "ray_actor_options.num_gpus; KubeRay never runs more worker pods than "
        "replicas (autoscaling off) or maxReplicas (on), so replicas beyond the cluster's GPUs stay pending."
    ),
)
