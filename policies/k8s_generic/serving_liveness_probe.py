"""G5: a model server (and a chat UI in front of one) has a livenessProbe.

The kubelet restarts a container on its own only when its process exits; a server that hangs with its process alive (an
engine stuck in a collective operation, a deadlocked event loop, a GPU fault that leaves the API process up) keeps its
pod, and with a readinessProbe alone the pod just leaves the Service and stays out of it: serving capacity is lost
until someone deletes the pod. A livenessProbe is what restarts it
(https://kubernetes.io/docs/concepts/configuration/liveness-readiness-startup-probes/: "liveness probes to know when to
restart a container ... a deadlock, where an application is running, but unable to make progress"). The catalogue
adapts the generic row: the liveness probe must wait out the model's load, which a startupProbe does (S16 judges its
budget), so the advice names both.

Read for every model server the pack recognises (the engine table's rows, in every pod template the readers reach:
Deployments, StatefulSets, LeaderWorkerSets, Ray worker groups, KServe runtimes, operator resources) that takes
requests, and for a chat UI of components/chat_uis.toml (Open WebUI: GET /health on 8080) run from the publisher's
image, and for a serving-path app of components/serving_apps.toml (an LLM proxy, router or gateway: LiteLLM's proxy,
whose liveness path is its row's first ``alive_only`` path, /health/liveliness). Silent where an operator supplies the probe (KubeRay's Ray container: policies/operator_defaults.py), for a
KServe predictor ``model`` (its ServingRuntime's container is judged), and for a rank its group's leader fronts.
Judged on a model server with no livenessProbe, probed for readiness or not (the form sealed sets showed first: a plain
vLLM Deployment probed for readiness only). Session 55 (brief misses55): a model server with no probe at all was left
to G4, but labellers file the missing liveness on it too (spent set 107 dysonfrost/arkollama-k3s k8s/ollama/
deployment.yaml and set 109 wewang58/llama-cpp-example lws-example.yaml labelled G4 and G5; set 118 kubernetes/examples
@279e8e4f AI/vllm-deployment/vllm-deployment.yaml labelled G5 apart from its G4): its hung engine is
never restarted either, and with no readinessProbe it even stays in the Service. A chat UI or serving-path app is
still judged only where it is probed for readiness (G4 names its missing readiness first). Advisory: a risk, not a
failure the files prove.
"""

from __future__ import annotations

from typing import Optional

from policies.framework import Policy, Resource, unproven
from policies.kube import WORKLOAD_TYPES, container_label, containers, pod_specs
from policies.operator_defaults import supplied
from policies.reading.chat_ui_backends import ui_app
from policies.reading.gateway_apps import app_containers
from policies.reading.pod_probes import at_port, server_ports, sidecar_probe
from policies.reading.serving import ModelServer, engine_row, model_servers, takes_requests


def _has(container: dict, probe: str) -> bool:
    return isinstance(container.get(probe), dict)


def _server_message(server: ModelServer) -> str:
    row = engine_row(server.engine)
    name = row.display if row else server.engine
    probe = f"GET {row.health}{at_port(row)}" if row and row.health else "its health endpoint"
    ready = (
        "its readinessProbe only takes it out of the Service"
        if _has(server.container, "readinessProbe")
        else "with no readinessProbe either (G4) it even stays in the Service"
    )
    start = "" if _has(server.container, "startupProbe") else ", behind a startupProbe that waits out the model's load (S16)"
    return unproven(
        f"{server.label}: no livenessProbe on this {name} server: if the engine hangs with its process alive, the "
        f"kubelet never restarts it and {ready}, so the replica serves nothing until the pod is deleted; add a "
        f"livenessProbe on {probe}{start}"
    )


def _sidecar_liveness(server: ModelServer) -> Optional[str]:
    """Advice where the server has no livenessProbe and another container of its pod declares one on the server's
    port: containers share the pod's network, so the probe asks the server, but the kubelet restarts the container
    that declares a failing livenessProbe (https://kubernetes.io/docs/concepts/configuration/liveness-readiness-startup-
    probes/: "the kubelet kills the container"), so a hung server restarts the sidecar, never itself (spent set 88
    amey2025/ollama ollama_deployment_nfs.yaml: liveness and readiness on :11434 declared on the node-exporter
    sidecar, labelled G5/G7). A sidecar's readinessProbe does gate the pod (policies/reading/pod_probes.py), so only
    the liveness is said."""
    row = engine_row(server.engine)
    ports = server_ports(server.container, row.port if row else None)
    other = sidecar_probe(server.podspec, server.container, "livenessProbe", ports)
    if other is None:
        return None
    name = row.display if row else server.engine
    own = server.container.get("name") or "the server"
    return unproven(
        f"{server.label}: no livenessProbe on this {name} server; the livenessProbe on its port is declared on "
        f"container {other}, and the kubelet restarts the container whose livenessProbe fails, so a hung {name} "
        f"restarts {other}, never itself; move the livenessProbe to container {own}"
    )


def _ui_messages(resource: Resource) -> list[str]:
    found: list[str] = []
    servers = {id(s.container) for s in model_servers(resource)}  # a bundled image's server is judged as one
    for path, podspec in pod_specs(resource):
        for container in containers(podspec):
            app = ui_app(container)
            if (
                app is None
                or id(container) in servers
                or _has(container, "livenessProbe")
                or not _has(container, "readinessProbe")
            ):
                continue
            probe = f"GET {app.health} (port {app.port} unless moved)" if app.health else "its health endpoint"
            found.append(
                unproven(
                    f"{container_label(path, container)}: no livenessProbe on this {app.display}: if it hangs with its "
                    f"process alive, the kubelet never restarts it and its users get no answer until the pod is "
                    f"deleted; add a livenessProbe on {probe}"
                )
            )
    return found


def _app_messages(resource: Resource) -> list[str]:
    """Advice on each serving-path app (components/serving_apps.toml: an LLM proxy, router or gateway) probed for
    readiness only: every client request goes through it, and a proxy whose event loop hangs with its process alive
    (a stuck database pool, a blocked worker) leaves the Service and stays out of it, so the models behind it are
    unreachable until someone deletes the pod (spent set 110 pocharlies-org/k8s-litellm-pocharlies k8s/manifest.yaml
    and GuyBarros/vault_ars_minikube_keycloak_litellm deploy-k8s/litellm-gateway.yaml, both labelled G5). The probe to
    add is the row's first ``alive_only`` path (LiteLLM's /health/liveliness: the process answers, with no database
    or model call, so an outage elsewhere restarts nothing)."""
    found: list[str] = []
    servers = {id(s.container) for s in model_servers(resource)}
    for app in app_containers(resource):
        container = app.container
        if id(container) in servers or _has(container, "livenessProbe") or not _has(container, "readinessProbe"):
            continue
        if supplied(resource, app.path, app.podspec, container, "livenessProbe"):
            continue
        row = app.app
        probe = "a path that answers while its process serves"
        if row.alive_only:
            probe = f"GET {row.alive_only[0]}" + (f" (port {row.port} unless moved)" if row.port else "")
        found.append(
            unproven(
                f"{app.label}: no livenessProbe on this {row.display}: every request to the models behind it passes "
                f"through it, and if it hangs with its process alive the kubelet never restarts it while its "
                f"readinessProbe only takes it out of the Service; add a livenessProbe on {probe}"
            )
        )
    return found


def _check(resource: Resource, config: dict) -> list[str]:
    messages: list[str] = []
    seen: set[int] = set()
    for server in model_servers(resource):
        if server.engine == "kserve" or id(server.container) in seen:
            continue  # the ServingRuntime's container is judged (a predictor `model` takes its probes from it)
        seen.add(id(server.container))
        if not takes_requests(resource, server.path, server.container) or _has(server.container, "livenessProbe"):
            continue
        if elsewhere := _sidecar_liveness(server):
            messages.append(elsewhere)
            continue
        if supplied(resource, server.path, server.podspec, server.container, "livenessProbe"):
            continue
        messages.append(_server_message(server))
    return messages + _ui_messages(resource) + _app_messages(resource)


POLICY = Policy(
    name="serving-liveness-probe",
    description="A model-server container (and a chat UI such as Open WebUI, or an LLM proxy or router such as LiteLLM, "
    "probed for readiness) has a livenessProbe, so a server that hangs "
    "with its process alive is restarted (advice; the probe waits behind a startupProbe for the model's load).",
    catalog="G5",
    severity="medium",
    enforcement="advisory",
    remediation_steps=(
        "Add `livenessProbe: {httpGet: {path: /health, port: <server port>}, periodSeconds: 10, failureThreshold: 3}` to "
        "the model-server container, with a startupProbe whose budget covers the model's download and load (S16)."
    ),
    config_schema={},
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    operator_fills="a liveness probe",
    rationale=(
        "The kubelet restarts a container whose livenessProbe fails; without one only a process exit restarts it, so a "
        "hung engine keeps its pod (https://kubernetes.io/docs/concepts/configuration/liveness-readiness-startup-probes/)."
    ),
)
