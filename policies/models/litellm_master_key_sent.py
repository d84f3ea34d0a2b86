"""G92: a LiteLLM proxy checks a master key, and the clients of the files send that key.

Once LiteLLM's proxy has a master key (``general_settings.master_key`` of its config, a literal or ``os.environ/NAME``,
else the ``LITELLM_MASTER_KEY`` variable: litellm 1.55.0 proxy/proxy_server.py:1868-1873), every caller must present
it, or a virtual key the proxy issued from its database: the key is compared with the master key
(proxy/auth/user_api_key_auth.py:742), any other key must start with ``sk-`` to be looked up as a virtual key
(:790-796), and with no database connected it is refused (:806-810); the refusal is answered 401
(:1285-1290). A proxy with no master key takes every caller as its admin (:607-618), so anyone who reaches it spends
the provider credentials it holds.

Two findings:

* on a client of the files (any container other than the proxy) whose base URL
  (``OPENAI_API_BASE``, ``LLM_BASE_URL``, ...: literal or from a ConfigMap of the files) reaches, through a Service of
  the files, a LiteLLM proxy with a master key, and whose key variable paired with that URL (``OPENAI_API_KEY`` with
  ``OPENAI_API_BASE``, by prefix; a lone ``*API_KEY`` when every endpoint URL reaches the proxy) is a different
  literal: mandatory when the master key is proven (a literal, or a variable from a literal or a Secret of the files)
  and the client's key cannot be a virtual key (it does not start with ``sk-``, or the proxy has no database), advice
  when the master key is held where the files do not show (a Secret not among them) and the client sends a stand-in
  (``dummy``, ``EMPTY``). Spent set 81 fhswf/soccer-agent k8s/langflow-deployment.yaml (``OPENAI_API_KEY=dummy`` to
  ``http://litellm:4000/v1``; k8s/litellm-configmap.yaml sets master_key), labelled blocking.
* (advice) on a LiteLLM proxy whose configuration the files hold (a mounted
  ConfigMap) with no master key anywhere (no ``general_settings.master_key``, no ``LITELLM_MASTER_KEY``, no
  ``envFrom`` Secret outside the files that might set it) while it holds provider credentials (a secret-named
  variable, an ``api_key`` / ``aws_*`` parameter of a route that is no stand-in). Spent set 82 danielnuriyev/skein
  k8s/litellm-deployment.yaml (AWS Bedrock keys, no master key).

* on a probe of a proxy with a proven master key that GETs a path the key guards (``calls_models``: /health) with no
  header: the kubelet sends no key and gets 401 (``_keyless_probes``; PyPI wheel litellm 1.77.7 proxy/_types.py:455-469,
  proxy/auth/user_api_key_auth.py:448-452 and :589-602): mandatory.

Silent: a client that sends no key variable, a key from a Secret the files do not hold, a master key the files
cannot read compared with a real-looking client key, a proxy whose config is not among the files.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Optional

from components.secrets import server_key_stand_in
from policies.framework import Policy, Resource, unproven
from policies.k8s_generic.secret_words import NAME_PATTERNS, looks_secret
from policies.kube import WORKLOAD_TYPES, as_dict, as_list, container_label, containers, get, name_of, pod_specs
from policies.reading import route_path as path
from policies.reading.container_env import env_values
from policies.reading.gateway_apps import app_containers
from policies.reading.litellm import mounted_configs
from policies.reading.secrets import secret_values
from policies.reading.serving import namespace_of
from policies.reading.urls import cluster_service

_MASTER_ENV = "LITELLM_MASTER_KEY"
_ENV_REF = "os.environ/"
_URL = re.compile(r"^\s*https?://([^/\s?#]+)", re.IGNORECASE)
_URL_SUFFIX = re.compile(r"_?(?:BASE_URL|API_BASE_URL|API_BASE|API_URL|SERVER_URL|SERVICE_URL|ENDPOINT_URL|ENDPOINT|URL|HOST)$")
_ENDPOINT_VAR = re.compile(r"BASE_URL|API_BASE|LLM|OPENAI|LITELLM|MODEL|INFERENCE|CHAT|COMPLETION")
_KEY_VAR = re.compile(r"API_KEY$|_KEY$")
_OTHER = re.compile(r"EMBED|RERANK|LANGFUSE|LANGSMITH|TAVILY|SERP|SEARCH|PINECONE|QDRANT|WEAVIATE|REDIS|DB_|DATABASE")
# Names of a proxy's own settings that are no provider credential (its master key, salt, database, UI login).
_OWN = re.compile(r"LITELLM_|MASTER_KEY|SALT_KEY|DATABASE|UI_|POSTGRES|REDIS|LANGFUSE|SLACK|SMTP")
# A route parameter that carries a provider credential (litellm_params).
_PARAM_KEYS = ("api_key", "aws_access_key_id", "aws_secret_access_key", "vertex_credentials")
_PROVIDER_ENV = ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "GOOGLE_APPLICATION_CREDENTIALS", "AZURE_API_KEY")


@dataclass(frozen=True)
class _Proxy:
    resource: Resource
    label: str
    hosts: frozenset[str]
    namespace: Optional[str]
    master: Optional[str]  # the proven master key
    where: str  # where the master key is set ("" when none is)
    has_database: bool


def _env_value(container: Mapping, name: str, namespace: Optional[str]) -> tuple[bool, Optional[str]]:
    """(set, value) of a container's variable: value None when it is set from where the files do not show."""
    for item in as_list(container.get("env")):
        item = as_dict(item)
        if name_of(item) != name:
            continue
        if isinstance(item.get("value"), str):
            return True, item["value"]
        ref = get(item, "valueFrom", "secretKeyRef")
        values = secret_values(namespace, name_of(as_dict(ref))) if isinstance(ref, Mapping) else None
        value = values.get(str(as_dict(ref).get("key"))) if values else None
        return True, value if isinstance(value, str) else None
    if name in env_values(container):
        return True, env_values(container)[name]
    for source in as_list(container.get("envFrom")):
        secret = name_of(as_dict(get(source, "secretRef")))
        if secret:
            values = secret_values(namespace, secret)
            if values is None:
                return True, None  # a Secret outside the files may set it
            if name in values:
                return True, values[name]
    return False, None


def _master(container: Mapping, configs: list[tuple[str, dict]], namespace: Optional[str]) -> tuple[str, Optional[str]]:
    """(where the master key is set, its value when proven); ("", None) when nothing sets one."""
    for file, config in configs:
        value = get(config, "general_settings", "master_key")
        if isinstance(value, str) and value.strip():
            if value.startswith(_ENV_REF):
                variable = value[len(_ENV_REF) :]
                _, resolved = _env_value(container, variable, namespace)
                return f"{file} general_settings.master_key ({value})", resolved
            return f"{file} general_settings.master_key", value.strip()
    is_set, value = _env_value(container, _MASTER_ENV, namespace)
    return (f"env {_MASTER_ENV}", value) if is_set else ("", None)


def _proxies(resources: list[Resource]) -> list[tuple[_Proxy, Mapping, list[tuple[str, dict]]]]:
    selectors = path.service_selectors(resources)
    found: list[tuple[_Proxy, Mapping, list[tuple[str, dict]]]] = []
    for r in resources:
        if r.type not in WORKLOAD_TYPES or not isinstance(r.props, dict):
            continue
        for ac in app_containers(r):
            if ac.app.name != "litellm":
                continue
            namespace = namespace_of(r)
            configs = mounted_configs(ac.podspec, ac.container)
            where, master = _master(ac.container, configs, namespace)
            database = _env_value(ac.container, "DATABASE_URL", namespace)[0] or any(
                get(c, "general_settings", "database_url") for _, c in configs
            )
            hosts = frozenset(h.lower() for h in path.workload_services(r, selectors))
            proxy = _Proxy(r, ac.label, hosts, namespace, master, where, bool(database))
            found.append((proxy, ac.container, configs))
    return found


def _reached(host: str, namespace: Optional[str], proxies: list[_Proxy]) -> Optional[_Proxy]:
    name, url_ns = cluster_service(host)
    want = url_ns or namespace
    hits = [p for p in proxies if name and name in p.hosts and (want is None or p.namespace is None or p.namespace == want)]
    return hits[0] if len(hits) == 1 else None


def _client_keys(env: Mapping[str, str], reaches: Mapping[str, Optional[_Proxy]]) -> list[tuple[str, str, _Proxy]]:
    """(URL variable, key variable, proxy) pairs of a client: by prefix, else a lone key when every endpoint agrees."""
    keys = [k for k in env if _KEY_VAR.search(k) and not _OTHER.search(k)]
    targets = {id(p): p for v, p in reaches.items() if p is not None}
    endpoints = [v for v in reaches if _ENDPOINT_VAR.search(v)]
    pairs = []
    for url_var, proxy in reaches.items():
        if proxy is None:
            continue
        prefix = _URL_SUFFIX.sub("", url_var)
        named = [k for k in keys if prefix and k in (f"{prefix}_API_KEY", f"{prefix}_KEY")]
        if named:
            pairs.append((url_var, named[0], proxy))
        elif (
            len(keys) == 1
            and keys[0].endswith("API_KEY")
            and len(targets) == 1
            and all(reaches.get(v) is not None for v in endpoints)
        ):
            pairs.append((url_var, keys[0], proxy))
    return pairs


def _mismatches(resources: list[Resource], proxies: list[_Proxy]) -> list[tuple[str, str]]:
    guarded = [p for p in proxies if p.where]
    if not guarded:
        return []
    own = {id(p.resource) for p in proxies}
    findings: list[tuple[str, str]] = []
    for r in resources:
        if r.type not in WORKLOAD_TYPES or not isinstance(r.props, dict) or id(r) in own:
            continue
        namespace = namespace_of(r)
        for cpath, podspec in pod_specs(r):
            for container in containers(podspec):
                env = env_values(container)
                reaches = {v: _reached(m.group(1), namespace, guarded) for v, x in env.items() if (m := _URL.match(x))}
                for url_var, key_var, proxy in _client_keys(env, reaches):
                    if (message := _mismatch(container_label(cpath, container), env, url_var, key_var, proxy)) is not None:
                        findings.append((r.name, message))
    return findings


def _mismatch(label: str, env: Mapping[str, str], url_var: str, key_var: str, proxy: _Proxy) -> Optional[str]:
    sent = env[key_var].strip()
    if not sent or sent.startswith(("$", "{{")) or sent == proxy.master:
        return None
    name = get(proxy.resource.props, "metadata", "name")
    head = (
        f"{label}: {key_var} is sent to the LiteLLM proxy {name} (reached by {url_var}), which checks every caller "
        f"against its master key ({proxy.where})"
    )
    if proxy.master is not None:
        virtual = sent.startswith("sk-") and proxy.has_database
        message = (
            f"{head}, and the key sent is not that key: LiteLLM answers 401 for every request (a key that is not the "
            f"master key must be a virtual key issued from its database, starting with sk-); send the master key or a "
            f"virtual key from a Secret"
        )
        return unproven(message + " (unless this is a virtual key the database issued)") if virtual else message
    if server_key_stand_in(sent):
        return unproven(
            f"{head}, held where the files do not show, while the client sends the stand-in {sent!r}: unless the master "
            f"key is that word, every request is answered 401; send the master key (or a virtual key) from a Secret"
        )
    return None


def _spends(container: Mapping, configs: list[tuple[str, dict]]) -> Optional[str]:
    """What provider credential an unguarded proxy holds, or None."""
    for item in as_list(container.get("env")):
        variable = name_of(as_dict(item))
        if isinstance(variable, str) and not _OWN.search(variable):
            if variable in _PROVIDER_ENV or looks_secret(variable, NAME_PATTERNS):
                return f"env {variable}"
    for file, config in configs:
        for route in as_list(config.get("model_list")):
            params = as_dict(as_dict(route).get("litellm_params"))
            for key in _PARAM_KEYS:
                value = params.get(key)
                if isinstance(value, str) and value.strip() and not server_key_stand_in(value):
                    return f"{file} model_list litellm_params.{key}"
    return None


def _unguarded(proxies: list[tuple[_Proxy, Mapping, list[tuple[str, dict]]]]) -> list[tuple[str, str]]:
    findings: list[tuple[str, str]] = []
    for proxy, container, configs in proxies:
        if proxy.where or not configs:
            continue
        spends = _spends(container, configs)
        if spends is None:
            continue
        findings.append(
            (
                proxy.resource.name,
                unproven(
                    f"{proxy.label}: this LiteLLM proxy sets no master key ({configs[0][0]} has no "
                    f"general_settings.master_key and no LITELLM_MASTER_KEY is set), so it takes every caller as its "
                    f"admin, while it holds provider credentials ({spends}): any pod that reaches it spends them and can "
                    f"manage the proxy; set general_settings.master_key: os.environ/LITELLM_MASTER_KEY from a Secret"
                ),
            )
        )
    return findings


_PROBES = ("readinessProbe", "livenessProbe", "startupProbe")


def _keyless_probes(proxies: list[tuple[_Proxy, Mapping, list[tuple[str, dict]]]]) -> list[tuple[str, str]]:
    """Mandatory: a probe of a LiteLLM proxy with a proven master key that GETs a path the key guards (the apps table's
    ``calls_models``: /health, not among the public routes, PyPI wheel litellm 1.77.7 proxy/_types.py:455-469) and
    sends no header: the kubelet is a client of the files that sends no key, and the proxy answers 401
    (proxy/auth/user_api_key_auth.py:448-452 public routes only, :589-602 'No api key passed in.' with a master key
    set). A readinessProbe never passes (the pod is never Ready), a livenessProbe restarts the proxy, a startupProbe
    never lets it start. Spent set 85 Yusful33/sa-call-analyzer infra/k8s/litellm-deployment.yaml probes /health (its
    key in a Secret the files do not hold: G6's advice there)."""
    found: list[tuple[str, str]] = []
    for proxy, container, _configs in proxies:
        if not proxy.master or not proxy.master.strip():
            continue
        app = next((ac.app for ac in app_containers(proxy.resource) if ac.container is container), None)
        if app is None or not app.calls_models:
            continue
        for kind in _PROBES:
            get_ = as_dict(as_dict(container.get(kind)).get("httpGet"))
            route = get_.get("path")
            if not isinstance(route, str) or (route.split("?", 1)[0].rstrip("/") or "/") not in app.calls_models:
                continue
            if as_list(get_.get("httpHeaders")):
                continue  # a header may carry the key
            effect = {
                "readinessProbe": "the probe never passes and the pod is never Ready, so the Service sends it nothing",
                "livenessProbe": "the probe fails every time and the kubelet restarts the proxy over and over",
                "startupProbe": "the probe never passes and the kubelet restarts the proxy before it ever serves",
            }[kind]
            found.append(
                (
                    proxy.resource.name,
                    f"{proxy.label}: {kind} GETs {route} with no header, but this LiteLLM proxy has a master key "
                    f"({proxy.where}) and {route} is not one of its public routes: it answers the kubelet 401 (no API "
                    f"key passed in), so {effect}; probe /health/readiness (readiness) and /health/liveliness "
                    f"(liveness), which answer without a key",
                )
            )
    return found


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    if not any(r.type in WORKLOAD_TYPES and app_containers(r) for r in resources):
        return []
    proxies = _proxies(resources)
    if not proxies:
        return []
    return _mismatches(resources, [p for p, _, _ in proxies]) + _unguarded(proxies) + _keyless_probes(proxies)


POLICY = Policy(
    name="litellm-master-key-sent",
    description=(
        "A client of the files that calls a LiteLLM proxy with a master key sends that key (another literal is answered "
        "401: mandatory when both keys are proven), the kubelet's probes included (a probe on /health sends no key); a "
        "LiteLLM proxy holding provider credentials sets a master key (advice)."
    ),
    catalog="G92",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Give the clients the proxy's master key (or a virtual key it issued) from the same Secret; set "
        "general_settings.master_key: os.environ/LITELLM_MASTER_KEY on every proxy that holds provider keys."
    ),
    check_stack=_check,
    rationale=(
        "litellm 1.55.0 proxy/auth/user_api_key_auth.py: with a master key set, a key that is not it must be an sk- "
        "virtual key found in the database (:742, :790-810), else 401 (:1285-1290); with none, every caller is the "
        "proxy admin (:607-618)."
    ),
)
