"""G40: an object's apiVersion is one the API server (or the pinned controller's CRD) still serves.

An apiVersion nobody serves is refused at apply ("no matches for kind ... in version ..."): the manifest alone shows
it, given the Kubernetes minor (policy config) and the controller releases this pack is pinned to. A version still
served but marked deprecated by its CRD is reported advisory (``api-version-deprecated``).

The table is data, one row per (group/version, kinds), each with its source:

* Kubernetes: the deprecated API migration guide (https://kubernetes.io/docs/reference/using-api/deprecation-guide/)
  gives the minor that stopped serving each version; tests/policies/test_policy_new_rows.py checks every row
  removed at 1.25 or later against kubernetes-validate's OpenAPI schemas (present one minor before, absent at it).
* Karpenter: ``karpenter.sh/v1alpha5`` Provisioner and ``karpenter.k8s.aws/v1alpha1`` AWSNodeTemplate lost their
  CRDs in v0.33.0 (aws/karpenter-provider-aws ``pkg/apis/crds/`` at v0.32.0 vs v0.33.0); ``karpenter.sh/v1beta1``
  NodePool/NodeClaim and ``karpenter.k8s.aws/v1beta1`` EC2NodeClass are served up to v1.0.x and not from v1.1.0
  (kubernetes-sigs/karpenter ``pkg/apis/crds/karpenter.sh_nodepools.yaml`` lists v1 and v1beta1 at v1.0.0, v1 alone
  at v1.1.0; the pinned v1.14.1 CRDs under the reference folder serve v1 alone, checked by the test).
* Groups (``api-group-serves-kind``): a kind of a pinned CRD (policies/crd/schemas.json) written under a group none of
  them serves it in, and no CustomResourceDefinition of the files defines, is refused the same way (set 42:
  LLMInferenceService in llm-d.ai/v1alpha1); generic kind names other projects also use are left out, and a group
  another project or an older release serves the kind in is named in ``_ALSO_SERVED`` (silent, or advice for a former
  one).
* Custom resources (``api-version-deprecated``): a version a pinned CRD serves with ``deprecated: true`` is read from
  policies/crd/deprecations.json (policies/crd/deprecations.py): the pinned KubeRay v1.7.0 CRDs mark ``ray.io/v1alpha1``
  deprecated (``ray-operator/config/crd/bases/ray.io_rayclusters.yaml``), Envoy AI Gateway v1.1.0 marks
  ``aigateway.envoyproxy.io/v1alpha1`` deprecated for v1beta1.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Optional

from policies.crd import deprecations as crd_deprecations
from policies.crd.schema import resource_types as crd_types
from policies.crd.schema import schemas_by_type
from policies.framework import Policy, Resource, unproven
from policies.kube import BUILT_IN_GROUPS, as_dict, decimal, get, split_type

DEFAULT_KUBERNETES = "1.33"
GUIDE = "Kubernetes deprecation guide"


@dataclass(frozen=True)
class Row:
    """A group/version and the kinds it no longer serves (removed_in: a Kubernetes minor, or None for a CRD version
    the pinned controller does not serve at all), what replaces it, and where the fact comes from."""

    api_version: str
    kinds: tuple[str, ...]
    removed_in: Optional[str]
    use: str
    source: str
    karpenter_removed_in: str = ""  # a Karpenter row: the Karpenter release from which the version is not served
    deprecated_in: str = ""  # a Kubernetes row of DEPRECATED: the minor from which the API server warns on it


REMOVED: tuple[Row, ...] = (
    Row("extensions/v1beta1", ("Deployment", "DaemonSet", "ReplicaSet"), "1.16", "apps/v1", GUIDE + " (v1.16)"),
    Row("apps/v1beta1", ("Deployment", "StatefulSet"), "1.16", "apps/v1", GUIDE + " (v1.16)"),
    Row("apps/v1beta2", ("Deployment", "StatefulSet", "DaemonSet", "ReplicaSet"), "1.16", "apps/v1", GUIDE + " (v1.16)"),
    Row("extensions/v1beta1", ("Ingress", "NetworkPolicy"), "1.22", "networking.k8s.io/v1", GUIDE + " (v1.22; v1.16)"),
    Row("networking.k8s.io/v1beta1", ("Ingress", "IngressClass"), "1.22", "networking.k8s.io/v1", GUIDE + " (v1.22)"),
    Row("batch/v1beta1", ("CronJob",), "1.25", "batch/v1", GUIDE + " (v1.25)"),
    Row("policy/v1beta1", ("PodDisruptionBudget",), "1.25", "policy/v1", GUIDE + " (v1.25)"),
    Row("autoscaling/v2beta1", ("HorizontalPodAutoscaler",), "1.25", "autoscaling/v2", GUIDE + " (v1.25)"),
    Row("autoscaling/v2beta2", ("HorizontalPodAutoscaler",), "1.26", "autoscaling/v2", GUIDE + " (v1.26)"),
    Row(
        "karpenter.sh/v1alpha5",
        ("Provisioner", "Machine"),
        None,
        "karpenter.sh/v1 NodePool",
        "Karpenter v0.33.0 dropped the CRD (aws/karpenter-provider-aws pkg/apis/crds/)",
        "0.33",
    ),
    Row(
        "karpenter.k8s.aws/v1alpha1",
        ("AWSNodeTemplate",),
        None,
        "karpenter.k8s.aws/v1 EC2NodeClass",
        "Karpenter v0.33.0 dropped the CRD (aws/karpenter-provider-aws pkg/apis/crds/)",
        "0.33",
    ),
    Row(
        "karpenter.sh/v1beta1",
        ("NodePool", "NodeClaim"),
        None,
        "karpenter.sh/v1",
        "Karpenter serves v1 alone from v1.1.0 (kubernetes-sigs/karpenter pkg/apis/crds/karpenter.sh_nodepools.yaml; pinned v1.14.1)",
        "1.1",
    ),
    Row(
        "karpenter.k8s.aws/v1beta1",
        ("EC2NodeClass",),
        None,
        "karpenter.k8s.aws/v1",
        "Karpenter serves v1 alone from v1.1.0 (aws/karpenter-provider-aws pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml; pinned v1.14.1)",
        "1.1",
    ),
)

DEPRECATED: tuple[Row, ...] = (
    # Kubernetes 1.33 deprecates core/v1 Endpoints for discovery.k8s.io/v1 EndpointSlice: the API server answers every
    # read and write with "Warning: v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice", and
    # KEP-4974 plans to stop requiring the Endpoints controller for conformance (https://www.kubernetes.dev/resources/
    # keps/4974/, milestone "Depr. v1.33"; https://kubernetes.io/blog/2025/04/24/endpoints-deprecation/). A GA v1 type
    # is not removed under the deprecation policy, so this stays advice.
    Row(
        "v1",
        ("Endpoints",),
        None,
        "discovery.k8s.io/v1 EndpointSlice (labelled kubernetes.io/service-name: <the Service>)",
        "Kubernetes 1.33, KEP-4974: the API server warns on every read and write of it",
        deprecated_in="1.33",
    ),
)


def _minor(version: str) -> tuple[int, ...]:
    """(major, minor) of "1.14", "v1.14.1"."""
    return tuple(n for p in version.strip().lstrip("vV").split(".")[:2] if (n := decimal(p)) is not None)


def _row(rows: tuple[Row, ...], resource: Resource) -> Optional[Row]:
    api_version, kind = get(resource.props, "apiVersion"), get(resource.props, "kind")
    return next((r for r in rows if r.api_version == api_version and kind in r.kinds), None)


def _removed(resource: Resource, config: dict) -> list[str]:
    row = _row(REMOVED, resource)
    if row is None:
        return []
    version = str(config["kubernetesVersion"])
    if row.removed_in is not None and _minor(version) < _minor(row.removed_in):
        return []
    kind = get(resource.props, "kind")
    if row.karpenter_removed_in:
        # Which Karpenter the cluster runs is not in the files: refused only where the config states a release that
        # no longer serves the version; otherwise advice (a v0.37 or v1.0 cluster still serves v1beta1).
        karpenter = str(config.get("karpenterVersion") or "")
        if karpenter and _minor(karpenter) < _minor(row.karpenter_removed_in):
            return []
        message = (
            f"apiVersion {row.api_version} {kind} is not served by Karpenter {row.karpenter_removed_in} and later "
            f"({row.source}), so the API server refuses the object there; use {row.use}"
        )
        if not karpenter:
            return [unproven(message + " (the cluster's Karpenter release is not in the files read: set karpenterVersion)")]
        return [message + f" (checked for Karpenter {karpenter})"]
    when = f"Kubernetes {row.removed_in} and later (checked for {version})" if row.removed_in else "the pinned controller"
    return [
        f"apiVersion {row.api_version} {kind} is not served by {when}, so the API server refuses "
        f"the object ({row.source}); use {row.use}"
    ]


def _deprecated(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    """Kubernetes' deprecated kinds (DEPRECATED, from a minor on) and the versions a pinned CRD marks deprecated
    (policies/crd/deprecations.py, read only when an object of one of its groups is in the run)."""
    findings: list[tuple[str, str]] = []
    version = str(config.get("kubernetesVersion") or DEFAULT_KUBERNETES)
    for resource in resources:
        row = _row(DEPRECATED, resource) if resource.type in _DEPRECATED_TYPES else None
        if row is None or _minor(version) < _minor(row.deprecated_in):
            continue
        findings.append(
            (
                resource.name,
                f"apiVersion {row.api_version} {get(resource.props, 'kind')} is deprecated from Kubernetes "
                f"{row.deprecated_in} ({row.source}; checked for {version}); it is still served, but kube-proxy, "
                f"Gateway API implementations and other consumers read EndpointSlices; use {row.use}",
            )
        )
    return findings + crd_deprecations.deprecated_versions(resources)


def _types(rows: tuple[Row, ...]) -> tuple[str, ...]:
    """The resource types of the rows' group/versions and kinds (the core group's "v1" is written core/v1)."""
    return tuple(
        sorted(
            {
                f"kubernetes:{r.api_version if '/' in r.api_version else 'core/' + r.api_version}:{k}"
                for r in rows
                for k in r.kinds
            }
        )
    )


_DEPRECATED_TYPES = frozenset(_types(DEPRECATED))

POLICY = Policy(
    name="api-version-served",
    description="An object's apiVersion is served by the Kubernetes minor (policy config) and the pinned controllers "
    "(Karpenter v1 only from v1.1.0); removed versions are refused at apply.",
    catalog="G40",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Move the object to the version the message names (kubectl convert, or the controller's migration guide: "
        "Karpenter v1beta1 -> v1 https://karpenter.sh/docs/upgrading/v1-migration/); set kubernetesVersion in the "
        "pack config to the cluster's minor."
    ),
    config_schema={
        "kubernetesVersion": {
            "type": "string",
            "pattern": "^[0-9]+[.][0-9]+([.][0-9]+)?$",
            "default": DEFAULT_KUBERNETES,
            "description": f"The cluster's Kubernetes minor; versions removed at or before it are refused (default {DEFAULT_KUBERNETES}).",
        },
        "karpenterVersion": {
            "type": "string",
            "pattern": "^$|^v?[0-9]+[.][0-9]+([.][0-9]+)?$",
            "default": "",
            "description": 'The cluster\'s Karpenter release (e.g. "1.14"); Karpenter versions it no longer serves are refused. '
            'Default "": not stated, so those findings are advice (a cluster on Karpenter 0.37 or 1.0 still serves v1beta1).',
        },
    },
    resource_types=_types(REMOVED),
    check_resource=_removed,
    rationale=(
        "The API server answers 'no matches for kind' for a group/version it does not serve, so nothing is created; "
        "Kubernetes' removals are in the deprecation guide, Karpenter's in its CRDs at each release (v1.1.0 serves "
        "karpenter.sh/v1 and karpenter.k8s.aws/v1 alone)."
    ),
)

# Kinds of the pinned CRDs (policies/crd/schemas.json) that another project also defines under a group of its own, or
# that an older release served under another group. A generic kind name is left out (NodePool, Gateway and
# CapacityBuffer are names other projects use); the others name the group that also serves them, and whether it is a
# current one (silent) or a former one (advice: only an old controller release serves it).
_GENERIC_KINDS = ("NodePool", "Gateway", "CapacityBuffer")
_AZURE = ("azmonitoring.coreos.com", True, "Azure Monitor managed Prometheus serves it in azmonitoring.coreos.com")
_ALSO_SERVED: dict[str, tuple[tuple[str, bool, str], ...]] = {
    "ServiceMonitor": (_AZURE,),
    "PodMonitor": (_AZURE,),
    "PrometheusRule": (_AZURE,),
    "InferenceService": (("serving.kubeflow.org", False, "KFServing served it as serving.kubeflow.org before KServe"),),
    "ScaledObject": (("keda.k8s.io", False, "KEDA 1.x served it as keda.k8s.io; KEDA 2 serves keda.sh"),),
    "HTTPRoute": (("networking.x-k8s.io", False, "Gateway API v0.1-v0.3 served it as networking.x-k8s.io"),),
    "RayCluster": (("cluster.ray.io", False, "Ray's legacy Python operator served it as cluster.ray.io"),),
}


def _crd_groups() -> dict[str, dict[str, str]]:
    """kind -> {group -> the pinned CRD's source} of the pinned CRDs' kinds."""
    found: dict[str, dict[str, str]] = {}
    for token in crd_types():
        group, kind = split_type(token)
        if kind not in _GENERIC_KINDS:
            found.setdefault(kind, {}).setdefault(group, token)
    return found


def _defined_here(resources: list[Resource]) -> set[tuple[str, str]]:
    """(group, kind) of the CustomResourceDefinitions in the files read."""
    found = set()
    for r in resources:
        if split_type(r.type)[1] == "CustomResourceDefinition" and isinstance(r.props, dict):
            spec = as_dict(r.props.get("spec"))
            found.add((str(spec.get("group")), str(as_dict(spec.get("names")).get("kind"))))
    return found


# Kinds a project's early releases served and a later release renamed, keyed by (group, kind): the replacement and
# where the former CRD is. Only an old controller release serves them, so the finding is advice (which release the
# cluster runs is not in the files). NVIDIA Dynamo's first operator (ai-dynamo/dynamo
# deploy/dynamo/operator/config/crd/bases/ at a2eabe97 and 75eb8477; earlier deploy/compoundai/operator/config/crd/bases/
# at a9912feb) served DynamoDeployment, DynamoNimDeployment, DynamoNimRequest, DynamoNim and the CompoundAI* kinds; its
# later CRDs (deploy/cloud/operator/config/crd/bases/, deploy/operator/config/crd/bases/) serve DynamoGraphDeployment and
# DynamoComponentDeployment in their place, and none of those names.
_DYNAMO_EARLY = "NVIDIA Dynamo's first operator (ai-dynamo/dynamo deploy/dynamo/operator/config/crd/bases/@a2eabe97)"
_COMPOUND_AI = "NVIDIA Dynamo's CompoundAI operator (ai-dynamo/dynamo deploy/compoundai/operator/config/crd/bases/@a9912feb)"
# The Gateway API Inference Extension served InferenceModel (inference.networking.x-k8s.io v1alpha1 at v0.1.0, v1alpha2
# v0.2.0-v0.5.1: config/crd/bases/inference.networking.x-k8s.io_inferencemodels.yaml); from v1.0.0 config/crd/bases
# holds inferencepools and inferenceobjectives only, InferenceObjective taking its place (spent set 99:
# kubvernor/kubvernor resources/inference-model.yaml).
_GIE_EARLY = (
    "the Gateway API Inference Extension v0.1.0-v0.5.1 (kubernetes-sigs/gateway-api-inference-extension "
    "config/crd/bases/inference.networking.x-k8s.io_inferencemodels.yaml@v0.5.1; v1.0.0 and later have none)"
)
_RENAMED_KINDS: dict[tuple[str, str], tuple[str, str, str]] = {
    ("nvidia.com", "DynamoDeployment"): ("DynamoGraphDeployment", _DYNAMO_EARLY, "v1alpha1"),
    ("nvidia.com", "DynamoNimDeployment"): ("DynamoComponentDeployment", _DYNAMO_EARLY, "v1alpha1"),
    ("nvidia.com", "DynamoNimRequest"): ("DynamoGraphDeployment", _DYNAMO_EARLY, "v1alpha1"),
    ("nvidia.com", "DynamoNim"): ("DynamoGraphDeployment", _DYNAMO_EARLY, "v1alpha1"),
    ("nvidia.com", "CompoundAIDeployment"): ("DynamoGraphDeployment", _COMPOUND_AI, "v1alpha1"),
    ("nvidia.com", "CompoundAINimDeployment"): ("DynamoComponentDeployment", _COMPOUND_AI, "v1alpha1"),
    ("nvidia.com", "CompoundAINimRequest"): ("DynamoGraphDeployment", _COMPOUND_AI, "v1alpha1"),
    ("nvidia.com", "CompoundAINim"): ("DynamoGraphDeployment", _COMPOUND_AI, "v1alpha1"),
    ("inference.networking.x-k8s.io", "InferenceModel"): ("InferenceObjective", _GIE_EARLY, "v1alpha2"),
}


def _renamed(resources: list[Resource], here: set[tuple[str, str]]) -> list[tuple[str, str]]:
    """A kind only an early release of its project served, since renamed (set 44: devfloor9/engineering-playbook
    deploy/nvidia-platform/dynamo-vllm/deploy-aggregated.yaml, DynamoDeployment in nvidia.com/v1alpha1): a current
    release answers 'no matches for kind'."""
    findings: list[tuple[str, str]] = []
    for r in resources:
        api_version, kind = get(r.props, "apiVersion"), get(r.props, "kind")
        if not isinstance(api_version, str) or not isinstance(kind, str):
            continue
        group = api_version.rsplit("/", 1)[0] if "/" in api_version else ""
        row = _RENAMED_KINDS.get((group, kind))
        if row is None or (group, kind) in here:
            continue
        findings.append(
            (
                r.name,
                unproven(
                    f"apiVersion {api_version} {kind}: only {row[1]} served {kind}; later releases renamed it "
                    f"{row[0]} and serve no {kind}, so on a current operator the API server answers 'no matches for "
                    f"kind' and nothing is created (the operator release is not in the files read); write a {row[0]} "
                    f"({group}/{row[2]}) in the shape that release documents"
                ),
            )
        )
    return findings


def _group_served(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    """A kind of a pinned CRD under an apiVersion whose group no CRD the pack knows, nor one of the files, serves it in:
    the API server answers "no matches for kind" (set 42: fuhengwu2021/coderepo
    09/code/llmd/llm-d-multi-model/vllm-llminference.yaml@b874b44, LLMInferenceService in llm-d.ai/v1alpha1, a kind
    only KServe's serving.kserve.io defines)."""
    known, here, findings = _crd_groups(), _defined_here(resources), []
    for r in resources:
        api_version, kind = get(r.props, "apiVersion"), get(r.props, "kind")
        if not isinstance(api_version, str) or not isinstance(kind, str) or kind not in known or "{" in api_version:
            continue
        group = api_version.rsplit("/", 1)[0] if "/" in api_version else ""
        served = known[kind]
        if group in served or (group, kind) in here:
            continue
        other = next((o for o in _ALSO_SERVED.get(kind, ()) if o[0] == group), None)
        if other is not None and other[1]:
            continue
        token = next(iter(served.values()))
        message = (
            f"apiVersion {api_version} {kind}: no CRD serves {kind} in group {group or 'core'} (nor does a "
            f"CustomResourceDefinition of the files), so the API server answers 'no matches for kind' and nothing is "
            f"created; {kind} is served in {', '.join(sorted(served))} ({schemas_by_type()[token].source}); use "
            f"{split_type(token)[0]}/{token.split(':')[1].split('/', 1)[1]}"
        )
        if other is not None:
            message = unproven(f"{message} ({other[2]}: a current release refuses it)")
        elif group not in _pinned_groups() and _domain(group) not in {_domain(g) for g in served}:
            # Another project may define a kind of the same name in a group of its own (Gloo's gateway.solo.io and App
            # Mesh's VirtualService, LLMKube's InferenceService, monitoring.rhobs' ServiceMonitor): the files do not
            # prove that no controller serves it there (review 44 #1). A group whose kinds the pack pins is proof.
            message = unproven(f"{message}, unless another project's CRD defines its own {kind} in {group}")
        findings.append((r.name, message))
    return findings + _renamed(resources, here)


def _domain(group: str) -> str:
    """A group's last two labels (kserve.io of serving.kserve.io): one project's groups share it, so a group of the
    domain that serves the kind is the same project's, whose kinds the pinned CRDs list."""
    return ".".join(group.split(".")[-2:])


@functools.cache
def _pinned_groups() -> frozenset[str]:
    """The API groups of the pinned CRDs (KServe, KubeRay, Karpenter, KEDA, LWS, Gateway API, Istio, Prometheus
    Operator): groups whose kinds the pack knows in full at the pinned releases."""
    return frozenset(split_type(token)[0] for token in crd_types())


GROUP_POLICY = Policy(
    name="api-group-serves-kind",
    description="A kind of a CRD the pack pins is written under an API group some CRD serves it in (KServe's "
    "LLMInferenceService in serving.kserve.io, not llm-d.ai), or a CustomResourceDefinition of the files defines it.",
    catalog="G40",
    severity="high",
    enforcement="mandatory",
    remediation_steps="Write the apiVersion the controller's CRD serves (the message names it), or apply the CRD that "
    "defines the kind in that group.",
    config_schema={},
    check_stack=_group_served,
    rationale=(
        "The API server maps an object to its REST resource by group, version and kind; a group/kind no installed CRD "
        "defines gets 'no matches for kind' at apply. The pinned CRDs (policies/crd/schemas.json) say which groups "
        "serve each kind."
    ),
)

DEPRECATED_POLICY = Policy(
    name="api-version-deprecated",
    description="An object uses an apiVersion still served but deprecated: by its pinned CRD (deprecated: true: "
    "ray.io/v1alpha1, aigateway.envoyproxy.io/v1alpha1), or by Kubernetes (core/v1 Endpoints from 1.33, for "
    "discovery.k8s.io/v1 EndpointSlice).",
    catalog="G40",
    severity="low",
    enforcement="advisory",
    remediation_steps="Move the object to the version or kind the message names (the CRD's deprecationWarning says which: "
    "ray.io/v1 has the same fields for these kinds; an EndpointSlice labelled kubernetes.io/service-name for a Service without a selector).",
    config_schema={
        "kubernetesVersion": {
            "type": "string",
            "pattern": "^[0-9]+[.][0-9]+([.][0-9]+)?$",
            "default": DEFAULT_KUBERNETES,
            "description": f"The cluster's Kubernetes minor; kinds it deprecates are advised (default {DEFAULT_KUBERNETES}).",
        },
    },
    check_stack=_deprecated,
    rationale="A deprecated version is removed in a later controller release; the pinned CRDs mark theirs "
    "(deprecated: true with a deprecationWarning, read into policies/crd/deprecations.json by "
    "tools/crd_deprecations.py: KubeRay v1.7.0 ray.io/v1alpha1, Envoy AI Gateway v1.1.0 aigateway.envoyproxy.io/"
    "v1alpha1). Kubernetes 1.33 deprecates core/v1 Endpoints (KEP-4974).",
)

# Alpha versions of Kubernetes' own API groups. The API server serves none of them unless its --runtime-config names
# the group/version (or api/alpha): kubernetes/kubernetes pkg/controlplane/instance.go lists every alpha group/version
# in alphaAPIGroupVersionsDisabledByDefault ("They are always disabled by default"), and TestNoAlphaVersionsEnabledByDefault
# in instance_test.go fails a release that enables one; `api/alpha` matches the versions `^v\d+alpha\d+$`
# (kubernetes/apiserver v0.33.0 pkg/server/resourceconfig/helpers.go:63-79). Alpha versions are also dropped without a
# deprecation period (resource.k8s.io/v1alpha3 ResourceClaimTemplate: in kubernetes-validate's 1.31-1.33 schemas, gone
# at 1.34). A managed or kubeadm cluster left at its defaults answers "no matches for kind"; whether this cluster
# enables it is not in the files, so this is advice.
_ALPHA_VERSION = re.compile(r"v[0-9]+alpha[0-9]+")
_K8S_GROUPS = BUILT_IN_GROUPS | {"apiserverinternal.k8s.io", "authentication.k8s.io", "storagemigration.k8s.io"}


def _alpha(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    """An object of a Kubernetes API group under an alpha version (spent set 82: sozercan/k8s-distributed-inference
    configs/k8s/resource-claim-template.yaml@c7bfd9ed, a ResourceClaimTemplate in resource.k8s.io/v1alpha3)."""
    findings: list[tuple[str, str]] = []
    for r in resources:
        api_version = r.props.get("apiVersion") if isinstance(r.props, dict) else None
        if not isinstance(api_version, str) or "alpha" not in api_version or "/" not in api_version:
            continue
        group, version = api_version.rsplit("/", 1)
        if group not in _K8S_GROUPS or not _ALPHA_VERSION.fullmatch(version):
            continue
        findings.append(
            (
                r.name,
                f"apiVersion {api_version} is an alpha version of a Kubernetes API group: the API server serves no alpha "
                f"version unless its --runtime-config enables it (kubernetes pkg/controlplane/instance.go "
                f"alphaAPIGroupVersionsDisabledByDefault), and an alpha version may be dropped in the next minor, so a "
                f"cluster at its defaults answers 'no matches for kind' and nothing is created; write the beta or GA "
                f"version the cluster serves (`kubectl api-versions | grep {group}`)",
            )
        )
    return findings


ALPHA_POLICY = Policy(
    name="api-version-alpha",
    description="An object of a Kubernetes API group is written under an alpha version (resource.k8s.io/v1alpha3), "
    "which the API server serves only when its --runtime-config enables it.",
    catalog="G40",
    severity="medium",
    enforcement="advisory",
    remediation_steps="Write the beta or GA version of the kind that the cluster serves (resource.k8s.io/v1beta1 from "
    "Kubernetes 1.32, resource.k8s.io/v1 from 1.34 for ResourceClaimTemplate), or enable the alpha version with the "
    "API server's --runtime-config and its feature gate on a cluster you run yourself.",
    config_schema={},
    check_stack=_alpha,
    rationale="Kubernetes disables every alpha API group/version by default (pkg/controlplane/instance.go "
    "alphaAPIGroupVersionsDisabledByDefault; kubernetes/apiserver v0.33.0 pkg/server/resourceconfig/helpers.go:63-79 "
    "reads --runtime-config api/alpha) and removes alpha versions without a deprecation period.",
)

# The Ingress class annotation: deprecated for spec.ingressClassName since Kubernetes 1.18. k8s.io/api v0.34.9
# networking/v1/types.go:279-288 (IngressSpec.IngressClassName) documents the `kubernetes.io/ingress.class` annotation as
# deprecated, an informal binding that new Ingresses should replace with the field; controllers still honour it. Both set is api_object_valid's (the API server refuses it); this is the annotation alone.
_CLASS_ANNOTATION = "kubernetes.io/ingress.class"
_INGRESS_TYPES = (
    "kubernetes:networking.k8s.io/v1:Ingress",
    "kubernetes:networking.k8s.io/v1beta1:Ingress",
    "kubernetes:extensions/v1beta1:Ingress",
)


def _class_annotation(resource: Resource, config: dict) -> list[str]:
    """The deprecated class annotation written instead of spec.ingressClassName (spent set 78: Brayantcw/kserve_k8s_setup
    k8s/ingress.yaml and Kindee18/opti-inference-pipeline k8s/ingress.yaml, `kubernetes.io/ingress.class: alb`)."""
    annotations = as_dict(get(resource.props, "metadata", "annotations"))
    value = annotations.get(_CLASS_ANNOTATION)
    if not isinstance(value, str) or not value.strip() or get(resource.props, "spec", "ingressClassName") is not None:
        return []
    return [
        f"metadata.annotations[{_CLASS_ANNOTATION}] ({value}) is the deprecated way to pick an Ingress controller "
        f"(k8s.io/api networking/v1 IngressSpec.ingressClassName documents it as deprecated); controllers still "
        f"honour it for now, but write spec.ingressClassName: {value} (naming an IngressClass the controller "
        f"serves) and drop the annotation"
    ]


INGRESS_CLASS_ANNOTATION_POLICY = Policy(
    name="ingress-class-annotation-deprecated",
    description="An Ingress picks its controller by spec.ingressClassName, not by the deprecated "
    "kubernetes.io/ingress.class annotation.",
    catalog="G40",
    severity="low",
    enforcement="advisory",
    remediation_steps="Set spec.ingressClassName to the class the annotation names (an IngressClass of that name must "
    "exist; the AWS Load Balancer Controller and ingress-nginx charts create one) and remove the annotation.",
    config_schema={},
    resource_types=_INGRESS_TYPES,
    check_resource=_class_annotation,
    rationale="Kubernetes 1.18 added IngressClass and spec.ingressClassName; the API documents the kubernetes.io/ingress.class "
    "annotation as officially deprecated (k8s.io/api v0.34.9 networking/v1/types.go:279-288), kept only for backwards "
    "compatibility.",
)
