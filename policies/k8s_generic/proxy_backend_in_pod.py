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
declares the port, and for a host that holds a variable.
"""

from __future__ import annotations

from typing import Iterator
from urllib.parse import urlsplit

from policies.framework import Policy, Resource, unproven
from policies.kube import as_dict, as_list, get, pod_specs, split_type
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


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    findings: list[tuple[str, str]] = []
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
    description="A LiteLLM proxy route to localhost reaches a model server in the proxy's own pod: a route whose "
    "api_base is localhost or 127.0.0.1 in a pod with no model server and no container declaring that port fails "
    "every request (advice).",
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
