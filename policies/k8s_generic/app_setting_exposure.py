"""G101 app-setting-exposure: an LLM app setting that opens access or leaks data (advice).

The settings are data: components/app_exposure.toml, each row the program that reads it, where it lives (an env
variable, or a dotted key of LiteLLM's config.yaml), its risky values, the program's default and where that was read.
The rows at session 52 (brief appsettings52), each from a spent-set label filed NONE:

- Ollama ``OLLAMA_ORIGINS`` holding ``*`` on a published API (ollama/ollama v0.32.15 envconfig/config.go:85-108,
  server/routes.go:1867; gin-contrib/cors v1.7.2 config.go:47-51 makes ``*`` allow every origin): any web page a user
  opens can drive the unauthenticated model API. Only where the files publish the pod (policies/reading/published.py
  pod_publisher, the reading G32 shares: an Ingress or route to its Service, a LoadBalancer or NodePort Service, a route
  or Ingress an app-template release renders from its values, a hostPort or hostNetwork; session 53, spent set 107
  hydazz/home-ops ollama route.app); an in-cluster Ollama is silent.
- Open WebUI ``DEFAULT_USER_ROLE`` user or admin while sign-up is on (``ENABLE_SIGNUP`` unset or true, login on):
  every self-registered account gets the models at once (open-webui b8912aa67 backend/open_webui/config.py:997-1004,
  1074-1078: the default role is pending).
- LiteLLM ``general_settings.allow_client_side_credentials: true`` (litellm 1.77.7 proxy/auth/auth_utils.py:142-178),
  ``litellm_settings.ssl_verify: false`` or env ``SSL_VERIFY=false`` (litellm/__init__.py:263,
  llms/custom_httpx/http_handler.py:74-80), ``general_settings.store_prompts_in_spend_logs: true`` or env
  ``STORE_PROMPTS_IN_SPEND_LOGS=true`` (proxy/spend_tracking/spend_tracking_utils.py:595-602). The config is read in a
  ConfigMap whose value is a LiteLLM config.yaml (policies/reading/litellm.py, the reader S9 and G61 use) and in chart
  values of a HelmRelease or Argo CD Application (``values_configs``); the env rows on LiteLLM's containers
  (components/serving_apps.toml).
- vLLM's logging switches (session 55, brief exposure55; spent set 116 murubhas/eks-llm-inference-optimization-lab
  mig-2g-48gb.yaml, labelled G101): ``--enable-log-outputs`` writes every generated response at INFO, vLLM's default
  level (vllm 0.24.0 entrypoints/serve/utils/request_logger.py:70-97, as at 0.11.0 entrypoints/logger.py:71-73); the
  prompts ``--enable-log-requests`` logs are at INFO up to vLLM 0.11.0 (entrypoints/logger.py:40-42) and at DEBUG from
  0.11.1 (logger.py:37-38), so on a later release, or an image naming none, only with ``VLLM_LOGGING_LEVEL=DEBUG``.
  Read on every vLLM engine policies/reading/serving.py engine_configs parses (its command line, a ``--config`` file,
  Ray Serve LLM engine_kwargs); ``--no-enable-log-...`` is silent. Review55b: ``--enable-log-outputs`` without
  ``--enable-log-requests`` is silent (vLLM refuses it: 0.24.0 entrypoints/openai/cli_args.py:398-399, 0.11.0 :280-282),
  and so is either switch under VLLM_LOGGING_LEVEL WARNING or above (0.24.0 vllm/logger.py:167-177).
- An admin allow-list variable (``ADMIN_IP_WHITELIST``, ``*_ADMIN_ALLOWED_IPS``...) holding ``0.0.0.0/0`` or ``::/0``
  on any container: it admits every source address (spent set 91 pipenodes/llm-gateway k8s/gateway-deployment.yaml).

Env values are the container's literal ones and those a ConfigMap of the files gives it (envFrom, configMapKeyRef). A
variable a row also needs (``ENABLE_SIGNUP``) counts at its default when unset, and leaves the row silent when the
files do not show it (a Secret, an envFrom source outside the files). Every pod template pod_specs reaches is read
(Deployments, StatefulSets, chart HelmReleases, operator CRs), not a Job's or CronJob's, nor a best-effort Helm
template's. Advice: a risk the files show, not a failure.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from components.app_exposure import SETTINGS, Setting
from components.engine_options import tagged_release
from components.images import VLLM_PUBLISHED
from policies.framework import Policy, Resource, unproven
from policies.kube import WORKLOAD_TYPES, as_dict, as_list, container_label, containers, name_of, pod_specs, split_type
from policies.reading.chat_ui_backends import ui_app
from policies.reading.container_env import env_values, outside_env_sources
from policies.reading.gateway_apps import app_containers
from policies.reading.litellm import litellm_configs, values_configs
from policies.reading.published import pod_publisher
from policies.reading.serving import EngineConfig, engine_configs, engine_row, model_servers

_ENV = tuple(s for s in SETTINGS if s.where == "env")
_CONFIG = tuple(s for s in SETTINGS if s.where == "config" and s.app == "litellm")
_FLAGS = tuple(s for s in SETTINGS if s.where == "flag" and s.app == "vllm")
_RUN_ONCE = ("Job", "CronJob")


def _containers(resource: Resource) -> Iterator[tuple[str, dict, str, str]]:
    """(pod path, container, program id, display) of the workload's containers: each model server (its engine), serving
    app and chat UI once, and every other container of its pods as "*"."""
    seen: set[int] = set()
    for server in model_servers(resource):
        if id(server.container) not in seen:
            seen.add(id(server.container))
            row = engine_row(server.engine)
            yield server.path, server.container, server.engine, row.display if row else server.engine
    for app in app_containers(resource):
        if id(app.container) not in seen:
            seen.add(id(app.container))
            yield app.path, app.container, app.app.name, app.app.display
    for path, podspec in pod_specs(resource):
        for container in containers(podspec):
            if id(container) in seen:
                continue
            seen.add(id(container))
            ui = ui_app(container)
            yield (path, container, ui.key, ui.display) if ui is not None else (path, container, "*", "")


def _also_holds(setting: Setting, container: Mapping, env: dict[str, str]) -> bool:
    """True when every variable the row also needs holds a value under which the risk holds (its default when unset);
    False when one does not, or the files do not show it. Where the container writes one of them literally at a risky
    value (ENABLE_SIGNUP: "true", an explicit choice), the others an envFrom source might set count at their defaults:
    a Secret holds credentials, not the switches the owner wrote beside it (a ConfigMap outside the files still may) (spent set 107 cyberglitchlabs/clouddrop
    kubernetes/apps/ai/open-webui/app/helmrelease.yaml: ENABLE_SIGNUP "true", DEFAULT_USER_ROLE "user", envFrom a
    Secret; labelled G101)."""
    chosen = any(a.name in env and env[a.name].strip().lower() in a.on for a in setting.also)
    outside = outside_env_sources(container)
    unread = bool(outside) and not (chosen and all(o.startswith("Secret ") for o in outside))
    for also in setting.also:
        listed = any(name_of(as_dict(e)) == also.name for e in as_list(container.get("env")))
        if also.name in env:
            value = env[also.name]
        elif listed or unread:
            return False  # valueFrom a Secret or a field, or an envFrom source the files do not show, may set it
        else:
            value = also.default
        if value.strip().lower() not in also.on:
            return False
    return True


def _env_findings(resource: Resource, resources: list[Resource], cache: dict) -> list[str]:
    messages: list[str] = []
    for path, container, program, display in _containers(resource):
        rows = [s for s in _ENV if s.app in (program, "*")]
        if not rows or not (as_list(container.get("env")) or as_list(container.get("envFrom"))):
            continue
        env = env_values(container)
        for setting in rows:
            for name, value in sorted(env.items()):
                if not setting.names(name) or not setting.risky_value(value, config=False):
                    continue
                if not _also_holds(setting, container, env):
                    continue
                reach = ""
                if setting.published:
                    by = pod_publisher(resource, path, resources, cache)
                    if by is None:
                        continue
                    reach = f" (published through {by})"
                also = ", ".join(
                    f"{a.name}={env[a.name]}" if a.name in env else f"{a.name} unset: {a.default}" for a in setting.also
                )
                also = f" ({also})" if also else ""
                owner = f"{display}'s default" if display else "the safe form"
                messages.append(
                    unproven(
                        f"{container_label(path, container)}: env {name}={value}{also}: {setting.why}{reach} ({owner}: "
                        f"{setting.default}); {setting.fix}"
                    )
                )
    return messages


def _lookup(config: Mapping, path: tuple[str, ...]) -> tuple[bool, Any]:
    node: Any = config
    for key in path:
        if not isinstance(node, Mapping) or key not in node:
            return False, None
        node = node[key]
    return True, node


def _config_findings(resource: Resource) -> list[str]:
    found: list[tuple[str, dict]] = [(f"data[{key}]", config) for key, config in litellm_configs(resource)]
    found += values_configs(resource)
    messages: list[str] = []
    for where, config in found:
        for setting in _CONFIG:
            present, value = _lookup(config, setting.path)
            if present and setting.risky_value(value, config=True):
                shown = str(value).lower() if isinstance(value, bool) else repr(value)
                messages.append(
                    unproven(
                        f"{where} LiteLLM config {setting.name}: {shown} {setting.why} (LiteLLM's default: "
                        f"{setting.default}); {setting.fix}"
                    )
                )
    return messages


def _numbers(release: str) -> tuple[int, ...]:
    """A release's leading numbers (``0.11.0`` -> (0, 11, 0), ``0.10.1.1`` -> (0, 10, 1, 1)), to compare releases."""
    match = re.match(r"v?(\d+(?:\.\d+)*)", release)
    return tuple(int(n) for n in match.group(1).split(".")) if match else ()


def _switched_on(args: Mapping[str, Any], option: str) -> bool:
    """True when the engine's parsed options give the switch: bare (``--enable-log-outputs``), or true in a config file;
    its ``--no-`` form after it, or false, turns it off."""
    if f"no-{option}" in args or option not in args:
        return False
    value = args[option]
    return value is None or str(value).strip().lower() == "true"


def _flag_findings(engine: EngineConfig) -> list[str]:
    """The flag rows an engine's command line turns on (vLLM's request and output logging). A row with ``until`` is read
    only on an image naming a release up to it; one with ``since`` on an image naming a release from it, or naming none
    (a rebuild, a moving tag). A row holds only when the options it ``needs`` are on too (vLLM refuses
    --enable-log-outputs alone: review55b) and each ``also`` variable of the container holds (VLLM_LOGGING_LEVEL at a
    level that writes the line; above it nothing is logged: review55b)."""
    if not _FLAGS or not engine.args:
        return []
    container = engine.server.container if engine.server is not None else {}
    release = None if engine.retagged else tagged_release(engine.image, VLLM_PUBLISHED)
    got = _numbers(release) if release is not None else ()
    messages: list[str] = []
    for setting in _FLAGS:
        if not _switched_on(engine.args, setting.name) or not all(_switched_on(engine.args, n) for n in setting.needs):
            continue
        if setting.until and not (got and got <= _numbers(setting.until)):
            continue
        if setting.since and got and got < _numbers(setting.since):
            continue
        env = env_values(container) if container else {}
        if setting.also and (not container or not _also_holds(setting, container, env)):
            continue
        written = [f"{a.name}={env[a.name]}" for a in setting.also if a.name in env]
        at = ", ".join(written) or (f"vLLM {release}" if got and (setting.until or setting.since) else "")
        at = f" ({at})" if at else ""
        messages.append(
            unproven(f"{engine.label}: --{setting.name}{at} {setting.why} (vLLM's default: {setting.default}); {setting.fix}")
        )
    return messages


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    findings: list[tuple[str, str]] = []
    cache: dict[str, Any] = {}
    for resource in resources:
        if not isinstance(resource.props, dict) or resource.template:
            continue
        for message in _config_findings(resource):
            findings.append((resource.name, message))
        if resource.type not in WORKLOAD_TYPES or split_type(resource.type)[1] in _RUN_ONCE:
            continue
        findings.extend((resource.name, m) for m in _env_findings(resource, resources, cache))
        for engine in engine_configs(resource):
            findings.extend((resource.name, m) for m in _flag_findings(engine))
    return findings


def _apps() -> str:
    return ", ".join(sorted({s.app for s in SETTINGS if s.app != "*"}))


POLICY = Policy(
    name="app-setting-exposure",
    description=(
        "No LLM app setting of components/app_exposure.toml that opens access or leaks data: Ollama's OLLAMA_ORIGINS * "
        "on a published API, Open WebUI self sign-up with DEFAULT_USER_ROLE user/admin, LiteLLM's "
        "allow_client_side_credentials, ssl_verify false (or SSL_VERIFY) and store_prompts_in_spend_logs, vLLM's "
        "--enable-log-outputs (and --enable-log-requests where it logs prompts), an admin allow-list of 0.0.0.0/0 "
        "(advice)."
    ),
    catalog="G101",
    severity="medium",
    enforcement="advisory",
    remediation_steps=(
        "Set the app's safe value named in the message (Ollama: list the calling origins; Open WebUI: "
        "DEFAULT_USER_ROLE=pending or ENABLE_SIGNUP=false; LiteLLM: remove the setting, or give ssl_verify a CA "
        "bundle; vLLM: drop the logging switches; an admin allow-list: the admins' networks)."
    ),
    config_schema={},
    check_stack=_check,
    rationale=(
        "Each setting is read at the app's release (components/app_exposure.toml sources): its default keeps the "
        "access closed or the data unlogged, and the risky value opens or logs it. Programs: " + _apps() + "."
    ),
)
