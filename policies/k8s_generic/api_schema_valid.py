"""S26 (api-schema-valid): an object of Kubernetes' own kinds that its OpenAPI schema refuses.

policies/reading/core_schema.py walks the object against Kubernetes 1.33's schema of its kind (pruned from the
kubernetes-validate package into policies/reading/core_schemas.json): a value the field's Go type cannot decode, and a
field the type does not have. Spent set 30, containers/ai-lab-recipes recipes/natural_language_processing/chatbot/
quadlet/chatbot.yaml at 25fca348b7d93adfbe4601d4fdac4655203bf3ac: Pod/chatbot's env ``PORT`` has ``value: 8001``, an
integer where EnvVar.value is a string, so neither the API server nor ``podman kube play`` can decode the Pod.
Custom resources are checked against their CRDs by crd-validation-rules; this policy reads only Kubernetes' own kinds.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterator

from policies.framework import Policy, Resource, unproven
from policies.kube import as_list, get, split_type
from policies.reading import core_schema
from policies.reading.sops import sops_encrypted

_DROPPED = (
    "kubectl's default strict field validation refuses the object (unknown field), otherwise the API server drops "
    "the field and the setting never takes effect"
)


# Fields the API server parses as CIDRs, which the OpenAPI schema types only as strings: a Service's
# spec.loadBalancerSourceRanges ("must be a list of IP ranges. For example, 10.240.0.0/24,10.250.0.0/24",
# kubernetes pkg/apis/core/validation/validation.go ValidateService through GetLoadBalancerSourceRanges, net.ParseCIDR of
# each trimmed entry) and a NetworkPolicy's ipBlock.cidr / except (pkg/apis/networking/validation ValidateIPBlock,
# "must be a valid CIDR"). Spent set 94 ricardolins/akamai_inference_cloud kubernetes/vllm/service.yaml:
# loadBalancerSourceRanges [ALLOWED_ADMIN_CIDR_PLACEHOLDER], labelled S26 blocking.
# Any $ is a variable some tool fills in ($ADMIN_CIDR for envsubst, as ${...}); an address part holding a letter where
# it is no IPv6 address (YOUR_IP/32, 10.0.x.x/16) is a fill-in too: advice (review51a). The API server parses with
# k8s.io/utils/net ParseCIDRSloppy, which reads IPv4 octets with leading zeros as decimal (010.0.0.0/8), where Python's
# ipaddress refuses them: they are stripped before parsing.
_TEMPLATED = re.compile(r"\$|\{\{|<[^>]+>")
_FILL_IN = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]*$")
_LEADING_ZEROS = re.compile(r"(?<![0-9])0+(?=[0-9])")


def _fill_in(text: str) -> bool:
    address = text.split("/", 1)[0]
    return (
        bool(_FILL_IN.match(text))
        and not any(c.isdigit() for c in address)
        or (":" not in address and any(c.isalpha() for c in address))
    )


def _cidr_fields(resource: Resource) -> Iterator[tuple[str, object]]:
    kind = split_type(resource.type)
    if kind == ("", "Service"):
        for i, value in enumerate(as_list(get(resource.props, "spec", "loadBalancerSourceRanges"))):
            yield f"spec.loadBalancerSourceRanges[{i}]", value
    elif kind == ("networking.k8s.io", "NetworkPolicy"):
        for direction, peers_key in (("ingress", "from"), ("egress", "to")):
            for i, rule in enumerate(as_list(get(resource.props, "spec", direction))):
                for j, peer in enumerate(as_list(get(rule, peers_key))):
                    block = get(peer, "ipBlock")
                    if not isinstance(block, dict):
                        continue
                    where = f"spec.{direction}[{i}].{peers_key}[{j}].ipBlock"
                    if "cidr" in block:
                        yield f"{where}.cidr", block["cidr"]
                    for k, value in enumerate(as_list(block.get("except"))):
                        yield f"{where}.except[{k}]", value


def _cidr_messages(resource: Resource) -> list[str]:
    messages: list[str] = []
    for where, value in _cidr_fields(resource):
        if not isinstance(value, str) or _TEMPLATED.search(value):
            continue
        text = value.strip()
        try:
            if "/" not in text:
                raise ValueError(text)
            ipaddress.ip_network(text if ":" in text else _LEADING_ZEROS.sub("", text), strict=False)
            continue
        except ValueError:
            pass
        message = (
            f"{where}: {value!r} is not a CIDR (a.b.c.d/n): the API server parses it as one and refuses the "
            f"{split_type(resource.type)[1]}, so it is never created"
        )
        messages.append(
            unproven(f"{message}; the text reads as a fill-in a tool replaces before applying") if _fill_in(text) else message
        )
    return messages


def _check(resource: Resource, config: dict) -> list[str]:
    cidrs = _cidr_messages(resource)
    return cidrs + _schema_messages(resource)


def _schema_messages(resource: Resource) -> list[str]:
    found = core_schema.errors(resource.type, resource.props)
    if found and sops_encrypted(resource.props):
        # spent set 95 tpural/flux apps/openwebui/secret.yaml: the block is no field of the Secret the cluster sees
        found = [e for e in found if e.where != "sops" and not e.where.startswith("sops.")]
    if not found:
        return []
    kind = split_type(resource.type)[1]
    pinned = core_schema.source()
    schema = f"Kubernetes {pinned['minor']}'s schema, kubernetes-validate {pinned['version']}"
    messages: list[str] = []
    for error in found:
        if error.fill_in:
            messages.append(
                unproven(
                    f"{error.where}: {error.message} ({schema}), text that reads as a fill-in a pipeline or template "
                    f"tool replaces before applying; applied as committed, the API server cannot decode the {kind} "
                    f"and refuses it"
                )
            )
        elif not error.unknown:
            messages.append(
                f"{error.where}: {error.message} ({schema}); the API server cannot decode the {kind} and refuses it, "
                f"so it is never created; quote the value or give the type the field takes"
            )
        elif error.since:
            messages.append(
                unproven(
                    f"{error.where}: a field of {kind} only from Kubernetes {error.since} ({schema}); on an earlier "
                    f"cluster {_DROPPED}"
                )
            )
        else:
            messages.append(
                f"{error.where}: not a field of {kind} ({schema}), often a key indented under the wrong parent; "
                f"{_DROPPED}; move it where the type defines it or remove it"
            )
    return messages


POLICY = Policy(
    name="api-schema-valid",
    description=(
        "An object of Kubernetes' own kinds (Pod, Deployment, StatefulSet, DaemonSet, ReplicaSet, Job, CronJob, "
        "Service, ConfigMap, Secret, PVC, PV, HPA, PDB, Ingress, IngressClass, NetworkPolicy, ServiceAccount, "
        "Namespace, RBAC roles and bindings, PriorityClass, StorageClass, LimitRange, ResourceQuota) has values of the "
        "types its schema takes and no field the schema lacks (the API server refuses it otherwise)."
    ),
    catalog="S26",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Quote a number or boolean given where the schema takes a string (env values, labels, annotations, "
        "ConfigMap data); give integers and booleans unquoted; move a field the finding calls unknown under the "
        "parent that defines it (often a mis-indented key) or remove it."
    ),
    resource_types=tuple(sorted(core_schema.COVERED)),
    check_resource=_check,
    rationale=(
        "The API server decodes a manifest into its Go types: a value of the wrong JSON type cannot be decoded "
        "(`json: cannot unmarshal number into Go struct field EnvVar...value of type string`), and under strict field "
        "validation (KEP-2885, GA in Kubernetes 1.27, kubectl's default) a field the type lacks is refused "
        "(https://kubernetes.io/docs/reference/using-api/api-concepts/#field-validation). The schemas are Kubernetes "
        "1.33's from the PyPI package kubernetes-validate, pruned to types and fields by `python tools/core_schemas.py "
        "--write` (policies/reading/core_schemas.json, with the package version and sha256); a field only a later "
        "minor defines is advice. Null, integral floats, IntOrString and numeric quantities are accepted as the "
        "API server accepts them."
    ),
)
