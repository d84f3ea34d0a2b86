"""What a Go/Helm template file's text says before it is rendered (or a file's that does not parse): whether it can
hold a Kubernetes object at all, where YAML stopped on a template action, the kind and name a document spells
literally, and which parts lie inside a control structure (``if``, ``range``, ``with``, ``define``,
``block``), so a document written there without any action of its own is not read as the file's own object.

Helm emits such a document only as the structure decides (a false ``if``, an empty ``range``, a ``define`` nobody
includes emit nothing: go1.22 src/text/template/exec.go walkIfOrWith/walkRange; a define is a separate template),
so policies/manifests.py reports it with the template (advice, or rendered best-effort with the chart) instead of
checking it as stated. Only the actions that open and close structures are counted; ``else`` changes nothing.
"""

from __future__ import annotations

import bisect
import functools
import re
from typing import Optional

# A template document's literal top-level kind, and the first key of its top-level metadata block (its name when
# that key is `name:` with a value that is no template action).
_LITERAL_KIND = re.compile(r"^kind:[ \t]*([A-Za-z][A-Za-z0-9]*)[ \t]*(?:#.*)?$", re.MULTILINE)
_LITERAL_NAME = re.compile(
    r"^metadata:[ \t]*\n(?:[ \t]*(?:#.*)?\n)*([ \t]+)name:[ \t]*([A-Za-z0-9][A-Za-z0-9._-]*)[ \t]*$", re.MULTILINE
)


def literal_object(chunk: str) -> tuple[str, str]:
    """(kind, name) a template document spells literally, "" for what it does not."""
    kind = _LITERAL_KIND.search(chunk)
    name = _LITERAL_NAME.search(chunk)
    return (kind.group(1) if kind else "", name.group(2) if kind and name else "")


# A key a Kubernetes object must have, in block or flow style (`apiVersion: v1`, `{"kind": "Pod"}`).
_KUBERNETES_KEY = re.compile(r"""(?:^|[\s{,])["']?(apiVersion|kind)["']?[ \t]*:""", re.MULTILINE)


def names_kubernetes(text: str) -> bool:
    """True when ``text`` has both an apiVersion and a kind key somewhere (a file that has not cannot hold an object)."""
    seen: set[str] = set()
    for match in _KUBERNETES_KEY.finditer(text):
        seen.add(match.group(1))
        if len(seen) == 2:
            return True
    return False


def foreign_file(text: str, problem: str, *, json: bool) -> Optional[str]:
    """Why a file that did not load is another tool's and no manifest, or None: it names no apiVersion and kind, and
    the failure is one of another format (YAML: a workflow's `on:` key, review #16, or a GitLab CI `!reference` /
    CloudFormation `!Ref` tag; JSON: any problem but a limit, as in tsconfig.json with comments, a Liquid JSON or a
    data file holding NaN). A limit (size, depth, values) is refused whatever the file."""
    other = "(the limit for " not in problem if json else ("key" in problem or problem.startswith("the tag "))
    if not other or names_kubernetes(text):
        return None
    return f"is not read ({problem}), but it names no apiVersion and kind, so it holds no Kubernetes object"


def action_at(text: str, line: Optional[int]) -> bool:
    """True when line ``line`` of ``text`` holds a `{{ ... }}` action (where YAML stopped on an unrendered template)."""
    if not line:
        return False
    row = text.split("\n", line)[line - 1] if text.count("\n") >= line - 1 else ""
    opening = row.find("{{")  # str.find, not a regex: a long line of '{{' must not backtrack
    return opening >= 0 and row.find("}}", opening + 2) >= 0


# An action opening a structure, or an `end`; a comment (`{{/* ... */}}`) matches neither.
_STRUCTURE = re.compile(r"\{\{-?\s*(?:(if|range|with|define|block)\b|(end)\b)")


class Nesting:
    """The depth of open structures at each position of one template text."""

    def __init__(self, text: str):
        self._ends: list[int] = []
        self._depths: list[int] = []
        depth = 0
        for match in _STRUCTURE.finditer(text):
            depth = depth + 1 if match.group(1) else max(0, depth - 1)
            self._ends.append(match.end())
            self._depths.append(depth)

    def depth_at(self, position: int) -> int:
        """How many structures are open at ``position`` (0: the text there is emitted unconditionally)."""
        i = bisect.bisect_right(self._ends, position)
        return self._depths[i - 1] if i else 0


# KServe's own Go templates, which its controller fills from the object itself, so the document is rendered as
# published:
# - placeholders in a ServingRuntime's containers, filled from the InferenceService when the controller builds the pod
#   (kserve v0.20.0 pkg/controller/v1beta1/inferenceservice/utils/utils.go:324-336 ReplacePlaceholders: a text/template
#   over the InferenceService's ObjectMeta, so .Name, .Namespace, .Labels.x, .Annotations.x);
# - any field of an LLMInferenceService or LLMInferenceServiceConfig: the controller merges the configs and the
#   service's own spec and runs the result through text/template over the LLMInferenceService with the one function
#   ChildName (kserve v0.16.0 pkg/controller/v1alpha1/llmisvc/config_merge.go:173-204, ReplaceVariables L244-275):
#   `{{ .ObjectMeta.Name }}`, `{{ .Spec.Model.Name }}`, `{{ ChildName .ObjectMeta.Name `-epp-sa` }}` (the fields of the
#   service and GlobalConfig). Only these plain field references: a control structure (if, range) or a Helm value
#   (`.Values.x`, no field of the service) still makes the document an unrendered template.
_KSERVE_PLACEHOLDER = re.compile(r"\{\{\s*\.(?:Name|Namespace|Labels\.[\w./-]+|Annotations\.[\w./-]+)\s*\}\}")
_KSERVE_LLM_ACTION = re.compile(
    r"\{\{-?\s*(?:ChildName\s+)?\.(?:ObjectMeta|Spec|Status|TypeMeta|GlobalConfig|Name|Namespace|Labels|Annotations)\b[\w.]*(?:\s+(?:`[^`{}\n]*`|\"[^\"{}\n]*\"))?\s*-?\}\}"
)
_KSERVE_LLM_API = re.compile(r"^apiVersion:[ \t]*[\"']?serving\.kserve\.io/", re.MULTILINE)
_KSERVE_LLM_KINDS = frozenset({"LLMInferenceService", "LLMInferenceServiceConfig"})
_DOCUMENT_MARK = re.compile(r"^---(?=[ \t]|$)", re.MULTILINE)


def kserve_fills(text: str, start: int) -> bool:
    """True when the template action at ``start`` of ``text`` is one KServe's controller fills from the object: a
    ServingRuntime placeholder anywhere, or a field reference in an LLMInferenceService(Config) document."""
    if _KSERVE_PLACEHOLDER.match(text, start):
        return True
    if not _KSERVE_LLM_ACTION.match(text, start):
        return False
    starts = _document_starts(text)
    i = bisect.bisect_right(starts, start) - 1
    return _kserve_llm_document(text, starts[i], starts[i + 1] if i + 1 < len(starts) else len(text))


@functools.lru_cache(maxsize=8)
def _document_starts(text: str) -> list[int]:
    """Where each YAML document of ``text`` begins (0 first): computed once per text, however many actions it has."""
    return [0] + [m.start() for m in _DOCUMENT_MARK.finditer(text) if m.start() > 0]


@functools.lru_cache(maxsize=64)
def _kserve_llm_document(text: str, begin: int, end: int) -> bool:
    document = text[begin:end]
    if literal_object(document)[0] in _KSERVE_LLM_KINDS and _KSERVE_LLM_API.search(document):
        return True
    return "kind" in document and _only_kserve_llm_objects_hold_actions(document)


def _only_kserve_llm_objects_hold_actions(document: str) -> bool:
    """The same objects in another form (a JSON document, `kubectl get -o json`; the items of a ``kind: List``,
    `kubectl get -o yaml`): True when the document parses (KServe's actions sit inside quoted strings) and every object
    whose text holds an action is an LLMInferenceService(Config) of serving.kserve.io. A List that mixes in any other
    object with an action stays a template."""
    import json

    import yaml

    try:
        data = yaml.safe_load(document)
    except (yaml.YAMLError, ValueError, RecursionError):
        return False
    objects, stack = [], [data]
    while stack:
        item = stack.pop()
        if isinstance(item, dict) and str(item.get("kind", "")).endswith("List") and isinstance(item.get("items"), list):
            stack.extend(item["items"])
        elif isinstance(item, dict):
            objects.append(item)
    holders = [o for o in objects if "{{" in json.dumps(o, default=str)]
    return bool(holders) and all(
        o.get("kind") in _KSERVE_LLM_KINDS and str(o.get("apiVersion", "")).startswith("serving.kserve.io/") for o in holders
    )


# A Helm release object whose values hold a template the chart renders: Flux's helm-controller hands ``spec.values``
# to Helm as data and renders nothing in them itself (a HelmRelease is applied as written), and charts such as bjw-s
# app-template pass some values through ``tpl`` (``existingClaim: "{{ .Release.Name }}-data"``, ``hostnames:
# ["{{ .Release.Name }}.example.org"]``; bjw-s-labs/helm-charts common-4.1.1 templates/lib/container/fields/
# _env.tpl:68, _probes.tpl:24,72). Such an action inside a quoted YAML string of a HelmRelease (or an Argo CD
# Application) is text of the object, not a template of the file: the file is still read. An action outside quotes
# (a chart that renders HelmReleases) still makes it a template.
_RELEASE_API = re.compile(r"^apiVersion:[ \t]*[\"']?(?:helm\.toolkit\.fluxcd\.io|argoproj\.io)/", re.MULTILINE)
_RELEASE_KINDS = frozenset({"HelmRelease", "Application"})


def release_value(text: str, start: int) -> bool:
    """True when the action at ``start`` sits inside a quoted string on its line, in a document that is a Flux
    HelmRelease or an Argo CD Application (its literal kind and apiVersion)."""
    line_start = text.rfind("\n", 0, start) + 1
    before = text[line_start:start]
    if before.count('"') % 2 == 0 and before.count("'") % 2 == 0 and not _in_block_scalar(text, line_start):
        return False
    starts = _document_starts(text)
    i = bisect.bisect_right(starts, start) - 1
    return _release_document(text, starts[i], starts[i + 1] if i + 1 < len(starts) else len(text))


# A key or list item whose value is a YAML block scalar (``key: |``, ``- >-``, ``key: |2 # comment``).
_BLOCK_SCALAR = re.compile(r"(?::|^\s*-)\s*[|>][-+0-9]*\s*(?:#.*)?$")


def _in_block_scalar(text: str, line_start: int) -> bool:
    """True when the line at ``line_start`` is text of a YAML block scalar: the nearest line above it indented less
    (blank lines aside) opens one (a prompt template's ``{{.Input}}`` in a release's values, spent set 99
    mitchross/k8s-homelab-cluster-v2 kubernetes/apps/default/localai/app/helmrelease.yaml ``promptTemplates``)."""
    above = _parent_line(text, line_start)
    return above is not None and _BLOCK_SCALAR.search(above) is not None


def _parent_line(text: str, line_start: int) -> str | None:
    """The nearest line above the line at ``line_start`` indented less than it (blank lines aside): the key whose
    value holds it. None at the top or past 400 lines up (a bound on hostile input)."""
    line = text[line_start : text.find("\n", line_start) if "\n" in text[line_start:] else len(text)]
    indent = len(line) - len(line.lstrip(" "))
    end = line_start - 1
    for _ in range(400):
        if end <= 0:
            return None
        begin = text.rfind("\n", 0, end) + 1
        above = text[begin:end]
        end = begin - 1
        if above.strip() and len(above) - len(above.lstrip(" ")) < indent:
            return above
    return None


@functools.lru_cache(maxsize=64)
def _release_document(text: str, begin: int, end: int) -> bool:
    document = text[begin:end]
    return literal_object(document)[0] in _RELEASE_KINDS and _RELEASE_API.search(document) is not None


# Vault Agent Injector's template annotations (hashicorp/vault-k8s v1.7.6 agent-inject/agent/annotations.go:58-62,
# AnnotationAgentInjectTemplate "vault.hashicorp.com/agent-inject-template-NAME"): Consul Template text the injected
# agent renders inside the pod (`{{ with secret "..." }}{{ .Data.token }}{{ end }}`), which the API server stores as an
# annotation's string; the object is applied as written (spent set 110 GuyBarros/vault_ars_minikube_keycloak_litellm
# deploy-k8s/litellm-gateway.yaml: a LiteLLM gateway Deployment no rule read while this counted as a Helm template).
_VAULT_TEMPLATE_KEY = re.compile(r"""^\s*["']?vault\.hashicorp\.com/agent-inject-template-[^\s:"']+["']?\s*:""")


def vault_agent_template(text: str, start: int) -> bool:
    """True when the action at ``start`` lies in the value of a Vault Agent template annotation: on the key's own
    line, or in the block scalar such a key opens (the nearest line above indented less, blank lines aside)."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", start)
    if _VAULT_TEMPLATE_KEY.match(text[line_start : line_end if line_end >= 0 else len(text)]):
        return True
    above = _parent_line(text, line_start)
    return above is not None and _VAULT_TEMPLATE_KEY.match(above) is not None and _BLOCK_SCALAR.search(above) is not None
