"""The workloads a release of the vLLM production stack (``vllm-stack``) or of LocalAI's chart (``local-ai``) renders:
each pod with the replicas, rollout strategy, claims (name -> access modes) and Service type the chart gives it, read
from the release's values and the chart's defaults (components/helm_charts.toml, each fact cited there at its tag).
policies/helm_charts.py hands the pods to every pod rule; the rollout and the claims serve the rules on what a pod
alone does not show (S30 single-attach claims under a rolling update, G32 the Service type).

- vllm-project/production-stack helm/ (templates/deployment-vllm-multi.yaml:1-393, _helpers.tpl:4-118, pvc.yaml:5-20
  @vllm-stack-0.1.5; readinessProbe from @vllm-stack-0.1.8): one Deployment per ``servingEngineSpec.modelSpec[]``
  entry without ``raySpec`` (none when ``servingEngineSpec.enableEngine`` is false), ``replicaCount`` replicas,
  strategy ``servingEngineSpec.strategy`` else RollingUpdate maxSurge 100% / maxUnavailable 0. Container ``vllm``: image
  ``repository:tag``; ``vllm serve MODELURL --host 0.0.0.0 --port PORT`` with the flags the values write
  (``enableLoRA``, ``enableTool``/``toolCallParser``, ``vllmConfig`` settings, ``vllmConfig.extraArgs``,
  ``chatTemplate``); env HF_HOME (/data with ``pvcStorage``, else /tmp), HF_TOKEN and VLLM_API_KEY from Secrets when
  ``hf_token`` / ``servingEngineSpec.vllmApiKey`` are set, then ``env``; the startup, liveness (and from 0.1.8
  readiness) probes of ``servingEngineSpec`` merged onto the chart's defaults (null removes one); requests
  ``requestCPU``/``requestMemory``, ``requestGPU`` of ``requestGPUType`` (nvidia.com/gpu) in requests and limits,
  ``limitCPU``/``limitMemory``; the claim RELEASE-NAME-storage-claim (``pvcAccessMode`` else ReadWriteOnce) at /data
  when ``pvcStorage`` is set, a memory /dev/shm with ``tensorParallelSize``, ``extraVolumes``/``extraVolumeMounts``.
  The engine Service is ClusterIP whatever the values say (service-vllm.yaml:12). The router Deployment
  (``routerSpec``, ``_router``) in front of the engines, behind a Service of ``routerSpec.serviceType``. Left out, as
  values-independent or version-dependent: the boolean flags the chart writes unasked, LMCache env, the router's args.
- go-skynet/helm-charts charts/local-ai (templates/deployment.yaml:11-208, pvcs.yaml, service.yaml@local-ai-3.4.2):
  one Deployment of ``replicaCount`` replicas with no strategy (Kubernetes' RollingUpdate, maxSurge 25%); the main
  container renders no probe and no port; image ``deployment.image`` (``repository``/``tag``, or one string before
  the 3.x values); env each ``deployment.env`` key upper-cased (merged onto the chart's threads/context_size, in key
  order) with its value quoted, MODELS_PATH, then ``deployment.secretEnv``; ``resources`` as written; one claim
  FULLNAME-KEY (its ``accessModes``, ReadWriteMany by default) at ``globalMount`` per enabled ``persistence`` entry
  (the 3.x form; merged onto the chart's ``models`` and ``output``); the Service of ``service.type``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from components.helm_charts import Chart
from policies.chart_values import chart_image, coalesced, env_list, items_of, truthy, value_at


@dataclass(frozen=True)
class Workload:
    """One pod a release renders: its path below the values path, the pod spec, and the controller around it."""

    where: str
    pod: dict
    replicas: Any = 1
    strategy: dict = field(default_factory=dict)
    claims: dict = field(default_factory=dict)  # claim name the chart renders -> its access modes
    service: str = ""  # the type of the Service the chart puts in front of it ("" when none or fixed ClusterIP)
    fronts: str = ""  # what the pod forwards to, for a router that serves no model itself ("" for a model server)


# vllm-stack ---------------------------------------------------------------------------------------------------------
_HANDLERS = ("httpGet", "exec", "tcpSocket", "grpc")
# vllmConfig settings the template turns into a flag with the value (deployment-vllm-multi.yaml:124-147@vllm-stack-0.1.5).
_VLLM_VALUED = (
    ("maxModelLen", "--max-model-len"),
    ("dtype", "--dtype"),
    ("tensorParallelSize", "--tensor-parallel-size"),
    ("maxNumSeqs", "--max-num-seqs"),
    ("gpuMemoryUtilization", "--gpu-memory-utilization"),
    ("maxLoras", "--max-loras"),
)


def _vllm_args(spec: Mapping, port: Any) -> list[str]:
    args = ["vllm", "serve", str(spec.get("modelURL") or ""), "--host", "0.0.0.0", "--port", str(port)]
    if truthy(spec.get("enableLoRA")):
        args.append("--enable-lora")
    if truthy(spec.get("enableTool")):
        args.append("--enable-auto-tool-choice")
    if truthy(spec.get("toolCallParser")):
        args += ["--tool-call-parser", str(spec["toolCallParser"])]
    config = spec.get("vllmConfig")
    config = config if isinstance(config, Mapping) else {}
    for key, flag in (("enableChunkedPrefill", "chunked-prefill"), ("enablePrefixCaching", "prefix-caching")):
        if key in config:  # only where the values write it (the chart's unasked --no- form varies by version)
            args.append(f"--{'' if truthy(config[key]) else 'no-'}enable-{flag}")
    for key, flag in _VLLM_VALUED:
        if key in config and config[key] is not None:
            args += [flag, str(config[key])]
    args += [str(a) for a in items_of(config.get("extraArgs"))]
    if truthy(spec.get("chatTemplate")):
        args += ["--chat-template", str(spec["chatTemplate"])]
    return args


def _secret_env(name: str, value: Any, secret: str, key: str) -> dict:
    """An env var the chart fills from a Secret: its own RELEASE-secrets for a string value, else the named one."""
    if isinstance(value, Mapping):
        return {"name": name, "valueFrom": {"secretKeyRef": {"name": value.get("secretName"), "key": value.get("secretKey")}}}
    return {"name": name, "valueFrom": {"secretKeyRef": {"name": secret, "key": key}}}


def _vllm_resources(spec: Mapping) -> dict:
    requests: dict = {k: spec[v] for k, v in (("memory", "requestMemory"), ("cpu", "requestCPU")) if spec.get(v) is not None}
    limits: dict = {k: spec[v] for k, v in (("memory", "limitMemory"), ("cpu", "limitCPU")) if spec.get(v) is not None}
    try:
        gpus = int(float(spec.get("requestGPU") or 0))
    except (TypeError, ValueError):
        gpus = 0
    if gpus > 0:
        kind = str(spec.get("requestGPUType") or "nvidia.com/gpu")
        requests[kind] = limits[kind] = spec["requestGPU"]
    return {"requests": requests, **({"limits": limits} if limits else {})}


def _vllm_probes(chart: Chart, engine: Mapping, version: str, port: Any) -> dict:
    probes = {}
    for name in chart.probes_at(version):
        if name in engine and engine[name] is None:
            continue  # a null in the values removes the chart's default
        default = {**chart.probe_settings.get(name, {}), "httpGet": {"path": chart.probe_path, "port": port}}
        given = engine.get(name)
        if isinstance(given, Mapping) and any(h in given for h in _HANDLERS):
            default.pop("httpGet")
        probe = coalesced(default, given)
        if probe:
            probes[name] = probe
    return probes


def _vllm_pod(chart: Chart, spec: Mapping, engine: Mapping, version: str, release: str) -> tuple[dict, dict]:
    """(pod spec, claims) of one modelSpec entry."""
    port = engine.get("containerPort") or chart.port
    name = str(spec.get("name") or "")
    container: dict = {"name": chart.container, "command": _vllm_args(spec, port)}
    if spec.get("repository") or spec.get("tag"):
        container["image"] = f"{spec.get('repository') or ''}:{spec.get('tag') or ''}"
    env: list = [{"name": "HF_HOME", "value": "/data" if "pvcStorage" in spec else "/tmp"}]
    if truthy(spec.get("hf_token")):
        env.append(_secret_env("HF_TOKEN", spec["hf_token"], f"{release}-secrets", f"hf_token_{name}"))
    if truthy(engine.get("vllmApiKey")):
        env.append(_secret_env("VLLM_API_KEY", engine["vllmApiKey"], f"{release}-secrets", "vllmApiKey"))
    env += env_list(spec.get("env"))
    container["env"] = env
    if truthy(engine.get("configs")):
        container["envFrom"] = [{"configMapRef": {"name": f"{release}-configs"}}]
    container["ports"] = [{"name": "container-port", "containerPort": port}]
    container.update(_vllm_probes(chart, engine, version, port))
    container["resources"] = _vllm_resources(spec)
    if isinstance(engine.get("containerSecurityContext"), Mapping) and engine["containerSecurityContext"]:
        container["securityContext"] = engine["containerSecurityContext"]
    mounts: list = []
    volumes: list = []
    claims: dict = {}
    if "pvcStorage" in spec:
        claim = f"{release}-{name}-storage-claim"
        mounts.append({"name": f"{release}-storage", "mountPath": chart.data_mount})
        volumes.append({"name": f"{release}-storage", "persistentVolumeClaim": {"claimName": claim}})
        if truthy(spec.get("pvcStorage")):
            modes = spec.get("pvcAccessMode")
            claims[claim] = [str(m) for m in modes] if isinstance(modes, list) and modes else ["ReadWriteOnce"]
    config = spec.get("vllmConfig")
    if isinstance(config, Mapping) and "tensorParallelSize" in config:
        mounts.append({"name": "shm", "mountPath": "/dev/shm"})
        volumes.append({"name": "shm", "emptyDir": {"medium": "Memory", "sizeLimit": spec.get("shmSize") or "20Gi"}})
    mounts += [m for m in items_of(spec.get("extraVolumeMounts")) if isinstance(m, Mapping)]
    volumes += [v for v in items_of(spec.get("extraVolumes")) if isinstance(v, Mapping)]
    if mounts:
        container["volumeMounts"] = mounts
    pod: dict = {"containers": [container]}
    if volumes:
        pod["volumes"] = volumes
    for key, target in (("securityContext", "securityContext"), ("tolerations", "tolerations")):
        if truthy(engine.get(key)):
            pod[target] = engine[key]
    for key in ("runtimeClassName", "schedulerName"):  # the values' own (the chart's default class is left out)
        if truthy(spec.get(key) if key in spec else engine.get(key)):
            pod[key] = spec.get(key) if key in spec else engine[key]
    if truthy(spec.get("serviceAccountName")):
        pod["serviceAccountName"] = spec["serviceAccountName"]
    if truthy(spec.get("nodeName")):
        pod["nodeName"] = spec["nodeName"]
    elif truthy(spec.get("nodeSelectorTerms")):
        terms = spec["nodeSelectorTerms"]
        pod["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}}}
    if truthy(spec.get("imagePullSecret")):
        pod["imagePullSecrets"] = [{"name": spec["imagePullSecret"]}]
    return pod, claims


# The router's probes (deployment-router.yaml:127-133@vllm-stack-0.1.5: liveness only, fixed; :127-140@vllm-stack-0.1.6
# and 0.1.7: liveness and startup (5/5/3), fixed; :157-177 and values.yaml routerSpec.livenessProbe/startupProbe/
# readinessProbe@vllm-stack-0.1.8: all three from values), and the chart version each is first rendered at.
_ROUTER_PROBE_SINCE = {"livenessProbe": (0, 0, 0), "startupProbe": (0, 1, 6), "readinessProbe": (0, 1, 8)}
_ROUTER_PROBES = {
    "livenessProbe": {"initialDelaySeconds": 30, "periodSeconds": 5, "failureThreshold": 3},
    "startupProbe": {"initialDelaySeconds": 5, "periodSeconds": 5, "failureThreshold": 3},
    "readinessProbe": {"initialDelaySeconds": 30, "periodSeconds": 5, "failureThreshold": 3},
}


def _router(chart: Chart, values: Mapping, version: str) -> list[Workload]:
    """The router Deployment (deployment-router.yaml:1-134, service-router.yaml:9, values.yaml:256-318
    @vllm-stack-0.1.5): unless ``routerSpec.enableRouter`` is false, ``replicaCount`` pods of ``repository:tag``
    (lmcache/lmstack-router:latest by default), ``hf_token`` as a literal HF_TOKEN, resources (requests 4 CPU/16G,
    limits 8/32G by default), the probes of ``_ROUTER_PROBES`` (startup from 0.1.6, readiness from 0.1.8), behind a Service of
    ``serviceType`` (ClusterIP by default)."""
    spec = values.get("routerSpec")
    spec = spec if isinstance(spec, Mapping) else {}
    if not truthy(spec.get("enableRouter", True)):  # Go truth: false, 0, "" or null (Helm drops the key) turn it off
        return []
    port = spec.get("containerPort") or chart.port
    image = f"{spec.get('repository') or 'lmcache/lmstack-router'}:{spec.get('tag') or 'latest'}"
    container: dict = {"name": "router-container", "image": image, "ports": [{"name": "router-cport", "containerPort": port}]}
    if truthy(spec.get("hf_token")) and isinstance(spec["hf_token"], (str, int, float)):
        container["env"] = [{"name": "HF_TOKEN", "value": str(spec["hf_token"])}]
    default = {"requests": {"cpu": "4", "memory": "16G"}, "limits": {"cpu": "8", "memory": "32G"}}
    resources = default if "resources" not in spec else spec["resources"]
    if isinstance(resources, Mapping) and resources:
        container["resources"] = coalesced(default, resources) if "resources" in spec else dict(resources)
    key = _version(version)
    for name, settings in _ROUTER_PROBES.items():
        if key is not None and key < _ROUTER_PROBE_SINCE[name]:
            continue
        fixed = key is not None and key < (0, 1, 8)  # before 0.1.8 the template writes the settings, values unread
        if name in spec and spec[name] is None and not fixed:
            continue
        probe = coalesced({**settings, "httpGet": {"path": "/health", "port": port}}, None if fixed else spec.get(name))
        container[name] = probe
    pod: dict = {"containers": [container]}
    strategy = spec.get("strategy")
    strategy = (
        dict(strategy)
        if isinstance(strategy, Mapping) and strategy
        else {"rollingUpdate": {"maxSurge": "100%", "maxUnavailable": 0}}
    )
    service = str(spec.get("serviceType") or "ClusterIP")
    return [Workload(".routerSpec", pod, spec.get("replicaCount", 1), strategy, {}, service, "the vLLM engines")]


def _version(version: str) -> tuple[int, ...] | None:
    parts = version.lstrip("v").split("-", 1)[0].split(".")
    ok = len(parts) == 3 and all(p.isascii() and p.isdigit() and len(p) <= 9 for p in parts)  # int() refuses 4300+ digits
    return tuple(int(p) for p in parts) if ok else None


def vllm_stack(chart: Chart, values: Mapping, version: str, release: str) -> list[Workload]:
    """The engine Deployments and the router of a vllm-stack release (module docstring)."""
    engine = value_at(values, "servingEngineSpec", default={})
    engine = engine if isinstance(engine, Mapping) else {}
    router = _router(chart, values, version)
    if not truthy(engine.get("enableEngine", True)):  # deployment-vllm-multi.yaml:1@vllm-stack-0.1.5, Go truth
        return router
    strategy = engine.get("strategy")
    strategy = (
        dict(strategy)
        if isinstance(strategy, Mapping) and strategy
        else {"rollingUpdate": {"maxSurge": "100%", "maxUnavailable": 0}}
    )
    out = []
    for i, spec in enumerate(items_of(engine.get("modelSpec"))):
        if not isinstance(spec, Mapping) or "raySpec" in spec:
            continue  # a raySpec entry renders a RayCluster, not this Deployment
        pod, claims = _vllm_pod(chart, spec, engine, version, release)
        out.append(Workload(f".servingEngineSpec.modelSpec[{i}]", pod, spec.get("replicaCount", 1), strategy, claims))
    return out + router


# local-ai -----------------------------------------------------------------------------------------------------------
# The chart's own persistence entries (values.yaml:97-113@local-ai-3.4.2; the same keys, ReadWriteMany, from 3.0.0).
_LOCAL_AI_PERSISTENCE = {
    "models": {"enabled": True, "accessModes": ["ReadWriteMany"], "globalMount": "/models"},
    "output": {"enabled": True, "accessModes": ["ReadWriteMany"], "globalMount": "/tmp/generated"},
}
_LOCAL_AI_ENV = {"threads": 4, "context_size": 512}  # values.yaml:7-9@local-ai-3.4.2


def _quoted(value: Any) -> str:
    """Go's ``quote`` of a values scalar: booleans lower-case, numbers as written."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _fullname(values: Mapping, release: str, chart_name: str) -> str:
    """local-ai.fullname (templates/_helpers.tpl:13-24@local-ai-3.4.2)."""
    if truthy(values.get("fullnameOverride")):
        return str(values["fullnameOverride"])[:63].rstrip("-")
    name = str(values.get("nameOverride") or chart_name)
    return (release if name in release else f"{release}-{name}")[:63].rstrip("-")


def _persistence_form(version: str) -> bool:
    """True for a chart version whose values hold ``persistence.<claim>`` (3.0.0 and from 3.2.0; 3.1.0 and the 1.x and
    2.x charts keep one claim under ``models.persistence``, values.yaml@local-ai-2.1.3 and @local-ai-3.1.0), or no
    pinned version (the newest)."""
    parts = version.lstrip("v").split(".")
    if len(parts) < 2 or not (parts[0].isascii() and parts[0].isdigit() and len(parts[0]) <= 9):
        return True
    return int(parts[0]) >= 3 and version.lstrip("v") != "3.1.0"


def local_ai(chart: Chart, values: Mapping, version: str, release: str) -> list[Workload]:
    """The Deployment of a local-ai release (module docstring)."""
    deployment = values.get("deployment")
    deployment = deployment if isinstance(deployment, Mapping) else {}
    image = deployment.get("image")
    container: dict = {"name": _fullname(values, release, chart.names[0])}
    if isinstance(image, str) and image:
        container["image"] = image
    else:
        shown = chart_image(chart, {"image": image} if isinstance(image, Mapping) else {}, version)
        if shown:
            container["image"] = shown
    env_map = coalesced(_LOCAL_AI_ENV, deployment.get("env"))
    env: list = [{"name": str(k).upper(), "value": _quoted(v)} for k, v in sorted(env_map.items(), key=lambda kv: str(kv[0]))]
    env.append({"name": "MODELS_PATH", "value": str(deployment.get("modelsPath") or chart.data_mount)})
    env += [e for e in items_of(deployment.get("secretEnv")) if isinstance(e, Mapping)]
    container["env"] = env
    resources = values.get("resources")
    container["resources"] = dict(resources) if isinstance(resources, Mapping) else {}
    mounts: list = []
    volumes: list = []
    claims: dict = {}
    persistence = values.get("persistence")
    if _persistence_form(version) and (persistence is None or isinstance(persistence, Mapping)):
        merged = coalesced(_LOCAL_AI_PERSISTENCE, persistence)
        fullname = container["name"]
        for key in sorted(merged, key=str):
            entry = merged[key]
            if not isinstance(entry, Mapping) or not truthy(entry.get("enabled")):
                continue
            claim = f"{fullname}-{key}"
            mounts.append({"name": str(key), "mountPath": str(entry.get("globalMount") or f"/{key}")})
            volumes.append({"name": str(key), "persistentVolumeClaim": {"claimName": claim}})
            modes = entry.get("accessModes")
            claims[claim] = [str(m) for m in modes] if isinstance(modes, list) else [str(modes)] if modes else []
    if mounts:
        container["volumeMounts"] = mounts
    pod: dict = {"containers": [container]}
    if volumes:
        pod["volumes"] = volumes
    for key in ("runtimeClassName", "imagePullSecrets"):
        if truthy(deployment.get(key)):
            pod[key] = deployment[key]
    for key in ("nodeSelector", "affinity", "tolerations"):
        if truthy(values.get(key)):
            pod[key] = values[key]
    service = str(value_at(values, "service", "type") or "ClusterIP")
    return [Workload("", pod, values.get("replicaCount", 1), {}, claims, service)]


RENDERERS = {"vllm-stack": vllm_stack, "local-ai": local_ai}


def vllm_stack_literals(values: Mapping) -> list[tuple[str, str, str]]:
    """(path below the values, what, the literal) of each credential a vllm-stack release writes as a literal string, which the
    chart copies into its own Secret RELEASE-secrets (templates/secrets.yaml; deployment-vllm-multi.yaml:209-237
    @vllm-stack-0.1.5: a string ``servingEngineSpec.vllmApiKey`` or ``modelSpec[].hf_token`` is read from there, a
    mapping names a Secret made elsewhere)."""
    engine = value_at(values, "servingEngineSpec", default={})
    engine = engine if isinstance(engine, Mapping) else {}
    found = []
    if isinstance(engine.get("vllmApiKey"), str) and engine["vllmApiKey"].strip():
        found.append((".servingEngineSpec.vllmApiKey", "the API key vLLM enforces (VLLM_API_KEY)", engine["vllmApiKey"]))
    for i, spec in enumerate(items_of(engine.get("modelSpec"))):
        if isinstance(spec, Mapping) and isinstance(spec.get("hf_token"), str) and spec["hf_token"].strip():
            found.append((f".servingEngineSpec.modelSpec[{i}].hf_token", "a Hugging Face token (HF_TOKEN)", spec["hf_token"]))
    return found
