"""Facts about the pinned vLLM images that the builders and the capacity plan depend on, each with where it was read.

``ray_default``: whether the image ships Ray's "default" extra (the dashboard and its agent, which serves the
raylet health endpoint /api/local_raylet_healthz on port 52365 that KubeRay's own worker probes read). True or
False only when read at the release's source; None when not established. A builder that would depend on it
checks here first (components/builders/ray_cluster.py worker probes), and a test fails if one depends on it
while it is not True.

``ray``: whether ``import ray`` (and the ``ray`` command) works in the image at all. A multi-node engine needs it on
every pod: the head runs ``ray start`` and vLLM's Ray executor, the workers run ``ray start``, and KubeRay's
``wait-gcs-ready`` init container runs ``ray health-check``. None when not established; False refuses the model
(components/capacity/plan.py), None is reported, and the head fails at once with a message saying so.

``ray_driver_needs_gpu``: whether ``vllm serve --distributed-executor-backend=ray`` needs a GPU on the node it runs
on (the Ray head, which we give none: ``num-gpus: "0"``). Older vLLM Ray executors raised "Current node has no GPU
available" and pinned placement-group bundle 0 to the driver's node; a model on a release whose fact is not False
is refused (components/capacity/plan.py), since its head would never start.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

# The wheel every 0.33.0 fact below was read from (PyPI, `pip download vllm==0.33.0 --no-deps`), and its
# vllm/_version.py commit id.
WHEEL_0_33_0 = (
    "vllm-0.33.0-cp38-abi3-manylinux_2_28_x86_64.whl from PyPI (sha256 "
    "4b6bdec4ab269990bf70d45a3c1e94c3760a27064513760193b26d6f0da883aa; vllm/_version.py commit_id g4ba787ec9)"
)


@dataclass(frozen=True)
class ImageFact:
    """One fact about one vLLM release's image, and its provenance."""

    release: str
    ray_default: Optional[bool]
    provenance: str
    ray: Optional[bool] = None
    ray_driver_needs_gpu: Optional[bool] = None
    executor_provenance: str = ""


IMAGE_FACTS: dict[str, ImageFact] = {
    "0.33.0": ImageFact(
        release="0.33.0",
        ray_default=None,
        ray=None,
        provenance=(
            f"{WHEEL_0_33_0}: its METADATA declares no ray requirement at all (no Requires-Dist naming ray, in any "
            "extra), so ray comes from the image build, not the wheel. The image's docker/Dockerfile and requirements/ "
            "at tag v0.33.0 could not be read in this environment: the vllm-project/vllm snapshot (1.12 GB) exceeds the "
            "fetch limit, the file index holds docker/Dockerfile and requirements/cuda.txt only at other commits (one "
            "stored requirements/cuda.txt pins torch==2.13.0 and names no ray, while the 0.33.0 wheel requires "
            "torch==2.14.0, so it is not the tag's), and the full commit of g4ba787ec9 is unknown. So whether the image "
            "installs ray at all, and with which extras, is not established. What vLLM does without it: "
            "v1/executor/ray_utils.py:46-52 assert_ray_available raises 'Failed to import Ray ... Please install Ray "
            "with `pip install ray`', and v1/executor/ray_executor_v2.py:293-294 raises 'Using Ray backend requires "
            "installation of ray.'"
        ),
        ray_driver_needs_gpu=False,
        executor_provenance=(
            f"{WHEEL_0_33_0}: v1/executor/abstract.py:76-79 maps distributed_executor_backend 'ray' to RayExecutorV2, "
            "unconditionally (no V1 RayDistributedExecutor is left in v1/executor/). RayExecutorV2._init_executor "
            "(v1/executor/ray_executor_v2.py:284-332) calls initialize_ray_cluster (v1/executor/ray_utils.py:266-384), "
            "which has no check of a GPU on the current node (it only logs a warning when the world size exceeds the "
            "local device count, 289-302) and asks for world_size bundles of {GPU: 1} with strategy PACK (371-379), "
            "none pinned to the driver's node; get_bundles_sorted_by_node (141-198) only sorts the driver's node first "
            "when it holds bundles, and the broadcast queue takes n_local = 0 readers over shared memory when no rank "
            "is on the driver's node (ray_executor_v2.py:332; TCP for the rest). platforms/interface.py:304-306 says "
            "an empty CUDA_VISIBLE_DEVICES is 'a valid configuration in Ray setups where the engine is launched in a "
            "CPU-only placement group located on a GPU node'. So the head needs no GPU, only the CUDA platform "
            "detected through NVML (platforms/__init__.py:57-89 cuda_platform_plugin), which is why it runs on the "
            "pool's GPU nodes"
        ),
    ),
}


def image_fact(release: Optional[str]) -> Optional[ImageFact]:
    """The facts read for ``release``, or None where none were read."""
    return IMAGE_FACTS.get(release or "")


def ray_default(release: Optional[str]) -> Optional[bool]:
    """Whether the image of ``release`` ships ray[default]; None when unknown (unknown release included)."""
    fact = image_fact(release)
    return fact.ray_default if fact else None


def ray_in_image(release: Optional[str]) -> Optional[bool]:
    """Whether the image of ``release`` ships ray at all; None when unknown (unknown release included)."""
    fact = image_fact(release)
    return fact.ray if fact else None


def ray_driver_needs_gpu(release: Optional[str]) -> Optional[bool]:
    """Whether vLLM ``release``'s Ray executor needs a GPU where ``vllm serve`` runs; None when not read."""
    fact = image_fact(release)
    return fact.ray_driver_needs_gpu if fact else None
