"""What a Pulumi program's Kubernetes provider calls are, as policies/reading/pulumi_program.py and its language
readers (pulumi_typescript.py, pulumi_python.py) share them: a call, a value only the run decides, the object a
resource class applies."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, NamedTuple, Optional

from components.loading import LoadError

# Groups of Kubernetes' own API whose name is not <module>.k8s.io (the SDK's module names).
_GROUPS = {
    "core": "",
    "apps": "apps",
    "batch": "batch",
    "autoscaling": "autoscaling",
    "policy": "policy",
    "rbac": "rbac.authorization.k8s.io",
    "flowcontrol": "flowcontrol.apiserver.k8s.io",
    "apiregistration": "apiregistration.k8s.io",
}
_KIND = re.compile(r"^[A-Z][A-Za-z0-9]*$")
# Bounds both language readers keep (they read the same untrusted programs the same way).
MAX_DEPTH = 48
MAX_PASSES = 32  # resources one call declares through the loops around it, each read once
# Expressions one program's reading evaluates: a name of names of lists (6**12 strings) ends unknown, not in a hang.
BUDGET = 200_000
_VERSION = re.compile(r"^v\d+((alpha|beta)\d+)?$")


class Unknown:
    """A value the program computes at run time; ``hint`` names it in the fill-in ``${hint}``."""

    __slots__ = ("hint",)

    def __init__(self, hint: str = "pulumi_output") -> None:
        self.hint = re.sub(r"\W+", "_", hint).strip("_")[:60] or "pulumi_output"


class ProgramUnread(LoadError):
    """A program that imports the Kubernetes provider but does not parse: S27's advice ("template" kind), since the
    parser (tree-sitter's grammar, this Python's ``ast``) may lag the language the program is written in."""

    kind = "template"


class ProgramCall(NamedTuple):
    """One call of a Kubernetes provider class: its path under the package (``("apps", "v1", "Deployment")``), its
    resource name and args as evaluated (Unknown where the program computes them), and its line (from 1)."""

    path: tuple[str, ...]
    name: Any
    args: Any
    line: int


def finished(value: Any) -> Any:
    """``value`` with each Unknown as its fill-in text; a mapping entry whose key is unknown is left out."""
    if isinstance(value, Unknown):
        return "${" + value.hint + "}"
    if isinstance(value, dict):
        return {k: finished(v) for k, v in value.items() if isinstance(k, str)}
    if isinstance(value, list):
        return [finished(v) for v in value]
    return value


def _api_version(group: str, version: str) -> str:
    full = _GROUPS.get(group, f"{group}.k8s.io")
    return f"{full}/{version}" if full else version


# The provider's mark on an object it named (pulumi/pulumi-kubernetes v4.32.0 provider/pkg/metadata/naming.go:28-53).
AUTONAMED = "pulumi.com/autonamed"


def _named(metadata: Any, name: Any) -> dict:
    """Metadata with the resource's name where the args name none. The provider then applies ``<name>-<random>``
    (naming.go AssignNameIfAutonamable: prefix ``urn.Name() + "-"``) and marks it AUTONAMED; the resource's name is
    kept here, as the name reports and ``x.metadata.name`` use, and a rule that needs the applied name (a Service's
    link variables: policies/vllm/service_links_port.py) reads the mark."""
    meta = dict(metadata) if isinstance(metadata, dict) else {}
    if not isinstance(meta.get("name"), str) and not isinstance(meta.get("generateName"), str):
        annotations = meta.get("annotations", {})
        if isinstance(annotations, dict):
            meta["annotations"] = {**annotations, AUTONAMED: "true"}
    if not isinstance(meta.get("name"), str):
        meta["name"] = name if isinstance(name, str) else Unknown("resource_name")
    if not isinstance(meta.get("namespace"), str):
        meta.pop("namespace", None)  # a namespace the program computes: where the provider's default puts it
    return meta


def resource_object(path: tuple[str, ...], name: Any, args: Any) -> Optional[dict]:
    """The object a resource class's call applies (Unknowns kept), or None for another class (a Patch, a Helm or
    YAML component, a helper of the SDK)."""
    if not isinstance(args, dict):
        args = {}
    if path == ("apiextensions", "CustomResource"):
        api, kind = args.get("apiVersion"), args.get("kind")
        if not (isinstance(api, str) and isinstance(kind, str)):
            return None
    elif len(path) == 3 and _VERSION.match(path[1]) and _KIND.match(path[2]) and path[0] not in ("helm", "yaml"):
        if path[2].endswith(("Patch", "List", "Args")):
            return None
        api, kind = _api_version(path[0], path[1]), path[2]
    else:
        return None
    body = {k: v for k, v in args.items() if k not in ("apiVersion", "kind", "metadata") and isinstance(k, str)}
    return {"apiVersion": api, "kind": kind, "metadata": _named(args.get("metadata"), name), **body}


class Evaluation:
    """What a language reader's evaluation keeps: single bindings (None for a name bound more than once), the names
    being resolved (a cycle reads as unknown) and the expressions spent against BUDGET."""

    def __init__(self) -> None:
        self.bindings: dict[str, Any] = {}
        self.resolving: set[str] = set()
        self.spent = 0

    def exhausted(self, node: Any, depth: int) -> bool:
        """Counts one expression; True when it is absent or past MAX_DEPTH or BUDGET (its value is then unknown)."""
        self.spent += 1
        return node is None or depth > MAX_DEPTH or self.spent > BUDGET

    def bound(self, name: str, evaluate: Callable[[Any, dict[str, Any], int], Any], depth: int) -> Any:
        """The value of ``name``'s single binding, evaluated in an empty scope; Unknown when it has none or is being
        resolved already."""
        binding = self.bindings.get(name)
        if binding is None or name in self.resolving:
            return Unknown(name)
        self.resolving.add(name)
        try:
            return evaluate(binding, {}, depth)
        finally:
            self.resolving.discard(name)
