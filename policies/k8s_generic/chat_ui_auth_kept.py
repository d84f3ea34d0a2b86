"""G87 chat-ui-auth-kept: a chat UI keeps its login on and a session signing key that outlives the container.

The settings are data (components/chat_uis.toml ``[apps.NAME.auth]``, read at Open WebUI 0.6.18, open-webui/open-webui
b8912aa67). Two forms, both advice:

- Login turned off: Open WebUI keeps its login only while ``WEBUI_AUTH`` is ``true`` in any case (backend/open_webui/
  env.py L379, ``os.environ.get("WEBUI_AUTH", "True").lower() == "true"``); any other value makes everyone who reaches
  the UI the single admin, with every model and connection key behind it. Spent set 60:
  janos-gyorgy/homelab-ai-inference-starter k8s/open-webui.yaml (WEBUI_AUTH "false", label filed NONE). The message says
  how the files publish the UI (an Ingress, a route, a LoadBalancer or NodePort Service: the same reading as G27's).
- No lasting session key: with neither ``WEBUI_SECRET_KEY`` nor ``WEBUI_JWT_SECRET_KEY`` set (the image sets the first
  empty, Dockerfile L67), the image's start script writes a random key to ``.webui_secret_key`` in /app/backend, or to
  ``WEBUI_SECRET_KEY_FILE`` (backend/start.sh L17-36), and signs every session with it. /app/backend is the image's
  folder, not the data folder (/app/backend/data, env.py L221), so a new container makes a new key: every restart logs
  everyone out, and each replica signs with its own. Spent set 65: dndeyeabsa-wq/k8s-llm-deployment
  manifests/05-deployment-webui.yaml (label filed NONE).

A rebuild of the UI under another publisher's name counts for the first form when its image repository is named as
the app's and the container writes the app's login switch (policies/reading/chat_ui_backends.py rebuilt_ui_app; session
55, spent set 116 walidshaari/sample-aws-eks-auto-mode examples/gpu/open-webui.yaml: ``kopi/openwebui@sha256:...``,
WEBUI_AUTH "False", behind an internet-facing NLB Service; labelled G87 advisory); its key file is not judged.

Silent: login on (``WEBUI_AUTH`` unset or true) for the first form, login off for the second (no session to keep), a value the files do not show (valueFrom a Secret, an envFrom source
outside the files), a pod that runs an authenticating proxy beside the UI (oauth2-proxy), a key set in any form (a
secretKeyRef included), a key file named by WEBUI_SECRET_KEY_FILE, a lasting volume (not an emptyDir) mounted over the
key file's folder, and a container that replaces the image's command (the start script may not run).
"""

from __future__ import annotations

import posixpath
from typing import Optional

from policies.framework import Policy, Resource, unproven
from policies.kube import WORKLOAD_TYPES, as_dict, as_list, container_label, get, name_of, pod_specs
from policies.reading.chat_ui_backends import App, rebuilt_ui_app, ui_app, unchecked_tag
from policies.reading.container_env import env_values, outside_env_sources
from policies.reading.engines import volume_at
from policies.reading.published import published_services
from policies.reading.serving import namespace_of, selector_matches, template_labels

# Images of proxies that authenticate callers before the UI (a sidecar in the UI's pod).
_AUTH_PROXIES = ("oauth2-proxy", "oauth2_proxy")
_FRESH = ("emptyDir", "ephemeral")


def _value(container: dict, env: dict[str, str], name: str) -> tuple[bool, Optional[str]]:
    """(set, value) of one variable: value None where it is set but the files do not show it."""
    if name in env:
        return True, env[name]
    written = next((as_dict(e) for e in as_list(container.get("env")) if name_of(as_dict(e)) == name), None)
    if written is not None:
        return True, None  # valueFrom a Secret, a field, a ConfigMap outside the files
    return False, None


def _guarded(podspec: dict) -> bool:
    return any(
        any(p in str(as_dict(c).get("image") or "").lower() for p in _AUTH_PROXIES) for c in as_list(podspec.get("containers"))
    )


def _published_by(resource: Resource, path: str, published: list[tuple[Resource, str]]) -> Optional[str]:
    labels = template_labels(resource, path)
    for service, how in published:
        first, second = namespace_of(service), namespace_of(resource)
        if first is not None and second is not None and first != second:
            continue
        selector = get(service.props, "spec", "selector")
        if isinstance(selector, dict) and selector and any(selector_matches(selector, lab, plain=True) for lab in labels):
            return f"Service {get(service.props, 'metadata', 'name')} is published ({how})"
    return None


def _auth_off(container: dict, env: dict[str, str], app: App) -> Optional[str]:
    switch = str(app.auth_fact("switch"))
    present, value = _value(container, env, switch)
    if not switch or not present or value is None:
        return None
    return value if value.strip().lower() != str(app.auth_fact("switch_on", "true")) else None


def _session_keys(app: App) -> list[str]:
    keys = app.auth_fact("session_keys", ())
    return [str(k) for k in keys] if isinstance(keys, (list, tuple)) else []


def _key_lost(podspec: dict, container: dict, env: dict[str, str], app: App) -> Optional[str]:
    """Where the generated key lands when no key is set (a message fragment), or None."""
    keys = _session_keys(app)
    default_file = str(app.auth_fact("session_key_file"))
    if not keys or not default_file:
        return None
    for key in keys:
        present, value = _value(container, env, key)
        if present and (value is None or value.strip()):
            return None
    if outside_env_sources(container):
        return None  # an envFrom source the files do not show may set it
    file_env = str(app.auth_fact("session_key_file_env"))
    if file_env and _value(container, env, file_env)[0]:
        return None
    volume = volume_at(podspec, container, posixpath.dirname(default_file))
    if volume is None:
        return f"{posixpath.dirname(default_file)}, the container's writable layer"
    if any(kind in volume for kind in _FRESH):
        return f"the emptyDir {volume.get('name')}, lost whenever the pod is replaced"
    return None


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    uis: list[tuple[Resource, str, dict, dict, App]] = []
    for resource in resources:
        if resource.type not in WORKLOAD_TYPES or not isinstance(resource.props, dict) or resource.template:
            continue
        for path, podspec in pod_specs(resource):
            for container in (c for c in as_list(podspec.get("containers")) if isinstance(c, dict)):
                app = ui_app(container) or rebuilt_ui_app(container)
                if app is not None and app.auth:
                    uis.append((resource, path, podspec, container, app))
    if not uis:
        return []
    published = published_services(resources)
    findings: list[tuple[str, str]] = []
    for resource, path, podspec, container, app in uis:
        env = env_values(container)
        label = container_label(path, container)
        tag = unchecked_tag(container, app)
        release = f" (read at {app.display} {app.checked_tags[0]}; this image is {tag})" if tag and app.checked_tags else ""
        if ui_app(container) is not app:
            release = f" (the image {container.get('image')} is a rebuild named as {app.display}'s, writing its switch)"
        value = _auth_off(container, env, app)
        if value is not None and not _guarded(podspec):
            reach = _published_by(resource, path, published) or "anyone who reaches its Service or pod in the cluster"
            findings.append(
                (
                    resource.name,
                    unproven(
                        f"{label}: {app.auth_fact('switch')}={value!r} turns {app.display}'s login off{release}: every "
                        f"caller is its single admin, with its models, connection keys and chats ({reach}); keep "
                        f"login on, or put an authenticating proxy (oauth2-proxy, an ingress auth) in front of it"
                    ),
                )
            )
        # No login: no session to keep. A rebuild's key file may lie elsewhere: only its login switch is read.
        lost = _key_lost(podspec, container, env, app) if value is None and ui_app(container) is app else None
        if lost is not None:
            keys = "/".join(_session_keys(app))
            findings.append(
                (
                    resource.name,
                    unproven(
                        f"{label}: no {keys} is set, so {app.display}'s start script generates its session signing "
                        f"key into {lost}{release}: every new container signs with a new key, logging every user out "
                        f"at each restart (and each replica signs with its own); set {keys.split('/')[0]} from a "
                        f"Secret (secretKeyRef)"
                    ),
                )
            )
    return findings


_DESCRIPTION = (
    "A chat UI (components/chat_uis.toml: Open WebUI) keeps its login on (WEBUI_AUTH not false) and a session "
    "signing key that outlives the container (WEBUI_SECRET_KEY set, or its key file on a lasting volume): advice."
)


POLICY = Policy(
    name="chat-ui-auth-kept",
    description=_DESCRIPTION,
    rationale=(
        "Open WebUI turns login off unless WEBUI_AUTH is true (open-webui/open-webui b8912aa67 backend/open_webui/env.py "
        "L379), and without WEBUI_SECRET_KEY its start script generates a key in /app/backend, the image's folder "
        "(backend/start.sh L17-36)."
    ),
    catalog="G87",
    severity="medium",
    enforcement="advisory",
    remediation_steps=(
        "Leave WEBUI_AUTH unset (or true), or authenticate callers at a proxy in front; set WEBUI_SECRET_KEY from a "
        "Secret so sessions survive restarts and are shared by replicas."
    ),
    config_schema={},
    check_stack=_check,
)
