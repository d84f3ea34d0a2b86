"""G10 on every workload container: a memory limit (advice).

serving-memory-limit judges the model servers and serving-path apps; this row judges every other running container
of every pod template the readers reach (policies/reading/workload_pods.py). With no memory limit a container may use
all of the node's memory: a leak or a large request pushes the node into memory pressure, and the kubelet then evicts
or the kernel OOM-kills its neighbours (https://kubernetes.io/docs/concepts/scheduling-eviction/node-pressure-eviction/;
https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/).

Counted as set: limits.memory, a LimitRange ``default`` memory of the namespace among the files (the LimitRanger
admission plugin fills it: policies/reading/limit_ranges.py), and a pod-level memory limit. A VPA does not add a limit
a container lacks (it scales an existing one only). One finding per object, naming the containers; advice.
Spent sets 76-79: cncf/llm-in-action (Streamlit), a-anurag1024/rinlekha (MLflow).
"""

from __future__ import annotations

from policies.framework import Policy, Resource, unproven
from policies.kube import workload_types
from policies.reading.limit_ranges import namespace_default
from policies.reading.workload_pods import pod_sets, sets_none, workload_containers


def _check(resource: Resource, config: dict) -> list[str]:
    if namespace_default(resource, "limits", "memory") is not None:
        return []
    labels = [
        c.label
        for c in workload_containers(resource)
        if sets_none(c.container, "memory", ("limits",)) and not pod_sets(c.podspec, "memory", ("limits",))
    ]
    if not labels:
        return []
    return [
        unproven(
            f"{', '.join(labels)}: no resources.limits.memory (nor a LimitRange default or a pod-level limit), so "
            f"the container may take all of the node's memory and its neighbours pay for a leak; set a memory limit"
        )
    ]


POLICY = Policy(
    name="workload-memory-limit",
    description="Every running container of every workload (not only model servers) sets a memory limit (advice).",
    catalog="G10",
    severity="low",
    enforcement="advisory",
    remediation_steps="Set resources.limits.memory on each container, or give the namespace a LimitRange default.",
    resource_types=workload_types(),
    check_resource=_check,
    operator_fills="a memory limit",
    rationale=(
        "A container without a memory limit may use all of the node's memory; under pressure the kubelet evicts "
        "pods by QoS class (https://kubernetes.io/docs/concepts/scheduling-eviction/node-pressure-eviction/). "
        "Catalogue row 10 (Polaris memoryLimitsMissing, kube-linter unset-memory-requirements, Checkov CKV_K8S_13), "
        "on every container the model-server rows do not judge."
    ),
)
