"""The serving containers of a workload: the containers a caller of the model API reaches first.

A model server (any engine of the engine table, in any pod template the readers reach: Deployment, StatefulSet, Pod,
LWS, Ray groups, KServe predictor or runtime, operator CRs), a serving-path app (an LLM proxy or router,
components/serving_apps.toml) or a chat UI (components/chat_uis.toml: Open WebUI), each once, with what it is for
messages. A native sidecar (an init container with ``restartPolicy: Always``) running one of them counts (spent set 77
CivicPulse/geo-api k8s/base/deployment.yaml, an Ollama native sidecar). Read by G27 serving-privilege-escalation and
G26 no-privileged (seccomp Unconfined on a serving container).

``spec_security_contexts``: an operator's custom resource with no pod template of its own that names an engine image
(``spec.image``, or one level down) and hands a security context to the pod it renders (``spec.podSecurityContext``,
``spec.securityContext``, ``spec.containerSecurityContext``: spent set 91 Tanguille/cluster@7caefd26
kubernetes/apps/ai/llmkube/models/qwen38-27b-vllm.yaml, an llmkube InferenceService). Read by G26 and G28.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from policies.kube import as_dict, as_list, get, is_custom_type, is_ray, memoized, pod_specs
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


# Keys of an operator CR's spec that hold the security context it hands to the pod it renders.
_CONTEXT_KEYS = ("podSecurityContext", "securityContext", "containerSecurityContext")


@dataclass(frozen=True)
class SpecContext:
    """A security context an engine CR's spec hands to the server its operator renders."""

    key: str  # spec.<key>
    context: Mapping
    engine: str
    images: tuple[str, ...]

    @property
    def what(self) -> str:
        """The server, as messages name it ("vLLM server")."""
        row = engine_row(self.engine)
        return f"{row.display if row else self.engine} server"


def _spec_images(spec: Mapping) -> Iterator[str]:
    """The image references a CR's spec names at its top level or one level down (spec.image, spec.server.image)."""
    for key, value in spec.items():
        if key == "image" and isinstance(value, str):
            yield value
        elif isinstance(value, Mapping) and isinstance(value.get("image"), str):
            yield value["image"]


def spec_security_contexts(resource: Any) -> list[SpecContext]:
    """The security contexts an engine CR with no pod template of its own hands to the server it renders."""
    if not is_custom_type(getattr(resource, "type", "")) or not isinstance(resource.props, dict):
        return []
    if next(iter(pod_specs(resource)), None) is not None:
        return []
    spec = as_dict(get(resource.props, "spec"))
    contexts = [(key, spec[key]) for key in _CONTEXT_KEYS if isinstance(spec.get(key), Mapping)]
    if not contexts:
        return []
    images = tuple(_spec_images(spec))
    engine = next((e for e in (model_server_engine({"image": i}) for i in images) if e), None)
    if engine is None:
        return []
    return [SpecContext(key, context, engine, images) for key, context in contexts]


__all__ = ["SpecContext", "serving_containers", "spec_security_contexts"]
