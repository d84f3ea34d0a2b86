"""S54: a client told a context window larger than the vLLM server it calls serves.

vLLM refuses a request whose prompt and max_tokens exceed ``--max-model-len`` with HTTP 400 ("This model's maximum
context length is N tokens": vllm v0.6.6.post2 vllm/entrypoints/openai/serving_engine.py _validate_input L273-315). An application
that budgets its prompts by a context-window setting larger than the server's limit sends prompts it believes fit and
gets 400s. Set 29: diwanshuydv/sqora k8s/configmap.yaml@47b7abf ConfigMap teaching-app-config, MODEL_CONTEXT_WINDOW
16384 beside VLLM_API_BASE_URL http://vllm:8000/v1, while k8s/vllm.yaml starts vLLM with --max-model-len 8192.

Read only where the files tie the two together: a ConfigMap's data or a container's literal env that holds a URL to a
Service of the files whose selector picks a vLLM server's pods (same namespace), and beside it a variable named as a
context window (MODEL_CONTEXT_WINDOW, CONTEXT_LENGTH, MAX_CONTEXT_TOKENS, MAX_MODEL_LEN, NUM_CTX, ...) with a whole
number above that server's literal --max-model-len. Advice: how the application uses the number is in its code.
A LiteLLM proxy configuration in a ConfigMap (policies/reading/litellm.py) is read the same way per model_list route:
its litellm_params.api_base and its model_info.context_window (spent set 61: PYTHON01100100/Serving-Large-Language-
Models-at-Scale-Using-LiteLLM-and-vLLM-on-Alibaba-Cloud-ACK k8s/litellm-config.yaml, context_window 6144 for a route
to a vLLM server started with --max-model-len 4096).
"""

from __future__ import annotations

import re
from typing import Any, Iterator, Mapping, Optional
from urllib.parse import urlsplit

from policies.framework import Policy, Resource, unproven
from policies.kube import as_dict, as_list, containers, get, pod_specs, split_type
from policies.reading.litellm import litellm_configs
from policies.reading.serving import namespace_of, pod_labels, selector_matches
from policies.reading.vllm_args import vllm_servers

_CONTEXT_NAME = re.compile(
    r"(?:^|_)(?:CONTEXT_WINDOW|CONTEXT_LENGTH|CONTEXT_SIZE|CONTEXT_LEN|MAX_CONTEXT(?:_TOKENS|_LENGTH|_LEN)?|MAX_MODEL_LEN|"
    r"NUM_CTX|CTX_SIZE)$"
)


def _whole(value: Any) -> Optional[int]:
    text = str(value).strip().strip("\"'") if value is not None else ""
    # ASCII digits only, and a length no context window has (int() refuses "²" and more than 4,300 digits).
    return int(text) if 0 < len(text) <= 12 and text.isascii() and text.isdigit() else None


def _limits(resources: list[Resource]) -> dict[tuple[str, str], int]:
    """(namespace, Service name) -> the literal --max-model-len of the vLLM server the Service selects."""
    servers = []
    for r in resources:
        if not isinstance(r.props, dict):
            continue
        for server in vllm_servers(r):
            limit = _whole(server.args.get("max-model-len"))
            if limit is not None:
                servers.append((namespace_of(r, "default"), pod_labels(r), limit))
    found = {}
    for r in resources:
        if split_type(r.type) != ("", "Service") or not isinstance(r.props, dict):
            continue
        selector = get(r.props, "spec", "selector")
        name = get(r.props, "metadata", "name")
        for namespace, label_sets, limit in servers:
            if namespace == namespace_of(r, "default") and any(
                selector_matches(selector, labels, plain=True) for labels in label_sets
            ):
                found[(namespace, str(name))] = limit
    return found


def _bags(resource: Resource) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """(where, name -> value) of a ConfigMap's data and of each container's literal env."""
    if split_type(resource.type) == ("", "ConfigMap"):
        yield "data", as_dict(resource.props.get("data"))
        # A LiteLLM proxy's route: its api_base beside model_info.context_window, which the proxy's pre-call checks
        # and its /model/info answer (the window clients budget by) report.
        for key, config in litellm_configs(resource):
            for i, entry in enumerate(as_list(config.get("model_list"))):
                params, info = as_dict(as_dict(entry).get("litellm_params")), as_dict(as_dict(entry).get("model_info"))
                if "context_window" in info:
                    bag = {"api_base": params.get("api_base"), "context_window": info["context_window"]}
                    yield f"data {key} model_list[{i}].model_info", bag
        return
    for path, podspec in pod_specs(resource):
        for container in containers(podspec):
            pairs = [(as_dict(e).get("name"), as_dict(e).get("value")) for e in as_list(container.get("env"))]
            yield f"{path} container {container.get('name')} env", {k: v for k, v in pairs if isinstance(k, str)}


def _target(values: Mapping[str, Any], namespace: str, limits: dict[tuple[str, str], int]) -> Optional[tuple[str, int]]:
    """(Service, limit) of the first URL among the values that names a Service fronting a vLLM server."""
    for value in values.values():
        if not isinstance(value, str) or "://" not in value:
            continue
        try:
            host = (urlsplit(value.strip()).hostname or "").split(".")
        except ValueError:  # an address urlsplit refuses ("http://[fd00::1/v1"): no Service named
            continue
        if len(host) >= 2 and host[1] not in ("svc",):
            namespace_named = host[1]
        else:
            namespace_named = namespace
        if (namespace_named, host[0]) in limits:
            return host[0], limits[(namespace_named, host[0])]
        if len(host) == 1:
            # A bare name no Service of the client's namespace carries, and exactly one Service of the files does (its
            # namespace written differently, often a fill-in such as your-namespace): the files mean that one.
            others = [limit for (_, name), limit in limits.items() if name == host[0]]
            if len(others) == 1 and not any(n == namespace and name == host[0] for n, name in limits):
                return host[0], others[0]
    return None


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    limits = _limits(resources)
    findings: list[tuple[str, str]] = []
    if not limits:
        return findings
    for r in resources:
        if not isinstance(r.props, dict) or r.template:
            continue
        for where, values in _bags(r):
            target = _target(values, namespace_of(r, "default"), limits)
            if target is None:
                continue
            service, limit = target
            for name, value in values.items():
                told = _whole(value)
                if _CONTEXT_NAME.search(name.upper()) and told is not None and told > limit:
                    findings.append(
                        (
                            r.name,
                            unproven(
                                f"{where} {name}={told} tells the application a context window larger than the vLLM "
                                f"server behind Service {service} serves (--max-model-len {limit}): prompts it budgets "
                                f"as fitting are refused with HTTP 400; set it to at most {limit}, or raise "
                                f"--max-model-len where the KV cache allows"
                            ),
                        )
                    )
    return findings


POLICY = Policy(
    name="client-context-within-server",
    description="A ConfigMap or env that points an application at a vLLM server's Service does not tell it a context "
    "window (MODEL_CONTEXT_WINDOW, MAX_CONTEXT_TOKENS, ...) larger than the server's --max-model-len (advice).",
    catalog="S54",
    severity="medium",
    enforcement="advisory",
    remediation_steps="Keep the application's context setting at or below the server's --max-model-len.",
    config_schema={},
    check_stack=_check,
    rationale=(
        "vLLM rejects a request longer than --max-model-len with HTTP 400 (vllm v0.6.6.post2 entrypoints/openai/serving_engine.py "
        "_validate_input L273-315); an application that sizes prompts by a larger window sends requests that fail."
    ),
)
