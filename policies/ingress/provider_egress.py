"""G33 egress-allows-provider-calls: a model gateway isolated for egress reaches the hosted providers its routes name.

A LiteLLM proxy sends each route of its ``model_list`` to ``litellm_params.api_base``, or, with none, to the provider's
own public HTTPS endpoint (components/litellm_providers.json ``hosted_defaults``, read in litellm 1.77.7: vertex_ai
https://LOCATION-aiplatform.googleapis.com, bedrock https://bedrock-runtime.REGION.amazonaws.com, anthropic
https://api.anthropic.com, ...). A pod isolated for Egress opens only what an egress rule of a policy selecting it allows
(kubernetes/api networking/v1/types.go:82-87@v0.34.0); an address outside the cluster is matched only by a rule with no
``to`` or an ipBlock. So a proxy whose egress rules reach no outside address on 443 fails every call on those routes.

Spent set 84 brianmlasky/serverless-agentic-platform@8200cc880e1d65976b03b5a12abdacaa98318869 k8s/network-policies.yaml
(labelled none, blocking): default-deny-egress over namespace litellm, allowances only port 53 and TCP 3307, while
k8s/litellm-gateway-deployment.yaml mounts a config whose routes are all ``vertex_ai/...``.

Advice: an egress gateway, a mesh or the node's SNAT may be arranged outside the files, and the proxy's own variables
may move a provider's endpoint. Read: the LiteLLM configs of the files a container mounts (policies/reading/litellm.py
mounted_configs), routes with a literal https api_base to a host outside the cluster, or a hosted provider's prefix and
no api_base (silent when the container sets that provider's override variable). Silent when a rule reaches an outside
address on 443 (policies/ingress/network_policy_reach.py outside_https: no ``to``, an ipBlock of every address, or a
public block that may hold the provider's), a proxy variable is set, another engine's policy is in the files, a policy
of the caller's namespace leaves its namespace out, or the pod is on the host network.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import components
from policies.framework import Policy, Resource, unproven
from policies.ingress.network_policy_reach import outside_https
from policies.kube import as_dict, as_list, containers, get, memoized, pod_specs
from policies.reading.container_env import env_values
from policies.reading.litellm import mounted_configs
from policies.reading.network_policies import (
    applying,
    isolates,
    network_policies,
    other_engine,
    rules,
    selects_every_pod,
    unplaced,
)
from policies.reading.serving import namespace_of, pod_labels
from policies.reading.urls import cluster_service, urls

_PROVIDERS = Path(components.__file__).resolve().with_name("litellm_providers.json")
_PROXY_ENV = ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy")


@lru_cache(maxsize=1)
def _hosted() -> dict[str, dict]:
    return dict(json.loads(_PROVIDERS.read_text())["hosted_defaults"])


def _outside_routes(config: dict, env: dict[str, str]) -> list[str]:
    """``model_name -> destination`` of each route the proxy sends to a public HTTPS endpoint."""
    found = []
    hosted = _hosted()
    for route in as_list(config.get("model_list")):
        params = as_dict(as_dict(route).get("litellm_params"))
        model, base = params.get("model"), params.get("api_base")
        name = str(as_dict(route).get("model_name") or model)
        if base is not None:
            if not isinstance(base, str) or "$" in base or "{" in base or "os.environ" in base:
                continue
            for _, scheme, host, _ in urls(base):
                if scheme.lower() == "https" and "." in host and not cluster_service(host)[0] and not _private(host):
                    found.append(f"{name} -> {host}")
                break
            continue
        if not isinstance(model, str) or "/" not in model:
            continue
        row = hosted.get(model.split("/", 1)[0])
        if row is not None and not any(v in env for v in row["env"]):
            found.append(f"{name} -> {row['host']}")
    return found


def _private(host: str) -> bool:
    parts = host.split(".")
    return len(parts) == 4 and all(p.isdigit() for p in parts)


def _findings(resources: list[Resource]) -> list[tuple[str, str]]:
    policies = memoized(resources, "network_policies", network_policies)
    if not any(isolates(p, "Egress") for p in policies) or other_engine(resources):
        return []
    found: list[tuple[str, str]] = []
    for r in resources:
        if not isinstance(r.props, dict) or r.patch:
            continue
        for _, podspec in pod_specs(r):
            if podspec.get("hostNetwork") is True:
                continue
            for container in containers(podspec):
                configs = mounted_configs(podspec, container)
                if not configs:
                    continue
                env = env_values(container)
                routes = sorted({route for _, config in configs for route in _outside_routes(config, env)})
                if not routes or any(v in env for v in _PROXY_ENV):
                    continue
                ns, labels = namespace_of(r, "default"), pod_labels(r)
                egress = [p for p in applying(policies, ns, labels, "Egress") if not p.patch]
                if not egress or unplaced(policies, ns, labels, "Egress"):
                    continue
                if any(outside_https(rule) is not False for _, _, rule in rules(egress, "egress")):
                    continue
                names = ", ".join(str(get(p.props, "metadata", "name")) for p in egress)
                shown = ", ".join(routes[:4]) + (f" and {len(routes) - 4} more" if len(routes) > 4 else "")
                text = (
                    f"container {container.get('name')}: its LiteLLM routes go to hosted providers over HTTPS "
                    f"({shown}), but its pods are isolated for Egress by NetworkPolicy {names} and no egress rule "
                    f"reaches an address outside the cluster on port 443 (only pods, namespaces, private blocks or "
                    f"other ports): every completion on those routes fails to connect, unless an egress gateway "
                    f"outside the files carries it; add an egress rule with an ipBlock (0.0.0.0/0 except the "
                    f"cluster's ranges, or the providers') on TCP 443"
                )
                found.append((r.name, unproven(text)))
                # Said on the policies written for these pods (a podSelector naming them, with egress rules) too:
                # their rules are the field to change (spent set 84 labelled NetworkPolicy allow-cloudsql-egress).
                kind_name = f"{get(r.props, 'kind')}/{get(r.props, 'metadata', 'name')}"
                for policy in egress:
                    if not selects_every_pod(policy) and as_list(get(policy.props, "spec", "egress")):
                        found.append((policy.name, unproven(f"selects the pods of {kind_name} for Egress; {text}")))
    return list(dict.fromkeys(found))


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    return _findings(resources)


POLICY = Policy(
    name="egress-allows-provider-calls",
    description=(
        "A LiteLLM proxy isolated for Egress whose routes go to hosted providers (an https api_base outside the "
        "cluster, or a provider prefix such as vertex_ai/, bedrock/, anthropic/ with none) has an egress rule reaching "
        "an outside address on 443 (advice)."
    ),
    rationale=(
        "With no api_base LiteLLM calls the provider's public HTTPS endpoint (litellm 1.77.7, components/"
        "litellm_providers.json hosted_defaults), and a pod isolated for egress reaches an outside address only "
        "through a rule with no `to` or an ipBlock (kubernetes/api networking/v1/types.go:82-87@v0.34.0). Advice: an "
        "egress gateway or mesh outside the files may carry the calls."
    ),
    catalog="G33",
    severity="high",
    enforcement="advisory",
    remediation_steps=(
        "Add to the proxy's egress policy a rule `to: [{ipBlock: {cidr: 0.0.0.0/0, except: [<cluster ranges>]}}]` on "
        "TCP 443 (or the providers' published ranges), beside the DNS rule."
    ),
    config_schema={},
    check_stack=_check,
)
