"""S49: a LeaderWorkerSet whose group is one engine restarts the group together.

A multi-node engine (tensor or pipeline parallel over the group's pods, or expert parallel across them) builds one
NCCL communicator over every rank at start. LeaderWorkerSet's ``restartPolicy: None`` (and the deprecated
``Default``, the same behaviour) restarts only the failed pod, as a StatefulSet would (kubernetes-sigs/lws v0.10.0
api/leaderworkerset/v1/leaderworkerset_types.go:341-350): the restarted rank cannot rejoin the communicator the
others still hold, so the engine stays broken while the leader may still answer its probe. The default,
``RecreateGroupOnPodRestart`` (:167-173 ``+kubebuilder:default``, :328-332), recreates every pod of the group when one
pod is recreated or any container restarts (pkg/controllers/pod_controller.go:207), so the group starts together.

Reported on a LeaderWorkerSet whose group spans more than one pod (``size`` at least 2) and whose pods request GPUs;
an absent restartPolicy is the default and passes.
"""

from __future__ import annotations

from policies.framework import Policy, Resource
from policies.kube import as_dict, as_float, get, pod_specs, requests_gpu

LWS_TYPE = "kubernetes:leaderworkerset.x-k8s.io/v1:LeaderWorkerSet"
_ALONE = ("None", "Default")


def _check(resource: Resource, config: dict) -> list[str]:
    template = as_dict(get(resource.props, "spec", "leaderWorkerTemplate"))
    policy = template.get("restartPolicy")
    size = as_float(template.get("size"))
    if policy not in _ALONE or size is None or size < 2:
        return []
    if not any(requests_gpu(podspec) for _, podspec in pod_specs(resource)):
        return []
    return [
        f"spec.leaderWorkerTemplate.restartPolicy {policy}: only the failed pod of a {int(size)}-pod group restarts, "
        f"and a restarted rank cannot rejoin the NCCL group the other pods still hold, so the multi-node engine stays "
        f"broken (the leader may still pass its probe); remove restartPolicy (LWS's default RecreateGroupOnPodRestart "
        f"restarts the whole group together)"
    ]


POLICY = Policy(
    name="lws-group-restarts-together",
    description=(
        "A LeaderWorkerSet of GPU pods whose group spans several pods keeps restartPolicy RecreateGroupOnPodRestart "
        "(the default) or RecreateGroupAfterStart, not None: a multi-node engine's ranks restart together."
    ),
    catalog="S49",
    severity="high",
    enforcement="advisory",
    remediation_steps=(
        "Remove spec.leaderWorkerTemplate.restartPolicy (LWS defaults to RecreateGroupOnPodRestart) or set it to "
        "RecreateGroupOnPodRestart or RecreateGroupAfterStart."
    ),
    resource_types=(LWS_TYPE,),
    check_resource=_check,
    rationale=(
        "kubernetes-sigs/lws v0.10.0 api/leaderworkerset/v1/leaderworkerset_types.go:167-173 (default "
        "RecreateGroupOnPodRestart), :325-350 (None and Default restart only the failed pod); "
        "pkg/controllers/pod_controller.go:207 (only the Recreate policies restart the group). NCCL communicators are "
        "built once over all ranks; a replaced rank cannot join an existing one."
    ),
)
