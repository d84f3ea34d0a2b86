"""S19: a GPU pod that downloads its model requests ephemeral storage for it.

Karpenter sizes a node's disk from the pods' ephemeral-storage requests; without one the node
gets the default root volume (20 GiB on the AMI defaults) and the download fails halfway
(catalogue row S19, docs/policies.md). A model streamed from object storage (``--load-format runai_streamer``)
or read from a local path downloads nothing.
"""

from __future__ import annotations

from policies.framework import Policy, Resource
from policies.kube import WORKLOAD_TYPES, requests_gpu, resource_value
from policies.vllm.args import vllm_command_line, vllm_servers


def _downloads(server) -> bool:
    if server.args.get("load-format") in ("runai_streamer", "runai_streamer_sharded"):
        return False
    line = vllm_command_line(server.container) or []
    model = server.args.get("model") or (line[0] if line and not line[0].startswith("-") else None)
    if not isinstance(model, str) or not model:
        return False
    # A local path (a mounted cache or PVC) or a URL a loader streams is not a hub download.
    return not model.startswith(("/", "./", "s3://", "gs://", "pvc://"))


def _check(resource: Resource, config: dict) -> list[str]:
    messages = []
    for server in vllm_servers(resource):
        if server.runtime_merged or not requests_gpu(server.podspec) or not _downloads(server):
            continue
        if resource_value(server.container, "requests", "ephemeral-storage") is None:
            label = f"container {server.container.get('name', '<unnamed>')}"
            messages.append(f"{label}: downloads its model from the Hub but requests no ephemeral-storage; Karpenter then "
                            f"gives the node its default root volume and the download fails (request the checkpoint size plus caches)")
    return messages


POLICY = Policy(
    name="gpu-pod-ephemeral-storage",
    description="A GPU vLLM container that downloads its model must request ephemeral-storage for it.",
    rationale="Karpenter sizes a node's disk from its pods' ephemeral-storage requests; a model download without one lands on the default root volume and fails when it fills (https://karpenter.sh/docs/concepts/nodeclasses/#specblockdevicemappings; Kyverno's karpenter/set-karpenter-non-cpu-limits mutation exists for the same reason, https://github.com/kyverno/policies/tree/main/karpenter).",
    catalog="S19",
    severity="high",
    enforcement="mandatory",
    remediation_steps="Request resources.requests.ephemeral-storage of at least the checkpoint size plus ~10 GiB, or stream "
                      "the weights (--load-format runai_streamer from S3) or mount a model cache.",
    config_schema={},
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
)
