"""S11: a GPU NodePool taints its nodes (nvidia.com/gpu:NoSchedule by convention), so only GPU pods land on $30/h nodes.

What keeps other pods off is the effect, not the key: any NoSchedule or NoExecute taint does it for pods that do not
tolerate it (https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/). A careful third-party pool
tainting ``gpu=true:NoSchedule`` (held-out set 8, Tazmainiandevil/eks-gpu-inference-autoscaling
platform/karpenter/nodepool.yaml) is therefore silent; whether the GPU pods tolerate it is S15's.
"""

from __future__ import annotations

from policies.framework import Policy, Resource, unproven
from policies.reading.nodepools import (
    NODEPOOL_TYPES,
    PROVISIONER_TYPE,
    gpu_pool_hint,
    is_gpu_nodepool,
    nodepool_field,
    nodepool_props,
    taints,
)


def _check(resource: Resource, config: dict) -> list[str]:
    props = nodepool_props(resource)
    hint = None if is_gpu_nodepool(props) else gpu_pool_hint(props)
    if hint is None and not is_gpu_nodepool(props):
        return []
    key = config["taintKey"]
    if any(t.get("effect") in ("NoSchedule", "NoExecute") for t in taints(props)):
        return []
    message = (
        f"{nodepool_field(resource, 'spec.template.spec.taints')}: GPU NodePool without a {key}:NoSchedule taint; "
        f"pods that do not ask for a GPU can land on its nodes and keep them (and their GPUs) alive"
    )
    if resource.type == PROVISIONER_TYPE:
        # Read as the NodePool it migrates to; Karpenter 0.33+ serves no Provisioner (G40), so this is advice.
        return [unproven(f"{message} (a v1alpha5 Provisioner, read as the NodePool it migrates to)")]
    # Read as a GPU pool from a name only (the instance types come from a node class or provider outside the files).
    return [message if hint is None else unproven(f"{message} (read as a GPU pool because {hint})")]


POLICY = Policy(
    name="karpenter-gpu-nodepool-tainted",
    description="A NodePool that launches GPU instances must taint its nodes so that only GPU pods schedule there.",
    rationale="GPU nodes cost tens of dollars an hour; without a taint any pod (a log shipper, a batch job) can land on them and keep Karpenter from consolidating the node. The Karpenter docs' GPU NodePool example taints nodes nvidia.com/gpu:NoSchedule (https://karpenter.sh/docs/concepts/scheduling/), as AWS's ai-on-eks blueprints do (https://github.com/awslabs/ai-on-eks).",
    catalog="S11",
    severity="high",
    enforcement="advisory",  # a risk row: docs/policies.md "Enforcement levels"
    remediation_steps='Add `taints: [{key: nvidia.com/gpu, value: "true", effect: NoSchedule}]` to spec.template.spec and '
    "give GPU pods the matching toleration.",
    config_schema={
        "taintKey": {
            "type": "string",
            "default": "nvidia.com/gpu",
            "description": "Key of the GPU taint the message suggests (any NoSchedule/NoExecute taint satisfies the "
            "rule). Default nvidia.com/gpu.",
        },
    },
    resource_types=(*NODEPOOL_TYPES, PROVISIONER_TYPE),
    check_resource=_check,
)
