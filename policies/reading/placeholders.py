"""Unrendered placeholders in a Kubernetes object: a manifest meant for envsubst, sed or Terraform, checked as is.

The pack's one recogniser of them: S27 (policies/input/manifest_is_kubernetes.py) names the fields that hold one, and
policies/check.py hands every other rule the object with those values as framework.UNKNOWN (``with_unknowns``), so
no rule builds a finding on ``__VLLM_GPU_MEMORY_UTIL__`` read as a number. The object as written stays beside it
(``Resource.written``) for the rules that judge the text itself: G46 an image reference's grammar (advice: the file is
a template its owner fills), G1 a literal tag behind a placeholder registry (``written_images``).

``image: us-docker.pkg.dev/${PROJECT_ID}/repo/vllm``, ``bucketName: YOUR_BUCKET_NAME``, ``--model $MODEL_ID`` or
``image: <image>`` reach the API server literally when the file is applied as written: the kubelet expands only the
``$(VAR)`` form in a container's command, args and env values (core/v1 ``Container.args``: "Variable references
$(VAR_NAME) are expanded using the container's environment"), never ``${VAR}`` or ``$VAR``, and no controller reads
``YOUR_...`` or ``<...>`` as anything but text. So the file is not deployable as is, and what the pack read there is the
placeholder, not the value. Reported under S27 (advisory), naming the field and the placeholder.

Also recognised, as the sed steps of real repositories write them: ``__NAME__`` (``--gpu-memory-utilization
__VLLM_GPU_MEMORY_UTIL__``, taixingbi/eks-vllm), an ALL-CAPS word naming itself a fill-in standing as a whole value
(``IMAGE_PLACEHOLDER``, ``REPLACE_WITH_BUCKET``, ``CHANGE_ME``, ``TODO_...``), ``$(NAME)`` outside a container's
command, args and env (where only Kustomize-style tools expand it), and a bare ALL-CAPS identifier with an underscore
where no real value is in capitals: an image's repository (``ECR_REPOSITORY_URL:v0.8.4``), a bucket name
(``bucketName: GCS_BUCKET``), a well-known node label's requirement value (``INSTANCE_FAMILY``) or a count, duration
or quantity field. Never a real value: env values (``LOG_LEVEL=INFO``, ``VLLM_ATTENTION_BACKEND=FLASH_ATTN``), Secret
and ConfigMap keys, capabilities (``IPC_LOCK``) and enums of other objects (Istio's ``ISTIO_MUTUAL``) stay text.

Silent: ``$(VAR)`` (the kubelet's own expansion), KServe's ``{{.Name}}`` (filled by its controller), a shell's
``$VAR`` inside a ``sh -c`` / ``python -c`` command (expanded by the shell at run time), and the objects whose text is
data for another tool: ConfigMaps and Secrets (adapter rules hold ``${1}``, scripts hold ``$VAR``), CRDs, Prometheus
rules, Istio EnvoyFilters (Lua), admission policies (CEL, Kyverno, Gatekeeper Rego), Argo CD and Flux objects (which
substitute their own variables), and every non-Kubernetes resource (IAM policy variables such as ``${aws:username}``).
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any, Iterator, Optional

from components.fill_ins import fill_in, image_fill_in
from policies.framework import UNKNOWN, Resource
from policies.kube import container_label, containers, pod_specs, split_type

# ${VAR} / ${VAR:-default} (envsubst, Terraform templatefile, Flux postBuild), $VAR in upper case (envsubst, sed
# scripts), YOUR_... / your-... (docs' fill-ins), REPLACE_ME, and <word> / <your project id> (docs' fill-ins).
_PLACEHOLDER = re.compile(
    r"(\$\{[A-Za-z_][A-Za-z0-9_]*(?::?[-=?+][^}]*)?\}"
    r"|(?<![\w$])\$[A-Z][A-Z0-9_]{2,}\b"
    r"|\b(?:YOUR|your|Your)[_-][A-Za-z0-9][\w-]*"
    r"|\b(?:REPLACE[_-]?ME|CHANGE[_-]?ME)\b"
    r"|<[A-Za-z][A-Za-z0-9_ .-]{1,40}>)"
)


def _may_match(text: str) -> bool:
    """False when ``text`` holds none of the substrings every match of _PLACEHOLDER holds ("$", "<", YOUR/your/Your's
    "OUR"/"our", "REPLACE", "CHANGE"; the pattern is case-sensitive): _PLACEHOLDER then finds nothing, and its search,
    ~1 us a field, is skipped (~1,400 fields of a corpus run, ~16 pass)."""
    return "$" in text or "<" in text or "our" in text or "OUR" in text or "REPLACE" in text or "CHANGE" in text


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
_UNREAD = ("status", "apiVersion", "kind")  # the fields placeholders passes over, by their paths' start
_SKIPPED_ANNOTATIONS = ("kubectl.kubernetes.io/last-applied-configuration",)
_MAX_SHOWN = 4
# `__NAME__`: a sed step's marker (``__VLLM_GPU_MEMORY_UTIL__``); `$(NAME)`, which the kubelet expands only in a
# container's command, args and env values (and a volume mount's subPathExpr).
_DUNDER = re.compile(r"(?<![A-Za-z0-9])__[A-Z][A-Z0-9_]*[A-Z0-9]__(?![A-Za-z0-9])")
_PAREN = re.compile(r"\$\([A-Z_][A-Z0-9_]*\)")
_KUBELET_EXPANDS = {"command", "args", "env", "subPathExpr"}
# An ALL-CAPS identifier standing as the whole value: a fill-in when it names itself one, anywhere.
_CAPS_WORD = re.compile(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$")
_FILL_IN_WORD = re.compile(r"PLACEHOLDER|(?:^|_)(?:REPLACE|CHANGE_?ME|TODO|YOUR|FILL_?IN)(?:_|$)")
# Where no real value is in capitals, so a bare ALL-CAPS identifier with an underscore is a fill-in: a bucket, a CSI
# volume's attributes, a well-known node label's requirement value, a count, duration or quantity.
_LOWERCASE_FIELDS = {"bucketName", "bucket", "volumeAttributes"}
_NUMBER_FIELDS = {
    "replicas",
    "minReplicas",
    "maxReplicas",
    "failureThreshold",
    "successThreshold",
    "periodSeconds",
    "initialDelaySeconds",
    "timeoutSeconds",
    "terminationGracePeriodSeconds",
    "sizeLimit",
    "minAvailable",
    "maxUnavailable",
    "maxSurge",
    "containerPort",
    "cpu",
    "memory",
    "nvidia.com/gpu",
    "storage",
    "ephemeral-storage",
}
# A registry host that is a bare word with a port (``dockerregistryip:5500/vllm_backend:1.18.0_v1``, spent set 82
# dell-examples/generative-ai intel-XE9680-gaudi3/vLLM/deployment.yml): distribution/reference reads a first component
# holding ``:`` as a registry host (splitDockerDomain), and a single letters-only label is no DNS name a node resolves
# (no dot, not localhost, not an IP address) but a word standing for the author's registry. A name with a hyphen or a
# digit (``kind-registry:5000``, a kind cluster's registry the runtime's mirror configuration names) is left alone.
_WORD_HOST = re.compile(r"^(?!localhost:)[A-Za-z]+:[0-9]+$")
# Reference fields whose value written as the field's own name is a fill-in (``nodeName: NodeName  # Change this to the
# name of the node your GPU is on``, spent set 61 GoingOffRoading/Ollama-on-Kubernetes-w-Nvidia-GPU Ollama.yml): no
# node, class, claim or account is named after the field that names it.
_SELF_NAMED_FIELDS = frozenset(
    {"nodeName", "storageClassName", "claimName", "serviceAccountName", "secretName", "priorityClassName", "runtimeClassName"}
)
_NODE_LABEL = re.compile(
    r"^(?:karpenter\.k8s\.aws/instance-[\w-]+|node\.kubernetes\.io/instance-type|beta\.kubernetes\.io/instance-type|"
    r"karpenter\.sh/capacity-type|topology\.kubernetes\.io/(?:zone|region)|kubernetes\.io/(?:arch|os)|"
    r"cloud\.google\.com/(?:gke-accelerator|machine-family|gke-nodepool)|karpenter\.azure\.com/[\w-]+)$"
)


def _runs_a_shell(values: list) -> bool:
    """True for a command/args list a shell or interpreter runs as a script (`sh -c "..."`, `python -c "..."`)."""
    return any(isinstance(v, str) and _SHELL_FLAG.match(v) for v in values)


def _shell_container(node: dict) -> bool:
    return _runs_a_shell([*_strings(node.get("command")), *_strings(node.get("args"))])


def _strings(value: Any) -> list:
    return value if isinstance(value, list) else []


def _leaves(node: Any, path: str, where: tuple = (), spell: bool = True) -> Iterator[tuple[str, str, tuple]]:
    """(path, string, keys above it) of every string leaf, leaving out what a shell of the container expands at run
    time. ``where`` holds the mapping keys on the way down, and ``("@node", KEY)`` under a requirement on a label.
    ``spell`` False: the path's first step only (``spec`` for ``spec.template...``), not spelt on for every leaf."""
    if isinstance(node, str):
        yield path, node, where
    elif isinstance(node, list):
        for i, item in enumerate(node):
            yield from _leaves(item, f"{path}[{i}]" if spell or not path else path, where, spell)
    elif isinstance(node, dict):
        here = _shell_container(node) if ("command" in node or "args" in node) else False
        label = node.get("key")
        for key, value in node.items():
            if key in _SKIPPED_ANNOTATIONS:
                continue
            if key in ("command", "args") and here:
                # A shell expands $VAR there, but never a sed marker (`vllm serve __MODEL_NAME_AND_PARAMETERS__`).
                step = (f"{path}.{key}" if path else str(key)) if spell or not path else path
                yield from _leaves(value, step, (*where, key, "@shell"), spell)
                continue
            if key == "exec" and isinstance(value, dict) and _runs_a_shell(_strings(value.get("command"))):
                continue
            below = (*where, key)
            if key == "values" and isinstance(label, str) and _NODE_LABEL.match(label):
                below = (*below, "@node")
            step = (f"{path}.{key}" if path else str(key)) if spell or not path else path
            yield from _leaves(value, step, below, spell)


def sed_marker(text: str) -> bool:
    """True when ``text`` holds a sed step's ``__NAME__`` marker: a value a pipeline writes in before apply, like an
    envsubst ``${NAME}`` (fresh set 103 archham/kube.web-ui: ``host: __FQDN__``, ``OPENAI_API_KEY: '__OPENAI_API_KEY__'``,
    filled by its setup.sh)."""
    return "__" in text and _DUNDER.search(text) is not None


def placeholder_in(text: str, where: tuple = (), table: bool = True) -> Optional[str]:
    """The first placeholder ``text`` holds, read at a field under the keys ``where``, or None. ``table`` False
    leaves out the fill-ins of components/fill_ins.toml (a documentation domain, an all-zero UUID or digest, a
    phrase such as ``change-this-in-production``): values a rule may still read as written."""
    if where and where[-1] == "@shell":
        # A shell script's text: only a sed step's marker is a fill-in there (the shell expands the rest).
        dunder = _DUNDER.search(text) if "__" in text else None
        return dunder.group(0) if dunder else None
    if text.startswith("#@"):
        return text  # a Carvel ytt value annotation, ``key: #@ data.values.image`` (policies/manifests.py _ytt_values)
    if _may_match(text):
        for found in _PLACEHOLDER.finditer(text):
            if found.group(0) not in _NOT_PLACEHOLDERS and found.group(0) not in _RUNTIME_VARIABLES:
                return found.group(0)
    if "__" in text and (dunder := _DUNDER.search(text)):  # the test first: _DUNDER has no literal prefix to seek
        return dunder.group(0)
    if "$(" in text and not _KUBELET_EXPANDS.intersection(where) and (paren := _PAREN.search(text)):
        return paren.group(0)
    word = text.strip()
    if _CAPS_WORD.match(word) and (_FILL_IN_WORD.search(word) or _caps_field(where)):
        return word
    if where and where[-1] in _SELF_NAMED_FIELDS and word.replace("_", "").replace("-", "").lower() == where[-1].lower():
        return word  # the field's own name standing as its value: `nodeName: NodeName`
    if where and where[-1] == "image":
        # Any path component, the registry host included (REGISTRY_PLACEHOLDER/ecr-public/...: chrismld/ai-on-eks-demos
        # deployment.yaml.template), the last one without its tag or digest.
        *path, last = word.split("/")
        if path and ":" in path[0] and "." not in path[0] and _WORD_HOST.match(path[0]):
            return path[0]
        for part in [*path, re.split(r"[:@]", last, maxsplit=1)[0]]:
            if _CAPS_WORD.match(part) or _FILL_IN_WORD.search(part):
                return word
        if fill_in_tag(word):
            return word
        if table and (hit := image_fill_in(word)) is not None:
            return hit
        return None
    if table and (hit := fill_in(text, where[-1] if where else "")) is not None:
        return hit
    return None


def placeholder_tag_only(image: str) -> bool:
    """True when an image's only placeholder is its tag (vllm/vllm-openai:REPLACE_WITH_TESTED_VERSION,
    vllm/vllm-openai:${VLLM_VERSION}): its registry and repository are literal, so the server it runs is known, and
    only what the tag would say (the release) is not."""
    text = image.strip()
    last = text.rsplit("/", 1)[-1]
    if "@" in last or ":" not in last:
        return False
    repository, tag = text[: len(text) - len(last)] + last.split(":", 1)[0], last.split(":", 1)[1]
    if not tag or placeholder_in(repository, ("image",)) is not None or "$" in repository or "{" in repository:
        return False
    return fill_in_tag(text) or placeholder_in(tag) is not None


def fill_in_tag(image: str) -> bool:
    """True when an image's tag names itself a fill-in (vllm/vllm-openai:REPLACE_WITH_TESTED_VERSION: set 37
    QuentinHamonic/llm-ops-sandbox k8s/vllm/deployment.yaml); only the explicit words, as a real tag may be in
    capitals."""
    tag = image.strip().rsplit("/", 1)[-1].split("@", 1)[0].partition(":")[2]
    return bool(tag) and bool(_FILL_IN_WORD.search(tag))


def _caps_field(where: tuple) -> bool:
    if "env" in where or "metadata" in where:
        return False
    return bool(where) and ("@node" in where or where[-1] in _NUMBER_FIELDS or bool(_LOWERCASE_FIELDS.intersection(where)))


def _is_read(resource: Resource) -> bool:
    if not resource.type.startswith("kubernetes:"):
        return False
    group, kind = split_type(resource.type)
    return (group, kind) not in _SKIPPED_KINDS and not group.endswith(_SKIPPED_GROUPS)


def placeholders(resource: Resource) -> list[tuple[str, str]]:
    """(field path, placeholder) of every field of a Kubernetes object that holds an unrendered placeholder."""
    if not _is_read(resource):
        return []
    # Most objects hold none: looked for first without spelling each leaf's path (a path starts with the "status",
    # "apiVersion" or "kind" below exactly when its first step does, as the next step begins with "." or "[").
    if not any(
        placeholder_in(text, where) is not None
        for path, text, where in _leaves(resource.props, "", spell=False)
        if not path.startswith(_UNREAD)
    ):
        return []
    hits = []
    for path, text, where in _leaves(resource.props, ""):
        if path.startswith(_UNREAD):
            continue
        if (found := placeholder_in(text, where)) is not None:
            hits.append((path, found))
    return hits


HELMFILE_FILL_IN = "${helmfile_fill_in}"  # policies/reading/helmfile.py's stand-in for a {{ }} action


def terraform_filled(resource: Resource, text: object) -> bool:
    """True for a value of an object read from Terraform (policies/reading/terraform.py) that holds a ``${...}``: a
    Terraform interpolation, which the plan fills before the provider applies the object (review55e). Every rule reads
    it as a value it does not know (with_unknowns), none as text a person or envsubst must still render (S27, G46,
    S28); as is a Pulumi program's run-time value (policies/reading/pulumi_program.py). So is a helmfile's ``{{ }}`` action, which policies/reading/helmfile.py writes as ``${helmfile_fill_in}``:
    helmfile renders it before helm runs."""
    if not isinstance(text, str) or "${" not in text:
        return False
    template = resource.template
    return template.startswith(("Terraform ", "Pulumi ")) or template.startswith("helmfile release ") and HELMFILE_FILL_IN in text


def with_unknowns(resource: Resource) -> dict:
    """The object's props with every one-line value outside metadata and selectors that holds a placeholder as
    framework.UNKNOWN (a rule reads what it cannot know, not the fill-in's text); the props themselves when none does."""
    if not _is_read(resource):
        return resource.props
    return _replaced(resource.props, ())


def _replaced(node: Any, where: tuple) -> Any:
    if isinstance(node, str):
        # A document embedded in one field (a RayService's serveConfigV2, a script) stays text: its other values
        # are still read, and the placeholder inside is only the part of it S27 names.
        if "\n" in node.strip() or placeholder_in(node, where, table=False) is None:
            return node
        # A fill-in tag behind a literal repository leaves the image's repository known (engine recognition still
        # reads vllm/vllm-openai); the release the tag would name is unknown to every rule that reads one.
        return node if where[-1:] == ("image",) and placeholder_tag_only(node) else UNKNOWN
    if isinstance(node, list):
        items = [_replaced(item, where) for item in node]
        return node if all(a is b for a, b in zip(items, node)) else items
    if not isinstance(node, dict):
        return node
    here = _shell_container(node) if ("command" in node or "args" in node) else False
    label = node.get("key")
    out = {}
    for key, value in node.items():
        if key in ("metadata", "selector", "status", "apiVersion", "kind") or (key in ("command", "args") and here):
            out[key] = value
        elif key == "exec" and isinstance(value, dict) and _runs_a_shell(_strings(value.get("command"))):
            out[key] = value
        else:
            below = (*where, key)
            if key == "values" and isinstance(label, str) and _NODE_LABEL.match(label):
                below = (*below, "@node")
            out[key] = _replaced(value, below)
    return node if all(out[k] is node[k] for k in node) else out


def written_images(resource: Resource) -> dict[str, str]:
    """The image each container of the object's pod templates names as written, keyed by its label
    (kube.container_label), for the containers whose image ``with_unknowns`` made framework.UNKNOWN; {} otherwise."""
    if resource.written is None:
        return {}
    read = {
        container_label(path, c): c.get("image") for path, podspec in pod_specs(resource) for c in containers(podspec, init=True)
    }
    as_written = dataclasses.replace(resource, props=resource.written)
    return {
        label: image
        for path, podspec in pod_specs(as_written)
        for c in containers(podspec, init=True)
        if isinstance(image := c.get("image"), str) and read.get(label := container_label(path, c)) is UNKNOWN
    }


def placeholder_findings(resource: Resource) -> list[str]:
    """One finding naming the fields of a Kubernetes object that hold unrendered placeholders, or none."""
    every = placeholders(resource) if resource.unrendered is None else resource.unrendered
    table = [(path, found) for path, found in every if _from_table(found)]
    findings = _table_findings(table)
    hits = [f"{path} holds {found}" for path, found in every if (path, found) not in table]
    if not hits:
        return findings
    shown = "; ".join(hits[:_MAX_SHOWN]) + (f"; and {len(hits) - _MAX_SHOWN} more" if len(hits) > _MAX_SHOWN else "")
    return [
        f"{shown}: an unrendered placeholder (envsubst, sed or Terraform style), which Kubernetes takes literally (the "
        f"kubelet expands only $(VAR)), so applied as committed the object fails or does not do what it says, and the "
        f"pack checked no rule on the placeholder's value; render it first (envsubst < FILE | python -m policies check -)"
    ] + findings


def _from_table(found: str) -> bool:
    """True for a hit of components/fill_ins.toml's table (what ``placeholder_in`` finds only with ``table``)."""
    return any(fill_in(found, field) is not None for field in ("", "hosts", "newTag", "bucket", "issuer")) or (
        image_fill_in(found) is not None
    )


def _table_findings(table: list) -> list[str]:
    """One finding naming the fields that hold a fill-in of components/fill_ins.toml, or none."""
    if not table:
        return []
    shown = "; ".join(f"{path} holds {found!r}" for path, found in table[:_MAX_SHOWN])
    more = f"; and {len(table) - _MAX_SHOWN} more" if len(table) > _MAX_SHOWN else ""
    return [
        f"{shown}{more}: a fill-in left where the real value goes (a documentation domain, a 'your...' registry, an "
        f"all-zero UUID or digest, a tag that names the field, words such as change-this-in-production, the "
        f"documentation's my-...-bucket), which "
        f"Kubernetes and the program take literally: applied as committed, the pull, the identity exchange or the "
        f"routing it names fails or matches nothing; put the real value in before applying"
    ]
