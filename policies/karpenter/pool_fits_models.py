"""Pool fit: each model's most replicas x GPUs, plus the pool's warm buffer, fit under the NodePool's GPU limit.

Stack policy over NodePools and the GPU workloads that select them. A model whose replicas.max
cannot fit leaves replicas Pending exactly when load peaks; the buffer's placeholders (pods at a
negative priority) hold GPUs the serving pods preempt, but Karpenter counts them against the limit
too. The message names the pool.
"""

from __future__ import annotations

from policies.framework import Policy, Resource
from policies.kube import metadata_name
from policies.reading.gpu_pools import gpu_workloads, limit_of, nodepools


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    pools = nodepools(resources)
    workloads = gpu_workloads(resources)
    findings = []
    for name, pool in pools.items():
        limit = limit_of(pool)
        if limit is None:
            continue
        buffer = sum(w.gpus_per_pod * w.max_pods for w in workloads if w.pool == name and w.buffer)
        for w in workloads:
            if w.pool != name or w.buffer:
                continue
            need = w.gpus_per_pod * w.max_pods + buffer
            if need > limit:
                findings.append(
                    (
                        pool.name,
                        f"pool {name}: {metadata_name(w.resource.props) or w.resource.name} needs {w.max_pods} replicas x {w.gpus_per_pod} GPUs "
                        f'+ {buffer} buffer GPUs = {need} GPUs, above the NodePool\'s limits["nvidia.com/gpu"] '
                        f"= {int(limit)}; raise the limit or lower the replicas",
                    )
                )
    return findings


POLICY = Policy(
    name="gpu-pool-fits-models",
    description="Each model's maximum replicas x GPUs plus the pool's buffer must fit the NodePool's GPU limit.",
    rationale="Karpenter stops provisioning when a NodePool's limits would be exceeded (https://karpenter.sh/docs/concepts/nodepools/#speclimits): a model whose replicas.max x GPUs, plus the warm buffer's placeholder GPUs, exceeds limits[nvidia.com/gpu] gets Pending replicas exactly at peak load.",
    catalog="S13",
    severity="high",
    # A companion of S13's row (the catalogue names one policy per row). The stacks refuse such a
    # pool at plan time (exit 2, components/capacity/pools.py); this reads third-party manifests.
    enforcement="advisory",
    remediation_steps="Raise gpuPools[].gpuLimit (the NodePool's limits[\"nvidia.com/gpu\"]) or lower the model's replicas.max "
    "or the pool's buffer.",
    config_schema={},
    check_stack=_check,
)
