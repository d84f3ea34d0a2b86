"""S17 for a model downloaded outside the serving pods: a Job (or any pod without GPUs) that runs ``hf download`` /
``huggingface-cli download`` (policies/reading/downloaders.py) with no ``--revision`` into a PersistentVolumeClaim that
GPU pods of the files mount. The servers read whatever the repository's main branch held when the download ran
(huggingface_hub v1.28.0: the revision defaults to "main"), so a re-run, or a second claim filled later, serves another
snapshot. Advice: the manifest shows the download and the shared claim, not that the servers read that folder of it.
"""

from __future__ import annotations

from typing import Any

from policies.framework import Resource, unproven
from policies.kube import as_dict, as_list, get, memoized, pod_specs, requests_gpu, viewed_resources
from policies.reading.downloaders import fetches
from policies.reading.engines import hub_model, volume_at


def _gpu_claims_of(view: Any) -> dict[str, str]:
    """Each claim name a GPU pod of the files mounts, with the first workload that does (kind/name)."""
    found: dict[str, str] = {}
    for r in view:
        for _, podspec in pod_specs(r):
            if not requests_gpu(podspec):
                continue
            for volume in as_list(podspec.get("volumes")):
                claim = get(as_dict(volume), "persistentVolumeClaim", "claimName")
                if isinstance(claim, str):
                    found.setdefault(claim, f"{r.type.rsplit(':', 1)[-1]}/{get(r.props, 'metadata', 'name')}")
    return found


def claim_fed_downloads(resource: Resource) -> list[str]:
    """Advice for each Hub download without a revision that a pod without GPUs writes into a claim GPU pods mount."""
    view = viewed_resources()
    claims = memoized(view, "gpu_claims", _gpu_claims_of) if view else {}
    messages: list[str] = []
    for fetch in fetches(resource):
        if requests_gpu(fetch.podspec) or fetch.revision is not None or hub_model(fetch.source) is None:
            continue
        volume = volume_at(fetch.podspec, fetch.container, fetch.into or "/")
        claim = get(as_dict(volume), "persistentVolumeClaim", "claimName")
        if isinstance(claim, str) and claim in claims:
            messages.append(
                unproven(
                    f"{fetch.label}: downloads {hub_model(fetch.source)} from the Hugging Face Hub with no revision into "
                    f"claim {claim}, which the GPU pods of {claims[claim]} mount: they serve whatever the repository's "
                    f"main branch held when the download ran, and a re-run fetches another snapshot; pass "
                    f"{fetch.revision_flag} <commit SHA>"
                )
            )
    return messages
