"""Leader/worker groups in custom resources no reader knows: which pod templates hold ranks of one engine.

Multi-pod serving operators describe a group as a mapping with a leader-like and a worker-like pod template side
by side, whatever the kind is called: LeaderWorkerSet's ``leaderWorkerTemplate.{leaderTemplate,workerTemplate,size}``
(the shape llmaz's ``inference.llmaz.io`` Service embeds as ``spec.workloadTemplate``: InftyAI/llmaz
api/inference/v1alpha1/service_types.go ``WorkloadTemplate lws.LeaderWorkerTemplate``), KubeRay's
``headGroupSpec``/``workerGroupSpecs``, KServe's ``predictor``/``workerSpec``. The leader is the group's address; the
workers join its engine (LWS docs route Services to the leader; KubeRay serves from the head). Kinds with a reader
of their own are read by it (policies.reading.serving ``_RANK_ONLY_PODS``, policies.reading.ray_cluster); this module
reads the same structure generically, for a custom resource read by ``policies.kube.generic_pod_specs``:

- a pod template under a worker-like key beside a leader-like sibling that holds a pod template is *rank-only*: it
  takes no requests, so readiness, startup and drain rules leave it to the leader;
- a template whose owner has a ``size`` (RBG's ``leaderWorkerPattern``) is a group of that many pods from one template;
- the pods one engine spreads over are the group's ``size`` (LWS counts the leader in it, lws
  api/leaderworkerset/v1/leaderworkerset_types.go ``Size``), else the leader (one pod, or its ``replicas``) plus the
  worker role's ``replicas`` or ``size`` (OME's ``engineConfig.worker.size``, the worker pods alone); where neither is written the spread is unknown, and rules comparing an engine's ranks
  with one pod's GPUs (S3) stay silent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

from policies.kube import as_int, get, memoized, read_generically
from policies.pod_patches import STEP, join_steps

# Keys (lower-cased) naming the worker and the leader role of a group.
WORKER_KEYS = frozenset({"worker", "workers", "workertemplate", "workerspec", "workergroupspec", "workergroupspecs"})
# kthena's ModelServing role: entryTemplate (the role's one entry pod), workerReplicas, workerTemplate (volcano-sh/kthena
# workload API, Role: "EntryTemplate defines the template for the entry pod of a role", "WorkerReplicas defines the
# number for the worker pod of a role"; code index id 34066373915).
LEADER_KEYS = frozenset(
    {"leader", "leadertemplate", "leaderspec", "head", "headtemplate", "headspec", "headgroupspec", "master", "entrytemplate"}
)


def _role(key: str) -> str:
    """A key's role name, lower-cased, with a patch marker dropped: a role's patch of a shared template holds that role's
    pods once merged (policies.pod_patches: RBG's ``patchLeaderTemplate``, ``workerTemplatePatch`` -> leadertemplate,
    workertemplate)."""
    low = key.lower()
    return low[len("patch") :] if low.startswith("patch") else low[: -len("patch")] if low.endswith("patch") else low


@dataclass(frozen=True)
class PodGroup:
    """Where a pod template sits in a leader/worker group."""

    role: str  # "leader", "worker", or "all" (one template for every pod of the group, the leader's too)
    front: str  # the path of the leader's pod spec
    size: Optional[int]  # the pods one engine spreads over (leader and workers), None where the manifest does not say
    size_field: str  # the field(s) the size was read from, "" when unknown


def pod_group(resource: Any, path: str) -> Optional[PodGroup]:
    """The group of the pod spec at ``path`` of a custom resource read generically, or None (no group, or a kind a
    reader knows: its reader says what its groups are)."""
    return memoized(resource, "pod_groups", _pod_groups).get(path)


def _pod_groups(resource: Any) -> dict[str, PodGroup]:
    paths = read_generically(resource)
    if not paths:
        return {}
    found: dict[str, PodGroup] = {}
    for path in paths:
        group = _group_of(resource.props, path, paths)
        if group is not None:
            found[path] = group
    return found


def _group_of(props: Any, path: str, paths: list[str]) -> Optional[PodGroup]:
    steps = [(name, index) for name, index in STEP.findall(path)]
    # The innermost role key on the path (``...workloadTemplate.workerTemplate.spec`` -> workerTemplate).
    at = next((i for i in range(len(steps) - 1, -1, -1) if _role(steps[i][0]) in WORKER_KEYS | LEADER_KEYS), None)
    if at is None:
        return _one_template_group(props, path, steps)
    parent_steps = steps[:at]
    parent: Any = props
    for name, index in parent_steps:
        parent = get(parent, name) if name else get(parent, int(index))
    if not isinstance(parent, dict):
        return None
    prefix = join_steps(parent_steps)
    leader_keys = [k for k in parent if isinstance(k, str) and _role(k) in LEADER_KEYS]
    worker_keys = [k for k in parent if isinstance(k, str) and _role(k) in WORKER_KEYS]
    fronts = [p for k in leader_keys for p in paths if _under(p, join_steps([*parent_steps, (k, "")]))]
    workers = [p for k in worker_keys for p in paths if _under(p, join_steps([*parent_steps, (k, "")]))]
    role = "worker" if _role(steps[at][0]) in WORKER_KEYS else "leader"
    patched = _role(steps[at][0]) != steps[at][0].lower()
    if patched and not workers and len(fronts) == 1 and as_int(parent.get("size")):
        # A leader patch alone: the workers run the shared template unpatched (sgl-project/rbg v0.7.0
        # api/workloads/v1alpha2/helper.go:338-344, an empty patch gives the base), one group of ``size`` pods.
        return PodGroup("leader", fronts[0], as_int(parent.get("size")), f"{prefix}.size")
    if not workers or len(fronts) != 1:
        return None  # not a group: one role alone, or no single leader pod template beside the workers
    size, size_field = _size(parent, prefix, leader_keys, worker_keys)
    return PodGroup(role, fronts[0], size, size_field)


def _one_template_group(props: Any, path: str, steps: list[tuple[str, str]]) -> Optional[PodGroup]:
    """A group whose pods all come from one template: the mapping holding the template has a whole ``size`` (sgl-project
    rbg RoleBasedGroup v1alpha2 ``roles[].leaderWorkerPattern: {size, template}``, 1 leader + size-1 workers from the same
    template, examples/inference/agg-leader-worker.yaml at 24f81595). Every pod of it may be the leader, so all take
    requests ("all"); an engine spreads over ``size`` pods."""
    owner_steps = steps[:-2] if [n for n, _ in steps[-2:]] == ["template", "spec"] else []
    owner: Any = props
    for name, index in owner_steps:
        owner = get(owner, name) if name else get(owner, int(index))
    if not owner_steps or not isinstance(owner, dict):
        return None
    # The owner's own size, else a leader/worker set's beside the template (RBG v1alpha1 roles[]: template and
    # leaderWorkerSet.size, sgl-project/rbg examples/instanceset/instanceset-with-lws.yaml at 36ed3d26).
    sized = [(owner, "size")] + [(v, f"{k}.size") for k, v in owner.items() if isinstance(k, str) and "leaderworker" in k.lower()]
    for holder, field in sized:
        size = as_int(get(holder, "size"))
        if size is not None and size >= 1:
            return PodGroup("all", path, size, f"{join_steps(owner_steps)}.{field}")
    return None


def _size(parent: dict, prefix: str, leader_keys: list[str], worker_keys: list[str]) -> tuple[Optional[int], str]:
    """The pods of the group: its ``size``, else the leader's replicas (default 1) plus every worker role's."""
    size = as_int(parent.get("size"))
    if size is not None and size > 0:
        return size, f"{prefix}.size"
    total, fields = 0, []
    for key in leader_keys:
        written = get(parent, key, "replicas")
        leaders = 1 if written is None else as_int(written)
        if leaders is None:
            return None, ""
        total += leaders
        if written is not None:
            fields.append(f"{prefix}.{key}.replicas")
    for key in worker_keys:
        roles = parent[key] if isinstance(parent[key], list) else [parent[key]]
        for i, role in enumerate(roles):
            # A role's own count: replicas, or size (OME's WorkerSpec.Size, "the number of pods in the worker":
            # sgl-project/ome pkg/apis/ome/v1beta1/inference_service.go at 07fae195).
            count = "replicas" if get(role, "replicas") is not None else "size"
            replicas = as_int(get(role, count))
            sibling = _sibling_count(parent, key)
            if (replicas is None or replicas < 0) and sibling is not None:
                # The count beside the template (kthena's workerReplicas next to workerTemplate).
                total += sibling[1]
                fields.append(f"{prefix}.{sibling[0]}")
                continue
            if replicas is None or replicas < 0:
                return None, ""  # a worker role whose count is not written: the operator's default, unknown here
            total += replicas
            fields.append(f"{prefix}.{key}" + (f"[{i}]" if isinstance(parent[key], list) else "") + f".{count}")
    return total, " + ".join(fields)


def _sibling_count(parent: dict, key: str) -> Optional[tuple[str, int]]:
    """(field, count) of a worker role's count written beside its template: ``workerReplicas`` next to
    ``workerTemplate`` (the template key with Template/Spec replaced by Replicas), or None."""
    stem = key[: -len("Template")] if key.endswith("Template") else key[: -len("Spec")] if key.endswith("Spec") else key
    field = f"{stem}Replicas"
    value = as_int(parent.get(field))
    return (field, value) if value is not None and value >= 0 else None


def _under(path: str, prefix: str) -> bool:
    return path == prefix or path.startswith((f"{prefix}.", f"{prefix}["))


def group_pods(resource: Any, path: str) -> tuple[int, str] | None:
    """(pods an engine at ``path`` spreads over, the field saying so): (1, "") outside a group; None when the pod
    spec belongs to a group whose size the manifest does not say."""
    group = pod_group(resource, path)
    if group is None:
        return 1, ""
    if group.size is None:
        return None
    return group.size, group.size_field


__all__ = ["LEADER_KEYS", "WORKER_KEYS", "PodGroup", "group_pods", "pod_group"]
