"""The serving containers of a workload: the containers a caller of the model API reaches first.

A model server (any engine of the engine table, in any pod template the readers reach: Deployment, StatefulSet, Pod,
LWS, Ray groups, KServe predictor or runtime, operator CRs), a serving-path app (an LLM proxy or router,
components/serving_apps.toml) or a chat UI (components/chat_uis.toml: Open WebUI), each once, with what it is for
messages. A native sidecar (an init container with ``restartPolicy: Always``) running one of them counts (spent set 77
CivicPulse/geo-api k8s/base/deployment.yaml, an Ollama native sidecar). Read by G27 serving-privilege-escalation and
G26 no-privileged (seccomp Unconfined on a serving container).
"""

from __future__ import annotations

from typing import Any

from policies.kube import as_list, is_ray, memoized, pod_specs
from policies.reading.chat_ui_backends import ui_app
from policies.reading.gateway_apps import app_containers, app_of
from policies.reading.serving import engine_row, model_server_engine, model_servers
from policies.reading.workload_pods import native_sidecars


def serving_containers(resource: Any) -> list[tuple[str, dict, str]]:
    """(pod path, container, what it is) of the workload's serving containers: model servers, serving-path apps and
    chat UIs, each once, native sidecars included."""
    return list(memoized(resource, "serving_containers", _serving))


def _serving(resource: Any) -> list[tuple[str, dict, str]]:
    out: list[tuple[str, dict, str]] = []
    seen: set[int] = set()
    for server in model_servers(resource):
        if id(server.container) not in seen:
            seen.add(id(server.container))
            row = engine_row(server.engine)
            out.append((server.path, server.container, f"{row.display if row else server.engine} server"))
    for app in app_containers(resource):
        if id(app.container) not in seen:
            seen.add(id(app.container))
            out.append((app.path, app.container, app.app.display))
    ray = is_ray(resource.type)
    for path, podspec in pod_specs(resource):
        for container in (c for c in as_list(podspec.get("containers")) if isinstance(c, dict)):
            ui = ui_app(container)
            if ui is not None and id(container) not in seen:
                seen.add(id(container))
                out.append((path, container, ui.display))
        # A native sidecar (an init container with restartPolicy Always) runs for the pod's life beside the main
        # containers (https://kubernetes.io/docs/concepts/workloads/pods/sidecar-containers/): a model server, app or
        # chat UI run there takes requests as one in ``containers`` does (spent set 77 CivicPulse/geo-api
        # k8s/base/deployment.yaml, an Ollama native sidecar with no securityContext).
        for container in native_sidecars(podspec):
            if id(container) in seen:
                continue
            engine = model_server_engine(container, ray=ray)
            row = engine_row(engine) if engine else None
            kind = app_of(container) or ui_app(container)
            what = f"{row.display if row else engine} server" if engine else kind.display if kind else None
            if what is not None:
                seen.add(id(container))
                out.append((path, container, f"{what} (a native sidecar)"))
    return out


__all__ = ["serving_containers"]
