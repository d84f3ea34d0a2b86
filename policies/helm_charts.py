"""The pod a Helm release of a known LLM serving chart renders, read from the release object and the chart's defaults.

Homelabs and small teams install Ollama and Open WebUI as release objects: a Flux HelmRelease (``spec.chart.spec.chart``
and ``version``, ``spec.values``), an Argo CD Application (``spec.source.chart`` or the repoURL's last segment,
``targetRevision``, ``helm.valuesObject`` or the ``helm.values`` text) or a k3s HelmChart (``spec.chart``,
``spec.version``, the ``spec.valuesContent`` text). What the release leaves out, the chart fills from its own
defaults: those are DATA (components/helm_charts.toml, each fact read at a chart tag and cited there), and the mapping
of values onto the pod is the chart's template as read at those tags:

- otwld/ollama-helm (templates/deployment.yaml:53-137@ollama-0.54.0; :71-246@ollama-1.77.0): the image
  ``image.repository:image.tag``, the tag defaulting to the chart's appVersion (``-rocm`` for ``ollama.gpu.type``
  amd; a pinned chart version the table has not read takes the tag of the closest version read below it);
  ``extraEnv``, ``extraArgs``; resources as written plus ``ollama.gpu.number`` of ``nvidia.com/gpu`` (or
  ``ollama.gpu.nvidiaResource``, ``amd.com/gpu``) when ``ollama.gpu.enabled``; liveness and readiness probes GET
  ``livenessProbe.path``/``readinessProbe.path`` (``/``) unless disabled; the volume ``ollama-data`` at
  ``ollama.mountPath`` (``/root/.ollama``): a PVC when ``persistentVolume.enabled`` is true in Go's sense (any
  non-empty string is), else an emptyDir; a postStart hook running ``ollama pull`` when ``ollama.models`` (a list
  before 1.0, ``pull``/``run``/``create`` lists after) names any model, from chart 0.59.0 (and unpinned) after a loop
  that waits for the server (``while ! /bin/ollama ps``: deployment.yaml:141-150@ollama-0.59.0).
- open-webui/helm-charts (charts/open-webui/templates/workload-manager.yaml:57-115@open-webui-3.1.6; :104-150
  @open-webui-16.0.0): the image tag defaulting to the values' own tag (``latest`` before chart 3.1.10) or the
  appVersion; probes only as written in ``livenessProbe``/``readinessProbe``/``startupProbe`` (none by default, none at
  all before chart 4); ``OLLAMA_BASE_URLS`` when ``ollamaUrls`` or ``ollama.enabled``; ``extraEnvVars`` appended (a
  mapping of ``NAME: {value|valueFrom}`` read as its items); the volume ``data`` at /app/backend/data: the
  ``persistence.existingClaim`` or the chart's claim while ``persistence.enabled`` (default true), else an emptyDir.
  No template of the chart sets ``WEBUI_SECRET_KEY``. Its dependency, the Ollama chart at ``>=0.24.0`` (whatever is
  newest, so its image tag is not known), renders a second pod from ``ollama.*`` unless ``ollama.enabled`` is false.

- NVIDIA's nim-llm (policies/chart_nim.py, NVIDIA/nim-deploy helm/nim-llm @01f3757ae73e): the StatefulSet (or
  Deployment) of the NIM server with its NGC key Secret, probes and model store, as a workload (claims, Service type).
  LiteLLM's litellm-helm (policies/chart_litellm.py, BerriAI/litellm deploy/charts/litellm-helm): the proxy
  Deployment with its master key and database Secrets, probes and config ConfigMap; the literal master key and
  database password it copies into Secrets of its own (chart_literal_credentials).
  KubeRay's ray-cluster renders a RayCluster, whose pods the operator makes: its row serves G107 only.

A release whose values come from elsewhere (Flux ``valuesFrom``, Argo CD ``helm.valueFiles``) is not read: the
object does not show what the chart is given. Envsubst defaults Flux's postBuild fills (``${name:=default}``, ``${name:-default}``) are read as their default; a
value left empty by one is treated as not written. The values are not the whole release (a values file,
``valuesFrom`` or post-renderers may add to them): what a pod rule finds on such a release is advice
(policies/framework.py, completed_elsewhere), and the pod's path names the chart and the version whose defaults were
used. Pure: no helper of policies.kube, so that kube can call it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import yaml

from components.helm_charts import GENERIC_FOLDERS, Chart, chart_named
from components.images import release_numbers
from policies.app_template import app_template_service_names
from policies.chart_litellm import litellm_helm, litellm_literals
from policies.chart_nim import nim_llm
from policies.chart_values import PINNED, chart_image, env_list, items_of, pod_options, truthy, value_at
from policies.chart_workloads import RENDERERS, Workload, vllm_stack_literals

_RELEASE_KINDS = frozenset({"HelmRelease", "Application", "HelmChart"})
# (API group, kind) of the release objects read here, for policies that list the types they check.
RELEASE_GROUP_KINDS = frozenset(
    {("helm.toolkit.fluxcd.io", "HelmRelease"), ("argoproj.io", "Application"), ("helm.cattle.io", "HelmChart")}
)
# A whole value that is one envsubst placeholder with a default (Flux postBuild substitution, envsubst -d).
_ENVSUBST = re.compile(r"^\$\{[A-Za-z_][A-Za-z0-9_]*:?[-=]([^}]*)\}$")
_MAX_VALUES_TEXT = 256 * 1024
# The version of the Ollama chart open-webui depends on (charts/open-webui/Chart.yaml@open-webui-3.1.6 to 16.0.0).
_SUBCHART_RANGE = ">=0.24.0"


def _text_values(text: Any) -> Mapping | None:
    if not isinstance(text, str) or len(text) > _MAX_VALUES_TEXT:
        return None
    try:
        loaded = yaml.safe_load(text)
    except (yaml.YAMLError, ValueError, RecursionError):
        return None
    return loaded if isinstance(loaded, Mapping) else None


def _release(props: Mapping) -> tuple[str, str, str, str, Mapping] | None:
    """(values path, chart name, repository, chart version, values) of a release object, or None."""
    kind = props.get("kind")
    spec = props.get("spec")
    if kind not in _RELEASE_KINDS or not isinstance(spec, Mapping):
        return None
    if kind == "HelmRelease":
        chart = spec.get("chart")
        chart = chart.get("spec") if isinstance(chart, Mapping) else None
        if not isinstance(chart, Mapping):
            return None  # a chartRef names an OCIRepository object, not the chart (often bjw-s app-template)
        name, version = chart.get("chart"), chart.get("version")
        if spec.get("valuesFrom"):
            return None  # values from a ConfigMap or Secret the release object does not show
        values = spec.get("values")
        return "spec.values", str(name or ""), "", str(version or ""), values if isinstance(values, Mapping) else {}
    if kind == "HelmChart":
        values = _text_values(spec.get("valuesContent")) if spec.get("valuesContent") else {}
        if values is None:
            return None
        return (
            "spec.valuesContent",
            str(spec.get("chart") or ""),
            str(spec.get("repo") or ""),
            str(spec.get("version") or ""),
            values,
        )
    source, where = spec.get("source"), "spec.source"
    sources = spec.get("sources")
    if not isinstance(source, Mapping) and isinstance(sources, list):  # multi-source: the one naming a chart
        charted = [(i, s) for i, s in enumerate(sources) if isinstance(s, Mapping) and s.get("chart")]
        if len(charted) != 1:
            return None
        source, where = charted[0][1], f"spec.sources[{charted[0][0]}]"
    if not isinstance(source, Mapping):
        return None
    repo = str(source.get("repoURL") or "")
    name = str(source.get("chart") or (repo if repo.startswith("oci://") else ""))
    helm = source.get("helm")
    helm = helm if isinstance(helm, Mapping) else {}
    if helm.get("valueFiles"):
        return None  # values files the Application names, which the object does not show
    if isinstance(helm.get("valuesObject"), Mapping):
        path, values = f"{where}.helm.valuesObject", helm["valuesObject"]
    elif helm.get("values"):
        path, values = f"{where}.helm.values", _text_values(helm.get("values"))
        if values is None:
            return None
    else:
        path, values = f"{where}.helm", {}
    return path, name, repo, str(source.get("targetRevision") or ""), values


def _resolved(value: Any) -> Any:
    """``value`` with each envsubst placeholder that has a default read as its default ("" when empty)."""
    if isinstance(value, str):
        match = _ENVSUBST.match(value.strip())
        if not match:
            return value
        try:  # substituted into the text before it is parsed: `${on:=false}` is the boolean false
            parsed = yaml.safe_load(match.group(1)) if match.group(1).strip() else ""
        except yaml.YAMLError:
            return match.group(1)
        return "" if parsed is None else parsed if isinstance(parsed, (str, bool, int, float)) else match.group(1)
    if isinstance(value, Mapping):
        out = {}
        for key, item in value.items():
            item = _resolved(item)
            if item != "" or not isinstance(value.get(key), str):
                out[key] = item
        return out
    if isinstance(value, list):
        return [_resolved(v) for v in value]
    return value


def _models(values: Mapping) -> list[str]:
    models = value_at(values, "ollama", "models")
    if isinstance(models, list):
        return [str(m) for m in models]
    if isinstance(models, Mapping):
        return [
            str(m.get("name") if isinstance(m, Mapping) else m)
            for k in ("pull", "run", "create")
            for m in items_of(models.get(k))
        ]
    default = value_at(values, "ollama", "defaultModel")
    return [str(default)] if default else []


def _hook_waits(version: str) -> bool:
    """True when the Ollama chart's postStart hook waits for the server before it pulls: from chart 0.59.0 (otwld/
    ollama-helm templates/deployment.yaml:141-150@ollama-0.59.0, :173-183@ollama-1.77.0; 0.58.0 pulled at once,
    :147-149), and for a version not pinned, which installs the newest chart."""
    found = re.match(r"^v?(\d+)\.(\d+)\.(\d+)", version) if PINNED.match(version) else None
    return found is None or tuple(int(n) for n in found.groups()) >= (0, 59, 0)


def _ollama(chart: Chart, values: Mapping, version: str) -> dict:
    gpu = value_at(values, "ollama", "gpu", default={})
    gpu = gpu if isinstance(gpu, Mapping) else {}
    gpu_on = truthy(gpu.get("enabled"))
    kind = str(gpu.get("type") or "nvidia")
    port = value_at(values, "ollama", "port") or value_at(values, "service", "port") or chart.port
    container: dict = {"name": chart.container, "ports": [{"name": "http", "containerPort": port}]}
    image = chart_image(chart, values, version, amd=gpu_on and kind == "amd")
    if image:
        container["image"] = image
    env = []
    if gpu_on and kind == "nvidia":
        env += [
            {"name": "NVIDIA_DRIVER_CAPABILITIES", "value": "compute,utility"},
            {"name": "NVIDIA_VISIBLE_DEVICES", "value": "all"},
        ]
    env += env_list(values.get("extraEnv"))
    if env:
        container["env"] = env
    if isinstance(values.get("extraArgs"), list) and values["extraArgs"]:
        container["args"] = values["extraArgs"]
    resources = values.get("resources") if "resources" in values else {"requests": {}, "limits": {}}
    resources = dict(resources) if isinstance(resources, Mapping) else {}
    if gpu_on and kind in ("nvidia", "amd"):
        name = str(gpu.get("nvidiaResource") or "nvidia.com/gpu") if kind == "nvidia" else "amd.com/gpu"
        limits = dict(resources.get("limits") or {}) if isinstance(resources.get("limits") or {}, Mapping) else {}
        limits.setdefault(name, gpu.get("number") or 1)
        resources["limits"] = limits
    container["resources"] = resources
    if isinstance(values.get("securityContext"), Mapping) and values["securityContext"]:
        container["securityContext"] = values["securityContext"]
    for field in chart.probes:
        probe = values.get(field)
        probe = probe if isinstance(probe, Mapping) else {}
        if probe.get("enabled", True) is False:
            continue
        rendered: dict = {"httpGet": {"path": probe.get("path") or chart.probe_path, "port": "http"}}
        rendered.update(
            {
                k: probe[k]
                for k in ("initialDelaySeconds", "periodSeconds", "timeoutSeconds", "failureThreshold", "successThreshold")
                if k in probe
            }
        )
        container[field] = rendered
    mount = value_at(values, "ollama", "mountPath") or chart.data_mount
    container["volumeMounts"] = [
        {"name": "ollama-data", "mountPath": mount},
        *[m for m in items_of(values.get("volumeMounts")) if isinstance(m, Mapping)],
    ]
    models = _models(values)
    if models:
        command = f"echo {' '.join(models)} | xargs -n1 /bin/ollama pull"
        if _hook_waits(version):
            command = f"while ! /bin/ollama ps > /dev/null 2>&1; do\n  sleep 5\ndone\n{command}"
        container["lifecycle"] = {"postStart": {"exec": {"command": ["/bin/sh", "-c", command]}}}
    persistent = values.get("persistentVolume")
    persistent = persistent if isinstance(persistent, Mapping) else {}
    if truthy(persistent.get("enabled")):
        volume: dict = {
            "name": "ollama-data",
            "persistentVolumeClaim": {"claimName": persistent.get("existingClaim") or chart.container},
        }
    else:
        volume = {"name": "ollama-data", "emptyDir": {}}
    pod: dict = {
        "containers": [container],
        "volumes": [volume, *[v for v in items_of(values.get("volumes")) if isinstance(v, Mapping)]],
    }
    if isinstance(values.get("initContainers"), list) and values["initContainers"]:
        pod["initContainers"] = values["initContainers"]
    pod_options(values, pod)
    return pod


def _open_webui(chart: Chart, values: Mapping, version: str) -> dict:
    port = value_at(values, "service", "containerPort") or chart.port
    container: dict = {"name": chart.container, "ports": [{"name": "http", "containerPort": port}]}
    image = chart_image(chart, values, version)
    if image:
        container["image"] = image
    for key in ("command", "args"):
        if isinstance(values.get(key), list) and values[key]:
            container[key] = values[key]
    for field in chart.probes:
        if isinstance(values.get(field), Mapping) and values[field]:
            container[field] = values[field]
    if isinstance(values.get("resources"), Mapping) and values["resources"]:
        container["resources"] = values["resources"]
    if isinstance(values.get("containerSecurityContext"), Mapping) and values["containerSecurityContext"]:
        container["securityContext"] = values["containerSecurityContext"]
    mounts: list = [{"name": "data", "mountPath": chart.data_mount}]
    extra = value_at(values, "volumeMounts", "container")
    mounts += [m for m in extra if isinstance(m, Mapping)] if isinstance(extra, list) else []
    container["volumeMounts"] = mounts
    env: list = []
    urls = values.get("ollamaUrls")
    if not values.get("ollamaUrlsFromExtraEnv") and (truthy(urls) or truthy(value_at(values, "ollama", "enabled", default=True))):
        shown = ";".join(str(u) for u in urls) if isinstance(urls, list) and urls else None
        env.append({"name": "OLLAMA_BASE_URLS", **({"value": shown} if shown else {"valueFrom": {"chart": "ollama"}})})
    env += _openai_keys(values, version)
    env += env_list(values.get("extraEnvVars"))
    container["env"] = env
    if isinstance(values.get("extraEnvFrom"), list) and values["extraEnvFrom"]:
        container["envFrom"] = values["extraEnvFrom"]
    persistence = values.get("persistence")
    persistence = persistence if isinstance(persistence, Mapping) else {}
    if truthy(persistence.get("enabled", True)):
        volume: dict = {
            "name": "data",
            "persistentVolumeClaim": {"claimName": persistence.get("existingClaim") or chart.container},
        }
    else:
        volume = {"name": "data", "emptyDir": {}}
    pod: dict = {"containers": [container], "volumes": [volume]}
    pod_options(values, pod)
    return pod


# The chart version from which its OpenAI API block reads as below (open-webui/helm-charts charts/open-webui/templates/
# workload-manager.yaml:156-233 at open-webui-13.3.0 and open-webui-16.0.0).
_OPENAI_KEYS_SINCE = (13, 3, 0)


def _openai_keys(values: Mapping, version: str) -> list[dict]:
    """The OPENAI_API_KEY / OPENAI_API_KEYS env the open-webui chart writes as a literal value from a key the release
    itself sets (``openaiApiKey``, ``openaiApiKeys`` joined by ";"), when no ``*ExistingSecret`` replaces it. Which one
    follows the template's five branches (workload-manager.yaml:156-233@open-webui-16.0.0): OPENAI_API_KEY with a
    single ``openaiBaseApiUrl`` and Pipelines off, or neither URL with Pipelines on; OPENAI_API_KEYS with
    ``openaiBaseApiUrls``, or a single URL with Pipelines on. Defaults from values.yaml:527-551 there
    (``enableOpenaiApi`` true, ``openaiBaseApiUrl`` https://api.openai.com/v1, ``pipelines.enabled`` true). The chart's
    own default key (``0p3n-w3bu!``, the Pipelines default) is not the release's literal and is not written here. A
    pinned chart before 13.3.0 is not read (its blocks differ)."""
    numbers = release_numbers(version) if version else None
    if version and (numbers is None or numbers[:3] < _OPENAI_KEYS_SINCE):
        return []
    if not truthy(values.get("enableOpenaiApi", True)):
        return []
    url = values.get("openaiBaseApiUrl", "https://api.openai.com/v1")
    urls = values.get("openaiBaseApiUrls")
    pipelines = truthy(value_at(values, "pipelines", "enabled", default=True))
    if urls:
        field, name = "openaiApiKeys", "OPENAI_API_KEYS"
    elif url:
        field, name = ("openaiApiKeys", "OPENAI_API_KEYS") if pipelines else ("openaiApiKey", "OPENAI_API_KEY")
    elif pipelines:
        field, name = "openaiApiKey", "OPENAI_API_KEY"
    else:
        return []
    literal, hidden = values.get(field), values.get(f"{field}ExistingSecret")
    if truthy(hidden) or not literal:
        return []
    if isinstance(literal, list):
        literal = ";".join(str(k) for k in literal)
    return [{"name": name, "value": str(literal)}] if isinstance(literal, (str, int, float)) else []


_RENDERERS = {"ollama": _ollama, "open-webui": _open_webui}
# Charts whose workloads (pod, replicas, rollout, claims, Service type) are rendered: policies/chart_workloads.py,
# NVIDIA's nim-llm (policies/chart_nim.py) and LiteLLM's litellm-helm (policies/chart_litellm.py).
_WORKLOAD_RENDERERS = {**RENDERERS, "nim-llm": nim_llm, "litellm-helm": litellm_helm}


def chart_release(props: Mapping) -> tuple[Chart, str, str] | None:
    """(chart row, chart version, values path) of a release object of a chart the table knows, or None."""
    found = _release(props)
    if found is None:
        return None
    path, name, repo, version, _ = found
    chart = chart_named(name, repo) if name or repo else None
    return (chart, version, path) if chart is not None else None


def release_name(props: Mapping) -> str:
    """The Helm release name: a HelmRelease's spec.releaseName, else [spec.targetNamespace-]metadata.name (Flux's
    default); an Application's helm.releaseName, else its name; a HelmChart's name."""
    spec: Mapping = props["spec"] if isinstance(props.get("spec"), Mapping) else {}
    name = str(value_at(props, "metadata", "name") or "")
    if props.get("kind") == "HelmRelease":
        if spec.get("releaseName"):
            return str(spec["releaseName"])
        return f"{spec['targetNamespace']}-{name}" if spec.get("targetNamespace") else name
    if props.get("kind") == "Application":
        sources = [s for s in items_of(spec.get("sources")) if isinstance(s, Mapping) and s.get("chart")]
        source: Mapping = spec["source"] if isinstance(spec.get("source"), Mapping) else (sources[0] if len(sources) == 1 else {})
        return str(value_at(source, "helm", "releaseName") or name)
    return name


def release_services(props: Mapping) -> dict[str, str]:
    """Service name -> pod path, for the Services a chart release renders in front of its own pods: an app-template
    release's ``service.<s>`` (policies/app_template.py), or the one Service of a table chart whose pod is its server,
    named by the chart's fullname (release name when it holds the chart's name, else ``<release>-<chart>``;
    fullnameOverride wins: otwld/ollama-helm templates/_helpers.tpl:24-35 and templates/service.yaml:5 at ollama-1.67.0,
    go-skynet local-ai templates/_helpers.tpl:13-24 at local-ai-3.4.2). {} for any other object."""
    if props.get("kind") not in _RELEASE_KINDS:
        return {}
    release = release_name(props)
    named = app_template_service_names(props, release)
    if named:
        return named
    found = _release(props)
    if found is None:
        return {}
    # (a copy vendored in a Git folder, read as the published chart: vendored_chart; spent set 107 BSFishy/k8s-homelab
    # local-ai, its HTTPRoute to Service local-ai labelled G32)
    chart = chart_named(found[1], found[2]) if found[1] or found[2] else None
    chart = chart or vendored_chart(props, found[1], found[4])
    if chart is None or chart.key not in _SERVER_CHARTS:
        return {}
    pods = chart_pod_specs(props)
    values = _resolved(found[4])
    if not pods or not isinstance(values, Mapping):
        return {}
    if chart.key == "nim-llm" and truthy(value_at(values, "service", "name")):  # templates/service.yaml:5@01f3757ae73e
        return {str(value_at(values, "service", "name")): pods[0][0]}
    if truthy(values.get("fullnameOverride")):
        return {str(values["fullnameOverride"])[:63].rstrip("-"): pods[0][0]}
    name = str(values.get("nameOverride") or chart.names[0])
    return {(release if name in release else f"{release}-{name}")[:63].rstrip("-"): pods[0][0]}


# Table charts whose first pod is the model server itself, behind the chart's one Service (not vllm-stack, whose engine
# and router Services are named per model, nor open-webui, whose pod is the UI; nim-llm's is service.name or the
# fullname, templates/service.yaml:5@01f3757ae73e).
_SERVER_CHARTS = ("ollama", "local-ai", "nim-llm")


def release_values(props: Mapping) -> tuple[str, Chart, str, Mapping] | None:
    """(values path, chart row, chart version, values with envsubst defaults read) of a release object of a chart the
    table knows whose values the object shows whole (no ``valuesFrom``, no ``valueFiles``), or None."""
    found = _release(props)
    if found is None:
        return None
    path, name, repo, version, values = found
    chart = chart_named(name, repo) if name or repo else None
    if chart is None:
        return None
    resolved = _resolved(values)
    return path, chart, version, resolved if isinstance(resolved, Mapping) else {}


# A Flux HelmRelease's chart read from a folder of its source (a copy vendored into a Git repository or bucket): the
# folder's name, past these generic ones, names the chart.
_FOLDER_SOURCES = frozenset({"GitRepository", "Bucket"})


def installs_from_folder(props: Mapping) -> bool:
    """True for a Flux HelmRelease whose chart is a folder of its source (a GitRepository or Bucket sourceRef)."""
    source = value_at(props, "spec", "chart", "spec", "sourceRef", "kind")
    return props.get("kind") == "HelmRelease" and isinstance(source, str) and source in _FOLDER_SOURCES


def vendored_chart(props: Mapping, name: str, values: Mapping) -> Chart | None:
    """The chart row a Flux HelmRelease installs from a folder of a GitRepository or Bucket (spec.chart.spec.chart a
    path: a copy vendored into the repository), when the folder is named for a chart policies/chart_workloads.py renders
    and every top-level key of its values is one that chart's templates read (components/chart_value_keys.toml): read
    as the published chart (spent set 107 BSFishy/k8s-homelab kubernetes/apps/ai/local-ai/app/helmrelease.yaml, chart
    kubernetes/apps/ai/local-ai/chart, labelled G4, G8, G10: the copy renders no probe). A copy may differ from the
    chart, so only the pod rules read it (never G107's unread-value check)."""
    from components.chart_value_keys import keys_at

    if not installs_from_folder(props):
        return None
    parts = [p for p in name.strip("./").split("/") if p]
    while parts and parts[-1].lower() in GENERIC_FOLDERS:
        parts.pop()
    chart = chart_named(parts[-1]) if len(parts) > 1 else None
    keys = keys_at(chart.key, "") if chart is not None and chart.key in _WORKLOAD_RENDERERS else None
    if chart is None or keys is None or not values:
        return None
    read = {p.split(".", 1)[0] for p in keys.read} | set(keys.passthrough)
    return chart if all(str(k) in read for k in values) else None


def chart_workloads(props: Mapping) -> list[tuple[str, Workload]]:
    """(pod path, workload) of each pod a release of a chart policies/chart_workloads.py renders (vllm-stack, local-ai),
    with the replicas, strategy, claims and Service type around it (a vendored copy of one read as the chart:
    ``vendored_chart``); [] for any other object."""
    found = _release(props)
    if found is None:
        return []
    path, name, repo, version, values = found
    chart = chart_named(name, repo) if name or repo else None
    shown = f"{chart.names[0] if chart else ''} chart {version or '(version not pinned)'} defaults"
    if chart is None and (chart := vendored_chart(props, name, values)) is not None:
        shown = f"{chart.names[0]} chart as vendored at {name}, read as the published chart"
    if chart is None or chart.key not in _WORKLOAD_RENDERERS:
        return []
    rendered = _WORKLOAD_RENDERERS[chart.key](chart, _resolved(values), version, release_name(props))
    return [(f"{path}{w.where}[{shown}]", w) for w in rendered]


def chart_literal_credentials(props: Mapping) -> list[tuple[str, str, str]]:
    """(path, what, literal) of each credential a release of a known chart gives as a literal string that the chart
    puts into a Secret of its own (vllm-stack: policies/chart_workloads.py vllm_stack_literals); [] otherwise."""
    found = _release(props)
    if found is None:
        return []
    path, name, repo, _, values = found
    chart = chart_named(name, repo) if name or repo else None
    readers = {"vllm-stack": vllm_stack_literals, "litellm-helm": litellm_literals}
    if chart is None or chart.key not in readers:
        return []
    return [(f"{path}{where}", what, literal) for where, what, literal in readers[chart.key](_resolved(values))]


def chart_pod_specs(props: Mapping) -> list[tuple[str, dict]]:
    """The server pod a release of a known chart renders, as (``<values path>[chart NAME VERSION defaults]``, podspec),
    or [] for any other object."""
    found = _release(props)
    if found is None:
        return []
    path, name, repo, version, values = found
    chart = chart_named(name, repo) if name or repo else None
    if chart is not None and chart.key in _WORKLOAD_RENDERERS or chart is None and vendored_chart(props, name, values):
        return [(where, w.pod) for where, w in chart_workloads(props)]
    if chart is None or chart.key not in _RENDERERS:
        return []
    values = _resolved(values)
    pod = _RENDERERS[chart.key](chart, values, version)
    shown = f"{chart.names[0]} chart {version or '(version not pinned)'} defaults"
    out = [(f"{path}[{shown}]", pod)]
    sub = values.get("ollama")
    sub = sub if isinstance(sub, Mapping) else {}
    ollama = chart_named("ollama")
    if chart.key == "open-webui" and ollama is not None and truthy(sub.get("enabled", True)):
        # The Ollama chart as open-webui's dependency (condition ollama.enabled, default true; version ">=0.24.0":
        # charts/open-webui/Chart.yaml and values.yaml:14-16@open-webui-16.0.0), configured by ``ollama.*``.
        out.append((f"{path}.ollama[ollama chart {_SUBCHART_RANGE} defaults, open-webui's dependency]", _ollama(ollama, sub, "")))
    return out


@dataclass(frozen=True)
class ChartEdge:
    """What a release of a known chart publishes its pod through: the Ingress the chart renders (``kind`` "Ingress",
    when ``ingress.enabled``) or its Service of type LoadBalancer/NodePort; read from the values keys of the chart's
    row (components/helm_charts.toml ``edge``, cited there)."""

    path: str  # the values path of the setting ("spec.values.ingress.enabled")
    kind: str  # "Ingress", "LoadBalancer" or "NodePort"
    tls: bool  # the rendered Ingress has spec.tls (ingress.tls non-empty); False for a Service
    ingress_class: str
    annotations: dict
    pod_path: str  # the chart's own pod, as chart_pod_specs names it
    pod: dict


def chart_edges(props: Mapping) -> list[ChartEdge]:
    """The Ingress and the LoadBalancer/NodePort Service a release of a chart with ``edge`` keys renders in front of its
    own pod (not a dependency's); [] for any other object. Envsubst defaults are read as their default
    (``${name:=true}``: spent set 91 devantler/oci-artifacts k8s/open-webui/release.yaml)."""
    found = _release(props)
    if found is None:
        return []
    path, name, repo, version, values = found
    chart = chart_named(name, repo) if name or repo else None
    if chart is None or not chart.edge or (chart.key not in _RENDERERS and chart.key not in _WORKLOAD_RENDERERS):
        return []
    values = _resolved(values)
    pods = chart_pod_specs(props)
    if not pods:
        return []
    pod_path, pod = pods[0]

    def at(key: str) -> Any:
        dotted = chart.edge.get(key, "")
        return _resolved(value_at(values, *dotted.split("."))) if dotted else None

    out: list[ChartEdge] = []
    if truthy(at("ingress_enabled")):
        annotations = at("ingress_annotations")
        out.append(
            ChartEdge(
                f"{path}.{chart.edge['ingress_enabled']}",
                "Ingress",
                truthy(at("ingress_tls")),
                str(at("ingress_class") or ""),
                dict(annotations) if isinstance(annotations, Mapping) else {},
                pod_path,
                pod,
            )
        )
    kind = at("service_type")
    if kind in ("LoadBalancer", "NodePort"):
        out.append(ChartEdge(f"{path}.{chart.edge['service_type']}", str(kind), False, "", {}, pod_path, pod))
    return out
