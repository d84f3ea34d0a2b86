"""S30: a Deployment that rolls cannot share a single-attach volume between its old and new pods.

A RollingUpdate (a Deployment's default: maxSurge 25%, so one extra pod) starts the new pod before the old one
stops. A ReadWriteOncePod claim admits one pod at a time, and a ReadWriteOnce claim one node: a GPU pod's
replacement usually needs another node's GPUs, so it waits on "Multi-Attach error for volume" while the old pod
holds the volume and the rollout never progresses (or, with replicas > 1, the second pod never starts). The
careful forms: `strategy: {type: Recreate}`, `maxSurge: 0` (the old pod goes first), a StatefulSet with a claim
per pod (volumeClaimTemplates), or a ReadWriteMany / ReadOnlyMany volume.

The claim's access modes come from a PersistentVolumeClaim of the same run (same namespace), whichever file holds
it. A claim the run does not hold (its pvc.yaml left out of the set: held-out set 10's idvoretskyi/ollama-k8s
k8s/standard/deployment.yaml and sriharshapy/NVIDIA_triton-trtllm-prometheus-k8s- k8s/deployment.yaml) is advice on a
model server or GPU pod that mounts it writable and surges: most dynamically provisioned block volumes (EBS, GCE PD,
Azure Disk) support ReadWriteOnce only, but the mode is the claim's; a claim named for a shared file system (efs, nfs,
fsx, filestore, s3, rwx, shared) is left alone. The same advice covers any Deployment of a run that starts a model
server (its UI or gateway: spent set 16 heissanjay/ollama-eks-depl, open-webui on an unseen claim), and a surging
one-replica CPU pod on a ReadWriteOnce claim of the run (its replacement may land on another node; unproven).

One surging replica on a ReadWriteOnce claim of the run is advice as well, GPU pod or not: the replacement stalls only
when the scheduler puts it on another node, and a node with a GPU to spare takes it beside the old pod, where
ReadWriteOnce admits both; which nodes the cluster has is not in the files. The labellers of the spent sets judged this
form advisory (sets 13, 16, 21), and dev set 24's MohammadB88/rag-anythingllm
models/nvidia_nim/llama3-8b_all_resources.yaml@aea543d3 (one NIM replica, one GPU, a ReadWriteOnce cache) no problem
at all. A ReadWriteOncePod claim (one pod, whatever the node) and several replicas on one claim still block.

An HPA (spec.maxReplicas) or KEDA ScaledObject (spec.maxReplicaCount, default 100) of the run that takes a one-replica
Deployment above one replica is the same single-attach conflict for the replicas it adds: on another node they wait on
the Multi-Attach error while the first keeps serving, so it is advice, with Recreate too (spent set 23
farrukhmustafa/fintech-function-calling-llm kubernetes/triton-inference-deployment.yaml); the autoscaler carries the
same advice (``_check_autoscaler``).
"""

from __future__ import annotations

from typing import Any, Optional

from policies.framework import Policy, Resource, unproven
from policies.gpu.single_attach_llama_stack import LLAMA_STACK_TYPE, check_llama_stack
from policies.gpu.single_attach_unseen import SHARED_NAME as _SHARED_NAME
from policies.gpu.single_attach_unseen import held, unseen_for_autoscaler
from policies.gpu.single_attach_unseen import unseen_claim as _unseen_claim
from policies.kube import (
    HPA_TYPES,
    ISVC_TYPE,
    KSERVE_DEFAULT_DEPLOYMENT_MODE,
    SCALED_OBJECT_TYPE,
    as_dict,
    as_int,
    as_list,
    get,
    known_pod_specs,
    kserve_default_mode_setting,
    kserve_deployment_mode,
    metadata_name,
    name_of,
    split_type,
    viewed_resources,
)
from policies.reading.placement import pinned_node
from policies.reading.run_objects import binds

DEPLOYMENT_TYPE = "kubernetes:apps/v1:Deployment"
SINGLE_ATTACH = ("ReadWriteOnce", "ReadWriteOncePod")


def _claims(resource: Resource) -> dict[str, dict]:
    namespace = get(resource.props, "metadata", "namespace")
    found = {}
    for other in viewed_resources() or ():
        if split_type(other.type) != ("", "PersistentVolumeClaim"):
            continue
        if get(other.props, "metadata", "namespace") not in (None, namespace):
            continue
        name = metadata_name(other.props)
        if name:
            found[name] = other.props
    return found


def _node_local(claim: dict) -> bool:
    """True when the files bind the claim to a hostPath or local PersistentVolume (spec.volumeName, or a PV whose
    claimRef names the claim). Neither is attached by the attach/detach controller, so no Multi-Attach error holds a
    second pod back: a local PV's node affinity puts every pod on its node, and a hostPath is whatever directory each
    node has (set 38: sandervanvugt/kubeai llama-deployment.yaml with models-pv-pvc.yaml@, a hostPath PV under two
    replicas, labelled G31, was measured as a wrong S30 block)."""
    for other in viewed_resources() or ():
        if split_type(other.type) != ("", "PersistentVolume") or not binds(as_dict(other.props), claim):
            continue
        spec = as_dict(get(other.props, "spec"))
        if "hostPath" in spec or "local" in spec:
            return True
    return False


_HOSTNAME = "kubernetes.io/hostname"


def _forced_apart(podspec: dict) -> bool:
    """True when the pod spec forbids two replicas on one node: a required pod anti-affinity or a DoNotSchedule
    topology spread over kubernetes.io/hostname. Otherwise ReadWriteOnce, which is per node, admits several replicas
    that land on one node (https://kubernetes.io/docs/concepts/storage/persistent-volumes/#access-modes), so several
    replicas on it are a risk the scheduler decides, not a proven stall (review 43 #7; set 28 natifridman labelled it
    advisory)."""
    anti = as_list(get(podspec, "affinity", "podAntiAffinity", "requiredDuringSchedulingIgnoredDuringExecution"))
    if any(as_dict(term).get("topologyKey") == _HOSTNAME for term in anti):
        return True
    return any(
        as_dict(c).get("topologyKey") == _HOSTNAME and as_dict(c).get("whenUnsatisfiable", "DoNotSchedule") == "DoNotSchedule"
        for c in as_list(podspec.get("topologySpreadConstraints"))
    )


def _surges(spec: dict) -> bool:
    """True when the rollout starts a new pod before an old one stops (RollingUpdate with maxSurge > 0)."""
    strategy = as_dict(spec.get("strategy"))
    if strategy.get("type") == "Recreate":
        return False
    surge: Any = get(strategy, "rollingUpdate", "maxSurge")
    if surge is None:
        return True  # the default 25%, rounded up: one extra pod
    text = str(surge).strip().rstrip("%")
    try:
        return float(text) > 0
    except ValueError:
        return True


def _one_node(podspec: dict) -> bool:
    """True when the pods can land on one node only (policies.reading.placement.pinned_node). ReadWriteOnce "can be
    mounted as read-write by a single node ... [and] still can allow multiple pods to access the volume when the pods
    are running on the same node" (https://kubernetes.io/docs/concepts/storage/persistent-volumes/#access-modes)."""
    return pinned_node(podspec) is not None


def _single_attach_claims(deployment: Resource) -> list[tuple[str, list[str]]]:
    """(claim, access modes) of each single-attach claim of the run the Deployment's pods mount writable, where a
    second replica on another node would wait on the attach (not a node-local volume, not a pod pinned to one node)."""
    podspec = as_dict(get(deployment.props, "spec", "template", "spec"))
    claims, found = _claims(deployment), []
    for volume in as_list(podspec.get("volumes")):
        name = get(volume, "persistentVolumeClaim", "claimName")
        if not isinstance(name, str) or name not in claims:
            continue
        modes = [m for m in as_list(get(claims[name], "spec", "accessModes")) if isinstance(m, str)]
        if not modes or any(m not in SINGLE_ATTACH for m in modes):
            continue
        pod_bound = "ReadWriteOncePod" in modes
        if get(volume, "persistentVolumeClaim", "readOnly") is True and not pod_bound:
            continue
        if not pod_bound and (_one_node(podspec) or _node_local(claims[name])):
            continue
        found.append((name, modes))
    return found


def _check_autoscaler(resource: Resource) -> list[str]:
    """Advice on an HPA or ScaledObject that scales a Deployment of the run above one replica while its pods mount a
    single-attach claim of the run: the finding the Deployment carries (``_scaled_message``), put on the object that
    adds the replicas too, where a reader of the autoscaler looks (fresh set 54: rupalimits/LLM-Inference-Platform-for-
    Real-Time-and-Batch-Workloads k8s/inference-service.yaml, HPA inference-hpa to 4 replicas over the ReadWriteOnce
    claim hf-cache-pvc, labelled S30 advisory on the HPA)."""
    hpa = resource.type in HPA_TYPES
    target = as_dict(get(resource.props, "spec", "scaleTargetRef"))
    ceiling = as_int(get(resource.props, "spec", "maxReplicas" if hpa else "maxReplicaCount")) or (0 if hpa else 100)
    if target.get("kind", "Deployment") != "Deployment" or ceiling <= 1:
        return []
    namespace = get(resource.props, "metadata", "namespace")
    for other in viewed_resources() or ():
        if other.type != DEPLOYMENT_TYPE or metadata_name(other.props) != target.get("name"):
            continue
        if get(other.props, "metadata", "namespace") != namespace:
            continue
        if not (claims := _single_attach_claims(other)):
            if unseen := unseen_for_autoscaler(other, ceiling, _claims(other)):
                return unseen
            continue
        name, modes = claims[0]
        return [
            unproven(
                f"spec: scales Deployment {target.get('name')} up to {ceiling} replicas, whose pods all mount "
                f"PersistentVolumeClaim {name} ({'/'.join(modes)}, single-attach): a replica placed on another "
                f"node waits in ContainerCreating on a Multi-Attach error, so scale-out adds no capacity; use a "
                f"ReadWriteMany volume, a StatefulSet with volumeClaimTemplates, or keep maxReplicas at 1"
            )
        ]
    return []


def _check(resource: Resource, config: dict) -> list[str]:
    if resource.type in (*HPA_TYPES, SCALED_OBJECT_TYPE):
        return _check_autoscaler(resource)
    if resource.type != DEPLOYMENT_TYPE:
        return check_llama_stack(resource) if resource.type == LLAMA_STACK_TYPE else _check_kserve(resource, config)
    spec = as_dict(get(resource.props, "spec"))
    podspec = as_dict(get(spec, "template", "spec"))
    replicas = spec.get("replicas", 1)
    surges = _surges(spec)
    many = isinstance(replicas, (int, float)) and not isinstance(replicas, bool) and replicas > 1
    scaled = None if many else _autoscaled_to(resource)
    if not (surges or many or scaled):
        return []
    claims = _claims(resource)
    messages = []
    for volume in as_list(podspec.get("volumes")):
        name = get(volume, "persistentVolumeClaim", "claimName")
        if isinstance(name, str) and name not in claims:
            if (message := _unseen_claim(resource, podspec, volume, name, surges, scaled)) is not None:
                messages.append(message)
            continue
        if not isinstance(name, str):
            continue
        if get(volume, "persistentVolumeClaim", "readOnly") is True and "ReadWriteOncePod" not in as_list(
            get(claims[name], "spec", "accessModes")
        ):
            continue
        modes = [m for m in as_list(get(claims[name], "spec", "accessModes")) if isinstance(m, str)]
        if not modes or any(m not in SINGLE_ATTACH for m in modes):
            continue
        pod_bound = "ReadWriteOncePod" in modes
        if not pod_bound and _one_node(podspec):
            continue  # every pod lands on the one node the spec names, where ReadWriteOnce admits them all
        if not pod_bound and _node_local(claims[name]):
            continue  # nothing to attach: a hostPath or local volume (its own rules: G31)
        # ReadWriteOnce is per node: one replica's replacement may land beside the old one (a CPU pod, or a GPU pod on
        # a node with a GPU to spare) or on another node, where it waits on the attach: the cluster decides (advice).
        # Replicas an autoscaler adds only under load fail while the first keeps serving: advice too.
        maybe = not pod_bound and not (many and _forced_apart(podspec))
        if many:
            why = f"spec.replicas {replicas}: the pods after the first cannot attach it"
        elif surges:
            why = "the RollingUpdate starts the new pod before the old one releases it"
        elif scaled is not None:
            messages.append(_scaled_message(volume, name, modes, scaled))
            continue
        else:
            continue
        message = (
            f"spec.template.spec.volumes {volume.get('name')}: PersistentVolumeClaim {name} is {'/'.join(modes)} "
            f"(single-attach) and {why} (Multi-Attach error), so the rollout never completes; use strategy Recreate "
            f"or maxSurge 0, a StatefulSet with volumeClaimTemplates, or a ReadWriteMany volume"
        )
        messages.append(unproven(message + " (if the new pod lands on another node)") if maybe else message)
    return messages


def _scaled_message(volume: dict, name: str, modes: list[str], scaled: tuple[str, int]) -> str:
    """Advice for a single-attach claim of a Deployment an autoscaler takes above one replica: the replicas it adds
    under load on another node hang on a Multi-Attach error while the first keeps serving (spent set 23
    farrukhmustafa/fintech-function-calling-llm: Recreate, HPA triton-hpa maxReplicas 3, ReadWriteOnce claim)."""
    return unproven(
        f"spec.template.spec.volumes {volume.get('name')}: PersistentVolumeClaim {name} is {'/'.join(modes)} "
        f"(single-attach) and {scaled[0]} adds replicas up to {scaled[1]}: a replica placed on another node waits in "
        f"ContainerCreating on a Multi-Attach error, so scale-out adds no capacity; use a ReadWriteMany volume, a "
        f"StatefulSet with volumeClaimTemplates, or keep the autoscaler at one replica"
    )


def _autoscaled_to(resource: Resource) -> Optional[tuple[str, int]]:
    """(autoscaler, its replica ceiling) of an HPA (spec.maxReplicas) or KEDA ScaledObject (spec.maxReplicaCount,
    KEDA's default 100) of the run that scales this Deployment above one replica, else None."""
    namespace, name = get(resource.props, "metadata", "namespace"), metadata_name(resource.props)
    for other in viewed_resources() or ():
        if other.type not in (*HPA_TYPES, SCALED_OBJECT_TYPE) or get(other.props, "metadata", "namespace") != namespace:
            continue
        target = as_dict(get(other.props, "spec", "scaleTargetRef"))
        if target.get("name") != name or target.get("kind", "Deployment") != "Deployment":
            continue
        hpa = other.type in HPA_TYPES
        ceiling = as_int(get(other.props, "spec", "maxReplicas" if hpa else "maxReplicaCount")) or (0 if hpa else 100)
        if ceiling > 1:
            kind = "HorizontalPodAutoscaler" if hpa else "ScaledObject"
            return f"{kind} {metadata_name(other.props)}", ceiling
    return None


LLMISVC_TYPES = (
    "kubernetes:serving.kserve.io/v1alpha1:LLMInferenceService",
    "kubernetes:serving.kserve.io/v1alpha2:LLMInferenceService",
)
_RAW_MODES = ("RawDeployment", "Standard")


def _kserve_form(resource: Resource, config: dict) -> Optional[tuple[str, str, dict, Any, bool]]:
    """(where the URI is, its pvc:// URI, the pod spec, the replicas, whether the rollout surges) of a KServe service
    whose Deployment KServe renders with the claim of a pvc:// model URI mounted in it, else None.

    An InferenceService in RawDeployment (Standard) mode: its annotation, else the setting kserveDefaultDeploymentMode;
    kserve v0.20.0 mounts the claim of ``storageUri: pvc://CLAIM/path`` in the predictor pod
    (pkg/webhook/admission/pod/storage_initializer_injector.go:526-540), runs ``predictor.minReplicas`` replicas
    (deployment_reconciler.go:170-172) and gives the Deployment ``predictor.deploymentStrategy`` else RollingUpdate
    maxSurge 25% / maxUnavailable 25% (:162-168, setDefaultDeploymentSpec :341-349). A single-node LLMInferenceService
    (no ``worker``): ``spec.replicas`` pods of a Deployment with Kubernetes' own default RollingUpdate, the claim of
    ``model.uri`` mounted in each (pkg/controller/v1alpha2/llmisvc/workload_storage.go attachModelArtifacts)."""
    spec = as_dict(get(resource.props, "spec"))
    if resource.type == ISVC_TYPE:
        default = str(config.get("kserveDefaultDeploymentMode") or KSERVE_DEFAULT_DEPLOYMENT_MODE)
        if kserve_deployment_mode(resource.props, default)[0] not in _RAW_MODES:
            return None
        predictor = as_dict(spec.get("predictor"))
        uri, replicas, where = get(predictor, "model", "storageUri"), predictor.get("minReplicas", 1), "predictor.model"
        strategy = as_dict(predictor.get("deploymentStrategy"))
        podspec = predictor
    elif spec.get("worker") is None:
        uri, replicas, where = get(spec, "model", "uri"), spec.get("replicas", 1), "model.uri"
        strategy, podspec = {}, as_dict(spec.get("template"))
    else:
        return None
    if not (isinstance(uri, str) and uri.startswith("pvc://")):
        return None
    return where, uri, podspec, replicas, _surges({"strategy": strategy})


def _one_replica(resource: Resource) -> str:
    """The other fix: an InferenceService's predictor takes a deploymentStrategy (kserve v0.20.0
    pkg/apis/serving/v1beta1/component.go:131); an LLMInferenceService's Deployment takes none."""
    return " or one replica with predictor.deploymentStrategy Recreate" if resource.type == ISVC_TYPE else ""


def _check_kserve(resource: Resource, config: dict) -> list[str]:
    """A pvc:// model of a KServe InferenceService (RawDeployment) or LLMInferenceService: the claim KServe mounts in
    every pod of the Deployment it renders (``_kserve_form``), judged as a Deployment's claim is. KServe mounts it
    read-only by default, which does not help: the attach/detach controller attaches a volume to a second node only
    when its PersistentVolume's access modes include ReadWriteMany or ReadOnlyMany, whatever the mount says
    (kubernetes/kubernetes pkg/volume/util/util.go IsMultiAttachAllowed, called from pkg/controller/volume/
    attachdetach/reconciler/reconciler.go attachDesiredVolumes, at afd5df58)."""
    form = _kserve_form(resource, config)
    if form is None:
        return []
    where, uri, podspec, replicas, surges = form
    claim = uri[len("pvc://") :].split("/", 1)[0]
    many = isinstance(replicas, (int, float)) and not isinstance(replicas, bool) and replicas > 1
    claims = _claims(resource)
    if claim not in claims:
        if not surges or _SHARED_NAME.search(claim) or _one_node(podspec) or held(claim):
            return []
        return [
            unproven(
                f"spec.{where} {uri}: PersistentVolumeClaim {claim} is not in the files read; if it is ReadWriteOnce "
                f"(block volumes such as EBS, GCE PD or Azure Disk support no other mode), the RollingUpdate of the "
                f"Deployment KServe renders starts the new pod before the old one releases it and, on another node, it "
                f"waits on a Multi-Attach error: the rollout stalls; use a ReadWriteMany volume{_one_replica(resource)}"
            )
        ]
    modes = [m for m in as_list(get(claims[claim], "spec", "accessModes")) if isinstance(m, str)]
    if not modes or any(m not in SINGLE_ATTACH for m in modes):
        return []
    pod_bound = "ReadWriteOncePod" in modes
    if not pod_bound and _one_node(podspec):
        return []
    if many:
        why = f"{replicas} replicas: the pods after the first cannot attach it"
    elif surges:
        why = "the RollingUpdate of the Deployment KServe renders starts the new pod before the old one releases it"
    else:
        return []
    message = (
        f"spec.{where} {uri}: PersistentVolumeClaim {claim} is {'/'.join(modes)} (single-attach) and {why} "
        f"(Multi-Attach error), so the rollout never completes; use a ReadWriteMany volume{_one_replica(resource)}, "
        f"or a model source each pod fetches itself"
    )
    proven = pod_bound or (many and _forced_apart(podspec))
    return [message if proven else unproven(message + " (if the new pod lands on another node)")]


POLICY = Policy(
    name="single-attach-volume-rolls",
    description=(
        "A Deployment that surges, runs several replicas or is autoscaled above one does not mount a ReadWriteOnce(Pod) "
        "claim its new pods cannot attach (advice for the replicas an autoscaler adds); the same for the pvc:// model "
        "of a KServe InferenceService in RawDeployment mode or of an LLMInferenceService."
    ),
    catalog="S30",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Set `strategy: {type: Recreate}` (or `rollingUpdate: {maxSurge: 0, maxUnavailable: 1}`) on a one-replica "
        "Deployment holding a ReadWriteOnce model cache; for several replicas use a StatefulSet with volumeClaimTemplates "
        "or a ReadWriteMany / ReadOnlyMany volume."
    ),
    resource_types=(DEPLOYMENT_TYPE, ISVC_TYPE, *LLMISVC_TYPES, LLAMA_STACK_TYPE, *HPA_TYPES, SCALED_OBJECT_TYPE),
    config_schema={
        "kserveDefaultDeploymentMode": kserve_default_mode_setting(
            "The deployment mode of an InferenceService without the serving.kserve.io/deploymentMode annotation (the "
            "cluster's inferenceservice-config deploy.defaultDeploymentMode): only RawDeployment (Standard) renders a "
            "Deployment whose rollout can hold the claim."
        )
    },
    check_resource=_check,
    rationale=(
        "ReadWriteOnce mounts a volume on one node and ReadWriteOncePod in one pod "
        "(https://kubernetes.io/docs/concepts/storage/persistent-volumes/#access-modes); a Deployment's RollingUpdate "
        "surges by 25% by default (https://kubernetes.io/docs/concepts/workloads/controllers/deployment/#max-surge), "
        "so the new GPU pod, scheduled on another node, waits on the attach the old pod holds and the rollout stalls."
    ),
)


# Two workloads on one single-attach claim ---------------------------------------------------------------------------
# ReadWriteOnce attaches a volume to one node: the attach/detach controller attaches it to a second node only when the
# PersistentVolume's access modes hold ReadWriteMany or ReadOnlyMany (kubernetes pkg/volume/util/util.go
# IsMultiAttachAllowed, called from pkg/controller/volume/attachdetach/reconciler/reconciler.go attachDesiredVolumes),
# and ReadWriteOncePod admits one pod at all (the scheduler's VolumeRestrictions plugin leaves a second pod Pending).
# Two workloads of a run that mount one claim (spent set 81 silavsale/ollama-open-webui-docker k8s/open-webui.yaml, the
# UI mounting ollama-pvc, the Ollama Deployment's ReadWriteOnce claim, labelled none) share it only while the
# scheduler puts their pods on one node; nothing in the files keeps them there, so the second one may wait in
# ContainerCreating on a Multi-Attach error for as long as the first runs.
_POD_KINDS = frozenset({"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job", "CronJob", "Pod"})
_RUN_TO_COMPLETION = frozenset({"Job", "CronJob"})


def _folder(resource: Resource) -> str:
    """The directory of the file a manifest object was read from ("" for a Pulumi resource: one program)."""
    location = resource.name.split(" ", 1)[0] if " " in resource.name else ""
    return location.split("#", 1)[0].rsplit("/", 1)[0] if "#" in location and "/" in location else ""


def _co_located(podspec: dict) -> bool:
    """A required pod affinity on kubernetes.io/hostname: the pods go where the pods they name are (the author keeps
    the sharers on one node), or a pod pinned to one node."""
    terms = as_list(get(podspec, "affinity", "podAffinity", "requiredDuringSchedulingIgnoredDuringExecution"))
    return pinned_node(podspec) is not None or any(as_dict(t).get("topologyKey") == _HOSTNAME for t in terms)


def _shared_claims(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    claims: dict[tuple[Any, str], dict] = {}
    for r in resources:
        if split_type(r.type) == ("", "PersistentVolumeClaim") and isinstance(r.props, dict) and not r.patch:
            if isinstance(name := metadata_name(r.props), str):  # the namespace as text only (S26 refuses any other)
                claims[(name_of(get(r.props, "metadata"), "namespace"), name)] = r.props
    if not claims:
        return []
    # (namespace, claim) -> [(workload, where, kind/name, co-located)], one entry per workload identity.
    users: dict[tuple[Any, str], dict[tuple[str, Any, Any], tuple[Resource, str, bool]]] = {}
    for r in resources:
        kind = split_type(r.type)[1]
        if kind not in _POD_KINDS or r.patch or r.template or not isinstance(r.props, dict):
            continue
        namespace = name_of(get(r.props, "metadata"), "namespace")  # text only (S26 refuses any other)
        for path, podspec in known_pod_specs(r):
            for volume in as_list(podspec.get("volumes")):
                claim = get(volume, "persistentVolumeClaim", "claimName")
                if not isinstance(claim, str):
                    continue
                key = (namespace, claim) if (namespace, claim) in claims else (None, claim)
                if key not in claims or get(volume, "persistentVolumeClaim", "readOnly") is True:
                    continue
                where = f"{path}.volumes {as_dict(volume).get('name')}"
                identity = (kind, namespace, metadata_name(r.props))
                users.setdefault(key, {}).setdefault(identity, (r, where, _co_located(podspec)))
    findings: list[tuple[str, str]] = []
    for key, by_identity in users.items():
        if len(by_identity) < 2:
            continue
        claim = claims[key]
        modes = [m for m in as_list(get(claim, "spec", "accessModes")) if isinstance(m, str)]
        if not modes or any(m not in SINGLE_ATTACH for m in modes) or _node_local_in(resources, claim):
            continue
        entries = list(by_identity.items())
        pod_bound = "ReadWriteOncePod" in modes
        for identity, (resource, where, co_located) in entries:
            others = [
                (i, e) for i, e in entries if i != identity and _folder(e[0]) == _folder(resource)
            ]  # alternatives kept in other folders (a Helm and a plain variant) are not applied together
            if not others:
                continue
            if not pod_bound and (co_located or all(e[2] for _, e in others)):
                continue
            names = ", ".join(f"{i[0]}/{i[2]}" for i, _ in others)
            if pod_bound:
                message = (
                    f"{where}: PersistentVolumeClaim {key[1]} is ReadWriteOncePod and {names} mounts it too: one pod "
                    f"at a time may use it, so the other pod stays Pending (the scheduler's VolumeRestrictions) for as "
                    f"long as the first runs; give each workload its own claim, or use a ReadWriteMany volume"
                )
                long_running = _runs(resource) and any(_runs(e[0]) for _, e in others)
                findings.append((resource.name, message if long_running else unproven(message)))
                continue
            findings.append(
                (
                    resource.name,
                    unproven(
                        f"{where}: PersistentVolumeClaim {key[1]} is {'/'.join(modes)} (attached to one node) and "
                        f"{names} mounts it too: nothing in the files keeps their pods on one node, so when the "
                        f"scheduler places them apart the second waits in ContainerCreating on a Multi-Attach error "
                        f"while the first runs; give each workload its own claim, use a ReadWriteMany volume, or pin "
                        f"them together (a required podAffinity on kubernetes.io/hostname)"
                    ),
                )
            )
    return findings


def _runs(resource: Resource) -> bool:
    """A workload whose pods keep running as the files state it: not run to completion, not scaled to replicas: 0 (a
    variant kept off until someone scales it up holds no pod on the claim)."""
    if split_type(resource.type)[1] in _RUN_TO_COMPLETION:
        return False
    replicas = get(resource.props, "spec", "replicas")
    return not (isinstance(replicas, int) and replicas == 0)


def _node_local_in(resources: list[Resource], claim: dict) -> bool:
    """A hostPath or local PersistentVolume of the run bound to the claim (``_node_local``'s test over ``resources``)."""
    for other in resources:
        if split_type(other.type) != ("", "PersistentVolume") or not binds(as_dict(other.props), claim):
            continue
        spec = as_dict(get(other.props, "spec"))
        if "hostPath" in spec or "local" in spec:
            return True
    return False


SHARED_POLICY = Policy(
    name="single-attach-volume-shared",
    description=(
        "Two workloads of a run (Deployments, StatefulSets, Jobs, Pods) do not mount one ReadWriteOnce(Pod) claim: "
        "on different nodes the second waits on a Multi-Attach error (advice; ReadWriteOncePod between two long-running "
        "workloads blocks)."
    ),
    catalog="S30",
    severity="medium",
    enforcement="mandatory",
    remediation_steps=(
        "Give each workload its own claim, move the shared data to a ReadWriteMany volume, or keep the pods on one node "
        "with a required podAffinity on kubernetes.io/hostname (ReadWriteOnce admits several pods of one node)."
    ),
    config_schema={},
    check_stack=_shared_claims,
    rationale=(
        "ReadWriteOnce mounts a volume on one node and ReadWriteOncePod in one pod "
        "(https://kubernetes.io/docs/concepts/storage/persistent-volumes/#access-modes); the attach/detach controller "
        "attaches a volume to a second node only for ReadWriteMany or ReadOnlyMany (kubernetes pkg/volume/util/util.go "
        "IsMultiAttachAllowed), so a second workload's pod on another node waits on the attach."
    ),
)
