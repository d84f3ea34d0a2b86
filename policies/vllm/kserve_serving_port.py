"""S51 (KServe form): a KServe serving container that declares no port listens on 8080.

KServe routes a predictor to its serving container's first declared ``containerPort``; a container that declares
none is reached on 8080: in raw deployment the predictor Service's targetPort becomes 8080 (kserve/kserve v0.20.0
pkg/controller/v1beta1/inferenceservice/reconcilers/service/service_reconciler.go:148-158,
``constants.InferenceServiceDefaultHttpPort = "8080"``, pkg/constants/constants.go:394), and Knative's queue-proxy
forwards to the user port 8080 by default. A model server that listens elsewhere (vLLM's 8000 unless ``--port``; the
engine table's ``port`` and its port setting) then gets no traffic and its predictor never becomes ready (spent set
15 robertgshaw2-neuralmagic/vllm-k8s vllm-kserve/serving-runtime.yml: ServingRuntime nm-vllm runs
vllm/vllm-openai:v0.4.2 with no ports and no --port, label filed NONE).

Judged on the container KServe routes to (the one named transformer-container, else the first: service_reconciler.go
109-116; spent set 30 opendatahub-io/caikit-tgis-serving's TGIS engine behind its caikit transformer-container is
not) of ServingRuntimes, ClusterServingRuntimes and an InferenceService's own predictor containers;
a predictor ``model`` merged with its runtime is not (the runtime holds the container). Advice: an InferenceService
that uses the runtime may add the port. Silent where the container declares a port, where the server's port is
8080, and where the port setting is a variable (``--port $(PORT)``: Knative sets PORT).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Optional

from policies.framework import Policy, Resource, unproven
from policies.kube import as_list, split_type
from policies.reading.engines import table_servers
from policies.reading.serving import engine_row
from policies.reading.vllm_args import vllm_servers

_KSERVE = "serving.kserve.io"
_KINDS = ("ServingRuntime", "ClusterServingRuntime", "InferenceService")
_DEFAULT_PORT = 8080
_TRANSFORMER = "transformer-container"  # constants.TransformerContainerName


def _served(podspec: dict, container: dict) -> bool:
    """True when KServe serves this container: the one named transformer-container, else the pod's first (kserve
    v0.20.0 service_reconciler.go:109-116)."""
    pod = [c for c in as_list(podspec.get("containers")) if isinstance(c, dict)]
    served = next((c for c in pod if c.get("name") == _TRANSFORMER), pod[0] if pod else None)
    return served is container


def _servers(resource: Resource) -> Iterator[tuple[str, dict, str, Optional[str], int]]:
    """(label, container, engine display name, port setting as written, engine default port) of each server KServe
    routes to."""
    row = engine_row("vllm")
    for server in vllm_servers(resource):
        if not server.runtime_merged and row is not None and _served(server.podspec, server.container):
            yield server.label, server.container, row.display, server.args.get("port"), row.port
    for engine in table_servers(resource):
        if engine.row is not None and _served(engine.podspec, engine.container):
            port = engine.args.get("port")
            yield engine.label, engine.container, engine.row.display, port if isinstance(port, str) else None, engine.row.port


def _check(resource: Resource, config: dict) -> list[str]:
    group, kind = split_type(resource.type)
    if group != _KSERVE or kind not in _KINDS:
        return []
    messages: list[str] = []
    for label, container, display, written, default in _servers(resource):
        if as_list(container.get("ports")) or (written is not None and "$" in written):
            continue
        try:
            port = int(written) if written is not None else default
        except ValueError:
            continue
        if port == _DEFAULT_PORT:
            continue
        messages.append(
            unproven(
                f"{label}: declares no containerPort, so KServe sends the predictor's traffic and readiness to port "
                f"{_DEFAULT_PORT} (the Service's targetPort, Knative's user port), where {display} does not listen: it "
                f"listens on {port}{'' if written else ' (its default)'}; the predictor never becomes ready; declare "
                f"ports: [{{containerPort: {port}}}] or start the server on {_DEFAULT_PORT}"
            )
        )
    return messages


POLICY = Policy(
    name="kserve-serving-port",
    description=(
        "A KServe serving container that declares no containerPort runs its model server on 8080, the port KServe "
        "and Knative send it traffic on (advice)."
    ),
    rationale=(
        "With no containerPort KServe targets 8080 (kserve v0.20.0 service_reconciler.go:148-158, "
        "InferenceServiceDefaultHttpPort); a server listening elsewhere gets no traffic and never becomes ready."
    ),
    catalog="S51",
    severity="high",
    enforcement="advisory",
    remediation_steps=(
        "Declare the server's port (ports: [{containerPort: 8000, protocol: TCP}]) on the serving container, or start "
        "the server on 8080 (--port 8080)."
    ),
    config_schema={},
    resource_types=(
        "kubernetes:serving.kserve.io/v1alpha1:ServingRuntime",
        "kubernetes:serving.kserve.io/v1alpha1:ClusterServingRuntime",
        "kubernetes:serving.kserve.io/v1beta1:InferenceService",
    ),
    check_resource=_check,
)
