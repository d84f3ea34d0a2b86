"""Facts about the pinned vLLM images that the builders depend on, each with where it was read.

``ray_default``: whether the image ships Ray's "default" extra (the dashboard and its agent, which serves the
raylet health endpoint /api/local_raylet_healthz on port 52365 that KubeRay's own worker probes read). True or
False only when read at the release's source; None when not established. A builder that would depend on it
checks here first (components/builders/ray_cluster.py worker probes), and a test fails if one depends on it
while it is not True.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional


@dataclass(frozen=True)
class ImageFact:
    """One fact about one vLLM release's image, and its provenance."""

    release: str
    ray_default: Optional[bool]
    provenance: str


IMAGE_FACTS: dict[str, ImageFact] = {
    "0.33.0": ImageFact(
        release="0.33.0",
        ray_default=None,
        provenance=(
            "vllm-0.33.0-cp38-abi3-manylinux_2_28_x86_64.whl from PyPI (sha256 "
            "4b6bdec4ab269990bf70d45a3c1e94c3760a27064513760193b26d6f0da883aa): its METADATA declares no ray "
            "requirement at all (no Requires-Dist naming ray, in any extra), so ray comes from the image build, not "
            "the wheel. The image's docker/Dockerfile and requirements/ at tag v0.33.0 could not be read in this "
            "environment (the vllm-project/vllm snapshot exceeds the fetch limit; no GitHub access), so whether the "
            "image installs ray[default] or only ray[cgraph] is not established: nothing here depends on it"
        ),
    ),
}


def ray_default(release: Optional[str]) -> Optional[bool]:
    """Whether the image of ``release`` ships ray[default]; None when unknown (unknown release included)."""
    fact = IMAGE_FACTS.get(release or "")
    return fact.ray_default if fact else None
