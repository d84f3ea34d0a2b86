"""G69 namespace-created: a GitOps object deploys into a namespace that something of its run creates.

- Argo CD Application ``spec.destination.namespace``: Argo CD creates it only with the sync option
  ``CreateNamespace=true``; without it "the Application will fail to sync if the namespace doesn't exist"
  (argoproj/argo-cd v3.5.1 docs/user-guide/sync-options.md:450; controller/sync.go:337).
- Flux HelmRelease ``spec.targetNamespace``: helm-controller creates it only with ``spec.install.createNamespace``
  (fluxcd/helm-controller v1.6.3 api/v2/helmrelease_types.go:619-623, internal/action/install.go:102).
- Flux Kustomization ``spec.targetNamespace``: it "must exist prior to the Kustomization being applied or be defined by
  a manifest included in the Kustomization. kustomize-controller will not create the namespace automatically"
  (fluxcd/kustomize-controller v1.9.4 docs/spec/v1/kustomizations.md:259-262).

A namespace counts as created by a Namespace object of the run, an Application of the run with CreateNamespace=true
for it, or a HelmRelease of the run with install.createNamespace for it. Silent for the namespaces every cluster has
(default, kube-system, kube-public, kube-node-lease), the namespace a GitOps object of the run itself lives in (the
controller runs there), a name left for a renderer, a Helm template or Kustomize patch, and a run holding a Namespace
whose name is not literal. Judged only where the run holds what the object applies (a chart from a chart repository,
or a Git folder the run read objects from): a folder of another repository may define the Namespace itself. Advice: the namespace may be made by hand, a script or Terraform (spent set 111
rbizzell40/devops-ai-stack@ce2c605b applications/ollama.yaml and applications/ollama-models.yaml: destination namespace
ollama, no CreateNamespace=true, no Namespace ollama in the repository).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Optional

from policies.framework import Policy, Resource
from policies.kube import as_list, get, split_type
from policies.reading.run_objects import templated, unrendered

_ARGO = ("argoproj.io", "Application")
_HELM_RELEASE = ("helm.toolkit.fluxcd.io", "HelmRelease")
_FLUX_KUSTOMIZATION = ("kustomize.toolkit.fluxcd.io", "Kustomization")
_BUILTIN = frozenset({"default", "kube-system", "kube-public", "kube-node-lease"})


def _literal(value: object) -> Optional[str]:
    return value if isinstance(value, str) and value and not templated(value) and not unrendered(value) else None


def _under(path: object, files: frozenset[str]) -> bool:
    """Whether an object of the run was read from under ``path``, a folder of a Git source (a flattened copy's ``__``
    read as ``/``)."""
    folder = path.strip().strip("./").strip("/") if isinstance(path, str) else ""
    if not folder or templated(folder) or unrendered(folder):
        return False
    return any(f"/{folder}/" in f for f in files)


def _sources_read(resource: Resource, files: frozenset[str]) -> bool:
    """Whether the run holds what the GitOps object applies, so a Namespace it applies would be among the files: a
    Helm chart from a chart repository (a chart that makes its own namespace is rare), or a Git folder the run holds
    objects from. A folder of another repository, or of this one the run did not read, may hold the Namespace (Argo CD
    applies a source's Namespace first; kustomize-controller v1.9.4 docs/spec/v1/kustomizations.md:259-262 'or be
    defined by a manifest included in the Kustomization')."""
    kind = split_type(resource.type)
    spec = get(resource.props, "spec")
    if kind == _HELM_RELEASE:
        return True
    if kind == _FLUX_KUSTOMIZATION:
        return _under(get(spec, "path"), files)
    sources = [s for s in as_list(get(spec, "sources")) if isinstance(s, dict) and (s.get("chart") or s.get("path"))]
    if not sources and isinstance(get(spec, "source"), dict):
        sources = [get(spec, "source")]
    return bool(sources) and all(s.get("chart") or _under(s.get("path"), files) for s in sources)


def _target(resource: Resource) -> Optional[tuple[str, str, bool]]:
    """(namespace, field, whether the object creates it) of a GitOps object that deploys into a named namespace."""
    kind = split_type(resource.type)
    spec = get(resource.props, "spec")
    if kind == _ARGO:
        options = [str(o).replace(" ", "") for o in as_list(get(spec, "syncPolicy", "syncOptions"))]
        namespace = _literal(get(spec, "destination", "namespace"))
        return (namespace, "spec.destination.namespace", "CreateNamespace=true" in options) if namespace else None
    if kind == _HELM_RELEASE:
        namespace = _literal(get(spec, "targetNamespace"))
        return (namespace, "spec.targetNamespace", get(spec, "install", "createNamespace") is True) if namespace else None
    if kind == _FLUX_KUSTOMIZATION:
        namespace = _literal(get(spec, "targetNamespace"))
        return (namespace, "spec.targetNamespace", False) if namespace else None
    return None


def _gitops(resources: list[Resource]) -> Iterator[tuple[Resource, str, str, bool]]:
    for resource in resources:
        if isinstance(resource.props, dict) and not (resource.template or resource.patch):
            found = _target(resource)
            if found is not None:
                yield (resource, *found)


_FIX = {
    _ARGO: "add syncPolicy.syncOptions: [CreateNamespace=true] or a Namespace manifest",
    _HELM_RELEASE: "set spec.install.createNamespace: true or add a Namespace manifest",
    _FLUX_KUSTOMIZATION: "add a Namespace manifest to the Kustomization's path (kustomize-controller never creates it)",
}
_FAILS = {
    _ARGO: 'Argo CD\'s sync fails (namespaces "{ns}" not found) and nothing of the Application is created',
    _HELM_RELEASE: 'helm-controller\'s install fails (namespaces "{ns}" not found) and the release is never installed',
    _FLUX_KUSTOMIZATION: 'kustomize-controller\'s apply fails (namespaces "{ns}" not found) and none of its objects is applied',
}


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    targets = list(_gitops(resources))
    if not targets:
        return []
    namespaces = [r for r in resources if split_type(r.type) == ("", "Namespace") and isinstance(r.props, dict)]
    if any(r.template or not _literal(get(r.props, "metadata", "name")) for r in namespaces):
        return []  # a Namespace whose name the files do not fix may be any of them
    made = {get(r.props, "metadata", "name") for r in namespaces}
    made |= {ns for _, ns, _, creates in targets if creates}
    made |= {ns for r, _, _, _ in targets if isinstance(ns := get(r.props, "metadata", "namespace"), str)}
    files = frozenset(
        "/" + r.name.split("#", 1)[0].replace("\\", "/").replace("__", "/") for r in resources if isinstance(r.name, str)
    )
    findings = []
    for resource, namespace, field, creates in targets:
        if creates or namespace in made or namespace in _BUILTIN or not _sources_read(resource, files):
            continue
        kind = split_type(resource.type)
        findings.append(
            (
                resource.name,
                f"{field} {namespace}: no Namespace {namespace} among the files and nothing of them creates it, so "
                f"unless it was made by hand {_FAILS[kind].format(ns=namespace)}; {_FIX[kind]}",
            )
        )
    return findings


POLICY = Policy(
    name="namespace-created",
    description="An Argo CD Application's destination namespace, a Flux HelmRelease's or Kustomization's "
    "targetNamespace is created by something of the run (a Namespace object, CreateNamespace=true, "
    "install.createNamespace), where the run holds what it applies (a chart, or a Git folder the run read); advice: "
    "it may be made outside the files.",
    catalog="G69",
    severity="medium",
    enforcement="advisory",
    remediation_steps="Argo CD: syncPolicy.syncOptions: [CreateNamespace=true]; Flux HelmRelease: "
    "spec.install.createNamespace: true; Flux Kustomization: a Namespace manifest in its path; or a Namespace object.",
    config_schema={},
    check_stack=_check,
    rationale=(
        "Argo CD creates a destination namespace only with CreateNamespace=true (argo-cd v3.5.1 docs/user-guide/"
        "sync-options.md:450), helm-controller only with install.createNamespace (helm-controller v1.6.3 "
        "api/v2/helmrelease_types.go:619-623), kustomize-controller never (kustomize-controller v1.9.4 "
        "docs/spec/v1/kustomizations.md:259-262); the apply into a missing namespace is refused."
    ),
)
