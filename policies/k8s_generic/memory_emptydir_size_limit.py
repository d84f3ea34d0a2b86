"""G36: a memory-backed emptyDir needs a sizeLimit.

`/dev/shm` for NCCL and vLLM's workers is usually an emptyDir with medium Memory. Its pages are
RAM charged to the pod; with no sizeLimit it grows until the container's memory limit (or, with
none, the node) runs out, and the pod is OOM-killed instead of getting ENOSPC. That holds for a tensor-parallel
server's /dev/shm, but that one is S4's (tensor-parallel-requires-dshm owns the /dev/shm of every multi-process GPU
server, policies/reading/shm.py shm_volumes: one problem, one id), so this row leaves it alone and keeps every other
memory emptyDir, the /dev/shm of a single-process pod among them. (Spent set 13 labelled an unbounded TP /dev/shm
G36, andrewaddo/gke-vllm-hdml vllm-deployment.yaml; the labellers of later sets call it S4, whose title now says so.)
"""

from __future__ import annotations

from policies.framework import Policy, Resource
from policies.kube import WORKLOAD_TYPES, as_dict, as_list, pod_specs
from policies.reading.shm import memory_limited, shm_volumes


def _check(resource: Resource, config: dict) -> list[str]:
    messages = []
    owned = shm_volumes(resource)  # the /dev/shm of a multi-process GPU server: S4's
    for path, podspec in pod_specs(resource):
        bounded = memory_limited(podspec)
        for volume in as_list(podspec.get("volumes")):
            empty_dir = as_dict(as_dict(volume).get("emptyDir"))
            if empty_dir.get("medium") != "Memory" or empty_dir.get("sizeLimit") is not None:
                continue
            name = as_dict(volume).get("name")
            if isinstance(name, str) and (path, name) in owned:
                continue
            where = f"{path}.volumes {as_dict(volume).get('name')}: emptyDir medium Memory has no sizeLimit"
            if bounded:
                messages.append(
                    f"{where}; its pages are RAM charged to the pod, so it can grow until the pod is OOM-killed; bound it"
                )
            else:
                messages.append(
                    f"{where} and the pod's containers set no memory limit, so shared memory grows into the node's RAM "
                    f"unbounded, until the node runs short and the kubelet starts evicting pods; bound it"
                )
    return messages


POLICY = Policy(
    name="memory-emptydir-size-limit",
    description=(
        "An emptyDir with medium Memory must set sizeLimit (the /dev/shm of a multi-process GPU server is S4's, "
        "tensor-parallel-requires-dshm)."
    ),
    catalog="G36",
    severity="medium",
    enforcement="advisory",
    remediation_steps="Add sizeLimit to the memory emptyDir (a few GiB for NCCL; `python -m stacks plan` sizes /dev/shm) and keep it within the container's memory limit.",
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    rationale=(
        '"A size limit can be specified for the default medium ... the size limit for medium Memory is counted '
        "against the container's memory limit\" (https://kubernetes.io/docs/concepts/storage/volumes/#emptydir). "
        "Catalogue row 36 (Kyverno add-emptydir-sizelimit)."
    ),
)
