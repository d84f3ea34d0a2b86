"""S59: a client of a server that loads LoRA adapters asks for an adapter, not only for the base model.

vLLM serves each ``--lora-modules NAME=PATH`` adapter under its own model name, beside the base model's
(https://docs.vllm.ai/en/stable/features/lora.html: "the adapter is served under the name given"; a request whose
``model`` is the base name runs the base weights). KServe's Hugging Face server on its vLLM backend names the base
model after the InferenceService (``--model_name`` defaults to it: kserve/kserve python/huggingfaceserver
huggingfaceserver/__main__.py, and the runtime's ``--model_name={{.Name}}``). So an application whose only model
setting is the base name never uses the fine-tuned adapter the server was deployed for. Fresh set 47
mprahl/ibm-techxchange-2025: k8s/kserve.yaml InferenceService yoda-llm loads its trained adapter as ``lora``
(``--enable-lora --lora-modules=lora=/mnt/models``, the storageUri) on meta-llama/Llama-3.2-3B-Instruct, and
k8s/app.yaml's translator sends ``MODEL_ID=yoda-llm`` to it (a NONE label: no row fitted).

Advice, on the client: a client that asks the base model on purpose is possible; the finding needs a client in the
files whose URL names the server and whose model variable is the base name, while no client asks for an adapter.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

from policies.framework import Policy, Resource
from policies.kube import as_dict, as_list, containers, get, pod_specs, split_type
from policies.reading import route_path as path
from policies.reading.engines import env_values
from policies.reading.vllm_args import VllmServer, served_model, vllm_servers

_MODEL_VARIABLE = re.compile(r"(^|_)(MODEL|MODEL_ID|MODEL_NAME|LLM_MODEL|OPENAI_MODEL)$", re.IGNORECASE)
_URL = re.compile(r"^(https?|grpc)://", re.IGNORECASE)


def _tokens(server: VllmServer) -> list[str]:
    container = server.container
    return [t for key in ("command", "args") for t in as_list(container.get(key)) if isinstance(t, str)]


def adapter_names(line: list[str]) -> list[str]:
    """The names of vLLM's ``--lora-modules`` adapters (name=path, or the JSON form), every value up to the next
    option (the flag takes several)."""
    values: list[str] = []
    i = 0
    while i < len(line):
        token = line[i]
        i += 1
        if token.startswith(("--lora-modules=", "--lora_modules=")):
            values.append(token.split("=", 1)[1])
        elif token in ("--lora-modules", "--lora_modules"):
            while i < len(line) and not line[i].startswith("-"):
                values.append(line[i])
                i += 1
    names = []
    for value in values:
        if value.lstrip().startswith("{"):
            try:
                name = as_dict(json.loads(value)).get("name")
            except ValueError:
                name = None
        else:
            name = value.split("=", 1)[0] if "=" in value else None
        if isinstance(name, str) and name:
            names.append(name)
    return names


def _base_names(resource: Resource, server: VllmServer) -> set[str]:
    """The names the server answers for its base model."""
    names = set()
    served = server.args.get("served-model-name")
    if isinstance(served, str) and served:
        names.update(served.split())
    elif server.runtime_merged:
        # KServe's Hugging Face server: --model_name, else the InferenceService's name.
        given = server.args.get("model_name") or server.args.get("model-name")
        name = given if isinstance(given, str) and given else get(resource.props, "metadata", "name")
        if isinstance(name, str):
            names.add(name)
    else:
        model = served_model(server)
        if isinstance(model, str):
            names.add(model)
    return names


def _servers(resources: list[Resource]) -> Iterator[tuple[Resource, str, set[str], list[str]]]:
    """(resource, server name, base names, adapter names) of every vLLM server that loads LoRA adapters."""
    for resource in resources:
        for server in vllm_servers(resource):
            adapters = adapter_names(_tokens(server))
            if adapters:
                name = get(resource.props, "metadata", "name") or resource.name
                yield resource, str(name), _base_names(resource, server), adapters


def _reach_names(resources: list[Resource], owner: Resource, name: str) -> set[str]:
    """The names a client's URL may carry for a server: its own, KServe's ``<name>-predictor`` Service, and an
    OpenShift Route or a Service of the files that leads to one of those (a Route's host defaults to
    ``<route>-<namespace>.<apps domain>``, https://docs.openshift.com/container-platform/latest/networking/routes/
    route-configuration.html)."""
    names = {name, f"{name}-predictor"} | path.workload_services(owner, path.service_selectors(resources))
    for r in resources:
        if split_type(r.type) == ("route.openshift.io", "Route") and get(r.props, "spec", "to", "name") in names:
            route = get(r.props, "metadata", "name")
            host = get(r.props, "spec", "host")
            names.update(v for v in (route, host) if isinstance(v, str) and v)
    return names


def _names_server(url: str, names: set[str]) -> bool:
    host = url.split("://", 1)[-1].split("/", 1)[0].split(":", 1)[0].lower()
    first = host.split(".", 1)[0]
    return any(host == n.lower() or first == n.lower() or first.startswith(f"{n.lower()}-") for n in names)


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    servers = list(_servers(resources))
    if not servers:
        return []
    findings: list[tuple[str, str]] = []
    for resource in resources:
        for _path, podspec in pod_specs(resource):
            for container in containers(podspec):
                env = env_values(container)
                urls = [v for v in env.values() if _URL.match(v.strip())]
                asked = {k: v.strip() for k, v in env.items() if _MODEL_VARIABLE.search(k)}
                for owner, name, bases, adapters in servers:
                    reach = _reach_names(resources, owner, name)
                    if owner is resource or not any(_names_server(url, reach) for url in urls):
                        continue
                    if any(v in adapters for v in asked.values()):
                        continue
                    for variable, value in asked.items():
                        if value in bases:
                            kind = split_type(owner.type)[1]
                            findings.append(
                                (
                                    resource.name,
                                    (
                                        f"container {container.get('name')}: {variable}={value} asks {kind} {name} for "
                                        f"its base model, while it loads the LoRA adapter(s) {', '.join(adapters)}, "
                                        f"which vLLM serves only under their own names: the requests never use the "
                                        f"adapter; set {variable} to {adapters[0]}"
                                    ),
                                )
                            )
    return findings


POLICY = Policy(
    name="lora-adapter-asked-by-name",
    description=(
        "A client in the files that calls a vLLM server loading LoRA adapters (--lora-modules) asks for an adapter by "
        "its name, not only for the base model (advice)."
    ),
    catalog="S59",
    severity="medium",
    enforcement="advisory",
    remediation_steps=(
        "Set the client's model variable to the adapter's name from --lora-modules NAME=PATH (or drop the adapter if "
        "the base model is what is wanted)."
    ),
    check_stack=_check,
    rationale=(
        "vLLM registers each --lora-modules adapter as a model of its own name and runs the base weights for requests "
        "naming the base model (https://docs.vllm.ai/en/stable/features/lora.html)."
    ),
)
