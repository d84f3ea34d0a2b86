"""G3 (adapted): GPU model servers should not pull with imagePullPolicy Always.

The generic rule (pull Always) is wrong here: serving images are 10-20 GB, and Always makes
every pod start, restart and reschedule depend on the registry and on a manifest round-trip,
lengthening cold start and failing it during a registry outage. Pin a digest or a version tag
and use IfNotPresent instead.
"""

from __future__ import annotations

from policies.framework import Policy, Resource
from policies.kube import WORKLOAD_TYPES, requests_gpu
from policies.reading.serving import model_servers


def _check(resource: Resource, config: dict) -> list[str]:
    return [
        f"{s.label}: imagePullPolicy Always re-resolves the multi-GB serving image at every start, so cold starts "
        f"wait on the registry; pin the tag or digest and use IfNotPresent"
        for s in model_servers(resource)
        if s.container.get("imagePullPolicy") == "Always" and requests_gpu(s.podspec)
    ]


POLICY = Policy(
    name="gpu-image-pull-policy",
    description="A GPU model server should not use imagePullPolicy Always (the generic rule inverted).",
    catalog="G3",
    severity="low",
    enforcement="advisory",
    remediation_steps="Pin the image (version tag or, better, digest) and set imagePullPolicy: IfNotPresent.",
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    rationale=(
        "With Always the kubelet contacts the registry on every container start "
        "(https://kubernetes.io/docs/concepts/containers/images/#image-pull-policy). The catalogue marks the generic "
        '"pull Always" check NO for GPU serving (row 3): image pull is one of the largest parts of a cold start, '
        "and a pinned reference gives the same guarantee without the round trip."
    ),
)
