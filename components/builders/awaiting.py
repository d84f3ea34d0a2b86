"""How long and for what `pulumi up` and `pulumi destroy` wait: readiness annotations and custom timeouts.

Pure: capacity plan -> the annotations and ``customTimeouts`` the components pass to Pulumi.

pulumi-kubernetes awaits no custom resource unless told (provider/pkg/metadata/overrides.go:100-165 at
v4.32.0, ``ReadyCondition``: without ``pulumi.com/waitFor`` the condition is immediate), so an
InferenceService that never serves left `pulumi up` green. ``pulumi.com/waitFor: condition=Ready``
waits for the object's ``Ready`` status condition to be ``True`` (overrides.go:144, the "condition="
prefix; await/condition/custom.go:37-45, the status defaults to "True"); a JSON list waits for all.
The wait lasts ``customTimeouts`` of the operation when set, else the ``pulumi.com/timeoutSeconds``
annotation, else 10 minutes (overrides.go:49-64 ``TimeoutDuration``; await/await.go:306, 491 and 976 for
create, update and delete). The components set ``customTimeouts``: they are per operation, and the
annotation would also bound the delete.

On an update the InferenceService's wait proves less (docs/deploy.md, "What `up` proves when you edit a model"):
KServe v0.20.0 keeps PredictorReady True while the old pods keep the Deployment Available
(pkg/apis/serving/v1beta1/inference_service_status.go:379-425) and copies the Deployment's observedGeneration, not
its own, into the InferenceService's status (455-457), so the condition wait (pulumi-kubernetes v4.20.0
provider/pkg/await/condition/kubectl.go:29-69) passes while a new revision crash-loops; Standard mode sets no
revision fields a ``jsonpath=`` wait could hold on (575-609 are the Knative path's), and KServe's Deployment is not
ours to await (await/await.go:343-346: a read from the cluster is never awaited).

Deletes are foreground (overrides.go:67-77, ``DeletionPropagation``): Pulumi waits until the owner's
dependents are gone. KubeRay owns its pods as their controller (ray-operator/controllers/ray/
raycluster_controller.go:1753 and 1800 at v1.7.0, ``SetControllerReference``, which blocks the owner's
deletion), so a RayCluster's delete lasts its workers' drain; KServe's InferenceService owns its
Deployment the same way. A NodePool's and an EC2NodeClass's delete lasts the drain of their nodes and the
instances' termination (Karpenter's termination finalizers).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..capacity import cold_start
from ..capacity.cold_start import ColdReady, cache_size_gib
from ..capacity.plan import ServingPlan
from ..capacity.pools import PoolPlan

WAIT_FOR = "pulumi.com/waitFor"
# KServe v0.20.0 pkg/apis/serving/v1beta1/inference_service_status.go:294-298: the InferenceService's
# Ready condition is the living condition set over PredictorReady and IngressReady.
INFERENCE_SERVICE_READY = "condition=Ready"
# KubeRay v1.7.0 ray-operator/apis/ray/v1/raycluster_types.go:654-658: RayClusterProvisioned (every Ray pod
# ready, set once) and HeadPodReady (the head, which runs `vllm serve`, ready for requests); both written by
# raycluster_controller.go:2033-2050 under the RayClusterStatusConditions gate, on by default
# (ray-operator/pkg/features/features.go:106). A RayCluster has no "Ready" condition.
RAY_CLUSTER_READY = '["condition=RayClusterProvisioned","condition=HeadPodReady"]'
# After the last pod is gone: the controller's reconcile and finalizer, the API server's garbage collector.
DELETE_MARGIN_SECONDS = 120
# An EC2 instance's termination after Karpenter drained it (shutting-down to terminated, then the
# NodeClaim's finalizer): an estimate, no measurement found; the same order as NODE_READY_SECONDS.
INSTANCE_TERMINATION_SECONDS = 300


def duration(seconds: int) -> str:
    """A Pulumi custom timeout: whole minutes, rounded up ("20m")."""
    return f"{max(1, math.ceil(seconds / 60))}m"


@dataclass(frozen=True)
class Awaiting:
    """The annotations and custom timeouts of one resource, with the seconds they came from (for the report)."""

    annotations: dict[str, str] = field(default_factory=dict)
    timeouts: dict[str, str] = field(default_factory=dict)
    ready_seconds: int = 0
    delete_seconds: int = 0
    # ResourceOptions.replace_on_changes / delete_before_replace: an edit of these paths deletes the object and
    # creates it again, so the create's wait (fresh status) is what `pulumi up` reports (see ray_cluster).
    replace_on_changes: tuple[str, ...] = ()
    delete_before_replace: bool = False


def cold_ready(plan: ServingPlan) -> ColdReady:
    """A predictor pod's way from creation to Ready on a new node (capacity/cold_start.py ``cold_ready``): node
    launch, image pull, a localCache model's node cache fill (the LocalModelCache's modelSize downloaded by KServe's
    agent; the pod's init container waits for it) and the startup budget. The same figure the derived predictor
    Deployment's summary carries (derive/kserve.py), which policy S34 holds against KServe's progress deadline."""
    budget = plan.startup_failure_threshold * plan.startup_period_seconds
    local = plan.startup is not None and plan.startup.source == "localCache"
    cache = cache_size_gib(plan.model.checkpoint_gib) if local else None
    return cold_start.cold_ready(budget, cache)


def inference_service(plan: ServingPlan, wait: bool) -> Awaiting:
    """An InferenceService: wait for Ready as long as a predictor pod's cold path takes (``cold_ready``).

    The delete waits for the predictor pods' termination grace (their drain) and the margin.
    """
    ready = cold_ready(plan).seconds
    delete = plan.termination_grace_seconds + DELETE_MARGIN_SECONDS
    return _awaiting(INFERENCE_SERVICE_READY, wait, ready, delete)


# An edit of the RayCluster's spec replaces the object (delete, then create) while `pulumi up` waits for the models.
RAY_CLUSTER_REPLACE_ON = ("spec",)


def ray_cluster(plan: ServingPlan, wait: bool) -> Awaiting:
    """A RayCluster: wait for every pod and the head as long as its startup budget (capacity/layout.py's cold
    start, which counts node launch and image pull already); the delete waits for the workers' drain.

    On an edit no status of the RayCluster says that the new spec serves. pulumi-kubernetes v4.20.0 waits only until
    ``status.observedGeneration`` reaches the new generation, then reads the condition
    (provider/pkg/await/condition/kubectl.go:48-58; jsonpath.go:44-51 likewise for a JSONPath wait). KubeRay v1.7.0,
    in the reconcile that sees the new spec hash, deletes every pod and returns (raycluster_controller.go:968-981),
    then sets ``observedGeneration`` unconditionally (1998) and HeadPodReady from the head it just deleted, still
    Ready while it drains (2026-2040; common/association.go:179-196 does not skip a pod being deleted);
    RayClusterProvisioned is never set back to False once True (2044-2046); ``state`` goes to "ready" and never back
    (2017-2021); ``readyWorkerReplicas`` counts terminating workers (utils/util.go:449-461); the spec hash is an
    annotation of the head pod (utils/constant.go:27), not of the RayCluster. So the wait would pass within seconds
    of an edit while the model is down, and stay green if the new spec never serves. Instead an edit of ``spec``
    replaces the RayCluster (pulumi/pulumi pkg/resource/deploy/step_generator.go applyReplaceOnChanges: a path
    matches every change below it, ``PropertyPath.Contains``), deleting it first (the name is fixed): the foreground
    delete waits for the old pods' drain, and the create waits, on a fresh status, for every new pod and the head
    (vLLM's /health) to be ready. The downtime is the one KubeRay's Recreate costs anyway (edit_cost); an edit of
    the workers' replicas or the pods' tolerations, which Recreate would apply without a restart, restarts the engine
    too. Without the wait (deploy.waitForModels false) KubeRay's Recreate applies edits in place, unawaited.
    """
    ready = plan.startup_failure_threshold * plan.startup_period_seconds
    delete = plan.termination_grace_seconds + DELETE_MARGIN_SECONDS
    awaits = _awaiting(RAY_CLUSTER_READY, wait, ready, delete)
    if not wait:
        return awaits
    return Awaiting(
        awaits.annotations,
        awaits.timeouts,
        awaits.ready_seconds,
        awaits.delete_seconds,
        replace_on_changes=RAY_CLUSTER_REPLACE_ON,
        delete_before_replace=True,
    )


def _awaiting(condition: str, wait: bool, ready: int, delete: int) -> Awaiting:
    timeouts = {"delete": duration(delete)}
    if wait:
        timeouts = {"create": duration(ready), "update": duration(ready), **timeouts}
    return Awaiting({WAIT_FOR: condition} if wait else {}, timeouts, ready if wait else 0, delete)


def node_pool(plan: PoolPlan) -> Awaiting:
    """A NodePool or its EC2NodeClass: the delete waits for the pool's drain (capacity/pools.py ``drain_seconds``:
    the longest serving pod's grace plus its replacement's startup) and the instances' termination."""
    delete = plan.drain_seconds + INSTANCE_TERMINATION_SECONDS
    return Awaiting(timeouts={"delete": duration(delete)}, delete_seconds=delete)


def annotated(metadata: dict, annotations: dict[str, str]) -> dict:
    """``metadata`` with ``annotations`` added (a new dict; the builders' output is never changed in place)."""
    if not annotations:
        return metadata
    return {**metadata, "annotations": {**(metadata.get("annotations") or {}), **annotations}}
