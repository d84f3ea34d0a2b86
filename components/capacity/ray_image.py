"""Whether a model served by vLLM's Ray executor can start on its image: the facts of components/image_facts.py.

Pure. The KubeRay head runs `vllm serve --distributed-executor-backend=ray` with no GPU (builders/ray_cluster.py);
that starts only on a release whose Ray executor needs no GPU where it runs (read for vLLM 0.33.0), and only on an
image that ships ray.
"""

from __future__ import annotations

from ..backend_keys import listing
from ..config import ModelConfig
from ..errors import Problem
from ..image_facts import IMAGE_FACTS, ray_driver_needs_gpu, ray_in_image
from ..vllm_flags import Release


def ray_image_problems(m: ModelConfig, path: str, release: Release) -> list[Problem]:
    """A Ray-backed multi-node model needs a release whose Ray executor starts on the GPU-less head, and ray in its
    image (components/image_facts.py holds both facts and where they were read)."""
    item = listing(m.distributed.backend) if m.distributed is not None else None
    if item is None or not item.ray_executor:
        return []
    problems: list[Problem] = []
    known = sorted(v for v in IMAGE_FACTS if ray_driver_needs_gpu(v) is False)
    if ray_driver_needs_gpu(release.version) is not False:
        problems.append(
            Problem(
                f"{path}.image",
                f"the Ray head runs `vllm serve --distributed-executor-backend=ray` with no GPU (num-gpus 0), and whether "
                f"vLLM {release.version}'s Ray executor starts on a node without a GPU is not established (older ones "
                f"raised 'Current node has no GPU available'); it is read for vLLM {', '.join(known)} "
                "(components/image_facts.py): use an image of that release",
                m.image,
            )
        )
    if ray_in_image(release.version) is False:
        problems.append(
            Problem(
                f"{path}.image",
                f"the vLLM {release.version} image ships no ray, which every pod of a Ray cluster runs (ray start, "
                "KubeRay's wait-gcs-ready health check, vLLM's Ray executor): use an image that installs ray",
                m.image,
            )
        )
    return problems
