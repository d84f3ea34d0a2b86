"""G18: a serving app needs a PodDisruptionBudget that selects its pods.

Karpenter consolidation, drift and expiry, node upgrades and `kubectl drain` all evict through
the eviction API, which only a PDB can slow down. Without one, every replica of a model can be
evicted at once, and each comes back only after a multi-minute reload.

Advisory, and so is kuberay-cluster-pdb (G18's two policies agree): the absence of a PDB is never proven by the
files checked, since a PDB usually lives in a file of its own, a chart or a platform policy that a pull request need
not touch. A workload of one replica is still reported: with a PDB of maxUnavailable: 0 (or minAvailable: 1) a drain
waits for an operator instead of stopping the only replica unannounced; whether that is wanted is the owner's call,
which is one more reason this is not a blocking rule.
"""

from __future__ import annotations

from policies.framework import Policy, Resource
from policies.kube import as_dict, as_int, get, pod_specs, split_type
from policies.reading.llmisvc_pods import llmisvc_pod_labels
from policies.reading.ray_cluster import groups, ray_gpu_workers
from policies.reading.serving import namespace_of, selector_matches, unselected_serving_apps

PDB_TYPES = ("kubernetes:policy/v1:PodDisruptionBudget", "kubernetes:policy/v1beta1:PodDisruptionBudget")


def ray_worker_labels(resource: Resource) -> list[dict]:
    """The label sets of a RayService's worker pods: the template's labels plus those KubeRay adds
    (ray-operator/controllers/ray/common/pod.go labelPod at v1.7.0: ray.io/is-ray-node "yes",
    ray.io/node-type "worker", ray.io/group <groupName>; ray.io/cluster is the generated cluster's name). A group with
    its own ``labels`` gives a second set: from v1.5.0 KubeRay puts them on the pods too (common/pod.go mergeLabels)."""
    found = []
    for group in groups(resource):
        if group.is_head:
            continue
        template = dict(as_dict(get(group.spec, "template", "metadata", "labels")))
        own = as_dict(get(group.spec, "labels"))
        for labels in (template, {**template, **own}) if own else (template,):
            labels.update({"ray.io/is-ray-node": "yes", "ray.io/node-type": "worker", "ray.io/group": group.name})
            found.append(labels)
    return found


def _ray_services_without_pdb(resources: list[Resource]) -> list[tuple[str, str]]:
    """RayServices whose Serve replicas run on GPU workers that no PDB protects: KubeRay creates none
    (no PodDisruptionBudget in ray-operator/controllers at v1.7.0), and a drained GPU worker takes its
    replicas with it."""
    pdbs = [r for r in resources if r.type in PDB_TYPES]
    findings = []
    for r in resources:
        if split_type(r.type) != ("ray.io", "RayService") or not ray_gpu_workers(r):
            continue
        if any(
            namespace_of(pdb) == namespace_of(r) and selector_matches(get(pdb.props, "spec", "selector"), labels)
            for pdb in pdbs
            for labels in ray_worker_labels(r)
        ):
            continue
        findings.append(
            (
                r.name,
                f"RayService {get(r.props, 'metadata', 'name')}: no PodDisruptionBudget selects its GPU "
                f"worker pods (KubeRay creates none), so a node drain or Karpenter consolidation can evict "
                f"every Serve replica at once; add a PDB with maxUnavailable: 1 on ray.io/node-type: worker "
                f"and the group's labels",
            )
        )
    return findings


def _nim_labels(resource: Resource, name: str) -> list[dict]:
    """NIMService pod labels (NVIDIA/k8s-nim-operator v3.1.2 api/apps/v1alpha1/nimservice_types.go: GetStandardLabels
    :292-300 with spec.labels merged over them, GetServiceLabels :545-552; selector app: <name>, or <name>-lws with
    spec.multiNode, GetStandardSelectorLabels :281-289, GetLWSName :266-268)."""
    spec = as_dict(get(resource.props, "spec"))
    multi = isinstance(spec.get("multiNode"), dict)
    labels = {
        "app.kubernetes.io/name": name,
        "app.kubernetes.io/instance": name,
        "app.kubernetes.io/part-of": "nim-service",
        "app.kubernetes.io/managed-by": "k8s-nim-operator",
        **as_dict(spec.get("labels")),
        "app": f"{name}-lws" if multi else name,
    }
    if spec.get("inferencePlatform") == "kserve":
        # Rendered as a KServe InferenceService of the same name, whose predictor pods KServe labels too.
        labels["serving.kserve.io/inferenceservice"] = name
    return [labels]


def _storm_labels(resource: Resource, name: str) -> list[dict]:
    """StormService pod labels: each role's template labels plus storm-service-name and role-name (vllm-project/aibrix
    at e3e10f9e pkg/controller/roleset/utils.go:103-127 renderStormServicePod; constants/stormservice.go:24-27)."""
    found = []
    for role in as_dict(get(resource.props, "spec", "template", "spec")).get("roles") or []:
        role = as_dict(role)
        labels = dict(as_dict(get(role, "template", "metadata", "labels")))
        labels.update({"storm-service-name": name, "role-name": str(role.get("name"))})
        found.append(labels)
    return found


# Operator resources whose pods serve a model, read for the labels their operator puts on those pods. None of these
# operators creates a PodDisruptionBudget at the release read (KServe v0.20.0 pkg/controller/v1alpha2/llmisvc: none;
# k8s-nim-operator v3.1.2 api/ and internal/: no PodDisruptionBudget, and no spec.pdb field; aibrix e3e10f9e pkg/: none).
_OPERATOR_LABELS = {
    ("serving.kserve.io", "LLMInferenceService"): llmisvc_pod_labels,
    ("apps.nvidia.com", "NIMService"): _nim_labels,
    ("orchestration.aibrix.ai", "StormService"): _storm_labels,
}


def _group_size(resource: Resource) -> int | None:
    """Pods per engine when one engine spans several pods, else None: an LLMInferenceService with a worker sizes its
    LeaderWorkerSet groups by ParallelismSpec.GetSize, data / dataLocal or pipeline (KServe v0.20.0
    pkg/apis/serving/v1alpha2/llm_inference_service_types_func.go:102-117, workload_multi_node.go:173); a multi-node
    NIMService by its pipeline parallelism; a LeaderWorkerSet by spec.leaderWorkerTemplate.size (k8s-nim-operator v3.1.2 nimservice_types.go GetLWSSize :1098-1103,
    GetMultiNodePipelineParallelism :2153-2158)."""
    kind = split_type(resource.type)[1]
    spec = as_dict(get(resource.props, "spec"))
    size = None
    if kind == "LeaderWorkerSet":
        size = as_int(get(spec, "leaderWorkerTemplate", "size"))  # pods per group, leader included (LWS v1 API)
    elif kind == "LLMInferenceService" and any(path.endswith(".worker") for path, _ in pod_specs(resource)):
        parallelism = as_dict(spec.get("parallelism"))
        data, local = as_int(parallelism.get("data")), as_int(parallelism.get("dataLocal"))
        if data is not None or local is not None:
            size = max(max(data or 1, 1) // max(local or 1, 1), 1)
        else:
            size = as_int(parallelism.get("pipeline"))
    elif kind == "NIMService" and isinstance(spec.get("multiNode"), dict):
        size = as_int(get(spec, "multiNode", "parallelism", "pipeline"))
    return size if size is not None and size > 1 else None


def _group_note(resource: Resource) -> str:
    """What a message adds for a serving group: one evicted pod stops the engine its group forms."""
    size = _group_size(resource)
    if size is None:
        return ""
    return (
        f"; one engine spans {size} pods here, so one evicted pod stops a whole replica, and a PDB counting its pods "
        f"(maxUnavailable: 1) keeps the other replicas serving"
    )


def _operator_apps_without_pdb(resources: list[Resource]) -> list[tuple[str, str]]:
    pdbs = [r for r in resources if r.type in PDB_TYPES]
    findings = []
    for r in resources:
        reader = _OPERATOR_LABELS.get(split_type(r.type))
        name = get(r.props, "metadata", "name")
        if reader is None or not isinstance(name, str) or (split_type(r.type)[1] != "NIMService" and not pod_specs(r)):
            continue
        label_sets = reader(r, name)
        if any(
            namespace_of(pdb) == namespace_of(r) and selector_matches(get(pdb.props, "spec", "selector"), labels)
            for pdb in pdbs
            for labels in label_sets
        ):
            continue
        kind = split_type(r.type)[1]
        group = _group_note(r)
        findings.append(
            (
                r.name,
                f"{kind} {name}: no PodDisruptionBudget selects its pods (its operator creates none), so a node drain "
                f"or Karpenter consolidation can evict every replica at once{group}; add a PDB with maxUnavailable: 1 "
                f"on the labels the operator gives its pods",
            )
        )
    return findings


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    findings = []
    for app in unselected_serving_apps(
        resources, ("PodDisruptionBudget",), lambda pdb, labels: selector_matches(get(pdb.props, "spec", "selector"), labels)
    ):
        kind = split_type(app.type)[1]
        findings.append(
            (
                app.name,
                f"{kind} {get(app.props, 'metadata', 'name')}: no PodDisruptionBudget selects "
                f"its pods, so a node drain or Karpenter consolidation can evict every replica "
                f"at once{_group_note(app)}; add a PDB with maxUnavailable: 1",
            )
        )
    return findings + _ray_services_without_pdb(resources) + _operator_apps_without_pdb(resources)


POLICY = Policy(
    name="serving-app-pdb",
    description="Every serving app (Deployment, StatefulSet, LeaderWorkerSet or InferenceService running a model server, an LLMInferenceService, NIMService or StormService, and a RayService's GPU workers) must have a PodDisruptionBudget.",
    catalog="G18",
    severity="high",
    enforcement="advisory",
    remediation_steps=(
        "Add a policy/v1 PodDisruptionBudget in the app's namespace whose selector matches the pod labels "
        "(for an InferenceService: serving.kserve.io/inferenceservice: <name>; an LLMInferenceService: "
        "app.kubernetes.io/name: <name> and app.kubernetes.io/part-of: llminferenceservice; a NIMService: app: <name>, "
        "<name>-lws when multi-node; a StormService: storm-service-name: <name>), with maxUnavailable: 1 and "
        "unhealthyPodEvictionPolicy: AlwaysAllow. For a group whose engine spans pods (LeaderWorkerSet, multi-node "
        "LLMInferenceService or NIMService) select every pod of every group: one evicted pod stops its group's replica."
    ),
    check_stack=_check,
    rationale=(
        "Voluntary disruptions (drain, Karpenter consolidation/drift/expiry) respect PodDisruptionBudgets and "
        "nothing else (https://kubernetes.io/docs/concepts/workloads/pods/disruptions/; "
        "https://karpenter.sh/docs/concepts/disruption/). A model replica takes minutes to return, so losing all "
        "of them at once is an outage. Catalogue row 18 (Kyverno require-pdb, Polaris missingPodDisruptionBudget); "
        "a serving app here is a long-running controller whose pods run a model server, not a Job; a RayService's "
        "GPU workers count too, since KubeRay creates no PDB for them."
    ),
)
