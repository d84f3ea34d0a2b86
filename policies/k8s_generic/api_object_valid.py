"""S26 (api-object-valid): an object of any kind that the API server refuses on create, beyond its CRD's schema.

What this reads (each rule cites its source in the reading module):

- the object's name, generateName and namespace, validated as the API server validates them per kind
  (policies/reading/object_names.py): uppercase, an underscore, a leading digit in a Service's name or a name past
  the kind's length. Spent set 31 (openshift-psap/topsail projects/llm-d/testing/llmisvcs/llmisvc-*.yaml) names its
  LLMInferenceServices and their namespace ``SET_AT_RUNTIME``: a placeholder its test harness replaces, so advice; a
  plainly invalid name is refused as written;
- label keys and values (policies/reading/object_labels.py): a model id or URL as a label value (kevinmeix1/
  kserve-model-serving-platform kubernetes/workload-identity.yaml: ``spiffe.io/spiffe-id: spiffe://...``);
- an Ingress that sets both the ``kubernetes.io/ingress.class`` annotation and ``spec.ingressClassName``
  (policies/reading/api_refusals.py ingress_class_refusal): refused on create when the two differ, and by API
  servers before the relaxed rule when they agree (spent set 24, kyourselfer/OTUS_LLM-llm_mlflow
  k8s/vllm-deployment.yaml Ingress/vllm: both ``nginx``, advice).

- a probe or lifecycle hook of any pod template (Kubernetes' own kinds, an operator's custom resource as advice) that
  states more than one handler (policies/reading/api_refusals.py handler_refusals): what a Kustomize strategic merge
  builds when a patch's probe sets tcpSocket over a base's httpGet (spent set 69 nohdol97/Nexus k8s/overlays/gpu),
  reported at the patch file through the built overlay (policies/overlay_builds.py);
- an Ingress rule host that is not a DNS-1123 subdomain or is an IP address (ingress_host_refusals), read as written
  where it holds a placeholder: a fill-in for a person is refused as committed (spent set 68 jakepage91/
  operating-llms-on-kubernetes kubernetes/open-webui-ingress.yaml), a pipeline's ``${VAR}`` is advice.

- a container of a pod template of Kubernetes' own kinds that writes ``image`` with no value (``image: # Docker Image
  URL`` reads as null): the API server requires an image on every container (policies/reading/api_refusals.py
  image_refusal; spent set 79 yashbhangale/Karpenter-GPU-Autoscaling eks_manifest/deployments-a.yaml).

Either way ``kubectl apply`` or ``pulumi up`` stops on the object and nothing it defines exists.
"""

from __future__ import annotations

from policies.framework import Policy, Resource, unproven
from policies.k8s_generic import ANY_KUBERNETES_TYPE
from policies.kube import containers, get, is_custom_type, pod_specs, split_type
from policies.reading.api_refusals import handler_refusals, image_refusal, ingress_class_refusal, ingress_host_refusals
from policies.reading.object_labels import label_problems
from policies.reading.object_names import name_problems, reference_problems
from policies.reading.placeholders import terraform_filled


def _name_findings(resource: Resource) -> list[str]:
    kind = split_type(resource.type)[1] or "object"
    messages: list[str] = []
    for problem in name_problems(resource.type, resource.props):
        shown = f"{problem.where} {problem.value!r}"
        what = "namespace" if problem.where == "metadata.namespace" else f"{kind} name"
        if problem.placeholder and terraform_filled(resource, problem.value):
            continue  # a Terraform interpolation (``"vllm-${each.key}"``): the plan renders it (review55e)
        if problem.placeholder:
            messages.append(
                unproven(
                    f"{shown} is an unrendered placeholder, not a valid {what} ({problem.why}); applied as "
                    f"committed the API server refuses the {kind} ({problem.where}: Invalid value); fill it in with a "
                    f"valid name before applying"
                )
            )
            continue
        message = (
            f"{shown}: {problem.why}; the API server refuses the {kind} ({problem.where}: Invalid value), so it is "
            f"never created; use lowercase letters, digits and '-'"
        )
        if problem.unsure:
            message += (
                f" (if a CRD serves {kind}: no CRD of its group is pinned, and an aggregated API server may validate "
                f"names by rules of its own)"
            )
        elif problem.custom:
            message += " (if the kind is namespaced)"
        messages.append(unproven(message) if problem.custom or problem.unsure else message)
    return messages


def _label_findings(resource: Resource) -> list[str]:
    kind = split_type(resource.type)[1] or "object"
    messages: list[str] = []
    for problem in label_problems(resource.type, resource.props):
        shown = f"{problem.where}[{problem.key}] = {problem.value!r}"
        if problem.placeholder:
            continue  # S27 names every placeholder, in labels too
        if problem.proven:
            messages.append(
                f"{shown}: {problem.why}; the API server refuses the {kind} ({problem.where}: Invalid value), so it "
                f"is never created; keep labels to short tokens and put a model id or URL in an annotation"
            )
        else:
            messages.append(
                unproven(
                    f"{shown}: {problem.why}; the API server refuses the pods the operator makes with it "
                    f"({problem.where}: Invalid value); keep labels to short tokens"
                )
            )
    return messages


def _cloud_run(resource: Resource) -> bool:
    """A Knative Service for Cloud Run (a ``run.googleapis.com/`` annotation): its secretKeyRef names a Secret Manager
    secret, whose names take '_' and capitals (https://cloud.google.com/run/docs/configuring/services/secrets)."""
    if split_type(resource.type)[0] != "serving.knative.dev":
        return False
    for path in (("metadata", "annotations"), ("spec", "template", "metadata", "annotations")):
        notes = get(resource.props, *path)
        if isinstance(notes, dict) and any(str(k).startswith("run.googleapis.com/") for k in notes):
            return True
    return False


def _reference_findings(resource: Resource) -> list[str]:
    """A pod spec's reference name (a key ref's, an envFrom ref's, serviceAccountName) the API server refuses: the
    pod template of Kubernetes' own kinds is validated with the object; an operator's pods are refused later (advice,
    as a placeholder-looking name is)."""
    if not resource.type.startswith("kubernetes:") or _cloud_run(resource):
        return []
    specs = pod_specs(resource)
    if not specs:
        return []
    kind = split_type(resource.type)[1] or "object"
    custom = is_custom_type(resource.type)
    messages = []
    for problem in reference_problems(specs):
        refused = "the pods its operator makes" if custom else f"the {kind}"
        fix = "name the object it reads" if problem.value == "" else "name the object in lowercase letters, digits, '-' and '.'"
        text = (
            f"{problem.where} {problem.value!r}: {problem.why}; the API server validates this reference as an object "
            f"name and refuses {refused} ({problem.where.rsplit('.', 1)[-1]}: {problem.error}), so no pod is created; " + fix
        )
        if problem.placeholder:
            text += " (it reads as a placeholder a script fills in; applied as committed it is refused)"
        messages.append(unproven(text) if custom or problem.placeholder else text)
    return messages


def _handler_findings(resource: Resource) -> list[str]:
    """A probe or lifecycle hook stating more than one handler (httpGet and tcpSocket): the pod template of Kubernetes'
    own kinds is refused with the object; an operator's pods later (advice)."""
    if not resource.type.startswith("kubernetes:"):
        return []
    custom = is_custom_type(resource.type)
    found = [
        text
        for path, podspec in pod_specs(resource)
        for container in containers(podspec, init=True)
        for text in handler_refusals(path, container)
    ]
    return [unproven(text) for text in found] if custom else found


def _image_findings(resource: Resource) -> list[str]:
    """A container of a pod template that writes ``image`` with no value (policies/reading/api_refusals.py
    image_refusal): Kubernetes' own kinds are refused with the object; an operator's custom resource may fill the
    image itself (its defaults), so it is not judged."""
    if not resource.type.startswith("kubernetes:") or is_custom_type(resource.type):
        return []
    return [
        text
        for path, podspec in pod_specs(resource)
        for container in containers(podspec, init=True)
        if (text := image_refusal(path, container)) is not None
    ]


def _check(resource: Resource, config: dict) -> list[str]:
    messages = _name_findings(resource) + _label_findings(resource) + _reference_findings(resource)
    messages += _handler_findings(resource) + _image_findings(resource)
    messages += [text if proven else unproven(text) for text, proven in ingress_host_refusals(resource)]
    refused = ingress_class_refusal(resource)
    if refused is not None:
        text, proven = refused
        messages.append(text if proven else unproven(text))
    return messages


POLICY = Policy(
    name="api-object-valid",
    description=(
        "An object's name, generateName and namespace are valid for its kind, its labels and selectors' matchLabels "
        "are valid label keys and values, a probe or hook states one handler, a container that writes `image` gives one, "
        "an Ingress rule's host is a DNS name, and an "
        "Ingress does not set both the class annotation and spec.ingressClassName (the API server refuses the object "
        "otherwise)."
    ),
    catalog="S26",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Rename the object as its kind requires: a lowercase RFC 1123 subdomain (lowercase letters, digits, '-' and "
        "'.') for most kinds, a DNS-1035 label (start with a letter, no '.') for a Service, a DNS-1123 label for a "
        "namespace, at most 52 characters for a CronJob; fill placeholders in before applying. On an Ingress keep "
        "spec.ingressClassName and drop the kubernetes.io/ingress.class annotation."
    ),
    resource_types=ANY_KUBERNETES_TYPE,
    check_resource=_check,
    rationale=(
        "Every create runs ValidateObjectMetaAccessor (kubernetes/apimachinery v0.33.0 pkg/api/validation/"
        "objectmeta.go L155-187) with the kind's name function (pkg/api/validation/generic.go L36-68: "
        "NameIsDNSSubdomain, NameIsDNSLabel, NameIsDNS1035Label); kubernetes/kubernetes pkg/apis/*/validation pick "
        "the function per kind (a Service a DNS-1035 label, a namespace a DNS-1123 label, most kinds and every CRD-served "
        "custom resource a subdomain; a CronJob at most 52 characters). A kind of a group no pinned CRD serves may be an "
        "aggregated API's with rules of its own (advice); OpenShift's *.openshift.io and the metrics APIs are not judged. ValidateIngressCreate "
        "(pkg/apis/networking/validation/validation.go) refuses the kubernetes.io/ingress.class annotation beside "
        "spec.ingressClassName. A placeholder name, or an Ingress whose two classes agree (accepted by the newest "
        "releases), is advice; so are Helm's RELEASE-NAME and pipeline tokens (#{name}#, @NAME@, %NAME%). A probe or lifecycle "
        "handler takes one and only one action (kubernetes/api v0.33.0 core/v1/types.go:2946-2981 ProbeHandler, "
        "LifecycleHandler; validation.go 'may not specify more than 1 handler type'); an Ingress rule host must be a "
        "DNS-1123 subdomain, not an IP (pkg/apis/networking/validation/validation.go validateIngressRules)."
    ),
)
