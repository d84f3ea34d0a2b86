"""G61: a model proxy's route to localhost reaches a model server inside the proxy's own pod.

A LiteLLM proxy sends each route of its ``model_list`` to ``litellm_params.api_base`` (BerriAI/litellm
docs/my-website/docs/proxy/configs.md). Inside a pod, ``localhost`` and ``127.0.0.1`` are the pod's own network
namespace: only the pod's containers listen there (https://kubernetes.io/docs/concepts/workloads/pods/#pod-networking).
A route to ``http://localhost:8000/v1`` in a proxy pod that runs no model server, and no container declaring that
port, reaches nothing: every completion on it fails with a connection error. Spent set 28
paytm-temp/deepseek-using-vllm-on-eks llm-proxy/litellm-config.yaml@21da7bc (label filed none, blocking): its only
route is ``http://localhost:8000/v1`` and llm-proxy/litellm-proxy.yaml runs only the LiteLLM container.

Advice: a mesh or operator may inject a container the files do not show. Judged only where a workload of the files
mounts the ConfigMap (the pod whose localhost it is); silent where a container of that pod is a model server or
declares the port, and for a host that holds a variable. A chat UI's backend URL (components/chat_uis.toml: Open
WebUI's OLLAMA_BASE_URL(S), OPENAI_API_BASE_URL(S), resolved as its release resolves them) on the pod's localhost is
read the same way (``_ui_local_backends``).
"""

from __future__ import annotations

from typing import Iterator
from urllib.parse import urlsplit

from policies.framework import Policy, Resource, unproven
from policies.kube import as_dict, as_list, get, pod_specs, split_type
from policies.reading.chat_ui_backends import bundled, ui_app, ui_backends
from policies.reading.litellm import CONFIG_MAP_TYPE, litellm_configs
from policies.reading.serving import model_servers, namespace_of

_LOOPBACK = ("localhost", "127.0.0.1", "0.0.0.0", "::1")


def _local_routes(config: dict) -> Iterator[tuple[int, str, str, int]]:
    """(index, model name, api_base, port) of each route to the pod's own address."""
    for i, route in enumerate(as_list(config.get("model_list"))):
        base = get(as_dict(route), "litellm_params", "api_base")
        if not isinstance(base, str) or "$" in base or "{" in base or "os.environ" in base:
            continue
        try:
            parts = urlsplit(base if "://" in base else f"http://{base}")
            host, port = parts.hostname, parts.port
        except ValueError:
            continue
        if host in _LOOPBACK:
            name = as_dict(route).get("model_name")
            yield i, str(name), base, port or (443 if parts.scheme == "https" else 80)


def _mounting_pods(config_map: Resource, resources: list[Resource]) -> Iterator[tuple[Resource, dict]]:
    """The pod specs of the files' workloads that mount the ConfigMap, in its namespace."""
    name = get(config_map.props, "metadata", "name")
    for r in resources:
        if r.type == CONFIG_MAP_TYPE or split_type(r.type) == ("", "Service") or r.template or r.patch:
            continue
        if namespace_of(r, "default") != namespace_of(config_map, "default"):
            continue
        for _, podspec in pod_specs(r):
            volumes = [as_dict(v) for v in as_list(podspec.get("volumes"))]
            if any(get(v, "configMap", "name") == name for v in volumes):
                yield r, podspec


def _serves(resource: Resource, podspec: dict, port: int) -> bool:
    """Whether a container of the pod may listen on ``port``: a model server, or one that declares it."""
    if any(s.podspec is podspec for s in model_servers(resource)):
        return True
    containers = [*as_list(podspec.get("containers")), *as_list(podspec.get("initContainers"))]
    return any(as_dict(p).get("containerPort") == port for c in containers for p in as_list(as_dict(c).get("ports")))


def _ui_local_backends(resource: Resource) -> list[tuple[str, str]]:
    """Advice for a chat UI (components/chat_uis.toml: Open WebUI) whose backend URL, as its release resolves its
    variables, is the pod's own localhost while no container of the pod is a model server or declares that port, and
    the image runs no model server inside (Open WebUI's :ollama tags). Fresh set 54: mshahzeb/k8s-llm-stack
    open-webui.yaml, OLLAMA_BASE_URLS=http://localhost:30434 (a NodePort opens on node addresses, not on pod loopback),
    labelled G61 blocking; advice here as the rule is (a sidecar the files do not show may listen there)."""
    if resource.template or resource.patch or split_type(resource.type) == ("", "Service"):
        return []
    found: list[tuple[str, str]] = []
    for path, podspec in pod_specs(resource):
        for container in as_list(podspec.get("containers")):
            app = ui_app(as_dict(container))
            if app is None:
                continue
            for resolved in ui_backends(as_dict(container), app):
                for variable, url in resolved.urls:
                    local = _loopback(url)
                    if local is None or _serves(resource, podspec, local):
                        continue
                    bundle = resolved.backend.bundle_url
                    if bundle and (url == bundle or (bundled(as_dict(container), app) and _loopback(bundle) == local)):
                        continue  # the image's own bundled server (USE_OLLAMA_DOCKER, the :ollama tags)
                    found.append(
                        (
                            resource.name,
                            unproven(
                                f"{path}: container {as_dict(container).get('name')}: {variable}={url} sends "
                                f"{app.display}'s {resolved.backend.name} requests to the pod's own address, where no "
                                f"container is a model server or declares port {local} (a NodePort or hostPort opens on "
                                f"the node's addresses, not on the pod's loopback): every model call fails with a "
                                f"connection error; use the model server's Service, "
                                f"http://SERVICE.NAMESPACE.svc.cluster.local:PORT"
                            ),
                        )
                    )
    return found


def _loopback(url: str) -> int | None:
    """The port of a URL on the pod's own address, or None."""
    try:
        parts = urlsplit(url if "://" in url else f"http://{url}")
        host, port = parts.hostname, parts.port
    except ValueError:
        return None
    if host not in _LOOPBACK:
        return None
    return port or (443 if parts.scheme == "https" else 80)


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    findings: list[tuple[str, str]] = [f for r in resources for f in _ui_local_backends(r)]
    for config_map in resources:
        if config_map.template or config_map.patch:
            continue
        for key, proxy in litellm_configs(config_map):
            for i, model, base, port in _local_routes(proxy):
                pods = list(_mounting_pods(config_map, resources))
                if not pods or any(_serves(r, podspec, port) for r, podspec in pods):
                    continue
                owner = ", ".join(sorted({f"{get(r.props, 'kind')}/{get(r.props, 'metadata', 'name')}" for r, _ in pods}))
                message = (
                    f"data.{key} model_list[{i}] ({model}): api_base {base} is the proxy pod's own address, and no "
                    f"container of {owner} (which mounts this ConfigMap) is a model server or declares port {port}: "
                    f"every completion on this route fails with a connection error; point api_base at the model "
                    f"server's Service (http://SERVICE.NAMESPACE.svc.cluster.local:PORT/v1)"
                )
                findings.append((config_map.name, unproven(message)))
    return findings


POLICY = Policy(
    name="proxy-backend-in-pod",
    description="A LiteLLM proxy route, or a chat UI's backend URL (Open WebUI), to localhost reaches a model server in "
    "its own pod: a route whose api_base (or backend URL) is localhost or 127.0.0.1 in a pod with no model server and no "
    "container declaring that port fails every request (advice).",
    catalog="G61",
    severity="high",
    enforcement="advisory",
    remediation_steps="Set the route's api_base to the model server's Service address "
    "(http://SERVICE.NAMESPACE.svc.cluster.local:PORT/v1), or run the model server in the proxy's pod.",
    config_schema={},
    check_stack=_check,
    rationale=(
        "Containers of one pod share its network namespace, and localhost is that namespace "
        "(https://kubernetes.io/docs/concepts/workloads/pods/#pod-networking): a proxy route to localhost reaches only "
        "the pod's own containers."
    ),
)
