"""G46 (companion to container-can-start): a vLLM server's memory limit holds what vLLM allocates in host memory.

vLLM's V0 engine (the default before 0.8.0, and wherever VLLM_USE_V1=0) allocates its CPU swap space at start: each GPU
worker's CacheEngine allocates ``swap_space`` GiB of pinned host memory (vllm-project/vllm
vllm/worker/cache_engine.py@017e7a4c ``CacheEngine.__init__``: ``cpu_cache = self._allocate_kv_cache(num_cpu_blocks,
"cpu")``, ``_allocate_kv_cache`` zeroing it with ``pin_memory=is_pin_memory_available()``; ``EngineArgs.swap_space:
float = 4  # GiB`` per GPU in vllm/engine/arg_utils.py of the 0.6 releases; the HabanaAI/vllm-fork v0.6.6.post1 tag
read first is a fork, cited only beside upstream: review 45 #20). Pinned pages are
charged to the container's memory cgroup and cannot be reclaimed, so a limit below tensor-parallel size x swap space
OOM-kills the server before it serves: blocking where the image tag names such a release and the container holds
GPUs. Elsewhere (V1, which allocates no swap) a limit under 4 GiB is advice: V1 runs the API server and the engine
core as two processes, each importing torch and vLLM, and stages weights through host memory, which the files do not
size. Fresh set 47: SecureCloudOps/llm-rag-infra-platform k8s/vllm/deployment.yaml (vllm/vllm-openai:latest, limit
2Gi; labelled G46 blocking).
"""

from __future__ import annotations

from components.capacity.accounting import parse_release
from components.images import vllm_release
from policies.framework import Policy, Resource, unproven
from policies.kube import GPU_RESOURCE, WORKLOAD_TYPES, as_float, as_quantity, fmt_number, get, gpu_count, resource_value
from policies.reading.engines import env_values
from policies.reading.kustomize import image_rewritten
from policies.reading.vllm_args import VllmServer, parallel_size, vllm_servers

GIB = 1 << 30
_V1_DEFAULT = (0, 8)  # VLLM_USE_V1 defaults to 1 from vLLM 0.8.0
_FLOOR_GIB = 4.0


def _gib(value: float) -> str:
    return fmt_number(round(value / GIB, 2))


def _judge(server: VllmServer, retagged: frozenset) -> list[str]:
    limit = as_quantity(get(server.container, "resources", "limits", "memory"))
    if limit is None or limit <= 0:
        return []
    image = str(server.container.get("image") or "")
    # A kustomization of the run that retags the image deploys another release than the base's tag.
    release = None if image_rewritten(retagged, image) else parse_release(vllm_release(image))
    env = env_values(server.container)
    v0 = (release is not None and release < _V1_DEFAULT and env.get("VLLM_USE_V1", "").strip() != "1") or env.get(
        "VLLM_USE_V1", ""
    ).strip() == "0"
    gpus = resource_value(server.container, "limits", GPU_RESOURCE)
    swap = as_float(server.args.get("swap-space")) if "swap-space" in server.args else 4.0
    ranks = (parallel_size(server.args, "tensor-parallel-size") or 1) * (
        parallel_size(server.args, "pipeline-parallel-size") or 1
    )
    held = gpu_count(server.container)
    if held is not None and held >= 1:
        # Each worker pins its swap in its own process: with ranks spread over nodes (Ray, LeaderWorkerSet) only the
        # workers on this container's GPUs are charged to its memory cgroup.
        ranks = min(ranks, held)
    if v0 and gpus is not None and swap is not None and swap > 0 and limit < ranks * swap * GIB:
        return [
            f"{server.label}: resources.limits.memory {_gib(limit)} GiB is below the CPU swap space vLLM's V0 engine "
            f"pins at start ({ranks} x --swap-space {fmt_number(swap)} GiB{'' if 'swap-space' in server.args else ', its default'}): "
            f"pinned pages count against the limit and cannot be reclaimed, so the server is OOM-killed before it serves; "
            f"raise the limit above {fmt_number(ranks * swap)} GiB plus the processes' own memory, or set --swap-space 0"
        ]
    # (a CPU build sizes its KV cache in host memory by VLLM_CPU_KVCACHE_SPACE, a figure of its own: not judged here)
    if limit < _FLOOR_GIB * GIB and (gpus is not None or "cpu" not in image.lower()):
        return [
            unproven(
                f"{server.label}: resources.limits.memory {_gib(limit)} GiB on a vLLM server: its API server and engine "
                f"core run as two processes, each importing torch and vLLM, and the weights pass through host memory "
                f"as they load; under {fmt_number(_FLOOR_GIB)} GiB it is likely OOM-killed at start; size the limit "
                f"from the weights and the processes (python -m stacks plan)"
            )
        ]
    return []


def _check(resource: Resource, config: dict) -> list[str]:
    return [m for server in vllm_servers(resource) if not server.runtime_merged for m in _judge(server, resource.retagged)]


POLICY = Policy(
    name="vllm-host-memory-floor",
    description=(
        "A vLLM container's memory limit holds what vLLM allocates in host memory: the V0 engine's pinned CPU swap "
        "space (blocking below it), and, for any release, a floor of 4 GiB for its processes (advice)."
    ),
    catalog="G46",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Raise resources.limits.memory above tensor-parallel size x --swap-space (V0) plus the processes' own memory, "
        "or pass --swap-space 0; on V1 size it from the weights and the two processes."
    ),
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    rationale=(
        "vLLM V0's CacheEngine allocates swap_space GiB of pinned CPU memory per GPU worker (vllm/worker/cache_engine.py "
        "_allocate_kv_cache with pin_memory; EngineArgs.swap_space default 4); pinned memory is charged to the "
        "container's memory cgroup (https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/"
        "#memory-units), and a container over its limit is OOM-killed."
    ),
)
