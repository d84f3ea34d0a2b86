"""G58: an object is defined once among the files of one folder.

Kubernetes identifies an object by its API group, kind, namespace and name. ``kubectl apply -f FOLDER`` applies the
folder's files one after the other, in the lexical order of a directory walk (kubernetes/cli-runtime v0.34.0
pkg/resource/visitor.go:506-537 ExpandPathsToFileVisitors walks the folder with filepath.Walk, which visits a
directory's entries in lexical order), and the documents of a file in their order; a second definition of the same
object is applied over the first, so only the definition applied last runs. Two files of one folder that define the
same Deployment, Service or ConfigMap with different content are therefore two models, selectors or settings of which
one silently replaces the other. Spent set 28: brayanpena530/multiLLM-EKS-Deploy@70aa73e services/mistral.yaml and
vllm.yaml@e121a0b both define Deployment/vllm and Service/vllm in one namespace (the TinyLlama one replaces Mistral);
sebassem/vllm-aks@168760d infra/manifests/vllm-service.yml redefines the Service/vllm-service of vllm-deployment.yml
with another selector.

Advice: a folder may hold alternatives meant to be applied one at a time (a README says which). Silent for identical
copies (one object), for a Kustomize patch and its base (a patch restates its base's name by design), for objects of
different folders (policies/scopes.py checks those as separate clusters) and for objects rendered from templates.
The definitions are read from ``Resource.redefined`` (policies/check.py fills it; policies/scopes.py checks each
definition beside the rest of its folder).
"""

from __future__ import annotations

import os
from typing import Any

from policies.framework import Policy, Resource
from policies.kube import get


def _place(file: str, line: int, field: str) -> str:
    return f"{os.path.basename(file)} (line {line}" + (f", differing at {field})" if field else ")")


def _message(resource: Resource, others: tuple[Any, ...]) -> str:
    kind, name = get(resource.props, "kind"), get(resource.props, "metadata", "name")
    namespace = get(resource.props, "metadata", "namespace")
    where = f"{namespace}/{name}" if isinstance(namespace, str) and namespace else str(name)
    places = ", ".join(_place(file, line, field) for file, line, field, _ in others)
    later = [o for o in others if o[3]]
    if later:
        last = os.path.basename(later[-1][0])
        outcome = f"{last}'s definition, applied after this one, replaces it and this one does not stay"
    else:
        outcome = "this definition, applied last, replaces the other" + ("s" if len(others) > 1 else "")
    return (
        f"{kind} {where} is defined again with other content in {places}: `kubectl apply -f` on the folder applies "
        f"its files in name order, so {outcome}; give each its own name, or keep one definition"
    )


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    return [(r.name, _message(r, r.redefined)) for r in resources if r.redefined and isinstance(r.props, dict)]


POLICY = Policy(
    name="object-defined-once",
    description="An object (kind, namespace and name) is defined once among the files of a folder: applying the "
    "folder keeps only the definition applied last, so a second definition with other content silently replaces the "
    "first (advice: a folder may hold alternatives applied one at a time).",
    catalog="G58",
    severity="medium",
    enforcement="advisory",
    remediation_steps="Give each object its own name (a model's Deployment and Service named after the model), or "
    "keep one definition and delete the other; move alternatives meant to be applied one at a time to folders of "
    "their own.",
    config_schema={},
    check_stack=_check,
    per_object=True,
    rationale=(
        "kubectl apply -f FOLDER applies the files in lexical order (kubernetes/cli-runtime pkg/resource/visitor.go "
        "ExpandPathsToFileVisitors, filepath.Walk) and a later definition of the same object replaces the earlier: "
        "two models or two selectors under one name leave only the last."
    ),
)
