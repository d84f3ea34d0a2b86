"""The pod a release of NVIDIA's NIM for LLMs chart (``nim-llm``) renders, read from its values and the chart's defaults.

NVIDIA publishes the chart on NGC (helm.ngc.nvidia.com/nim/charts/nim-llm-VERSION.tgz); its sources were kept in
NVIDIA/nim-deploy helm/nim-llm up to chart 1.1.2 (components/helm_charts.toml cites each fact at the commit read). The
single-node form (templates/deployment.yaml:1-261, _helpers.tpl:130-232 @01f3757ae73e), unless ``multiNode.enabled``
(a LeaderWorkerSet or MPIJob, not rendered here) or ``model.legacyCompat`` (pre-1.0 NIMs, another command and ports):

- a StatefulSet while ``statefulSet.enabled`` (default true), else a Deployment; ``replicaCount`` replicas unless
  ``autoscaling.enabled``. A StatefulSet replaces a pod only after the old one stopped (no surge).
- container ``nim-llm``: image ``image.repository:image.tag``, the tag defaulting to the chart's appVersion;
  ``customCommand``/``customArgs``; env NIM_CACHE_PATH (``model.nimCache``), NGC_API_KEY from the Secret
  ``model.ngcAPISecret`` (key NGC_API_KEY), OUTLINES_CACHE_DIR, NIM_SERVER_PORT, NIM_JSONL_LOGGING, NIM_LOG_LEVEL, then
  ``env`` as written; port ``model.openaiPort`` (8000) named http-openai; the liveness (/v1/health/live), readiness and
  startup (/v1/health/ready) probes on it with the values' settings merged onto the chart's, each unless
  ``.enabled`` is false; ``resources`` merged onto the chart's ``limits: nvidia.com/gpu: 1``.
- volumes: ``model-store`` at ``model.nimCache`` (/model-store): the StatefulSet's own claim per pod when
  ``persistence.enabled`` under a StatefulSet without ``existingClaim`` and not ReadWriteMany, else the claim
  ``existingClaim`` or the chart's FULLNAME claim while ``persistence.enabled``, else a ``hostPath``, ``nfs``, or an
  emptyDir (the model is downloaded again at every start); a memory emptyDir at /dev/shm; ``extraVolumes`` and
  ``extraVolumeMounts`` (maps of name to volume or mount).
- pod: ``imagePullSecrets`` (default ngc-secret), ``podSecurityContext`` (default uid/gid/fsGroup 1000),
  ``tolerations`` (default nvidia.com/gpu Exists), ``nodeSelector``, ``affinity``; terminationGracePeriodSeconds 60.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from components.helm_charts import Chart
from policies.chart_values import chart_image, coalesced, create_fullname, items_of, truthy, value_at
from policies.chart_workloads import Workload

# values.yaml@01f3757ae73e (NVIDIA/nim-deploy helm/nim-llm, chart 1.1.2): the defaults the renderer merges under.
_MODEL = {"nimCache": "/model-store", "ngcAPISecret": "ngc-api", "openaiPort": 8000, "jsonLogging": True, "logLevel": "INFO"}
_RESOURCES = {"limits": {"nvidia.com/gpu": 1}}
_POD_SECURITY = {"runAsUser": 1000, "runAsGroup": 1000, "fsGroup": 1000}
_PULL_SECRETS = [{"name": "ngc-secret"}]
_TOLERATIONS = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
_PERSISTENCE = {"enabled": False, "existingClaim": "", "accessMode": "ReadWriteOnce"}
_PROBE_FIELDS = ("initialDelaySeconds", "periodSeconds", "timeoutSeconds", "successThreshold", "failureThreshold")


def _fullname(values: Mapping, release: str, chart_name: str) -> str:
    """nim-llm.fullname (_helpers.tpl:13-24@01f3757ae73e)."""
    if truthy(values.get("fullnameOverride")):
        return str(values["fullnameOverride"])[:63].rstrip("-")
    name = str(values.get("nameOverride") or chart_name)
    return create_fullname(release, name)


def _probes(chart: Chart, values: Mapping) -> dict:
    out: dict = {}
    for field in chart.probes:
        probe = coalesced(chart.probe_settings.get(field, {}), values.get(field))
        if not truthy(probe.get("enabled", True)):
            continue
        if field == "livenessProbe" and probe.get("method") == "script":
            handler: dict = {"exec": {"command": list(items_of(probe.get("command")))}}
        else:
            handler = {"httpGet": {"path": probe.get("path") or chart.probe_path, "port": "http-openai"}}
        out[field] = {**handler, **{k: probe[k] for k in _PROBE_FIELDS if k in probe}}
    return out


def _model_store(values: Mapping, release: str, fullname: str, stateful: bool) -> tuple[dict, dict]:
    """The model-store volume and the claims the chart makes for it (name -> access modes)."""
    persistence = coalesced(_PERSISTENCE, values.get("persistence"))
    if truthy(persistence.get("enabled")):
        mode = str(persistence.get("accessMode") or "")
        if stateful and not truthy(persistence.get("existingClaim")) and mode != "ReadWriteMany":
            # volumeClaimTemplates: one claim per pod (model-store-RELEASE-N), never shared, so no modes are given
            claim = f"model-store-{release}-0"
            return {"name": "model-store", "persistentVolumeClaim": {"claimName": claim}}, {claim: []}
        if truthy(persistence.get("existingClaim")):
            return {"name": "model-store", "persistentVolumeClaim": {"claimName": str(persistence["existingClaim"])}}, {}
        return {"name": "model-store", "persistentVolumeClaim": {"claimName": fullname}}, {fullname: [mode]}
    host = values.get("hostPath")
    if isinstance(host, Mapping) and truthy(host.get("enabled")):
        return {"name": "model-store", "hostPath": {"path": host.get("path"), "type": "DirectoryOrCreate"}}, {}
    nfs = values.get("nfs")
    if isinstance(nfs, Mapping) and truthy(nfs.get("enabled")):
        shown = {k: nfs[k] for k in ("server", "path", "readOnly") if k in nfs}
        return {"name": "model-store", "nfs": shown}, {}
    return {"name": "model-store", "emptyDir": {}}, {}


def nim_llm(chart: Chart, values: Mapping, version: str, release: str) -> list[Workload]:
    """The StatefulSet (or Deployment) of a nim-llm release (module docstring); [] for the multi-node and legacy forms."""
    if truthy(value_at(values, "multiNode", "enabled")) or truthy(value_at(values, "model", "legacyCompat")):
        return []
    model = coalesced(_MODEL, values.get("model"))
    stateful = truthy(value_at(values, "statefulSet", "enabled", default=True))
    port = model.get("openai_port") or model.get("openaiPort")
    container: dict = {"name": chart.container, "ports": [{"containerPort": port, "name": "http-openai"}]}
    image = chart_image(chart, values, version)
    if image:
        container["image"] = image
    for key, field in (("customCommand", "command"), ("customArgs", "args")):
        if isinstance(values.get(key), list) and values[key]:
            container[field] = [str(v) for v in values[key]]
    container["env"] = [
        {"name": "NIM_CACHE_PATH", "value": str(model.get("nimCache"))},
        {"name": "NGC_API_KEY", "valueFrom": {"secretKeyRef": {"name": model.get("ngcAPISecret"), "key": "NGC_API_KEY"}}},
        {"name": "OUTLINES_CACHE_DIR", "value": "/tmp/outlines"},
        {"name": "NIM_SERVER_PORT", "value": str(model.get("openaiPort"))},
        {"name": "NIM_JSONL_LOGGING", "value": "1" if truthy(model.get("jsonLogging")) else "0"},
        {"name": "NIM_LOG_LEVEL", "value": str(model.get("logLevel"))},
        *[e for e in items_of(values.get("env")) if isinstance(e, Mapping)],
    ]
    container.update(_probes(chart, values))
    container["resources"] = coalesced(_RESOURCES, values.get("resources"))
    if isinstance(values.get("containerSecurityContext"), Mapping) and values["containerSecurityContext"]:
        container["securityContext"] = values["containerSecurityContext"]
    fullname = _fullname(values, release, chart.names[0])
    store, claims = _model_store(values, release, fullname, stateful)
    container["volumeMounts"] = [
        {"name": "model-store", "mountPath": str(model.get("nimCache"))},
        {"name": "dshm", "mountPath": "/dev/shm"},
        {"name": "scripts-volume", "mountPath": "/scripts"},
        *_named(values.get("extraVolumeMounts")),
    ]
    pod: dict = {
        "containers": [container],
        "volumes": [
            {"name": "dshm", "emptyDir": {"medium": "Memory"}},
            {"name": "scripts-volume", "configMap": {"name": f"{release}-scripts-configmap", "defaultMode": 0o555}},
            store,
            *_named(values.get("extraVolumes")),
        ],
        "securityContext": coalesced(_POD_SECURITY, values.get("podSecurityContext")),
        "terminationGracePeriodSeconds": 60,  # fixed: templates/deployment.yaml:196@01f3757ae73e
    }
    for key, default in (("imagePullSecrets", _PULL_SECRETS), ("tolerations", _TOLERATIONS)):
        given = values.get(key, default)
        if truthy(given):
            pod[key] = given
    for key in ("nodeSelector", "affinity"):
        if truthy(values.get(key)):
            pod[key] = values[key]
    replicas = None if truthy(value_at(values, "autoscaling", "enabled")) else values.get("replicaCount", 1)
    strategy = {"rollingUpdate": {"maxSurge": 0}} if stateful else {}
    service = str(value_at(values, "service", "type") or "ClusterIP")
    return [Workload("", pod, replicas, strategy, claims, service)]


def _named(entries: Any) -> list[dict]:
    """A map of name -> volume (or mount) the chart writes as list items named by their key."""
    if not isinstance(entries, Mapping):
        return []
    return [{"name": str(k), **v} for k, v in entries.items() if isinstance(v, Mapping)]
