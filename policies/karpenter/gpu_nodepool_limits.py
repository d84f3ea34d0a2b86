"""S13: a GPU NodePool caps its GPUs (limits["nvidia.com/gpu"]), or a runaway scale-out buys GPUs without end."""

from __future__ import annotations

from policies.framework import Policy, Resource, unproven
from policies.kube import as_dict, get
from policies.reading.nodepools import NODEPOOL_TYPES, gpu_limit, is_gpu_nodepool, is_static


def _check(resource: Resource, config: dict) -> list[str]:
    if not is_gpu_nodepool(resource.props) or (gpu_limit(resource.props) or 0) > 0:
        return []
    if is_static(resource.props):
        return []  # spec.replicas bounds the nodes, and Karpenter's validation refuses any other limit
    other = sorted(k for k in as_dict(get(resource.props, "spec", "limits")) if isinstance(k, str))
    if other:
        # A cpu, memory or nodes limit does bound the nodes, so the GPUs too (Karpenter stops launching once the
        # pool's resources reach any limit, https://karpenter.sh/docs/concepts/nodepools/#speclimits); how loosely,
        # on GPU-dense instances, is a judgement the manifest alone cannot make: advice, not a block.
        return [
            unproven(
                f'spec.limits: GPU NodePool without limits["nvidia.com/gpu"]; only {", ".join(other)} bound it, '
                "which on GPU-dense instances allows far more GPUs than the models need; cap the GPUs themselves"
            )
        ]
    return ['spec.limits: GPU NodePool without limits["nvidia.com/gpu"] or any other limit; nothing bounds how many GPUs it buys']


POLICY = Policy(
    name="karpenter-gpu-nodepool-limits",
    description='A NodePool that launches GPU instances must set limits["nvidia.com/gpu"] (a static NodePool\'s spec.replicas bounds it instead).',
    rationale="A NodePool's limits are the only cap on what Karpenter buys; a cpu or memory limit does not bound GPUs on GPU-dense instances, so a scale-out bug or a retry storm buys GPU nodes without end (https://karpenter.sh/docs/concepts/nodepools/#speclimits). A static NodePool (spec.replicas) is bounded by its node count, and Karpenter v1.14.1's CRD validation allows only limits.nodes there.",
    catalog="S13",
    severity="high",
    enforcement="mandatory",
    remediation_steps='Set spec.limits["nvidia.com/gpu"] to the most GPUs the pool may hold (models\' replicas.max x GPUs + buffer).',
    config_schema={},
    resource_types=NODEPOOL_TYPES,
    check_resource=_check,
)
