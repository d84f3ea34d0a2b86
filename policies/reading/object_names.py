"""Object names the API server refuses: ``metadata.name``, ``generateName`` and ``namespace`` as each kind validates them.

Every create runs ``ValidateObjectMetaAccessor`` (kubernetes/apimachinery v0.33.0 pkg/api/validation/objectmeta.go
L155-187: the name through the kind's ``ValidateNameFunc``, Invalid on any message; ``generateName`` through the same
function with its trailing dash allowed, L158-162; a namespaced kind's namespace through ``ValidateNamespaceName``,
a DNS-1123 label, L173-180). The name functions are pkg/api/validation/generic.go L36-68 at that tag:
``NameIsDNSSubdomain`` (IsDNS1123Subdomain: at most 253 characters of lowercase labels joined by dots),
``NameIsDNSLabel`` (IsDNS1123Label: at most 63 lowercase alphanumerics or '-') and ``NameIsDNS1035Label`` (the same,
starting with a letter); pkg/util/validation/validation.go L176-253 holds the formats and their messages.

Which kind takes which (kubernetes/kubernetes at a7264f95ffc8b56377da16e83461aa59467ebb3e, the same since v1.19 unless
said): pkg/apis/core/validation/validation.go ``ValidateServiceName = NameIsDNS1035Label`` (a Service also names
its DNS record and the environment variables of every pod), ``ValidateNamespaceName`` a DNS-1123 label, and
``NameIsDNSSubdomain`` for Pods, ConfigMaps, Secrets, ServiceAccounts, PersistentVolumeClaims and the rest of the core
kinds read here; pkg/apis/apps/validation (Deployment, DaemonSet, ReplicaSet, StatefulSet: a subdomain at every
release before the newest, which asks a DNS-1123 label of a StatefulSet, so only the subdomain is judged), pkg/apis/
batch/validation (Job and CronJob through ``ValidateReplicationControllerName``; a CronJob name longer than 52
characters is Invalid, "must be no more than 52 characters", for the Jobs it names get an 11-character suffix),
autoscaling, policy, networking (``ValidateIngressName``, ``ValidateNetworkPolicyName``, ``ValidateIngressClassName``),
scheduling and storage: all ``NameIsDNSSubdomain``. A custom resource's name is a DNS-1123 subdomain too
(kubernetes/apiextensions-apiserver pkg/registry/customresource/validator.go: ``ValidateObjectMetaAccessor(...,
validation.NameIsDNSSubdomain, ...)``), but only a CRD-served kind is certain to be one: a group the pack pins CRDs of
(policies/crd/schema.py) is judged as such; any other group may be served by an aggregated API server with name
rules of its own, so its finding is advice (``unsure``), and OpenShift's ``*.openshift.io`` and the metrics APIs are
not judged at all (openshift/origin pkg/user/apis/user/validation/validation.go ``ValidateGroupName`` takes
``ML_Team``; an ImageStreamTag is named ``<stream>:<tag>``; authorization.openshift.io's ``system:image-pullers``).
RBAC's kinds take any path segment name and are not judged; nor is a kind this table does not know.

An unrendered placeholder standing for the name (``SET_AT_RUNTIME``, ``<model-name>``, ``${NAME}``) is refused just
the same when the file is applied as committed, but the file says it is filled in first: advice, like S27's
placeholders. So are an ALL-CAPS word naming what a script fills in (``dsv4-bench-JOBSUFFIX``, ``app-ENV``) and
ALL-CAPS words joined by ``-`` (``RELEASE-NAME-vllm``: ``helm template`` without a release name,
Helm 2 and early Helm 3) and the token forms of pipeline tools (Azure DevOps replacetokens and Octopus ``#{name}#`` /
``#{name}``, ``@VERSION@``, ``%NAME%``, ``{NAME}``, Backstage ``${{ values.name }}``). A Helm template's ``{{ }}`` is
left to S27.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any, TypeGuard

from policies.crd.schema import resource_types
from policies.kube import as_dict, as_list, get, is_custom_type, memoized, split_type, viewed_resources
from policies.reading.api_refusals import DNS_SUBDOMAIN
from policies.reading.placeholders import placeholder_in

_LABEL = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_LABEL_RE = re.compile(rf"^{_LABEL}$")
_DNS1035_RE = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")

# (pkg/util/validation/validation.go L179, L244 at apimachinery v0.33.0; the subdomain's message is the label's with '.')
_SUBDOMAIN_RULE = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start "
    "and end with an alphanumeric character"
)
_LABEL_RULE = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end "
    "with an alphanumeric character"
)
_DNS1035_RULE = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
    "character, and end with an alphanumeric character"
)

# Kubernetes' own kinds whose name validation is read (see the module docstring); every other built-in kind is left.
_DNS1035_KINDS = {("", "Service")}
_LABEL_KINDS = {("", "Namespace")}
_SUBDOMAIN_KINDS = {
    ("", "Pod"),
    ("", "ConfigMap"),
    ("", "Secret"),
    ("", "ServiceAccount"),
    ("", "PersistentVolumeClaim"),
    ("", "PersistentVolume"),
    ("", "ReplicationController"),
    ("", "LimitRange"),
    ("", "ResourceQuota"),
    ("", "Endpoints"),
    ("", "PodTemplate"),
    ("apps", "Deployment"),
    ("apps", "StatefulSet"),
    ("apps", "DaemonSet"),
    ("apps", "ReplicaSet"),
    ("batch", "Job"),
    ("batch", "CronJob"),
    ("autoscaling", "HorizontalPodAutoscaler"),
    ("policy", "PodDisruptionBudget"),
    ("networking.k8s.io", "Ingress"),
    ("networking.k8s.io", "IngressClass"),
    ("networking.k8s.io", "NetworkPolicy"),
    ("scheduling.k8s.io", "PriorityClass"),
    ("storage.k8s.io", "StorageClass"),
}
# Cluster-scoped kinds: the API server drops a namespace written on them (rest.BeforeCreate), so it is not judged.
_CLUSTER_SCOPED = {
    ("", "Namespace"),
    ("", "PersistentVolume"),
    ("", "Node"),
    ("networking.k8s.io", "IngressClass"),
    ("scheduling.k8s.io", "PriorityClass"),
    ("storage.k8s.io", "StorageClass"),
}
_CRONJOB_MAX = 52
# An ALL-CAPS word standing for the whole name (SET_AT_RUNTIME, NAME), or an ALL-CAPS_WITH_UNDERSCORE part of it.
_CAPS_NAME = re.compile(r"^[A-Z][A-Z0-9_]+$")
_CAPS_PART = re.compile(r"(?<![A-Za-z0-9])[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+(?![A-Za-z0-9])")
# ALL-CAPS words joined by '-' that say fill-in (RELEASE-NAME, MODEL-NAME, YOUR-APP; not LLM-API or VLLM-SERVER, plain
# mistakes), and pipeline tools' token forms (see the module docstring).
_CAPS_DASHED = re.compile(r"(?<![A-Za-z0-9])[A-Z][A-Z0-9]+(?:-[A-Z][A-Z0-9]+)+(?![A-Za-z0-9])")
_FILL_IN_DASHED = re.compile(r"(?:^|-)(?:RELEASE|NAME|YOUR|CHANGE|REPLACE|PLACEHOLDER|TODO|FILL|ME)(?:-|$)")
# One ALL-CAPS word among lower-case ones that names what a script substitutes (dsv4-bench-JOBSUFFIX, sed'ed per run in
# alisachen-google/gcp-dynamo-cuj dynamo-disagg-sweep/dsv4-sweep/manifests/bench-template.yaml@0dd6319; app-ENV,
# vllm-VERSION): a fill-in. Other capitals (qwen-AWQ, LLM-API) are plain mistakes, refused as written.
_CAPS_FILL_IN = re.compile(
    r"(?<![A-Za-z0-9])[A-Z0-9]*(?:SUFFIX|PREFIX|NAME|VERSION|TAG|ENV|HASH|INDEX|DATE|TIMESTAMP|BRANCH|COMMIT|SHA|"
    r"RELEASE|PLACEHOLDER|NUMBER|UUID)[A-Z0-9]*(?![A-Za-z0-9])"
)
TOKEN = re.compile(r"#\{[^{}]+\}#?|@[A-Za-z_][A-Za-z0-9_.]*@|%[A-Za-z_][A-Za-z0-9_]*%|\$\{\{.*?\}\}|\{[A-Za-z_][\w.]*\}")
# Groups served by aggregated API servers with name rules of their own, and client-side config files no API server
# ever receives (eksctl's ClusterConfig names an EKS cluster, which takes '_' and capitals; Skaffold, Kustomize, k3d,
# kind, ctlptl, kubeadm and component configs are read by their CLIs): never judged.
_OWN_RULES = (
    "openshift.io",
    "metrics.k8s.io",
    "eksctl.io",
    "skaffold",
    "kustomize.config.k8s.io",
    "k3d.io",
    "kind.x-k8s.io",
    "ctlptl.dev",
    "kubeadm.k8s.io",
    "kubelet.config.k8s.io",
    "apiserver.config.k8s.io",
    "kubeproxy.config.k8s.io",
)


@dataclass(frozen=True)
class NameProblem:
    """One field of metadata the API server refuses: where, the value, why, and whether it is a placeholder."""

    where: str
    value: str
    why: str
    placeholder: bool
    custom: bool  # a custom resource's namespace: its CRD's scope is not known here
    unsure: bool = False  # a name of a group no pinned CRD serves: maybe an aggregated API with rules of its own


def _rule(group: str, kind: str, custom: bool) -> tuple[Any, int, str] | None:
    if (group, kind) in _DNS1035_KINDS:
        return _DNS1035_RE, 63, _DNS1035_RULE
    if (group, kind) in _LABEL_KINDS:
        return _LABEL_RE, 63, _LABEL_RULE
    if (group, kind) in _SUBDOMAIN_KINDS or custom:
        return DNS_SUBDOMAIN, 253, _SUBDOMAIN_RULE
    return None


def _why(value: str, rule: tuple[Any, int, str], prefix: bool = False) -> str | None:
    pattern, longest, words = rule
    text = value[:-1] + "a" if prefix and value.endswith("-") else value  # maskTrailingDash (generic.go)
    if len(text) > longest:
        return f"must be no more than {longest} characters"
    return None if pattern.match(text) else words


def _placeholder(value: str) -> bool:
    return bool(
        _CAPS_NAME.match(value)
        or _CAPS_PART.search(value)
        or any(_FILL_IN_DASHED.search(m.group()) for m in _CAPS_DASHED.finditer(value))
        or _CAPS_FILL_IN.search(value)
        or TOKEN.search(value)
        or placeholder_in(value, ("metadata",))
    )


@functools.cache
def _crd_groups() -> frozenset[str]:
    return frozenset(split_type(t)[0] for t in resource_types())


def _crd_kinds_of(view: Any) -> frozenset[tuple[str, str]]:
    pairs = (
        (get(r.props, "spec", "group"), get(r.props, "spec", "names", "kind"))
        for r in view
        if split_type(getattr(r, "type", "")) == ("apiextensions.k8s.io", "CustomResourceDefinition")
    )
    return frozenset((g, k) for g, k in pairs if isinstance(g, str) and isinstance(k, str))


def _crd_served(group: str, kind: str) -> bool:
    """True when a pinned CRD serves the group, or a CRD among the files read defines the kind."""
    if group in _crd_groups():
        return True
    view = viewed_resources()
    return bool(view) and (group, kind) in memoized(view, "crd_kinds", _crd_kinds_of)


def own_rules(group: str) -> bool:
    """True for a group whose objects no API server validates as Kubernetes' own or CRD-served kinds (see _OWN_RULES)."""
    return _own_rules(group)


def _own_rules(group: str) -> bool:
    return any(group == g or group.endswith("." + g) for g in _OWN_RULES)


def _judged(value: Any) -> TypeGuard[str]:
    """A name written as plain text: not absent, not a Helm template's ``{{ }}`` (S27's)."""
    return isinstance(value, str) and bool(value) and "{{" not in value


def name_problems(type_token: str, props: Any) -> list[NameProblem]:
    """The fields of one object's metadata that the API server's name validation refuses (see the module docstring)."""
    group, kind = split_type(type_token)
    custom = is_custom_type(type_token)
    if custom and _own_rules(group):
        return []
    rule = _rule(group, kind, custom)
    if rule is None:
        return []
    unsure = custom and not _crd_served(group, kind)
    metadata = as_dict(as_dict(props).get("metadata"))
    found = []
    for key in ("name", "generateName"):
        value = metadata.get(key)
        if not _judged(value):
            continue
        why = _why(value, rule, prefix=key == "generateName")
        if why is None and key == "name" and (group, kind) == ("batch", "CronJob") and len(value) > _CRONJOB_MAX:
            why = f"must be no more than {_CRONJOB_MAX} characters (its Jobs add an 11-character suffix)"
        if why is not None:
            found.append(NameProblem(f"metadata.{key}", value, why, _placeholder(value), False, unsure))
    namespace = metadata.get("namespace")
    if _judged(namespace) and (group, kind) not in _CLUSTER_SCOPED:
        why = _why(namespace, (_LABEL_RE, 63, _LABEL_RULE))
        if why is not None:
            found.append(NameProblem("metadata.namespace", namespace, why, _placeholder(namespace), custom))
    return found


# The names a pod spec gives of other objects that the API server validates as a DNS subdomain when it validates the
# pod template (kubernetes/kubernetes pkg/apis/core/validation/validation.go, the code index's stored version at
# 000f26050b9be6fb3d79fae95e06b47fc96128cd; the same calls since v1.x): validateConfigMapKeySelector and
# validateSecretKeySelector (env[].valueFrom.configMapKeyRef/secretKeyRef.name: ValidateNameFunc(ValidateSecretName)),
# validateConfigMapEnvSource and validateSecretEnvSource (envFrom[].configMapRef/secretRef.name: ValidateConfigMapName /
# ValidateSecretName with prefix true, a trailing '-' allowed), ValidatePodSpec (serviceAccountName:
# ValidateServiceAccountName). An empty name is refused too: a key selector runs the name function on "" (Invalid value),
# an env source refuses it first (``len(...Name) == 0``: Required value); an empty serviceAccountName is skipped (the
# default account). A KServe predictor's ``model`` is a container KServe merges into the runtime's (kserve v0.20.0
# pkg/apis/serving/v1beta1/predictor.go:61 PredictorSpec.Model, predictor_model.go:43-53 ModelSpec inlining
# PredictorExtensionSpec, predictor.go:122-135 inlining corev1.Container), so its env and envFrom are read as a
# container's. NOT validated there, so never judged: a configMap/secret volume's name and
# secretName, projected sources' names, persistentVolumeClaim.claimName (only Required:
# validatePersistentClaimVolumeSource, validateConfigMapVolumeSource, validateSecretVolumeSource,
# validateProjectionSources), imagePullSecrets names.
@dataclass(frozen=True)
class ReferenceProblem:
    """One reference name of a pod spec the API server refuses: where, the value, why, whether it reads as a
    placeholder (an ALL_CAPS word, a pipeline token) rather than a name, and the error the API server gives."""

    where: str
    value: str
    why: str
    placeholder: bool
    error: str = "Invalid value"


def _reference(where: str, value: Any, prefix: bool, empty: bool = True) -> ReferenceProblem | None:
    if value == "" and empty:
        return ReferenceProblem(where, value, "the name is empty", False, "Required value" if prefix else "Invalid value")
    if not _judged(value):
        return None
    why = _why(value, (DNS_SUBDOMAIN, 253, _SUBDOMAIN_RULE), prefix=prefix)
    return None if why is None else ReferenceProblem(where, value, why, _placeholder(value))


def _pod_containers(path: str, podspec: dict) -> list[tuple[str, dict]]:
    """(path, container) of a pod spec's containers and init containers, and of a KServe predictor's model."""
    found = [
        (f"{path}.{key}[{i}]", as_dict(container))
        for key in ("containers", "initContainers")
        for i, container in enumerate(as_list(podspec.get(key)))
    ]
    if path.endswith("predictor") and isinstance(model := podspec.get("model"), dict):
        found.append((f"{path}.model", model))
    return found


def reference_problems(pod_specs: list[tuple[str, dict]]) -> list[ReferenceProblem]:
    """The reference names of these pod specs (path, podspec) that the API server refuses (see the comment above)."""
    found: list[ReferenceProblem] = []
    for path, podspec in pod_specs:
        problem = _reference(f"{path}.serviceAccountName", podspec.get("serviceAccountName"), False, empty=False)
        if problem is not None:
            found.append(problem)
        for at, container in _pod_containers(path, podspec):
            for j, env in enumerate(as_list(container.get("env"))):
                source = as_dict(as_dict(env).get("valueFrom"))
                for ref in ("configMapKeyRef", "secretKeyRef"):
                    problem = _reference(f"{at}.env[{j}].valueFrom.{ref}.name", get(source, ref, "name"), False)
                    if problem is not None:
                        found.append(problem)
            for j, env_from in enumerate(as_list(container.get("envFrom"))):
                for ref in ("configMapRef", "secretRef"):
                    problem = _reference(f"{at}.envFrom[{j}].{ref}.name", get(as_dict(env_from), ref, "name"), True)
                    if problem is not None:
                        found.append(problem)
    return found
