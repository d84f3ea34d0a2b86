"""S13: a GPU NodePool caps its GPUs (limits["nvidia.com/gpu"]), or a runaway scale-out buys GPUs without end."""

from __future__ import annotations

import math
from typing import Optional

from policies.framework import Policy, Resource, unproven
from policies.karpenter.limits_admit_instances import allowed_types, capacity
from policies.kube import as_dict, as_quantity, get
from policies.reading.nodepools import (
    NODEPOOL_TYPES,
    PROVISIONER_TYPE,
    gpu_limit,
    is_gpu_nodepool,
    is_static,
    nodepool_field,
    nodepool_props,
)

_DEFAULT_BLOCK_ABOVE = 32


def _gpus_admitted(props: dict, limits: dict[str, float]) -> Optional[tuple[int, str]]:
    """The most GPUs the pool's cpu/memory limits admit, and on which instance type: for each type the requirements
    allow (the hardware catalogue; EKS Auto Mode labels mapped), the nodes of that type the limits admit (Karpenter
    charges a node's capacity against the limits before launching it: limits_admit_instances.py) times its GPUs.
    None when the requirements cannot be evaluated or allow no catalogued type."""
    allowed = allowed_types(props)
    if allowed is None or not allowed[0] or not limits:
        return None
    best: Optional[tuple[int, str]] = None
    for spec in allowed[0]:
        cap = capacity(spec)
        nodes = min(math.floor(limit / cap[name]) for name, limit in limits.items() if cap.get(name))
        if best is None or nodes * spec.gpu_count > best[0]:
            best = (nodes * spec.gpu_count, spec.name)
    return best


def _check(resource: Resource, config: dict) -> list[str]:
    findings = _findings(nodepool_props(resource), config)
    if resource.type != PROVISIONER_TYPE:
        return findings
    # Read as the NodePool it migrates to; Karpenter 0.33+ serves no Provisioner (G40), so this is advice.
    field = nodepool_field(resource, "spec.limits")
    return [
        unproven(field + m[len("spec.limits") :] + " (a v1alpha5 Provisioner, read as the NodePool it migrates to)")
        for m in findings
    ]


def _findings(props: dict, config: dict) -> list[str]:
    if not is_gpu_nodepool(props) or (gpu_limit(props) or 0) > 0:
        return []
    if is_static(props):
        return []  # spec.replicas bounds the nodes, and Karpenter's validation refuses any other limit
    raw = as_dict(get(props, "spec", "limits"))
    other = sorted(k for k in raw if isinstance(k, str))
    if not other:
        return [
            'spec.limits: GPU NodePool without limits["nvidia.com/gpu"] or any other limit; nothing bounds how many GPUs it buys'
        ]
    # A cpu or memory limit bounds the nodes, so the GPUs too (Karpenter stops launching once the pool's resources
    # reach any limit, https://karpenter.sh/docs/concepts/nodepools/#speclimits). How many GPUs that admits follows
    # from the instance types the pool allows: blocking when it admits more than blockAboveGpus (a dynamic pool may
    # always set limits["nvidia.com/gpu"]: Karpenter v1.14.1's CRD restricts only static pools), advice otherwise.
    limits = {k: q for k in ("cpu", "memory") if (q := as_quantity(raw.get(k))) is not None}
    admitted = None if "nodes" in raw else _gpus_admitted(props, limits)
    bound = ", ".join(f"{k} {raw.get(k)}" for k in other)
    if admitted is not None:
        message = (
            f'spec.limits: GPU NodePool without limits["nvidia.com/gpu"]; only {bound} bound it, which admits '
            f"{admitted[0]} GPUs on {admitted[1]} nodes the requirements allow; cap the GPUs themselves"
        )
        blocks = admitted[0] > int(config.get("blockAboveGpus", _DEFAULT_BLOCK_ABOVE))
        return [message if blocks else unproven(message)]
    return [
        unproven(
            f'spec.limits: GPU NodePool without limits["nvidia.com/gpu"]; only {bound} bound it, which on GPU-dense '
            "instances allows far more GPUs than the models need; cap the GPUs themselves"
        )
    ]


POLICY = Policy(
    name="karpenter-gpu-nodepool-limits",
    description='A NodePool that launches GPU instances must set limits["nvidia.com/gpu"] (a static NodePool\'s spec.replicas bounds it instead); a cpu/memory limit alone is proven (blocking where a platform raises the policy) when it admits more GPUs than blockAboveGpus on the instance types the pool allows (EKS Auto Mode labels included).',
    rationale="A NodePool's limits are the only cap on what Karpenter buys; a cpu or memory limit does not bound GPUs on GPU-dense instances, so a scale-out bug or a retry storm buys GPU nodes without end (https://karpenter.sh/docs/concepts/nodepools/#speclimits). A static NodePool (spec.replicas) is bounded by its node count, and Karpenter v1.14.1's CRD validation allows only limits.nodes there.",
    catalog="S13",
    severity="high",
    enforcement="advisory",  # a risk row: docs/policies.md "Enforcement levels"
    remediation_steps='Set spec.limits["nvidia.com/gpu"] to the most GPUs the pool may hold (models\' replicas.max x GPUs + buffer).',
    config_schema={
        "blockAboveGpus": {
            "type": "integer",
            "minimum": 0,
            "default": _DEFAULT_BLOCK_ABOVE,
            "description": "A GPU NodePool bounded only by cpu/memory limits is proven (blocking where the policy is raised) when those limits admit more "
            "GPUs than this on the instance types its requirements allow (default 32: four 8-GPU nodes); at or "
            "below it, or when the types cannot be read, the finding is advice.",
        },
    },
    resource_types=(*NODEPOOL_TYPES, PROVISIONER_TYPE),
    check_resource=_check,
)
