"""Rules that relate objects of a validated stack: unique names, a model's pool exists and holds its GPUs,
a prod stack keeps two replicas, selectors and tagging agree, Karpenter can find what a pool asks for.

They run after every per-field rule passed (components/config/load.py), on the stack with its
long-context siblings inserted; every problem names the stack file's own path
(``StackConfig.model_paths``: a sibling is its model's ``longContext``), never an index of that
expanded list. Rules of a model's source, pool and placement are reported at the model, not again
at its sibling.

Pure: the instance records (components/hardware.py) and the node rules of a multi-node model
(placement.py); nothing of the capacity plan, which reads the config it plans.
"""

from __future__ import annotations

from ..aws_ids import arn_region
from ..errors import Problem
from ..facts import DISCOVERY_TAG
from ..hardware import INSTANCES
from .models import ModelConfig
from .placement import gpus_per_node, layout_problems, spans_nodes
from .pools import GpuPoolConfig
from .stack import StackConfig


def cross_checks(cfg: StackConfig) -> list[Problem]:
    """Every cross-object problem of ``cfg`` (siblings inserted), in the order a reader meets the fields."""
    paths = cfg.model_paths()
    pools = {p.name: p for p in cfg.gpu_pools}
    problems = _duplicate_names(cfg, paths) + _ingress_region_problems(cfg) + _network_problems(cfg)
    for m, at in zip(cfg.models, paths):
        problems += _model_problems(cfg, m, at, pools)
    return problems + _pool_problems(cfg) + _gateway_problems(cfg)


def _duplicate_names(cfg: StackConfig, model_paths: list[str]) -> list[Problem]:
    """Pool names and model names are unique (they name NodePools and InferenceServices)."""
    pool_paths = [f"gpuPools[{i}]" for i in range(len(cfg.gpu_pools))]
    return _duplicates([p.name for p in cfg.gpu_pools], pool_paths) + _duplicates([m.name for m in cfg.models], model_paths)


def _duplicates(names: list[str], paths: list[str]) -> list[Problem]:
    """Each name that an earlier entry holds already, at its path (``paths[i]`` is where ``names[i]`` is)."""
    problems: list[Problem] = []
    seen: dict[str, int] = {}
    for i, name in enumerate(names):
        if name in seen:
            problems.append(Problem(f"{paths[i]}.name", f"duplicates {paths[seen[name]]}.name", name))
        seen.setdefault(name, i)
    return problems


def _ingress_region_problems(cfg: StackConfig) -> list[Problem]:
    """An ALB takes a regional web ACL of its own region only (a certificate's region is preflight's check)."""
    problems: list[Problem] = []
    if cfg.ingress is not None and cfg.region:
        for field, arn in (("wafAclArn", cfg.ingress.waf_acl_arn),):
            if arn and arn_region(arn) != cfg.region:
                problems.append(
                    Problem(
                        f"ingress.{field}",
                        f"is in {arn_region(arn)} and the stack (aws:region) in {cfg.region}: "
                        "the ALB can only use one of its own region",
                        arn,
                    )
                )
    return problems


def _network_problems(cfg: StackConfig) -> list[Problem]:
    """Tagging only with the selectors that read the tag."""
    problems: list[Problem] = []
    c, t = cfg.cluster, cfg.cluster.tag_for_discovery
    if t.subnet_ids and (c.subnets.ids or c.subnets.tags):
        problems.append(
            Problem(
                "cluster.tagForDiscovery.subnetIds",
                f"adds the {DISCOVERY_TAG} tag, which only the default "
                "subnets selector reads; remove cluster.subnets.ids/tags or this",
                list(t.subnet_ids),
            )
        )
    sg = c.security_groups
    if t.security_group_ids and (sg.ids or sg.tags or sg.eks_cluster_security_group):
        problems.append(
            Problem(
                "cluster.tagForDiscovery.securityGroupIds",
                f"adds the {DISCOVERY_TAG} tag, which only the "
                "default securityGroups selector reads; remove cluster.securityGroups.ids/tags/eksClusterSecurityGroup "
                "or this",
                list(t.security_group_ids),
            )
        )
    return problems


def _model_problems(cfg: StackConfig, m: ModelConfig, at: str, pools: dict[str, GpuPoolConfig]) -> list[Problem]:
    """One model's (or sibling's, at ``<model>.longContext``) rules against its pool and the environment."""
    sibling = at.endswith(".longContext")
    pool = pools.get(m.pool)
    if pool is None:
        if sibling:  # its model's pool, reported there
            return []
        return [Problem(f"{at}.pool", f"no gpuPools entry has this name (pools: {', '.join(sorted(pools))})", m.pool)]
    problems: list[Problem] = []
    if cfg.environment == "prod" and m.replicas.min < 2 and not m.replicas.single_replica_reason:
        problems.append(
            Problem(
                f"{at}.replicas.min",
                "a prod model runs at least 2 replicas, so a node drain or a crash never takes its last ready one; "
                "raise it or set replicas.singleReplicaReason",
                m.replicas.min,
            )
        )
    if not sibling:  # its model's source, layout and TP are checked at the model
        problems += _source_problems(m, pool, at) + _engine_placement_problems(m, pool, at)
    gpus = m.engine.tensor_parallel_size * m.engine.pipeline_parallel_size
    if gpus * m.replicas.min > pool.gpu_limit:
        problems.append(
            Problem(
                f"{at}.replicas.min",
                f"{m.replicas.min} replicas x {gpus} GPUs exceed gpuPools[{list(pools).index(pool.name)}].gpuLimit = {pool.gpu_limit}",
                m.replicas.min,
            )
        )
    return problems


def _source_problems(m: ModelConfig, pool: GpuPoolConfig, at: str) -> list[Problem]:
    """A localCache source needs a writable host path and instance-store NVMe on every node of the pool."""
    problems: list[Problem] = []
    if m.source.type == "localCache" and pool.ami_alias.startswith("bottlerocket@"):
        problems.append(
            Problem(
                f"{at}.source.type",
                f"localCache needs the host path /models that KServe v0.20.0's node agent mounts, and pool {pool.name!r} "
                "runs Bottlerocket, whose root filesystem is read-only; use an al2023 amiAlias for this pool",
                m.source.type,
            )
        )
    if m.source.type == "localCache" and not all(INSTANCES[t].local_nvme_gb for t in pool.instance_types):
        problems.append(
            Problem(
                f"{at}.source.type",
                f"localCache keeps the weights on instance-store NVMe, and not every instance type of pool {pool.name!r} has one",
                m.source.type,
            )
        )
    return problems


def _pool_problems(cfg: StackConfig) -> list[Problem]:
    """What Karpenter would do wrong with a pool: reserved capacity it cannot find, a multi-node engine it would expire."""
    problems: list[Problem] = []
    for i, pool in enumerate(cfg.gpu_pools):
        if "reserved" in pool.capacity_types and not pool.capacity_reservations:
            # Karpenter v1.14.1 lists reservations only through the EC2NodeClass's selector terms
            # (pkg/controllers/nodeclass/capacityreservation.go:54); none selected, no reserved offering.
            problems.append(
                Problem(
                    f"gpuPools[{i}].capacityReservations",
                    "required when capacityTypes includes reserved: Karpenter launches reserved capacity only from the "
                    "reservations the EC2NodeClass's capacityReservationSelectorTerms select; add {id: cr-...} or {tags: {...}}",
                    [],
                )
            )
        problems += _multi_node_pool_problems(cfg, pool, i)
    return problems


def _gateway_problems(cfg: StackConfig) -> list[Problem]:
    """A prod Istio ingress gateway keeps two replicas."""
    if cfg.ingress is not None and cfg.environment == "prod" and cfg.ingress.gateway_replica_count("prod") < 2:
        return [
            Problem(
                "ingress.gatewayReplicas",
                "a prod Istio ingress gateway runs at least 2 replicas, so a rollout or a node drain never takes the only one "
                "(the chart's PodDisruptionBudget is rendered only above 1 replica)",
                cfg.ingress.gateway_replicas,
            )
        ]
    return []


# --- Placement rules: one engine on one node, or one engine over several nodes (`distributed`). -------
# They ask placement.spans_nodes, not which back-end serves the model (components/backends/):
# any multi-node back-end (KubeRay today) fills whole nodes and must not have its nodes expire.


def _engine_placement_problems(m: ModelConfig, pool: GpuPoolConfig, at: str) -> list[Problem]:
    """Where one engine's GPUs go: a distributed engine fills whole nodes of the pool
    (placement.layout_problems); any other engine's TP x PP GPUs fit on one node."""
    if spans_nodes(m):
        return layout_problems(m, pool, at)
    gpus = m.engine.tensor_parallel_size * m.engine.pipeline_parallel_size
    per_node = gpus_per_node(pool)
    if gpus <= per_node:
        return []
    return [
        Problem(
            f"{at}.engine.tensorParallelSize",
            f"tensorParallelSize x pipelineParallelSize = {gpus} GPUs exceeds the {per_node} GPUs per node of pool "
            f"{pool.name!r} ({', '.join(pool.instance_types)}); use a pool with larger nodes, or set "
            f"{at}.distributed: {{backend: ray}} to spread the engine over several nodes (KubeRay)",
            m.engine.tensor_parallel_size,
        )
    ]


def _multi_node_pool_problems(cfg: StackConfig, pool: GpuPoolConfig, i: int) -> list[Problem]:
    """A pool that hosts a multi-node engine never expires its nodes (``gpuPools[i]``), and hosts no single-node model.

    Such a pool holds drift for good (builders/karpenter.py holds_drift: a ``Drifted`` budget of zero nodes, no
    terminationGracePeriod, expireAfter Never), so its nodes get new AMIs only by the planned roll of docs/platform.md.
    A single-node model there would share that: no AMI or security update until someone rolls the engine's nodes. On a
    pool of its own it drifts inside the maintenance window, one node at a time, behind its PDB.
    """
    engines = {m.name for m in cfg.models if spans_nodes(m)}
    multi_node = {m.pool for m in cfg.models if m.name in engines}
    problems: list[Problem] = []
    if pool.name in multi_node:
        here = sorted(m.name for m in cfg.models if m.pool == pool.name and m.name in engines)
        for m, at in zip(cfg.models, cfg.model_paths()):
            if m.pool == pool.name and m.name not in engines and not at.endswith(".longContext"):
                problems.append(
                    Problem(
                        f"{at}.pool",
                        f"pool {pool.name!r} hosts the multi-node engine {', '.join(here)}, so it holds drift for a "
                        "planned roll (Drifted budget 0 nodes, no terminationGracePeriod, expireAfter Never) and a "
                        "single-node model there would never get new AMIs by itself: put it on a pool of its own (another "
                        "gpuPools entry, with the same instance types if need be), which drifts inside its window",
                        m.pool,
                    )
                )
    expire = pool.disruption.expire_after
    if pool.name in multi_node and expire is not None and expire != "Never":
        return problems + [
            Problem(
                f"gpuPools[{i}].disruption.expireAfter",
                "must be Never on a pool that hosts a multi-node engine: expiry is forceful (it ignores disruption budgets "
                "and karpenter.sh/do-not-disrupt), so the engine's nodes would be replaced together and the model would "
                "cold-start; nodes then get new AMIs by drift inside the maintenance window",
                expire,
            )
        ]
    return problems
