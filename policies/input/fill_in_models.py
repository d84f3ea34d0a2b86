"""S27 (companion to manifest-is-kubernetes): a vLLM server told to serve a fill-in, not a model.

``--model placeholder-local-model`` (or ``your-model-name``, ``<model>``, ``REPLACE_ME``) is what a template's author
left for the user to fill in; vLLM takes a model argument that is not a directory for a Hugging Face repository id and
exits when the Hub has no such repository (a name with no ``org/`` is none a user can create). Where the fill-in
sits in a ConfigMap the server reads through ``$(VAR)`` (fresh set 47: SecureCloudOps/llm-rag-infra-platform
k8s/vllm/configmap.yaml ``MODEL_NAME: "placeholder-local-model"``, passed by k8s/vllm/deployment.yaml as
``--model $(MODEL_NAME)``, labelled S27 on the ConfigMap), the finding names the ConfigMap's key, on the ConfigMap:
that is the line to edit. Advisory, as manifest-is-kubernetes: the file says it is meant to be edited.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping

from policies.framework import Policy, Resource
from policies.kube import as_list, get, metadata_name, name_of, split_type
from policies.reading.fill_in_names import fill_in_model
from policies.reading.placeholders import placeholder_in
from policies.reading.vllm_args import served_model, vllm_servers

_VAR_REF = re.compile(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)")


def _raw_model_refs(container: Mapping) -> set[str]:
    """The variables a container's raw command line references ($(VAR)), the kubelet's own expansion."""
    tokens = [t for key in ("command", "args") for t in as_list(container.get(key)) if isinstance(t, str)]
    return {m.group(1) for t in tokens for m in _VAR_REF.finditer(t)}


def _config_map_key(container: Mapping, variable: str) -> tuple[str, str] | None:
    """(ConfigMap name, key) a container's variable comes from: an env configMapKeyRef, else an envFrom configMapRef
    (with its prefix). None when the variable is set otherwise."""
    for item in as_list(container.get("env")):
        if isinstance(item, Mapping) and item.get("name") == variable:
            ref = get(item, "valueFrom", "configMapKeyRef")
            name = name_of(ref) if isinstance(ref, Mapping) else None
            return (name, str(get(ref, "key"))) if name else None
    for source in reversed(as_list(container.get("envFrom"))):
        ref = get(source, "configMapRef")
        prefix = get(source, "prefix") if isinstance(get(source, "prefix"), str) else ""
        name = name_of(ref) if isinstance(ref, Mapping) else None
        if name and variable.startswith(prefix):
            return name, variable[len(prefix) :]
    return None


def _fill_ins(resources: list[Resource]) -> Iterator[tuple[str, str]]:
    maps = {metadata_name(r.props): r for r in resources if r.type == "kubernetes:core/v1:ConfigMap"}
    for resource in resources:
        for server in vllm_servers(resource):
            model = served_model(server)
            if server.runtime_merged or not isinstance(model, str) or not fill_in_model(model):
                continue
            workload = f"{split_type(resource.type)[1]}/{get(resource.props, 'metadata', 'name') or resource.name}"
            source = None
            for variable in sorted(_raw_model_refs(server.container)):
                found = _config_map_key(server.container, variable)
                holder = maps.get(found[0]) if found else None
                if found and holder is not None and get(holder.props, "data", found[1]) == model:
                    source = (holder, found[1], variable)
            why = (
                "vLLM takes it for a Hugging Face repository id, finds none, and exits; set the model's Hub id or "
                "the path of its weights"
            )
            if source is not None:
                holder, key, variable = source
                yield (
                    holder.name,
                    (
                        f"data.{key}: {model} is a fill-in, not a model, and {workload} {server.label} serves it as its "
                        f"model through $({variable}); {why}"
                    ),
                )
            elif placeholder_in(model, table=False) is None:  # (a placeholder of its own is manifest-is-kubernetes's to name)
                yield resource.name, f"{server.label}: the model {model} is a fill-in, not a model; {why}"


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    return list(dict.fromkeys(_fill_ins(resources)))


POLICY = Policy(
    name="model-is-not-a-fill-in",
    description=(
        "A vLLM server's model is not a template's fill-in (placeholder-local-model, your-model-name, <model>), "
        "written in its arguments or in the ConfigMap key it reads through $(VAR)."
    ),
    catalog="S27",
    severity="low",
    enforcement="advisory",
    remediation_steps="Set the model to its Hugging Face id (org/name) or the path of its weights in the volume.",
    check_stack=_check,
    rationale=(
        "vLLM resolves a model argument that is not a local directory on the Hugging Face Hub "
        "(https://docs.vllm.ai/en/stable/serving/engine_args.html --model) and stops when it is not found; the kubelet "
        "expands $(VAR) in args from the container's environment, envFrom ConfigMaps included "
        "(https://kubernetes.io/docs/tasks/inject-data-application/define-interdependent-environment-variables/)."
    ),
)
