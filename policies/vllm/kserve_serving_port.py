"""S51 (KServe form): the KServe serving container listens on the port KServe sends its traffic to.

KServe routes a predictor to its serving container's first declared ``containerPort``; a container that declares
none is reached on 8080: in raw deployment the predictor Service's targetPort becomes 8080 (kserve/kserve v0.20.0
pkg/controller/v1beta1/inferenceservice/reconcilers/service/service_reconciler.go:148-158,
``constants.InferenceServiceDefaultHttpPort = "8080"``, pkg/constants/constants.go:394), and Knative's queue-proxy
forwards to the user port (the first containerPort, else 8080: knative/serving knative-v1.19.9
pkg/reconciler/revision/resources/deploy.go L309-317). A model server that listens elsewhere (vLLM's 8000 unless
``--port``; the engine table's ``port`` and its port setting) then gets no traffic and its predictor never becomes
ready (spent set 15 robertgshaw2-neuralmagic/vllm-k8s vllm-kserve/serving-runtime.yml: ServingRuntime nm-vllm runs
vllm/vllm-openai:v0.4.2 with no ports and no --port, label filed NONE).

Where the server listens: its port flag, else its port variable in the container's env, else the port the
publisher's images set through that variable (the engine table's ``image_port``: TGI's Dockerfiles ENV PORT=80, while
the launcher's own default is 3000), else the table's ``port``. Knative sets PORT to the user port in the serving
container (deploy.go L285-291, L344-348), so an engine that reads PORT (TGI) listens where Knative routes in Serverless
mode and only in RawDeployment/Standard mode keeps its image's 80 (spent set 54 questcollector/llmops-manifests
inference.yaml: TGI 2.0 declaring containerPort 8080, labelled S51).

Judged on the container KServe routes to (the one named transformer-container, else the first: service_reconciler.go
109-116; spent set 30 opendatahub-io/caikit-tgis-serving's TGIS engine behind its caikit transformer-container is
not) of ServingRuntimes, ClusterServingRuntimes and an InferenceService's own predictor containers;
a predictor ``model`` merged with its runtime is not (the runtime holds the container). Advice, except on an
InferenceService's own container whose mode annotation, publisher's image at a release read, and settings prove every
request refused. Silent where the port setting is a variable (``--port $(PORT)``), the short ``-p`` is given, or the
environment may come from elsewhere (``envFrom``) for an engine with a port variable.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Optional

from components.image_contents import release
from components.images import image_tag
from components.serving_engines import Engine
from policies.framework import Policy, Resource, unproven
from policies.kube import KNATIVE_MODES, KSERVE_DEPLOYMENT_MODE, annotations_of, as_dict, as_list, port_number, split_type
from policies.reading.container_env import unset_port
from policies.reading.engines import table_servers
from policies.reading.serving import container_argv, engine_row
from policies.reading.vllm_args import vllm_servers

_KSERVE = "serving.kserve.io"
_KINDS = ("ServingRuntime", "ClusterServingRuntime", "InferenceService")
_DEFAULT_PORT = 8080
_TRANSFORMER = "transformer-container"  # constants.TransformerContainerName
_RAW_MODES = ("RawDeployment", "Standard")


def _served(podspec: dict, container: dict) -> bool:
    """True when KServe serves this container: the one named transformer-container, else the pod's first (kserve
    v0.20.0 service_reconciler.go:109-116)."""
    pod = [c for c in as_list(podspec.get("containers")) if isinstance(c, dict)]
    served = next((c for c in pod if c.get("name") == _TRANSFORMER), pod[0] if pod else None)
    return served is container


def _servers(resource: Resource) -> Iterator[tuple[str, dict, Engine, Optional[str]]]:
    """(label, container, engine row, port setting as written) of each server KServe routes to."""
    row = engine_row("vllm")
    for server in vllm_servers(resource):
        if not server.runtime_merged and row is not None and _served(server.podspec, server.container):
            yield server.label, server.container, row, server.args.get("port")
    for engine in table_servers(resource):
        if engine.row is not None and _served(engine.podspec, engine.container):
            port = engine.args.get("port")
            yield engine.label, engine.container, engine.row, port if isinstance(port, str) else None


def _listens(container: dict, row: Engine, written: Optional[str]) -> Optional[tuple[int, str, bool]]:
    """(port, how it is set, whether it reads the port variable Knative sets) of the server, or None when the files
    do not show it (a variable, the short -p, an envFrom that may hold the port variable, a rebuilt image)."""
    variables = row.env.get("port", ())
    reads_port = "PORT" in variables
    if written is not None:
        if "$" in written:
            return None
        number = port_number(written)
        flag = any(t.startswith(row.spelling("port")) for t in container_argv(container)) or not variables
        return (number, f"--port {written}" if flag else f"env {variables[0]}={written}", False) if number else None
    if any(t == "-p" or (t.startswith("-p") and t[2:].isdigit()) for t in container_argv(container)):
        return None
    found = unset_port(container, row)
    return (found[0], "its default" if found[1].startswith("its default") else found[1], reads_port) if found else None


def _proven_image(container: dict, row: Engine) -> bool:
    """The publisher's image at a release whose Dockerfile was read (up to the row's release)."""
    tag = image_tag(str(container.get("image") or "").lower()) or ""
    version, last = release(tag), release(row.release)
    return version is not None and last is not None and version <= last


def _check(resource: Resource, config: dict) -> list[str]:
    group, kind = split_type(resource.type)
    if group != _KSERVE or kind not in _KINDS:
        return []
    mode = annotations_of(resource.props).get(KSERVE_DEPLOYMENT_MODE) if kind == "InferenceService" else None
    messages: list[str] = []
    for label, container, row, written in _servers(resource):
        ports = [port_number(as_dict(p).get("containerPort")) for p in as_list(container.get("ports"))]
        if ports and ports[0] is None:
            continue
        target = ports[0] if ports else _DEFAULT_PORT
        found = _listens(container, row, written)
        if found is None or found[0] == target:
            continue
        port, how, reads_port = found
        if reads_port and mode in KNATIVE_MODES:
            continue  # Knative sets PORT to the user port in the serving container
        routed = (
            f"declares containerPort {target}, so KServe sends the predictor's traffic and readiness there"
            if ports
            else f"declares no containerPort, so KServe sends the predictor's traffic and readiness to port {target} (the Service's targetPort, Knative's user port)"
        )
        fix = (
            f"start the server on {target} (--port {target}) or declare containerPort {port} first"
            if ports
            else f"declare ports: [{{containerPort: {port}}}] or start the server on {target}"
        )
        if reads_port and mode not in _RAW_MODES:
            messages.append(
                unproven(
                    f"{label}: {routed}, while {row.display} listens on {port} ({how}) unless Knative sets PORT: in "
                    f"Serverless mode Knative gives the container PORT={target}, but with no deploymentMode annotation "
                    f"the cluster's default decides, and in RawDeployment/Standard mode nothing listens on {target} and "
                    f"the predictor never becomes ready; {fix}"
                )
            )
            continue
        message = (
            f"{label}: {routed}, where {row.display} does not listen: it listens on {port} ({how})"
            f"{f' in deploymentMode {mode}' if mode in _RAW_MODES else ''}; the predictor never becomes ready; {fix}"
        )
        proven = kind == "InferenceService" and not container.get("command") and _proven_image(container, row)
        messages.append(message if proven and mode in _RAW_MODES else unproven(message))
    return messages


POLICY = Policy(
    name="kserve-serving-port",
    description=(
        "A KServe serving container's model server listens on the port KServe and Knative send it traffic on: its "
        "first containerPort, else 8080 (blocking where the files prove it does not)."
    ),
    rationale=(
        "With no containerPort KServe targets 8080 (kserve v0.20.0 service_reconciler.go:148-158, "
        "InferenceServiceDefaultHttpPort); a server listening elsewhere gets no traffic and never becomes ready."
    ),
    catalog="S51",
    severity="high",
    enforcement="mandatory",
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
