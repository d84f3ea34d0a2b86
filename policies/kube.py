"""Helpers that read Kubernetes objects as the Pulumi engine hands them to policies.

Values arrive loosely typed: numbers as floats (2.0), quantities as strings or numbers,
secrets as "[secret]", unknowns as `framework.UNKNOWN`. Every helper here tolerates that and
returns None where a value cannot be read, so checks never raise on odd input.

(This module is not called `inspect`: the Pulumi runner puts the pack directory on sys.path,
where such a name would shadow the standard library.)
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping
from contextvars import ContextVar, Token
from functools import lru_cache
from typing import Any, TypeVar

from components.quantities import MAX_QUANTITY_TEXT, parse_quantity
from policies.dynamo_defaults import dynamo_pod_specs
from policies.kserve_predictors import framework_specs
from policies.llmisvc_presets import llmisvc_pod_specs
from policies.pod_search import search_pod_specs

GPU_RESOURCE = "nvidia.com/gpu"
SHM_PATH = "/dev/shm"

_POD = ("Pod",)
_TEMPLATED = ("Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job")
_KSERVE_COMPONENTS = ("predictor", "transformer", "explainer")

# API groups of Kubernetes' own kinds: none of their kinds not listed below holds a pod template.
_BUILT_IN_GROUPS = frozenset(
    {
        "",
        "apps",
        "batch",
        "autoscaling",
        "policy",
        "networking.k8s.io",
        "rbac.authorization.k8s.io",
        "storage.k8s.io",
        "scheduling.k8s.io",
        "apiextensions.k8s.io",
        "admissionregistration.k8s.io",
        "coordination.k8s.io",
        "discovery.k8s.io",
        "node.k8s.io",
        "certificates.k8s.io",
        "flowcontrol.apiserver.k8s.io",
        "events.k8s.io",
        "resource.k8s.io",
    }
)
BUILT_IN_GROUPS = _BUILT_IN_GROUPS  # the same set, for readers outside this module


# Type token -> is_custom_type's answer: asked ~6,000 times a manifests-v2 run (WorkloadTypes' `in`) of ~30 tokens.
_CUSTOM_TYPES: dict[str, bool] = {}


def is_custom_type(type_token: Any) -> bool:
    """True for a custom resource's type token (any group outside Kubernetes' own API groups)."""
    if type(type_token) is str and (known := _CUSTOM_TYPES.get(type_token)) is not None:
        return known
    if not isinstance(type_token, str) or not type_token.startswith("kubernetes:"):
        return False
    custom = split_type(type_token)[0] not in _BUILT_IN_GROUPS
    if type(type_token) is str and len(_CUSTOM_TYPES) < 1024:
        _CUSTOM_TYPES[type_token] = custom
    return custom


class WorkloadTypes(tuple):
    """The resource types policies over pods apply to: the kinds listed (read by a reader that knows them),
    and every custom resource, whose pod templates `pod_specs` finds wherever they sit (an operator's CR
    with no reader still gets the pod rules). `in` tests both; iterating lists the known kinds."""

    def __contains__(self, item: object) -> bool:
        return tuple.__contains__(self, item) or is_custom_type(item)

    def __add__(self, other: Any) -> WorkloadTypes:
        return WorkloadTypes(tuple(self) + tuple(other))


def workload_types(*extra: str) -> WorkloadTypes:
    """WORKLOAD_TYPES plus ``extra`` (operator kinds read by a reader of their own), still open to every CR."""
    return WorkloadTypes((*WORKLOAD_TYPES, *extra))


# Every resource type whose pod specs `pod_specs` reads with a reader of its own; with any custom
# resource (WorkloadTypes), what policies over pods list.
WORKLOAD_TYPES: WorkloadTypes = WorkloadTypes(
    (
        "kubernetes:core/v1:Pod",
        "kubernetes:apps/v1:Deployment",
        "kubernetes:apps/v1:StatefulSet",
        "kubernetes:apps/v1:DaemonSet",
        "kubernetes:apps/v1:ReplicaSet",
        "kubernetes:batch/v1:Job",
        "kubernetes:batch/v1:CronJob",
        "kubernetes:serving.kserve.io/v1beta1:InferenceService",
        "kubernetes:serving.kserve.io/v1alpha1:ServingRuntime",
        "kubernetes:serving.kserve.io/v1alpha1:ClusterServingRuntime",
        "kubernetes:ray.io/v1:RayCluster",
        "kubernetes:ray.io/v1:RayService",
        "kubernetes:ray.io/v1:RayJob",
        "kubernetes:leaderworkerset.x-k8s.io/v1:LeaderWorkerSet",
        # AIBrix's RayClusterFleet: a Deployment-like set of KubeRay RayClusters (spec.template.spec).
        "kubernetes:orchestration.aibrix.ai/v1alpha1:RayClusterFleet",
        # KServe's LLMInferenceService, read with the well-known presets merged in (policies/llmisvc_presets.py).
        "kubernetes:serving.kserve.io/v1alpha1:LLMInferenceService",
        "kubernetes:serving.kserve.io/v1alpha2:LLMInferenceService",
        # NVIDIA Dynamo's DynamoGraphDeployment, read with the operator's component defaults (policies/dynamo_defaults.py).
        "kubernetes:nvidia.com/v1alpha1:DynamoGraphDeployment",
        # AIBrix's StormService: role sets of roles, each a pod template (storm_service_pod_specs).
        "kubernetes:orchestration.aibrix.ai/v1alpha1:StormService",
    )
)

# LLMInferenceServiceConfigs are partial specs the controller merges into the LLMInferenceServices that name them
# (spec.baseRefs, or a well-known preset): not workloads of their own, so they are known kinds with no pod spec, and
# no pod rule reads them alone (llmisvc_base_specs reads them for the services that name them).
LLMISVC_CONFIG_TYPES = (
    "kubernetes:serving.kserve.io/v1alpha1:LLMInferenceServiceConfig",
    "kubernetes:serving.kserve.io/v1alpha2:LLMInferenceServiceConfig",
)

# The kinds read by a reader of their own: pod_specs never searches these generically.
_KNOWN_TYPES = frozenset((*tuple.__iter__(WORKLOAD_TYPES), *LLMISVC_CONFIG_TYPES))


def has_reader(type_token: Any) -> bool:
    """True for a kind one of the pack's readers knows (its pod templates and fields are read by that reader)."""
    return type_token in _KNOWN_TYPES


# Resources whose pods KubeRay runs: it replaces the container command with `ray start`.
_RAY_KINDS = {("orchestration.aibrix.ai", "RayClusterFleet")}

# The pod spec a resource has when it has only one; messages name other pod specs by path.
PRIMARY_POD_PATHS = frozenset({"spec", "spec.template.spec", "spec.predictor"})

ISVC_TYPE = "kubernetes:serving.kserve.io/v1beta1:InferenceService"
HPA_TYPES: tuple[str, ...] = (
    "kubernetes:autoscaling/v2:HorizontalPodAutoscaler",
    "kubernetes:autoscaling/v2beta2:HorizontalPodAutoscaler",
    "kubernetes:autoscaling/v1:HorizontalPodAutoscaler",
)
SCALED_OBJECT_TYPE = "kubernetes:keda.sh/v1alpha1:ScaledObject"


def split_type(type_token: str) -> tuple[str, str]:
    """`kubernetes:<apiVersion>:<kind>` -> (API group, kind); the core group is ""."""
    # Every policy asks this of every resource, and a run has few distinct type tokens.
    return _split_type(type_token) if isinstance(type_token, str) else ("", "")


@lru_cache(maxsize=1024)
def _split_type(type_token: str) -> tuple[str, str]:
    parts = type_token.split(":")
    if len(parts) != 3 or parts[0] != "kubernetes":
        return "", ""
    api_version, kind = parts[1], parts[2]
    group = api_version.rpartition("/")[0]
    return ("" if group == "core" else group), kind


def is_ray(type_token: str) -> bool:
    """True for KubeRay resources (RayCluster, RayService, RayJob) and fleets of them."""
    group, kind = split_type(type_token)
    return group == "ray.io" or (group, kind) in _RAY_KINDS


def get(obj: Any, *path: str | int) -> Any:
    """Follow keys and list indexes from `obj`; None as soon as one step is missing."""
    for step in path:
        if type(obj) is dict and type(step) is str:  # the common case, without the ABC check below
            obj = obj.get(step)
        elif isinstance(step, int):
            if not isinstance(obj, list) or not -len(obj) <= step < len(obj):
                return None
            obj = obj[step]
        else:
            if obj is None or not isinstance(obj, Mapping):  # None: a missing step, without the ABC check (~5,000 a run)
                return None
            obj = obj.get(step)
    return obj


def as_dict(value: Any) -> dict:
    """`value` if it is a mapping, else an empty dict."""
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list:
    """`value` if it is a list, else an empty list."""
    return value if isinstance(value, list) else []


def name_of(node: Any, key: str = "name") -> str | None:
    """``node[key]`` if ``node`` is a mapping and the value plain text, else None: a name or key read from input,
    safe to hash and compare (``name: {}`` or ``name: [a]`` in a mutated manifest reads as no name)."""
    value = node.get(key) if type(node) is dict or isinstance(node, Mapping) else None
    return value if isinstance(value, str) else None


def metadata_name(resource_props: Mapping) -> str | None:
    """`metadata.name` if it is a plain string."""
    name = get(resource_props, "metadata", "name")
    return name if isinstance(name, str) else None


def annotations_of(obj: Mapping) -> dict:
    """`metadata.annotations` of an object, or an empty dict (not called `annotations`, which names a
    `__future__` feature in every module that imports it)."""
    return as_dict(get(obj, "metadata", "annotations"))


# An InferenceService's deployment mode: its annotation, else the cluster's inferenceservice-config
# deploy.defaultDeploymentMode, which policies take as the setting kserveDefaultDeploymentMode (KServe v0.20.0
# ships Serverless: config/configmap/inferenceservice.yaml L745). ParseDeploymentMode (pkg/constants/constants.go)
# maps the legacy names to the new ones, so Serverless and Knative are the same mode.
KSERVE_DEPLOYMENT_MODE = "serving.kserve.io/deploymentMode"
KSERVE_DEPLOYMENT_MODES = ("Serverless", "Knative", "RawDeployment", "Standard")
KSERVE_DEFAULT_DEPLOYMENT_MODE = "Serverless"
KNATIVE_MODES = ("Serverless", "Knative")
# A Knative Service: its spec.template is the revision's pod template, annotations included.
KNATIVE_SERVICE_TYPE = "kubernetes:serving.knative.dev/v1:Service"


def kserve_deployment_mode(isvc: Mapping, default: str) -> tuple[str, bool]:
    """The InferenceService's deployment mode, and whether its own annotation set it (else ``default``)."""
    mode = annotations_of(isvc).get(KSERVE_DEPLOYMENT_MODE)
    return (mode, True) if isinstance(mode, str) else (default, False)


def kserve_default_mode_setting(description: str) -> dict[str, Any]:
    """The config schema of a policy's kserveDefaultDeploymentMode setting, described for that policy."""
    return {
        "type": "string",
        "enum": list(KSERVE_DEPLOYMENT_MODES),
        "default": KSERVE_DEFAULT_DEPLOYMENT_MODE,
        "description": description,
    }


def _template_spec(obj: Any) -> dict | None:
    spec = get(obj, "template", "spec")
    return spec if isinstance(spec, dict) else None


def _ray_cluster_pod_specs(cluster: Any, prefix: str) -> list[tuple[str, dict]]:
    found = []
    head = _template_spec(get(cluster, "headGroupSpec"))
    if head is not None:
        found.append((f"{prefix}.headGroupSpec.template.spec", head))
    for i, group in enumerate(as_list(get(cluster, "workerGroupSpecs"))):
        worker = _template_spec(group)
        if worker is not None:
            found.append((f"{prefix}.workerGroupSpecs[{i}].template.spec", worker))
    return found


def pod_specs(resource: Any) -> list[tuple[str, dict]]:
    """Every pod spec inside a resource, as (path, podspec), in document order: the kinds with a reader
    (`known_pod_specs`), else, for a custom resource, wherever `generic_pod_specs` finds one."""
    # ~60 policies ask this of each workload (~2,200 calls a corpus run for ~100 resources): once per evaluation.
    return list(memoized(resource, "pod_specs", _pod_specs))


def _pod_specs(resource: Any) -> list[tuple[str, dict]]:
    found = known_pod_specs(resource)
    if found or not is_custom_type(getattr(resource, "type", None)) or resource.type in _KNOWN_TYPES:
        return found
    return generic_pod_specs(resource)


def known_pod_specs(resource: Any) -> list[tuple[str, dict]]:
    """Every pod spec inside a workload resource, as (path, podspec), in document order.

    Covers apps/v1 Deployment/StatefulSet/DaemonSet/ReplicaSet and batch Job
    (`spec.template.spec`), CronJob, v1 Pod (`spec`), KServe InferenceService (`spec.predictor`
    and the transformer/explainer are pod specs themselves; `spec.predictor.workerSpec` is the
    multi-node worker), ServingRuntime/ClusterServingRuntime (`spec`), KubeRay RayCluster,
    RayService (`spec.rayClusterConfig`) and RayJob (`spec.rayClusterSpec`), AIBrix
    RayClusterFleet (`spec.template.spec`, a RayCluster spec), AIBrix StormService (each role's template), and
    LeaderWorkerSet (leader and worker templates). Other resources have none.
    """
    group, kind = split_type(resource.type)
    spec = get(resource.props, "spec")
    if not isinstance(spec, dict):
        return []
    found: list[tuple[str, dict]] = []
    if group == "" and kind in _POD:
        found.append(("spec", spec))
    elif group in ("apps", "batch") and kind in _TEMPLATED:
        if (pod := _template_spec(spec)) is not None:
            found.append(("spec.template.spec", pod))
    elif group == "batch" and kind == "CronJob":
        if (pod := _template_spec(get(spec, "jobTemplate", "spec"))) is not None:
            found.append(("spec.jobTemplate.spec.template.spec", pod))
    elif group == "serving.kserve.io" and kind == "InferenceService":
        for component in _KSERVE_COMPONENTS:
            if isinstance(pod := spec.get(component), dict):
                found.append((f"spec.{component}", pod))
        if isinstance(worker := get(spec, "predictor", "workerSpec"), dict):
            found.append(("spec.predictor.workerSpec", worker))
    elif group == "serving.kserve.io" and kind in ("ServingRuntime", "ClusterServingRuntime"):
        found.append(("spec", spec))
    elif group == "nvidia.com" and kind == "DynamoGraphDeployment":
        found.extend(memoized(resource, "dynamo_pod_specs", lambda r: dynamo_pod_specs(spec)))
    elif group == "serving.kserve.io" and kind == "LLMInferenceService":
        found.extend(memoized(resource, "llmisvc_pod_specs", lambda r: llmisvc_pod_specs(spec, llmisvc_base_specs(r)[0])))
    elif group == "ray.io" and kind == "RayCluster":
        found.extend(_ray_cluster_pod_specs(spec, "spec"))
    elif group == "ray.io" and kind == "RayService":
        found.extend(_ray_cluster_pod_specs(spec.get("rayClusterConfig"), "spec.rayClusterConfig"))
    elif group == "ray.io" and kind == "RayJob":
        found.extend(_ray_cluster_pod_specs(spec.get("rayClusterSpec"), "spec.rayClusterSpec"))
    elif (group, kind) in _RAY_KINDS:
        found.extend(_ray_cluster_pod_specs(get(spec, "template", "spec"), "spec.template.spec"))
    elif group == "orchestration.aibrix.ai" and kind == "StormService":
        found.extend(storm_service_pod_specs(spec))
    elif group == "leaderworkerset.x-k8s.io" and kind == "LeaderWorkerSet":
        for role in ("leaderTemplate", "workerTemplate"):
            if isinstance(pod := get(spec, "leaderWorkerTemplate", role, "spec"), dict):
                found.append((f"spec.leaderWorkerTemplate.{role}.spec", pod))
    return found


def storm_service_pod_specs(spec: Mapping) -> list[tuple[str, dict]]:
    """The pod spec of every role of an AIBrix StormService spec, as (``spec.template.spec.roles[i].template.spec``,
    podspec). The StormService controller makes ``spec.replicas`` RoleSets from ``spec.template`` (a RoleSetTemplateSpec);
    each RoleSet runs ``replicas`` pods of every role from the role's pod template, adding only labels (vllm-project/aibrix
    at e3e10f9e api/orchestration/v1alpha1/stormservice_types.go and roleset_types.go RoleSpec.Template;
    pkg/controller/roleset/utils.go:103-127 renderStormServicePod)."""
    found = []
    for i, role in enumerate(as_list(get(spec, "template", "spec", "roles"))):
        if (pod := _template_spec(role)) is not None:
            found.append((f"spec.template.spec.roles[{i}].template.spec", pod))
    return found


def llmisvc_base_specs(resource: Any) -> tuple[list[dict], list[str]]:
    """The specs of the LLMInferenceServiceConfigs an LLMInferenceService's ``spec.baseRefs`` names, found among the
    objects of its cluster (its namespace first, then any: KServe looks in the service's namespace, then its own,
    config_merge.go:741-758), and the names not found (their content is unknown)."""
    view = viewed_resources() or ()
    namespace = get(resource.props, "metadata", "namespace")
    configs = [r for r in view if getattr(r, "type", None) in LLMISVC_CONFIG_TYPES]
    found, missing = [], []
    for ref in as_list(get(resource.props, "spec", "baseRefs")):
        name = get(ref, "name")
        if not isinstance(name, str):
            continue
        named = [c for c in configs if get(c.props, "metadata", "name") == name]
        named.sort(key=lambda c: get(c.props, "metadata", "namespace") != namespace)
        if named and isinstance(spec := get(named[0].props, "spec"), dict):
            found.append(spec)
        else:
            missing.append(name)
    return found, missing


def generic_pod_specs(resource: Any) -> list[tuple[str, dict]]:
    """Pod specs found anywhere in a custom resource no reader knows, as (path, podspec), in document order.

    A pod spec is a mapping with a ``containers`` list holding at least one container (a mapping with an
    image, a command or args), as core/v1 PodSpec has it wherever an operator embeds one
    (``spec.template.spec``, ``spec.workerSpec``, ``spec.services.x.extraPodSpec``...); a mapping with one
    container under a key ending in "container" (``mainContainer``), or a container-like mapping under any key (an
    image string and a command, args, resources, ports or env: OME's ``spec.engineConfig.runner``, sgl-project/ome
    pkg/apis/ome/v1beta1 EngineSpec.Runner with PodSpec inlined beside it), counts too, read as a pod spec of that
    one container beside the mapping's other fields (volumes, tolerations). A patch of a pod template (RBG's
    ``patchLeaderTemplate``, ``*TemplatePatch``, ``*Patch``) is merged onto the base template beside it as strategic
    merge does, and the merged pod is found at the patch's path (policies.pod_patches). The search skips metadata and
    status, stops inside a pod spec it found, and is bounded in depth and size (memoized per evaluation).
    """
    return list(memoized(resource, "generic_pod_specs", _generic_pod_specs)[0])


def unmerged_patches(resource: Any) -> list[str]:
    """The paths of pod template patches in a resource read generically that no base template was found for
    (policies.pod_patches.merge_patches): what the pods hold is then not known from the manifest."""
    if not read_generically(resource):
        return []
    return list(memoized(resource, "generic_pod_specs", _generic_pod_specs)[1])


def _generic_pod_specs(resource: Any) -> tuple[list[tuple[str, dict]], list[str]]:
    props = getattr(resource, "props", None)
    return search_pod_specs(props) if isinstance(props, dict) else ([], [])


def read_generically(resource: Any) -> list[str]:
    """The paths of the pod specs the generic search found in a resource (empty when a reader knows its kind)."""
    if not is_custom_type(getattr(resource, "type", None)) or resource.type in _KNOWN_TYPES or known_pod_specs(resource):
        return []
    return [path for path, _ in generic_pod_specs(resource)]


def containers(podspec: Mapping, *, init: bool = False, model: bool = False) -> list[dict]:
    """The containers of a pod spec: `containers`, then `initContainers` if `init`; with `model`, a KServe predictor's
    `model` spec (or a framework key's: policies/kserve_predictors.py), named "kserve-container" as KServe names it."""
    found = [c for c in as_list(podspec.get("containers")) if isinstance(c, dict)]
    if init:
        found.extend(c for c in as_list(podspec.get("initContainers")) if isinstance(c, dict))
    if model and isinstance(spec := podspec.get("model"), dict):
        found.append(model_container(spec))
    elif model:
        found.extend(model_container(spec) for spec in framework_specs(podspec))
    return found


def model_container(model: Mapping) -> dict:
    """A KServe predictor `model` spec as a container, named "kserve-container" (KServe's
    name for it) unless it names itself."""
    return dict(model) if "name" in model else {"name": "kserve-container", **model}


def container_name(container: Mapping) -> str:
    """The container's name, or "<unnamed>"."""
    name = container.get("name")
    return name if isinstance(name, str) and name else "<unnamed>"


def container_label(path: str, container: Mapping) -> str:
    """How a message names a container: `container NAME`, prefixed by the pod spec path when
    the resource has several pod specs (Ray head/workers, LWS leader/worker, transformer)."""
    if path == "spec.predictor.model":
        return path
    label = f"container {container_name(container)}"
    return label if path in PRIMARY_POD_PATHS else f"{path} {label}"


def decimal(value: Any, digits: int = 18) -> int | None:
    """An int from an int (not a bool) or from text of at most ``digits`` ASCII decimal digits; None otherwise.
    ``str.isdigit()`` is no guard for ``int()``: it is true for "²" and for text longer than Python's int-string limit
    (4300 digits), both of which ``int()`` refuses with ValueError."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and 0 < len(value) <= digits and value.isascii() and value.isdecimal():
        return int(value)
    return None


def port_number(value: Any) -> int | None:
    """A TCP port (1-65535) from an int or its decimal text; None for anything else (a name, a variable, "²", 70000)."""
    number = decimal(value, 5)
    return number if number is not None and 0 < number < 65536 else None


def as_float(value: Any) -> float | None:
    """A number from an int, float or numeric string; None for anything else (bools too)."""
    if isinstance(value, bool):
        return None
    try:
        if isinstance(value, (int, float)):
            return float(value)
        if isinstance(value, str) and len(value) <= _MAX_NUMBER_TEXT:
            return float(value.strip())
    except (ValueError, OverflowError):  # an int of 400 digits does not fit a float
        return None
    return None


def as_int(value: Any) -> int | None:
    """An integer from 2, 2.0, "2" or "2.0"; None for non-integral or non-numeric values."""
    number = as_float(value)
    if number is None or not number.is_integer():
        return None
    return int(number)


# Kubernetes' own quantity grammar allows at most 64 significant characters; longer text is not a number.
_MAX_NUMBER_TEXT = MAX_QUANTITY_TEXT


def as_quantity(value: Any) -> float | None:
    """`parse_quantity(value)` (components/quantities.py, re-exported here), or None where the value is not a valid
    quantity."""
    try:
        return parse_quantity(value)
    except ValueError:
        return None


def resource_value(container: Mapping, section: str, name: str) -> Any:
    """The raw `resources.<section>.<name>` of a container (section: limits or requests)."""
    return get(container, "resources", section, name)


def gpu_count(container: Mapping, section: str = "limits") -> int | None:
    """The container's `nvidia.com/gpu` limit (or request) as an int; None if unset or odd."""
    return as_int(resource_value(container, section, GPU_RESOURCE))


def requests_gpu(podspec: Mapping) -> bool:
    """True when any container of the pod spec (or its predictor model) asks for a GPU."""
    for container in containers(podspec, init=True, model=True):
        for section in ("limits", "requests"):
            if (as_quantity(resource_value(container, section, GPU_RESOURCE)) or 0) > 0:
                return True
    return False


def fmt_number(value: float) -> str:
    """A number as a message shows it: 600.0 -> "600", 0.9 -> "0.9"."""
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


_T = TypeVar("_T")
# What one evaluation has already derived from a resource (its vLLM servers, model servers,
# engine settings): thirty policies read the same few facts of each resource. Keyed by the
# resource's identity; the resource is kept in the entry, so its id cannot be reused meanwhile.
# Each entry also holds the cluster view its computation read (``viewed_resources``), or _ANY_VIEW when it read none:
# a fact of the resource alone serves every scope of the run, one joined to other objects only the view it was read in
# (a folder's variants, policies.scopes, share all their objects but one definition: ~30 ms a corpus run saved).
_MEMO: ContextVar[dict[tuple[int, str], tuple[Any, Any, Any]] | None] = ContextVar("policies_memo", default=None)
_ANY_VIEW = object()
# The computations under way (innermost last) that read the cluster view, directly or through another fact.
_READS: ContextVar[list[bool] | None] = ContextVar("policies_memo_reads", default=None)


@contextlib.contextmanager
def evaluation_memo() -> Iterator[None]:
    """Share derived facts between the policies of one evaluation (``policies.framework.evaluate_policies``). Inside
    another, the one under way goes on: ``policies check`` holds one around the evaluation and the sizing gaps read
    after it (policies/reading/gaps.py), which derive the same servers and plans of the same objects (~3 ms a run)."""
    if _MEMO.get() is not None:
        yield
        return
    token = _MEMO.set({})
    try:
        yield
    finally:
        _MEMO.reset(token)


# The resources of the cluster being evaluated (one scope of policies.scopes), for the few facts a resource
# policy takes from another object the controller joins to it (a KServe predictor's ServingRuntime). None
# outside ``policies.framework.evaluate`` (the Pulumi CLI hands a resource policy one resource): such facts
# are then unknown, and checks that need them pass over what they cannot see.
_VIEW: ContextVar[tuple[Any, ...] | None] = ContextVar("policies_view", default=None)
# The same variable, for policies.framework's loops, which set it directly: ~2,300 views a manifests-v2 run (173
# policies x 15 scopes), each three calls of cluster_view's methods otherwise. Set it only to a tuple of resources.
CLUSTER_VIEW = _VIEW


class cluster_view(contextlib.AbstractContextManager):  # noqa: N801  (a class: ~1,100 uses a run, no generator each)
    """Let resource policies see ``resources``, the objects of one cluster, while they run."""

    _token: Token[tuple[Any, ...] | None]

    def __init__(self, resources: Any) -> None:
        self._resources = tuple(resources)

    def __enter__(self) -> None:
        self._token = _VIEW.set(self._resources)

    def __exit__(self, *exc: object) -> None:
        _VIEW.reset(self._token)


def viewed_resources() -> tuple[Any, ...] | None:
    """The objects of the cluster being evaluated (``cluster_view``), or None where no evaluation shows them."""
    _read_view()
    return _VIEW.get()


def _read_view() -> None:
    reads = _READS.get()
    if reads is not None:
        reads[0] = True


def memoized(resource: Any, key: str, compute: Callable[[Any], _T]) -> _T:
    """``compute(resource)``, once per resource and ``key`` inside ``evaluation_memo()``; callers only read it."""
    memo = _MEMO.get()
    if memo is None:
        return compute(resource)
    slot, view = (id(resource), key), _VIEW.get()
    entry = memo.get(slot)
    if entry is not None and entry[0] is resource and (entry[2] is _ANY_VIEW or entry[2] is view):
        if entry[2] is not _ANY_VIEW:
            _read_view()  # the caller's fact rests on the view too
        return entry[1]
    reads = [False]
    token = _READS.set(reads)
    try:
        value = compute(resource)
    finally:
        _READS.reset(token)
    if reads[0]:
        _read_view()
    memo[slot] = (resource, value, view if reads[0] else _ANY_VIEW)
    return value
