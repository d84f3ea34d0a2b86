"""S19 (node side): the EC2NodeClass of a GPU NodePool gives its nodes a disk that holds a model server's image.

Containers' images and writable layers, and every emptyDir, live on the node's disk, which Karpenter sizes from the
EC2NodeClass, not from pod requests. Without ``blockDeviceMappings`` Karpenter gives AL2 and AL2023 nodes one 20 GiB
root volume and Bottlerocket nodes a 20 GiB data volume (aws/karpenter-provider-aws v1.14.1
pkg/providers/amifamily/resolver.go:40-43 DefaultEBS, al2023.go:99-102, al2.go:107-110, bottlerocket.go:183-193). A
recent vLLM image is about 12 GB compressed and 25-29 GB unpacked (vllm-project/vllm
issues #17163, #27154, PR #22377), so such a node cannot even pull it, let alone cache a model. With
``instanceStorePolicy: RAID0`` the instance store holds them instead (nodeclasses.md), which is not judged here.
Advice: the serving images are in other files, and a small server (llama.cpp, Ollama) may fit.
"""

from __future__ import annotations

from typing import Any

from policies.framework import Policy, Resource
from policies.kube import as_dict, as_list, as_quantity, fmt_number, get, memoized, metadata_name, viewed_resources
from policies.reading.nodepools import NODEPOOL_TYPES, is_gpu_nodepool

EC2_NODE_CLASS_TYPES = ("kubernetes:karpenter.k8s.aws/v1:EC2NodeClass", "kubernetes:karpenter.k8s.aws/v1beta1:EC2NodeClass")
_GIB = float(1 << 30)
_DEFAULT_GIB = 20.0  # resolver.go:43 DefaultEBS VolumeSize 20Gi


def _gpu_pools_by_class(view: Any) -> dict[str, list[str]]:
    """EC2NodeClass name -> names of the GPU NodePools of the view that use it."""
    found: dict[str, list[str]] = {}
    for r in view:
        if getattr(r, "type", None) in NODEPOOL_TYPES and is_gpu_nodepool(r.props):
            ref = get(r.props, "spec", "template", "spec", "nodeClassRef", "name")
            if isinstance(ref, str):
                found.setdefault(ref, []).append(metadata_name(r.props) or r.name)
    return found


def _disk_gib(props: dict) -> tuple[float | None, str]:
    """(GiB the node's images land on, where that figure comes from); None where it cannot be told."""
    mappings = [as_dict(m) for m in as_list(get(props, "spec", "blockDeviceMappings"))]
    if mappings:
        sizes = [as_quantity(get(m, "ebs", "volumeSize")) for m in mappings]
        known = [s for s in sizes if s is not None]
        if len(known) != len(sizes):
            return None, ""
        return max(known) / _GIB, "its largest blockDeviceMappings volume"
    family = get(props, "spec", "amiFamily")
    aliases = [str(get(t, "alias") or "") for t in as_list(get(props, "spec", "amiSelectorTerms"))]
    if family == "Custom" or (family is None and not any(aliases)):
        return None, ""  # a custom AMI brings its own block devices
    return _DEFAULT_GIB, "no blockDeviceMappings: Karpenter's default 20Gi volume"


def _check(resource: Resource, config: dict) -> list[str]:
    view = viewed_resources()
    name = metadata_name(resource.props)
    if not view or not name or get(resource.props, "spec", "instanceStorePolicy") == "RAID0":
        return []
    pools = memoized(view, "gpu_pools_by_node_class", _gpu_pools_by_class).get(name)
    if not pools:
        return []
    size, source = _disk_gib(resource.props)
    floor = float(config["minDiskGiB"])
    if size is None or size >= floor:
        return []
    return [
        f"spec.blockDeviceMappings: the GPU NodePool(s) {', '.join(sorted(pools))} get {fmt_number(size)} GiB of node disk "
        f"({source}, aws/karpenter-provider-aws v1.14.1 pkg/providers/amifamily/resolver.go:40-43), below {fmt_number(floor)} "
        f"GiB: a recent vLLM image alone is about 12 GB compressed and 25-29 GB unpacked, so the pull fails or the "
        f"kubelet evicts under disk pressure before any model is cached; give the root (Bottlerocket: data) volume at "
        f"least {fmt_number(floor)} GiB plus the models cached on the node, or set instanceStorePolicy: RAID0"
    ]


POLICY = Policy(
    name="karpenter-gpu-node-disk",
    description=(
        "The EC2NodeClass of a GPU NodePool gives its nodes enough disk for a model server's image (Karpenter's default "
        "is a 20 GiB volume)."
    ),
    catalog="S19",
    severity="high",
    enforcement="advisory",
    remediation_steps=(
        "Set spec.blockDeviceMappings on the GPU EC2NodeClass with a gp3 root volume (Bottlerocket: the /dev/xvdb data "
        "volume) of at least minDiskGiB plus the models the node caches, e.g. 200Gi, or instanceStorePolicy: RAID0 on "
        "instances with local NVMe."
    ),
    config_schema={
        "minDiskGiB": {
            "type": "integer",
            "minimum": 1,
            "default": 50,
            "description": "Smallest node disk, GiB, a GPU node needs for a serving image (default 50: a recent vLLM "
            "image is 25-29 GB unpacked on top of its ~12 GB compressed layers during the pull).",
        },
    },
    resource_types=EC2_NODE_CLASS_TYPES,
    check_resource=_check,
    rationale=(
        "Karpenter sizes a node's disk from the EC2NodeClass, 20 GiB when blockDeviceMappings is unset "
        "(https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/pkg/providers/amifamily/resolver.go), and images, "
        "writable layers and emptyDirs all live there; vLLM's image reached 25-29 GB unpacked "
        "(https://github.com/vllm-project/vllm/issues/17163, https://github.com/vllm-project/vllm/pull/22377), so a GPU "
        "node with the default disk cannot pull it. Advisory: the serving images live in other files."
    ),
)
