"""The capacity plan of a vLLM container, recomputed from what the policy sees.

The model comes from the command line (first positional token, or --model), the GPU type from
the llm-serving.io/gpu annotation the components write, else from whatever in the pod's node
selection pins one (instance type, instance family, Karpenter's GPU name, GPU feature
discovery's product label, GKE's accelerator label: policies.reading.gpu_selection), and the engine
flags from the parsed arguments; components.capacity then runs vLLM's memory accounting.
Containers whose model or GPU the catalogue does not know are not judged by the capacity
policies; `unsized` lists them, so that a run can say so instead of reading as a pass.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional

from components.builders.labels import CAPACITY_ANNOTATION, GPU_ANNOTATION
from components.capacity.accounting import image_flashinfer_sampler
from components.capacity.architecture import ArchitectureError
from components.capacity.gpus import UnknownGpu, find_gpu
from components.capacity.memory import EngineArgs, Gpu, MemoryPlan, plan_memory
from components.capacity.models import CatalogModel, UnknownModel, find_model
from components.images import vllm_release
from components.json_loading import load_json
from components.loading import JSON_FILE, LoadError
from policies.kube import annotations_of, as_float, as_int, as_list, memoized
from policies.reading.gpu_selection import pinned_gpu
from policies.reading.vllm_args import VllmServer, served_model

if TYPE_CHECKING:
    from policies.reading.engines import EngineServer


@dataclass(frozen=True)
class ServerPlan:
    """A vLLM container's model, GPU and predicted memory plan."""

    model: CatalogModel
    model_id: str
    gpu: Gpu
    plan: MemoryPlan


def gpu_type(resource: Any, server: "VllmServer | EngineServer") -> Optional[Gpu]:
    """The GPU the pod runs on: our exact annotation first, else the GPU its node selection pins.

    Karpenter's GPU-name label names a family (``a100`` covers the 40 and 80 GB parts), and an
    affinity term may allow several types: the smallest of them is sized (policies.reading.gpu_selection).
    The annotation the components write removes the doubt.
    """
    name = annotations_of(resource.props).get(GPU_ANNOTATION)
    if isinstance(name, str) and name:
        try:
            return find_gpu(name)
        except UnknownGpu:
            pass
    pin = pinned_gpu(server.podspec)
    return pin.gpu if pin else None


def stamped_plan(resource: Any) -> Optional[dict]:
    """The capacity plan the components stamped on the resource (llm-serving.io/capacity-plan), if any."""
    text = annotations_of(resource.props).get(CAPACITY_ANNOTATION)
    if not isinstance(text, str):
        return None
    try:
        # Bounded: the annotation comes from a manifest anyone may have written (depth, size, NaN).
        value = load_json("annotation", JSON_FILE, text=text)
    except LoadError:
        return None
    return value if isinstance(value, dict) else None


def _int_flag(args: dict, flag: str) -> Optional[int]:
    value = as_int(args.get(flag)) if flag in args else None
    return value if value and value > 0 else None


def server_plan(resource: Any, server: VllmServer, default_release: str = "") -> Optional[ServerPlan]:
    """The memory plan of one vLLM container, or None when the model or GPU is unknown.

    ``default_release`` is the vLLM release whose accounting applies when the image tag names none
    (the setting defaultVllmRelease); "" keeps the most conservative of the releases read.
    """
    # Two policies read each server's plan; within one evaluation it is made once (a server
    # belongs to exactly one resource, so the server and the release are the key).
    return memoized(server, f"server_plan:{default_release}", lambda s: _server_plan(resource, s, default_release))


def release_note(server: VllmServer, default_release: str = "") -> str:
    """How a message names the release whose accounting it used, when the image tag names none ("" otherwise)."""
    if vllm_release(str(server.container.get("image") or "")) is not None:
        return ""
    if default_release:
        return f" (the image tag names no vLLM release: {default_release}'s accounting, setting defaultVllmRelease)"
    return " (the image tag names no vLLM release: the most conservative accounting, setting defaultVllmRelease unset)"


def _sampler_env(container: dict) -> dict[str, str]:
    """The container's environment as image_flashinfer_sampler reads it: literal values, and "" (not trusted) for a
    variable set from a ConfigMap, a Secret or a field, whose value the manifest does not show."""
    env = {}
    for e in as_list(container.get("env")):
        if isinstance(e, dict) and isinstance(e.get("name"), str):
            env[e["name"]] = e["value"] if isinstance(e.get("value"), str) else ""
    return env


def _server_plan(resource: Any, server: VllmServer, default_release: str = "") -> Optional[ServerPlan]:
    gpu = gpu_type(resource, server)
    model = model_id = None
    # The positional model, else (weights streamed from S3 or read from a node cache, where the
    # argument is a URI or a path) the Hugging Face id the components annotate.
    for candidate in (served_model(server), annotations_of(resource.props).get("llm-serving.io/model")):
        if isinstance(candidate, str) and candidate:
            try:
                model, model_id = find_model(candidate), candidate
                break
            except (UnknownModel, ArchitectureError):
                continue
    if model is None or model_id is None or gpu is None:
        return None
    a = server.args
    image = str(server.container.get("image") or "")
    # The image tag names the release whose accounting applies (unknown: the most conservative).
    release = vllm_release(image) or default_release or None
    # Unset or unreadable: the release's own default, which the accounting knows.
    utilization = as_float(a.get("gpu-memory-utilization")) if "gpu-memory-utilization" in a else None
    engine = EngineArgs(
        tensor_parallel_size=_int_flag(a, "tensor-parallel-size") or 1,
        pipeline_parallel_size=_int_flag(a, "pipeline-parallel-size") or 1,
        gpu_memory_utilization=utilization if utilization and 0 < utilization <= 1 else None,
        max_model_len=_int_flag(a, "max-model-len"),
        max_num_seqs=_int_flag(a, "max-num-seqs"),
        max_num_batched_tokens=_int_flag(a, "max-num-batched-tokens"),
        block_size=_int_flag(a, "block-size") or 16,
        dtype=a.get("dtype") or "auto",
        kv_cache_dtype=a.get("kv-cache-dtype") or "auto",
        quantization=a.get("quantization"),
        enforce_eager="enforce-eager" in a,
        vllm_version=release,
        # vLLM's own image samples with FlashInfer on 0.9.0-0.11.0 unless the environment turns it off.
        flashinfer_sampler=image_flashinfer_sampler(image, release, _sampler_env(server.container)),
    )
    try:
        plan = plan_memory(model.arch, model.checkpoint_bytes, gpu, engine)
    except (KeyError, ValueError):
        return None
    return ServerPlan(model=model, model_id=model_id, gpu=gpu, plan=plan)


@dataclass(frozen=True)
class SizingGap:
    """A model server the capacity policies could not size, and why (unknown model or GPU)."""

    resource: str
    server: str
    model: Optional[str]
    gpu: Optional[str]
    reason: str

    def row(self) -> dict:
        """The JSON report's entry."""
        return {"resource": self.resource, "server": self.server, "model": self.model, "gpu": self.gpu, "reason": self.reason}


def _model_gap(resource: Any, server: VllmServer) -> tuple[Optional[str], Optional[str]]:
    """(model id shown, why it cannot be sized) -- the reason is None when the catalogue knows it."""
    candidates = [
        c for c in (served_model(server), annotations_of(resource.props).get("llm-serving.io/model")) if isinstance(c, str) and c
    ]
    for candidate in candidates:
        try:
            find_model(candidate)
            return candidate, None
        except (UnknownModel, ArchitectureError):
            continue
    if not candidates:
        return None, "no model named on the command line"
    return candidates[0], (
        f"model {candidates[0]} is not in the catalogue or the lock file "
        f"(python -m stacks models lock, or size it with --model-config)"
    )


def _gpu_gap(resource: Any, server: VllmServer) -> tuple[Optional[str], Optional[str]]:
    """(GPU shown, why it cannot be sized)."""
    gpu = gpu_type(resource, server)
    if gpu is not None:
        return gpu.name, None
    pin = pinned_gpu(server.podspec)
    if pin is not None and pin.unknown:
        return None, f"the GPU its node selection pins is not in the catalogue ({', '.join(pin.unknown)})"
    return None, (
        "no GPU type pinned (node.kubernetes.io/instance-type, karpenter.k8s.aws/instance-gpu-name, "
        "nvidia.com/gpu.product, cloud.google.com/gke-accelerator or the llm-serving.io/gpu annotation)"
    )
