"""G10: a CPU-only Ollama whose memory limit is below the model its clients ask it for (advice).

Ollama loads a model when a request names it, so the model a server loads is often written only in its clients: a
backend's LLM_MODEL or MODEL_NAME, an OLLAMA_MODEL, a ConfigMap they read, whose URL reaches a Service of the files in
front of the server (the client machinery of S57 ollama-client-model-pulled, ``client_asks``). A server handed no GPU
(``policies.reading.ollama_weights.assigned_gpu``) holds the weights in its own memory (ollama/ollama v0.5.4
llm/server.go:247-255, mmap off for CPU loads), inside the container's memory limit, so a limit below the weights is
OOM-killed at load or the load is refused, and the client's requests never get an answer. The size is the estimate
G10's pulled form uses (``policies.reading.cpu_model_memory.ollama_estimate``: the tag's parameter count, else the
library table's size for the bare name, at 4.5 bits per weight when no quantization is named).

Spent set 83 sungendary/smart-traffic-assistant k8s/llm-deployment.yaml (limit 1.5Gi; ConfigMap dating-app-config
LLM_BASE_URL http://llm:11434, LLM_MODEL llama3) and NiranEC77/documentation-improver k8s/llm-deployment.yaml (limit
1Gi; the backend's MODEL_NAME codellama:7b to documentation-improver-llm-service:11434), both labelled G10.

Advice, as G10's pulled form is (the estimate is not the file). A model the server pulls itself is that form's
(policies/reading/cpu_model_memory.py), not repeated here; a server that selects or tolerates GPU nodes, a limit a
LimitRange fills in, and a client whose URL reaches no Service of the files in front of the server are left alone.
"""

from __future__ import annotations

from components.ollama_library import published_size
from policies.framework import Policy, Resource, unproven
from policies.kube import WORKLOAD_TYPES, as_quantity, get
from policies.models.ollama_client_model_pulled import client_asks
from policies.reading import route_path
from policies.reading.cpu_model_memory import ollama_estimate
from policies.reading.engines import table_servers
from policies.reading.ollama_pulls import api_pulls, model_key, pod_pulls
from policies.reading.ollama_weights import assigned_gpu, selects_gpu_nodes
from policies.reading.serving import namespace_of


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    workloads = [r for r in resources if r.type in WORKLOAD_TYPES and isinstance(r.props, dict)]
    servers = [(r, s) for r in workloads for s in table_servers(r, "ollama")]
    if not servers:
        return []
    serving = {id(s.container) for _, s in servers}
    selectors = route_path.service_selectors(resources)
    findings: list[tuple[str, str]] = []
    for r, server in servers:
        if assigned_gpu(server.podspec) or selects_gpu_nodes(server.podspec):
            continue
        written = get(server.container, "resources", "limits", "memory")
        limit = as_quantity(written)
        if limit is None:
            continue
        hosts = {(host.lower(), namespace_of(r)) for host in route_path.workload_services(r, selectors)}
        if not hosts:
            continue
        pulled = {model_key(m) for m in pod_pulls(server.podspec) + api_pulls(server.podspec)}
        said: set[str] = set()
        for _name, where, model, reaches in client_asks(resources, workloads, serving, hosts):
            key = model_key(model)
            if not reaches or key in pulled or key in said:
                continue
            size = ollama_estimate(model)
            if size is None or size <= limit:
                continue
            said.add(key)
            how = "as the Ollama library publishes it" if published_size(model) is not None else "estimated from its name"
            findings.append(
                (
                    r.name,
                    unproven(
                        f"{server.label}: this Ollama server holds no GPU and its memory limit is {written}, but "
                        f"{where} asks it for {model}, whose weights alone are about {size / 2**30:.1f} GiB ({how}): "
                        f"a CPU server holds the weights in its own memory, so loading {model} is "
                        f"OOM-killed or refused and the client's requests are never answered; raise the memory limit "
                        f"above the model plus its context cache, or ask for a smaller model"
                    ),
                )
            )
    return findings


POLICY = Policy(
    name="ollama-client-model-fits",
    description=(
        "A CPU-only Ollama's memory limit holds the model its clients ask it for (a backend's LLM_MODEL, MODEL_NAME or "
        "OLLAMA_MODEL reaching it through a Service of the files); a smaller limit is OOM-killed at load (advice)."
    ),
    catalog="G10",
    severity="medium",
    enforcement="advisory",
    remediation_steps=(
        "Raise the Ollama container's memory limit above the weights of the model its clients ask for plus its "
        "context cache, give it a GPU, or have the clients ask for a smaller model."
    ),
    check_stack=_check,
    rationale=(
        "Ollama loads the model a request names; on CPU it reads the weights into memory (ollama/ollama v0.5.4 "
        "llm/server.go:247-255), which counts against the container's memory limit "
        "(https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/)."
    ),
)
