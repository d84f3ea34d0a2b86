"""The proxy Deployment a release of LiteLLM's own chart (``litellm-helm``) renders, read from its values and the chart's
defaults.

BerriAI publishes the chart as oci://ghcr.io/berriai/litellm-helm from BerriAI/litellm deploy/charts/litellm-helm
(components/helm_charts.toml cites each fact at the commit read). What templates/deployment.yaml renders
(lines 1-238@f77fbefc22e8):

- one Deployment named by the fullname (``fullnameOverride``, else the release name when it holds ``nameOverride``,
  default ``litellm``, else ``<release>-<name>``: _helpers.tpl:13-24@003feda33f63); ``replicaCount`` replicas unless
  ``autoscaling.enabled`` or ``keda.enabled``; ``strategy`` as written.
- container ``nameOverride`` (``litellm``): image ``image.repository:image.tag``, the tag defaulting to
  ``main-<appVersion>``; env HOST, PORT (``service.port``, 4000), the database's DATABASE_USERNAME/PASSWORD from the
  chart's Secret FULLNAME-dbcredentials (``db.deployStandalone``, default true) or from ``db.secret`` with DATABASE_URL
  (``db.useExisting``), PROXY_MASTER_KEY from the Secret ``masterkeySecretName`` (default FULLNAME-masterkey, which the
  chart writes from ``masterkey`` or a random string) key ``masterkeySecretKey`` (default ``masterkey``), REDIS_* when
  ``redis.enabled`` (not rendered here: the Bitnami subchart's names), ``envVars`` (a map) and ``extraEnvVars`` (a list); envFrom ``environmentSecrets`` and
  ``environmentConfigMaps``; args ``--config /etc/litellm/config.yaml`` unless ``args``; port ``http``; liveness GET
  /health/liveliness, readiness and startup GET /health/readiness (startup 30 x 10 s); ``resources``,
  ``securityContext`` and ``lifecycle`` as written; the config ConfigMap (FULLNAME-config, written from
  ``proxy_config`` while ``proxyConfigMap.create``, default true, else ``proxyConfigMap.name``) at
  /etc/litellm/config.yaml.
- pod: ``podSecurityContext``, ``imagePullSecrets``, ``nodeSelector``, ``affinity``, ``tolerations``,
  ``topologySpreadConstraints``; terminationGracePeriodSeconds ``terminationGracePeriodSeconds`` (default 90).

The proxy's configuration itself (``proxy_config``) is read where the values are (policies/reading/litellm.py
values_configs); the literal credentials the chart copies into its own Secrets are ``litellm_literals``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from components.helm_charts import Chart
from policies.chart_values import chart_image, coalesced, create_fullname, env_list, items_of, pod_options, truthy, value_at
from policies.chart_workloads import Workload

_PROBES: dict[str, dict] = {
    "livenessProbe": {"httpGet": {"path": "/health/liveliness", "port": "http"}},
    "readinessProbe": {"httpGet": {"path": "/health/readiness", "port": "http"}},
    "startupProbe": {"httpGet": {"path": "/health/readiness", "port": "http"}, "failureThreshold": 30, "periodSeconds": 10},
}
_PROBE_FIELDS = ("initialDelaySeconds", "periodSeconds", "timeoutSeconds", "successThreshold", "failureThreshold")


def _name(values: Mapping, chart: Chart) -> str:
    """litellm.name (_helpers.tpl:4-6@003feda33f63): ``nameOverride``, which values.yaml sets to ``litellm``; a release
    that empties it gets the chart's name."""
    if "nameOverride" not in values:
        return chart.container
    return str(values.get("nameOverride") or chart.names[0])[:63].rstrip("-")


def _fullname(values: Mapping, release: str, name: str) -> str:
    """litellm.fullname (_helpers.tpl:13-24@003feda33f63)."""
    if truthy(values.get("fullnameOverride")):
        return str(values["fullnameOverride"])[:63].rstrip("-")
    return create_fullname(release, name)


def _secret(name: str, secret: Any, key: Any) -> dict:
    return {"name": name, "valueFrom": {"secretKeyRef": {"name": str(secret), "key": str(key)}}}


def _env(values: Mapping, release: str, fullname: str) -> list[dict]:
    port = value_at(values, "service", "port") or 4000
    env: list[dict] = [{"name": "HOST", "value": str(values.get("listen") or "0.0.0.0")}, {"name": "PORT", "value": str(port)}]
    db: Mapping = values["db"] if isinstance(values.get("db"), Mapping) else {}
    if truthy(db.get("deployStandalone", True)):
        env += [
            _secret("DATABASE_USERNAME", f"{fullname}-dbcredentials", "username"),
            _secret("DATABASE_PASSWORD", f"{fullname}-dbcredentials", "password"),
            {"name": "DATABASE_HOST", "value": f"{release}-postgresql"},
            {"name": "DATABASE_NAME", "value": "litellm"},
        ]
    elif truthy(db.get("useExisting")):
        secret = value_at(db, "secret", "name", default="postgres")
        env += [
            _secret("DATABASE_USERNAME", secret, value_at(db, "secret", "usernameKey", default="username")),
            _secret("DATABASE_PASSWORD", secret, value_at(db, "secret", "passwordKey", default="password")),
            {"name": "DATABASE_HOST", "value": str(db.get("endpoint") or "localhost")},
            {"name": "DATABASE_NAME", "value": str(db.get("database") or "litellm")},
            {"name": "DATABASE_URL", "value": str(db.get("url") or "")},
        ]
    secret = values.get("masterkeySecretName") or f"{fullname}-masterkey"
    env.append(_secret("PROXY_MASTER_KEY", secret, values.get("masterkeySecretKey") or "masterkey"))
    env += env_list(values.get("envVars") if isinstance(values.get("envVars"), Mapping) else None)
    env += [dict(e) for e in items_of(values.get("extraEnvVars")) if isinstance(e, Mapping)]
    return env


def _probes(values: Mapping) -> dict:
    """The chart's fixed probes, with the settings a values probe block gives (a later chart reads them)."""
    out = {}
    for field, default in _PROBES.items():
        given = values.get(field)
        given = {k: given[k] for k in _PROBE_FIELDS if k in given} if isinstance(given, Mapping) else {}
        out[field] = coalesced(default, given)
    return out


def litellm_helm(chart: Chart, values: Mapping, version: str, release: str) -> list[Workload]:
    """The proxy Deployment of a litellm-helm release (module docstring)."""
    name = _name(values, chart)
    fullname = _fullname(values, release, name)
    port = value_at(values, "service", "port") or chart.port
    container: dict = {"name": name}
    image = chart_image(chart, values, version)
    if image:
        container["image"] = image
    container["env"] = _env(values, release, fullname)
    env_from = [{"secretRef": {"name": str(s)}} for s in items_of(values.get("environmentSecrets"))]
    env_from += [{"configMapRef": {"name": str(c)}} for c in items_of(values.get("environmentConfigMaps"))]
    if env_from:
        container["envFrom"] = env_from
    if isinstance(values.get("command"), list) and values["command"]:
        container["command"] = [str(v) for v in values["command"]]
    args = values.get("args")
    container["args"] = [str(v) for v in args] if isinstance(args, list) and args else ["--config", "/etc/litellm/config.yaml"]
    if not (isinstance(args, list) and args) and truthy(values.get("numWorkers")):
        container["args"] += ["--num_workers", str(values["numWorkers"])]
    container["ports"] = [{"name": "http", "containerPort": port, "protocol": "TCP"}]
    container.update(_probes(values))
    resources = values.get("resources")
    container["resources"] = dict(resources) if isinstance(resources, Mapping) else {}
    security = values.get("securityContext")
    if isinstance(security, Mapping) and security:
        container["securityContext"] = dict(security)
    container["volumeMounts"] = [
        {"name": "litellm-config", "mountPath": "/etc/litellm/config.yaml", "subPath": "config.yaml"},
        *[m for m in items_of(values.get("volumeMounts")) if isinstance(m, Mapping)],
    ]
    if isinstance(values.get("lifecycle"), Mapping) and values["lifecycle"]:
        container["lifecycle"] = dict(values["lifecycle"])
    own = value_at(values, "proxyConfigMap", "create", default=True)
    config = f"{fullname}-config" if truthy(own) else str(value_at(values, "proxyConfigMap", "name", default=""))
    pod: dict = {
        "containers": [container],
        "volumes": [
            {"name": "litellm-config", "configMap": {"name": config}},
            *[v for v in items_of(values.get("volumes")) if isinstance(v, Mapping)],
        ],
        "terminationGracePeriodSeconds": values.get("terminationGracePeriodSeconds") or 90,
    }
    pod_options({k: v for k, v in values.items() if k != "runtimeClassName"}, pod)
    scaled = truthy(value_at(values, "autoscaling", "enabled")) or truthy(value_at(values, "keda", "enabled"))
    strategy = values.get("strategy")
    strategy = dict(strategy) if isinstance(strategy, Mapping) else {}
    service = str(value_at(values, "service", "type") or "ClusterIP")
    return [Workload("", pod, None if scaled else values.get("replicaCount", 1), strategy, {}, service, "the model APIs")]


def litellm_literals(values: Mapping) -> list[tuple[str, str, str]]:
    """(path below the values, what, the literal) of each credential a litellm-helm release writes as a literal string
    that the chart copies into a Secret of its own: ``masterkey`` (templates/secret-masterkey.yaml@003feda33f63),
    unless ``masterkeySecretName`` names the Secret to use instead, when the chart writes no master key Secret and the
    value is read by nothing (secret-masterkey.yaml:1@57a634d57ea4 ``if not .Values.masterkeySecretName``; the proxy's
    PROXY_MASTER_KEY comes from that Secret, deployment.yaml:96-100@f77fbefc22e8), and, while ``db.deployStandalone``
    (default true), ``postgresql.auth.password`` and ``postgres-password`` (templates/secret-dbcredentials.yaml
    @109ccf4cefd3, the password the bundled PostgreSQL and the proxy share)."""
    found = []
    own_secret = not truthy(values.get("masterkeySecretName"))
    if own_secret and isinstance(values.get("masterkey"), str) and values["masterkey"].strip():
        found.append((".masterkey", "the proxy's master key (PROXY_MASTER_KEY)", values["masterkey"]))
    if truthy(value_at(values, "db", "deployStandalone", default=True)):
        auth = value_at(values, "postgresql", "auth", default={})
        auth = auth if isinstance(auth, Mapping) else {}
        for key in ("password", "postgres-password"):
            if isinstance(auth.get(key), str) and auth[key].strip():
                found.append((f".postgresql.auth.{key}", "the password of LiteLLM's PostgreSQL database", auth[key]))
    return found
