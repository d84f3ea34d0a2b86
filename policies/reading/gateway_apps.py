"""Serving-path apps in someone else's manifests: the containers of LLM proxies, routers and gateways that take the
model API in front of model servers (components/serving_apps.toml: LiteLLM's proxy, vLLM's production-stack router,
vLLM's semantic-router, AIBrix's gateway plugins).

A container runs an app when its image is the app's (components.images.names_image on the row's ``images``; or the
image repository's last path segment is one of the row's ``names``, alone, followed by - or _, or after a project's
own prefix and - or _: ``aegisos-litellm``, spent set 84 rjmad1/AegisOS k8s/litellm-deployment.yaml), or one of the
first three tokens of its command line is one of the row's ``commands`` (by file name) or starts one of its
``modules``. Only pods that serve for as long as they run are app pods (not a Job's, nor restartPolicy Never or
OnFailure): a one-off `litellm --test` run takes no traffic.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Optional

from components.images import names_image
from components.serving_apps import APPS, App
from policies.kube import container_label, containers, memoized, pod_specs, split_type
from policies.reading.serving import container_argv


def _repository_name(image: str) -> str:
    """The last path segment of an image reference's repository (no tag, no digest), lower case."""
    reference = image.split("@", 1)[0].lower()
    last = reference.rsplit("/", 1)[-1]
    return last.split(":", 1)[0]


def app_of(container: Mapping) -> Optional[App]:
    """The serving-path app a container runs (components/serving_apps.toml), or None."""
    image = container.get("image")
    words = tuple(posixpath.basename(t) for t in container_argv(container)[:3])
    return _app_for(image if isinstance(image, str) else "", words)


@lru_cache(maxsize=1024)
def _app_for(image: str, words: tuple[str, ...]) -> Optional[App]:
    name = _repository_name(image) if image else ""
    for app in APPS:
        if image and names_image(image, app.images):
            return app
        if name and any(name == n or name.startswith((f"{n}-", f"{n}_")) or name.endswith((f"-{n}", f"_{n}")) for n in app.names):
            return app
        if any(w in app.commands for w in words) or any(w.startswith(m) for w in words for m in app.modules):
            return app
    return None


@dataclass(frozen=True)
class AppContainer:
    """One container of a serving-path app: where it is, its pod spec, and the app's row."""

    path: str
    podspec: dict
    container: dict
    app: App

    @property
    def label(self) -> str:
        """How messages name this container."""
        return container_label(self.path, self.container)


_RUN_ONCE = ("Job", "CronJob")


def app_containers(resource: Any) -> list[AppContainer]:
    """The serving-path app containers of a workload's long-running pods, in document order."""
    return list(memoized(resource, "gateway_apps", _app_containers))


def _app_containers(resource: Any) -> list[AppContainer]:
    if split_type(getattr(resource, "type", ""))[1] in _RUN_ONCE:
        return []
    found = []
    for path, podspec in pod_specs(resource):
        if podspec.get("restartPolicy") in ("Never", "OnFailure"):
            continue
        for container in containers(podspec):
            app = app_of(container)
            if app is not None:
                found.append(AppContainer(path, podspec, container, app))
    return found
