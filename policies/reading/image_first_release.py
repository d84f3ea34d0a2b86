"""Images whose publisher began building them at a known release: an earlier version tag was never pushed.

A tag below the first release the publisher's workflow built does not exist in its registry, so the kubelet's pull
fails (ErrImagePull, then ImagePullBackOff) and the container never starts. Rows, each read from the publisher's
source at the release named:

* ``kserve/huggingfaceserver``: kserve/kserve ``.github/workflows/huggingface-docker-publish.yml:16``
  (``IMAGE_NAME: huggingfaceserver``, pushed as ``kserve/$IMAGE_NAME`` on ``v*`` tags) first appears at v0.12.0-rc1,
  with ``python/huggingfaceserver``; v0.11.2 and earlier have neither (set 44: sereno4/LLM-Pipeline-Platform-
  kserve/servingruntime.yaml, ``kserve/huggingfaceserver:v0.11.1``).
* ``kserve/kserve-localmodel-controller``: ``.github/workflows/kserve-localmodel-controller-docker-publish.yml:17``
  first at v0.14.0 (absent at v0.13.1).
* ``kserve/kserve-localmodelnode-agent``: ``.github/workflows/kserve-localmodel-agent-docker-publish.yml:17`` first at
  v0.15.0.
* ``kserve/llmisvc-controller``: ``.github/workflows/kserve-llmisvc-controller-docker-publish.yml:17`` first at v0.16.0.

Only the minor is compared (a tag of the first minor's earlier release candidates is left alone).
"""

from __future__ import annotations

import re
from typing import NamedTuple, Optional

from components.images import image_repository, is_published, release_numbers, release_tag


class FirstRelease(NamedTuple):
    repository: str
    first: tuple[int, int]
    source: str


_KSERVE = "kserve/kserve .github/workflows/"
FIRST_RELEASES: tuple[FirstRelease, ...] = (
    FirstRelease("kserve/huggingfaceserver", (0, 12), _KSERVE + "huggingface-docker-publish.yml from v0.12.0"),
    FirstRelease(
        "kserve/kserve-localmodel-controller", (0, 14), _KSERVE + "kserve-localmodel-controller-docker-publish.yml from v0.14.0"
    ),
    FirstRelease(
        "kserve/kserve-localmodelnode-agent", (0, 15), _KSERVE + "kserve-localmodel-agent-docker-publish.yml from v0.15.0"
    ),
    FirstRelease("kserve/llmisvc-controller", (0, 16), _KSERVE + "kserve-llmisvc-controller-docker-publish.yml from v0.16.0"),
)
_DOCKER_HUB = ("docker.io/", "index.docker.io/", "registry-1.docker.io/")


def never_built(image: str) -> Optional[tuple[FirstRelease, str, bool]]:
    """(row, tag, on the publisher's registry) for an image whose version tag is older than the row's first release;
    None otherwise. ``on the publisher's registry`` is False behind another registry, where a private build of that
    tag may exist."""
    tag = release_tag(image)
    match = re.match(r"^v?(\d+)\.(\d+)(\.\d+)?(-rc\d+)?$", tag or "")
    numbers = release_numbers(tag) if match is not None and tag is not None else None
    if numbers is None or tag is None:
        return None
    version = numbers[:2]
    for row in FIRST_RELEASES:
        if is_published(image, (row.repository,)) and version < row.first:
            repository = image_repository(image).lower()
            hub = repository == row.repository or any(repository == p + row.repository for p in _DOCKER_HUB)
            return row, tag, hub
    return None
