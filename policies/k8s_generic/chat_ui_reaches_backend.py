"""S62: a chat front end's settings leave it a model backend the cluster resolves.

Which variables a chat UI reads, what its image sets and how it resolves them are data (components/chat_uis.toml,
read through policies/reading/chat_ui_backends.py). Open WebUI 0.6.18's image sets ``OLLAMA_BASE_URL=/ollama`` and
``ENV=prod``; in production that relative value becomes ``http://host.docker.internal:11434`` unless ``K8S_FLAG`` or
``USE_OLLAMA_DOCKER`` is set, the legacy ``OLLAMA_API_BASE_URL`` is read only while ``OLLAMA_BASE_URL`` is empty (so the
image's value hides it), and the OpenAI connection defaults to api.openai.com, which answers only with a key
(open-webui/open-webui b8912aa67 backend/open_webui/config.py L845-956, Dockerfile L52-66). ``host.docker.internal``
is a name Docker Desktop provides, not cluster DNS
(https://docs.docker.com/desktop/features/networking/networking-how-tos/#i-want-to-connect-from-a-container-to-a-service-on-the-host),
so a pod that gives the UI neither a URL of its own nor a key finds no model: fresh set 55
chiheb08/openwebUI-Kubernetes openwebui-deployment.yaml (no backend variable) and DevOpswithAnkita/ollama-openwebui-k8s
k8s-Deployment/openwebui-deploy.yml (only the legacy OLLAMA_API_BASE_URL).

Advice: an administrator can add connections in the UI's settings after it starts (they persist in its database), so
the files do not prove the break. Silent where a value the files do not show may set a backend (valueFrom, envFrom, a
template), where the pod maps host.docker.internal itself (hostAliases), and for the images that run Ollama inside
(the :ollama tags).
"""

from __future__ import annotations

from urllib.parse import urlsplit

from policies.framework import Policy, Resource, unproven
from policies.kube import WORKLOAD_TYPES, as_dict, as_list, container_label, containers, pod_specs
from policies.reading.chat_ui_backends import ui_app, ui_backends

# Names only Docker Desktop resolves (its host's address), not cluster DNS.
_DOCKER_ONLY_HOSTS = ("host.docker.internal", "gateway.docker.internal")


def _host(url: str) -> str:
    try:
        return (urlsplit(url if "://" in url else f"http://{url}").hostname or "").lower()
    except ValueError:
        return ""


def _aliases(podspec: dict) -> set[str]:
    return {str(h).lower() for a in as_list(podspec.get("hostAliases")) for h in as_list(as_dict(a).get("hostnames"))}


def _check(resource: Resource, config: dict) -> list[str]:
    messages: list[str] = []
    for path, podspec in pod_specs(resource):
        aliases = _aliases(podspec)
        for container in containers(podspec):
            app = ui_app(container)
            if app is None:
                continue
            resolved = ui_backends(container, app)
            if any(r.unknown for r in resolved):
                continue
            urls = [(r, variable, url) for r in resolved if not r.off for variable, url in r.urls]
            reachable = [u for _, _, u in urls if _host(u) not in _DOCKER_ONLY_HOSTS or _host(u) in aliases]
            if reachable:
                continue
            said = "; ".join(n for r in resolved for n in r.notes)
            tried = ", ".join(f"{r.backend.name} {u}" for r, _, u in urls) or "none"
            keyless = [r.backend for r in resolved if not r.off and not r.urls and r.backend.needs_key]
            extra = (
                f"; the {keyless[0].name} connection defaults to {keyless[0].default}, which answers only with a key "
                f"({' or '.join(keyless[0].keys)}), and none is given"
                if keyless
                else ""
            )
            messages.append(
                unproven(
                    f"{container_label(path, container)}: {app.display} is given no model backend the cluster resolves "
                    f"(backends it resolves: {tried}{'; ' + said if said else ''}){extra}: host.docker.internal is a "
                    f"Docker Desktop name, not cluster DNS, so the UI lists no model; set "
                    f"{app.backends[0].url}=http://SERVICE.NAMESPACE.svc.cluster.local:PORT (or "
                    f"{app.backends[-1].url} to an OpenAI-compatible server's /v1)"
                )
            )
    return messages


POLICY = Policy(
    name="chat-ui-reaches-a-backend",
    description=(
        "A chat front end (Open WebUI) is given a model backend the cluster resolves: its backend variables, as its "
        "release resolves them over its image's defaults, name something other than Docker Desktop's "
        "host.docker.internal, or a key for its default API (advice)."
    ),
    catalog="S62",
    severity="medium",
    enforcement="advisory",
    remediation_steps=(
        "Set OLLAMA_BASE_URL (or OLLAMA_BASE_URLS) to the Ollama Service, http://SERVICE.NAMESPACE.svc.cluster.local:11434, "
        "or OPENAI_API_BASE_URL to an OpenAI-compatible server's /v1; the legacy OLLAMA_API_BASE_URL is read only while "
        "OLLAMA_BASE_URL is empty."
    ),
    config_schema={},
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    rationale=(
        "Open WebUI's image sets OLLAMA_BASE_URL=/ollama and ENV=prod, which it resolves to http://host.docker.internal:11434 "
        "(open-webui/open-webui backend/open_webui/config.py, Dockerfile at 0.6.18); that name exists only under Docker "
        "Desktop, so in a cluster the UI reaches no model unless a backend variable or key is given."
    ),
)
