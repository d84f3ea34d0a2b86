"""G36: a memory-backed emptyDir needs a sizeLimit.

`/dev/shm` for NCCL and vLLM's workers is usually an emptyDir with medium Memory. Its pages are
RAM charged to the pod; with no sizeLimit it grows until the container's memory limit (or, with
none, the node) runs out, and the pod is OOM-killed instead of getting ENOSPC.
"""

from __future__ import annotations

from policies.framework import Policy, Resource
from policies.kube import WORKLOAD_TYPES, as_dict, as_list, containers, is_ray, pod_specs
from policies.reading.shm import needs_shm, shm_volume_name
from policies.reading.vllm_args import is_vllm_container


def _multi_rank_shm(podspec: dict, ray: bool) -> set:
    """/dev/shm volumes that tensor-parallel-requires-dshm (S4) reports, mandatorily: those of
    multi-rank vLLM containers, and every /dev/shm a Ray pod mounts itself. This advisory check
    leaves them to it."""
    return {
        shm_volume_name(c)
        for c in containers(podspec)
        if (ray and shm_volume_name(c) is not None) or (is_vllm_container(c) and needs_shm(c, not ray) is not None)
    }


def _check(resource: Resource, config: dict) -> list[str]:
    messages = []
    for path, podspec in pod_specs(resource):
        covered = _multi_rank_shm(podspec, is_ray(resource.type))
        for volume in as_list(podspec.get("volumes")):
            empty_dir = as_dict(as_dict(volume).get("emptyDir"))
            if volume.get("name") in covered:
                continue
            if empty_dir.get("medium") == "Memory" and empty_dir.get("sizeLimit") is None:
                messages.append(
                    f"{path}.volumes {volume.get('name')}: emptyDir medium Memory has no sizeLimit; its "
                    f"pages are RAM charged to the pod, so it can grow until the pod is OOM-killed; bound it"
                )
    return messages


POLICY = Policy(
    name="memory-emptydir-size-limit",
    description="An emptyDir with medium Memory (typically /dev/shm) must set sizeLimit.",
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
