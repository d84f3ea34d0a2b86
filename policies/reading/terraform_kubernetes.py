"""The Kubernetes object an HCL resource of the hashicorp/kubernetes provider creates (``kubernetes_deployment``,
``kubernetes_deployment_v1``, ``kubernetes_service``, ``kubernetes_service_v1``), read as that object.

The provider writes each Kubernetes field in snake case and each nested object as a block (hashicorp/
terraform-provider-kubernetes v2.38.0 docs/resources/deployment_v1.md: ``metadata``/``spec`` "(Block List, Min: 1,
Max: 1)" :17-18; ``replicas`` (String) :59; ``container`` "(Block List) List of containers belonging to the pod"
:98; ``port`` :415, ``container_port`` (Number) :702; ``limits`` (Map of String) :782; docs/resources/service_v1.md
``port`` (Block List) :66, ``selector`` (Map of String) :68, ``target_port`` (String) "Number or name" :86). So a
block read here is the object of that name, and a block the API lists (containers, env, ports, volumes,
tolerations, ...) is a list of its blocks; an attribute holding a map (``labels``, ``node_selector``, ``limits``)
keeps its keys as written (label keys, resource names), every other name is the API's camel case.
``kubernetes_deployment`` is the same schema as ``_v1`` (docs/resources/deployment.md). A string the provider parses
as a number or int-or-string (``replicas = "1"``, ``target_port = "8000"``, ``max_unavailable = "0"``) is the number.
Review56c: a ``dynamic "env" { content {...} }`` block is the blocks it makes (read as one, its iterator a fill-in),
not a field ``dynamic``; ``cluster_ip``, ``client_ip``, ``host_ipc`` ... are the API's clusterIP, clientIP, hostIPC;
``default_mode``/``mode`` are octal strings ("0644" is 420).
"""

from __future__ import annotations

import re
from typing import Any, Optional

# resource type -> (apiVersion, kind)
KINDS = {
    "kubernetes_deployment": ("apps/v1", "Deployment"),
    "kubernetes_deployment_v1": ("apps/v1", "Deployment"),
    "kubernetes_service": ("v1", "Service"),
    "kubernetes_service_v1": ("v1", "Service"),
}
# Blocks the API holds as a list of objects (block name -> the API's field): every other block is one object.
_LISTS = {
    "container": "containers",
    "init_container": "initContainers",
    "env": "env",
    "env_from": "envFrom",
    "port": "ports",
    "volume_mount": "volumeMounts",
    "volume_device": "volumeDevices",
    "volume": "volumes",
    "toleration": "tolerations",
    "image_pull_secrets": "imagePullSecrets",
    "host_aliases": "hostAliases",
    "http_header": "httpHeaders",
    "items": "items",
    "match_expressions": "matchExpressions",
    "match_fields": "matchFields",
    "node_selector_term": "nodeSelectorTerms",
    "option": "options",
    "readiness_gate": "readinessGates",
    "sysctl": "sysctls",
    "topology_spread_constraint": "topologySpreadConstraints",
    "preferred_during_scheduling_ignored_during_execution": "preferredDuringSchedulingIgnoredDuringExecution",
    "sources": "sources",
}
# Fields the API types as an integer or int-or-string, which the provider may be given as a string.
_NUMBERS = {
    *("replicas", "port", "target_port", "container_port", "node_port", "host_port", "max_surge", "max_unavailable"),
    *("initial_delay_seconds", "period_seconds", "timeout_seconds", "failure_threshold", "success_threshold"),
    *("termination_grace_period_seconds", "run_as_user", "run_as_group", "fs_group"),
    *("revision_history_limit", "progress_deadline_seconds", "min_ready_seconds", "max_skew", "weight"),
    "toleration_seconds",  # (String) in deployment_v1.md, an int64 in the API
}
_INTEGER = re.compile(r"^-?\d+$")
# File modes the provider takes as an octal string (v2.38.0 kubernetes/structures_pod.go:1108-1109, 1160-1161:
# strconv.ParseInt(mode, 8, 32)): "0644" is 420.
_OCTAL = ("default_mode", "mode")
_OCTAL_TEXT = re.compile(r"^0?[0-7]{1,4}$")
# The API's names with an acronym, where camel case of the snake name differs (docs/resources/service_v1.md:54-56,64,
# 94; deployment_v1.md:103,105,706).
_ACRONYMS = {
    *("cluster_ip", "cluster_ips", "external_ips", "load_balancer_ip", "client_ip", "host_ip", "host_ipc"),
    *("host_pid", "disk_uri", "pod_ip", "pod_ips"),
}


def _camel(name: str) -> str:
    if name in _ACRONYMS:
        head, _, last = name.rpartition("_")
        return _camel(head) + last.upper().replace("IPS", "IPs")
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def _blocks(value: Any) -> Optional[list[dict]]:
    """The blocks an HCL name holds (python-hcl2 writes each block as a list of one mapping per block), or None."""
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        return value
    return None


def _object(body: dict, parent: str = "") -> dict:
    out: dict = {}
    for name, value in body.items():
        if not isinstance(name, str) or name.startswith("__"):
            continue
        blocks = _blocks(value)
        if name == "dynamic" and blocks is not None:
            _dynamic(out, blocks)
        elif blocks is None:
            if name in _OCTAL and isinstance(value, (str, int)) and _OCTAL_TEXT.match(str(value)):
                value = int(str(value), 8)
            elif isinstance(value, str) and name in _NUMBERS and _INTEGER.match(value):
                value = int(value)
            out[_camel(name)] = value  # a map keeps its keys; a list of strings (args) is a list
        elif name in _LISTS or (name == "required_during_scheduling_ignored_during_execution" and parent != "node_affinity"):
            out[_LISTS.get(name) or _camel(name)] = [_object(b, name) for b in blocks]
        else:
            out[_camel(name)] = _object(blocks[0], name)
    return out


def _dynamic(out: dict, blocks: list[dict]) -> None:
    """``dynamic "LABEL" { for_each = ...; content {...} }``: the LABEL blocks Terraform makes, one per element of
    for_each (language/expressions/dynamic-blocks); read as one block of its content, the iterator's values fill-ins."""
    for block in blocks:
        for label, body in block.items():
            content = _blocks(body.get("content")) if isinstance(body, dict) and isinstance(label, str) else None
            if content is None:
                continue
            made = _object(content[0], label)
            if label in _LISTS:
                listed = out.setdefault(_LISTS[label], [])
                if isinstance(listed, list):
                    listed.append(made)
            else:
                out.setdefault(_camel(label), made)


def kubernetes_object(rtype: str, body: dict) -> Optional[dict]:
    """The object a ``kubernetes_*`` resource of KINDS creates, from its HCL body (its interpolations as the reader
    writes them), or None for another resource type."""
    if rtype not in KINDS:
        return None
    api, kind = KINDS[rtype]
    # Only the object's own blocks: count, for_each, depends_on, wait_for_rollout and timeouts are Terraform's.
    return {"apiVersion": api, "kind": kind, **_object({k: v for k, v in body.items() if k in ("metadata", "spec")})}


__all__ = ["KINDS", "kubernetes_object"]
