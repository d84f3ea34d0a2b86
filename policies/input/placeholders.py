"""Unrendered placeholders in a Kubernetes object: a manifest meant for envsubst, sed or Terraform, checked as is.

``image: us-docker.pkg.dev/${PROJECT_ID}/repo/vllm``, ``bucketName: YOUR_BUCKET_NAME``, ``--model $MODEL_ID`` or
``image: <image>`` reach the API server literally when the file is applied as written: the kubelet expands only the
``$(VAR)`` form in a container's command, args and env values (core/v1 ``Container.args``: "Variable references
$(VAR_NAME) are expanded using the container's environment"), never ``${VAR}`` or ``$VAR``, and no controller reads
``YOUR_...`` or ``<...>`` as anything but text. So the file is not deployable as is, and what the pack read there is the
placeholder, not the value. Reported under S27 (advisory), naming the field and the placeholder.

Silent: ``$(VAR)`` (the kubelet's own expansion), KServe's ``{{.Name}}`` (filled by its controller), a shell's
``$VAR`` inside a ``sh -c`` / ``python -c`` command (expanded by the shell at run time), and the objects whose text is
data for another tool: ConfigMaps and Secrets (adapter rules hold ``${1}``, scripts hold ``$VAR``), CRDs, Prometheus
rules, Istio EnvoyFilters (Lua), admission policies (CEL, Kyverno, Gatekeeper Rego), Argo CD and Flux objects (which
substitute their own variables), and every non-Kubernetes resource (IAM policy variables such as ``${aws:username}``).
"""

from __future__ import annotations

import re
from typing import Any, Iterator

from policies.framework import Resource
from policies.kube import split_type

# ${VAR} / ${VAR:-default} (envsubst, Terraform templatefile, Flux postBuild), $VAR in upper case (envsubst, sed
# scripts), YOUR_... / your-... (docs' fill-ins), REPLACE_ME, and <word> / <your project id> (docs' fill-ins).
_PLACEHOLDER = re.compile(
    r"(\$\{[A-Za-z_][A-Za-z0-9_]*(?::?[-=?+][^}]*)?\}"
    r"|(?<![\w$])\$[A-Z][A-Z0-9_]{2,}\b"
    r"|\b(?:YOUR|your|Your)[_-][A-Za-z0-9][\w-]*"
    r"|\b(?:REPLACE[_-]?ME|CHANGE[_-]?ME)\b"
    r"|<[A-Za-z][A-Za-z0-9_ .-]{1,40}>)"
)
# Special tokens of model vocabularies and HTML tags, written in angle brackets on purpose (stop strings, templates).
_NOT_PLACEHOLDERS = {"<eos>", "<bos>", "<pad>", "<unk>", "<mask>", "<sep>", "<cls>", "<think>", "<tool_call>", "<br>"}
# Variables of the process's own environment that authors append to as in a shell
# (``LD_LIBRARY_PATH: /usr/local/nvidia/lib64:$LD_LIBRARY_PATH``): a literal the kubelet passes on, not a fill-in.
_RUNTIME_VARIABLES = {
    "$PATH",
    "$LD_LIBRARY_PATH",
    "$LD_PRELOAD",
    "$PYTHONPATH",
    "$HOME",
    "$USER",
    "$PWD",
    "$HOSTNAME",
    "$SHELL",
    "$CUDA_HOME",
    "$CUDA_PATH",
    "$LIBRARY_PATH",
    "$CPATH",
    "$TMPDIR",
}
_SHELL_FLAG = re.compile(r"^-[a-z]*c$")
_SKIPPED_KINDS = {
    ("", "ConfigMap"),
    ("", "Secret"),
    ("apiextensions.k8s.io", "CustomResourceDefinition"),
    ("monitoring.coreos.com", "PrometheusRule"),
    ("monitoring.coreos.com", "AlertmanagerConfig"),
    ("networking.istio.io", "EnvoyFilter"),
}
# Objects whose text is code or templates another tool evaluates (Argo, Flux, Helm; admission policies in CEL, Rego or
# JMESPath, whose comparisons and variables look like fill-ins).
_SKIPPED_GROUPS = (
    "argoproj.io",
    "kustomize.toolkit.fluxcd.io",
    "helm.toolkit.fluxcd.io",
    "helm.sh",
    "admissionregistration.k8s.io",
    "kyverno.io",
    "gatekeeper.sh",
)
# Annotations that hold another tool's copy of the object or a template of their own.
_SKIPPED_ANNOTATIONS = ("kubectl.kubernetes.io/last-applied-configuration",)
_MAX_SHOWN = 4


def _runs_a_shell(values: list) -> bool:
    """True for a command/args list a shell or interpreter runs as a script (`sh -c "..."`, `python -c "..."`)."""
    return any(isinstance(v, str) and _SHELL_FLAG.match(v) for v in values)


def _shell_container(node: dict) -> bool:
    return _runs_a_shell([*_strings(node.get("command")), *_strings(node.get("args"))])


def _strings(value: Any) -> list:
    return value if isinstance(value, list) else []


def _leaves(node: Any, path: str) -> Iterator[tuple[str, str]]:
    """(path, string) of every string leaf, leaving out what a shell of the container expands at run time."""
    if isinstance(node, str):
        yield path, node
    elif isinstance(node, list):
        for i, item in enumerate(node):
            yield from _leaves(item, f"{path}[{i}]")
    elif isinstance(node, dict):
        here = _shell_container(node) if ("command" in node or "args" in node) else False
        for key, value in node.items():
            if key in _SKIPPED_ANNOTATIONS:
                continue
            if key in ("command", "args") and here:
                continue
            if key == "exec" and isinstance(value, dict) and _runs_a_shell(_strings(value.get("command"))):
                continue
            yield from _leaves(value, f"{path}.{key}" if path else str(key))


def _is_read(resource: Resource) -> bool:
    if not resource.type.startswith("kubernetes:"):
        return False
    group, kind = split_type(resource.type)
    return (group, kind) not in _SKIPPED_KINDS and not group.endswith(_SKIPPED_GROUPS)


def placeholder_findings(resource: Resource) -> list[str]:
    """One finding naming the fields of a Kubernetes object that hold unrendered placeholders, or none."""
    if not _is_read(resource):
        return []
    hits = []
    for path, text in _leaves(resource.props, ""):
        if path.startswith(("status", "apiVersion", "kind")):
            continue
        found = [m.group(0) for m in _PLACEHOLDER.finditer(text)]
        found = [f for f in found if f not in _NOT_PLACEHOLDERS and f not in _RUNTIME_VARIABLES]
        if found:
            hits.append(f"{path} holds {found[0]}")
    if not hits:
        return []
    shown = "; ".join(hits[:_MAX_SHOWN]) + (f"; and {len(hits) - _MAX_SHOWN} more" if len(hits) > _MAX_SHOWN else "")
    return [
        f"{shown}: an unrendered placeholder (envsubst, sed or Terraform style), which Kubernetes takes literally (the "
        f"kubelet expands only $(VAR)), so the file is not deployable as is and the pack checked the placeholder, not "
        f"the value; render it first (envsubst < FILE | python -m policies check -)"
    ]
