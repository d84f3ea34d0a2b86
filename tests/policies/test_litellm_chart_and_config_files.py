"""LiteLLM read wherever it is configured: its chart litellm-helm (components/helm_charts.toml, policies/chart_litellm.py)
and its own config file committed beside the manifests (policies/config_files.py).

Fires: spent set 117 yo0x/devops-smarthome@f85be65df672ecd68c85fa3b280218318c913b8e root/environments/litellm-values.yaml
(the chart's example values: postgresql.auth.password committed, no resources or securityContext: G35, G8, G27) and
root/argo-cd/apps/litellm.yaml (the chart from BerriAI/litellm's main branch: G1); spent set 107
cyberglitchlabs/clouddrop@c1269f51dc635fd9c19d6d1795c0a9d4f19178df kubernetes/apps/ai/litellm/app/config/config.yaml
with app/kustomization.yaml@4d2226b968c7 generating ConfigMap litellm-config from it (metrics without auth: G101).
Silent: a careful litellm-helm release (master key and database from Secrets, keys from os.environ/, resources,
allowPrivilegeEscalation false, a preStop hook, TLS on the ingress) and a careful config file.
"""

from __future__ import annotations

import yaml

from components.helm_charts import chart_named
from policies.config_files import is_litellm_config, litellm_config_object
from policies.helm_charts import chart_literal_credentials, chart_pod_specs, chart_workloads
from policies.manifests import read_manifests
from tests.policies.policy_fixtures import found_by

YO0X_VALUES = """\
replicaCount: 1
image:
  repository: ghcr.io/berriai/litellm-database
  pullPolicy: Always
  tag: ""
nameOverride: "litellm"
podSecurityContext: {}
securityContext: {}
service:
  type: ClusterIP
  port: 4000
ingress:
  enabled: false
  className: "nginx"
  tls: []
masterkeySecretName: ""
proxy_config:
  model_list:
    - model_name: gpt-3.5-turbo
      litellm_params:
        model: gpt-3.5-turbo
        api_key: eXaMpLeOnLy
  general_settings:
    master_key: os.environ/PROXY_MASTER_KEY
resources: {}
db:
  useExisting: false
  deployStandalone: true
postgresql:
  architecture: standalone
  auth:
    username: litellm
    database: litellm
    password: NoTaGrEaTpAsSwOrD
    postgres-password: NoTaGrEaTpAsSwOrD
"""

YO0X_APPLICATION = """\
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: litellm
  namespace: argocd
spec:
  project: default
  source:
    repoURL: https://github.com/BerriAI/litellm.git
    path: deploy/charts/litellm-helm
    targetRevision: main
    helm:
      valueFiles:
        - https://raw.githubusercontent.com/yo0x/devops-smarthome/main/root/environments/litellm-values.yaml
  destination:
    server: https://kubernetes.default.svc
    namespace: litellm
"""

CAREFUL_RELEASE = """\
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: litellm
  namespace: ai
spec:
  chart:
    spec:
      chart: litellm-helm
      version: 1.1.0
      sourceRef: {kind: HelmRepository, name: berriai}
  values:
    image:
      tag: main-v1.80.12
    masterkeySecretName: litellm-master
    masterkeySecretKey: key
    environmentSecrets: [litellm-provider-keys]
    db:
      deployStandalone: false
      useExisting: true
      endpoint: postgres-rw.db.svc
      secret: {name: litellm-db, usernameKey: username, passwordKey: password}
    resources:
      requests: {cpu: 500m, memory: 1Gi}
      limits: {memory: 2Gi}
    securityContext:
      allowPrivilegeEscalation: false
      runAsNonRoot: true
    lifecycle:
      preStop:
        exec: {command: ["sleep", "15"]}
    terminationGracePeriodSeconds: 700
    ingress:
      enabled: true
      className: nginx
      annotations:
        nginx.ingress.kubernetes.io/auth-url: https://auth.example.com/oauth2/auth
      hosts:
        - host: llm.example.com
          paths: [{path: /, pathType: Prefix}]
      tls:
        - secretName: llm-tls
          hosts: [llm.example.com]
    proxy_config:
      model_list:
        - model_name: gpt-4o
          litellm_params:
            model: openai/gpt-4o
            api_key: os.environ/OPENAI_API_KEY
      general_settings:
        master_key: os.environ/PROXY_MASTER_KEY
"""

CLOUDDROP_CONFIG = """\
model_list:
  - model_name: gemma-4-e2b
    litellm_params:
      model: openai/mlx-community/gemma-4-e2b-it-4bit
      api_base: http://192.168.100.93:52415/v1
      api_key: none
litellm_settings:
  drop_params: true
  request_timeout: 600
  callbacks: ["prometheus"]
  require_auth_for_metrics_endpoint: false
router_settings:
  routing_strategy: simple-shuffle
  timeout: 600
general_settings:
  master_key: os.environ/LITELLM_MASTER_KEY
  database_url: os.environ/DATABASE_URL
"""

CLOUDDROP_KUSTOMIZATION = """\
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
components:
  - ../../../../components/helmrelease-defaults
configMapGenerator:
  - name: litellm-config
    files:
      - config.yaml=./config/config.yaml
generatorOptions:
  disableNameSuffixHash: true
resources:
  - ./helmrelease.yaml
"""

# The bjw-s app-template release of the same folder, cut to the proxy container and the config mount.
CLOUDDROP_RELEASE = """\
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: litellm
spec:
  chartRef: {kind: OCIRepository, name: bjw-s-app-template, namespace: flux-system}
  values:
    controllers:
      litellm:
        containers:
          app:
            image: {repository: ghcr.io/berriai/litellm, tag: v1.95.0}
            args: ["--config", "/app/config.yaml", "--port", "4000"]
    service:
      app:
        controller: litellm
        ports:
          http: {port: 4000}
    persistence:
      config:
        type: configMap
        name: litellm-config
        globalMounts:
          - path: /app/config.yaml
            subPath: config.yaml
"""


def _read(tmp_path, files: dict[str, str]) -> list[dict]:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return [o.obj for o in read_manifests([str(tmp_path)]).objects]


def test_row_names_the_chart_by_name_oci_and_git_repository():
    chart = chart_named("oci://ghcr.io/berriai/litellm-helm")
    assert chart is not None and chart.key == "litellm-helm" and chart.port == 4000
    assert chart_named("", "https://github.com/BerriAI/litellm.git") is chart
    assert chart_named("litellm") is None  # another publisher's chart of that name is not this one
    assert chart.default_tag("1.1.0") == "main-v1.80.12" and chart.newest_tag() == "main-v1.80.12"


def test_yo0x_values_file_renders_the_proxy_and_fires(tmp_path):
    (release,) = _read(tmp_path, {"root/environments/litellm-values.yaml": YO0X_VALUES})
    assert release["spec"]["chart"]["spec"]["chart"] == "litellm-helm"
    ((_, pod),) = chart_pod_specs(release)
    (container,) = pod["containers"]
    assert container["image"] == "ghcr.io/berriai/litellm-database:main-v1.80.12"
    assert container["args"] == ["--config", "/etc/litellm/config.yaml"]
    key = next(e for e in container["env"] if e["name"] == "PROXY_MASTER_KEY")
    assert key["valueFrom"]["secretKeyRef"] == {"name": "litellm-helm-masterkey", "key": "masterkey"}
    assert {"name": "litellm-config", "configMap": {"name": "litellm-helm-config"}} in pod["volumes"]
    assert container["readinessProbe"]["httpGet"] == {"path": "/health/readiness", "port": "http"}
    assert [m for _, m in found_by([release], "no-literal-credential")] == [
        "spec.values.postgresql.auth.password gives the password of LiteLLM's PostgreSQL database as a literal, which the "
        "chart copies into its own Secret: the key is clear text in the repository and its history; give the chart a "
        "Secret made elsewhere ({secretName, secretKey}) and rotate this one"
    ]
    assert {level for level, _ in found_by([release], "no-literal-credential")} == {"advisory"}
    assert found_by([release], "serving-resource-requests") and found_by([release], "serving-privilege-escalation")
    assert found_by([release], "image-tag-pinned") == []  # main-v1.80.12 is one release's build
    assert found_by([release], "chart-version-pinned") == []  # a values file states no chart version


def test_application_from_the_chart_repository_branch_fires_and_a_tag_does_not():
    application = yaml.safe_load(YO0X_APPLICATION)
    (found,) = found_by([application], "chart-version-pinned")
    assert found[0] == "advisory"
    assert found[1].startswith("spec.source.targetRevision main installs chart litellm-helm (litellm) from a branch")
    tagged = yaml.safe_load(YO0X_APPLICATION.replace("targetRevision: main", "targetRevision: v1.80.12-stable"))
    assert found_by([tagged], "chart-version-pinned") == []
    own = yaml.safe_load(YO0X_APPLICATION.replace("BerriAI/litellm.git", "yo0x/devops-smarthome.git"))
    assert found_by([own], "chart-version-pinned") == []  # a folder of the user's own repository


def test_careful_release_is_rendered_and_stays_silent():
    release = yaml.safe_load(CAREFUL_RELEASE)
    ((where, workload),) = chart_workloads(release)
    assert where == "spec.values[litellm-helm chart 1.1.0 defaults]" and workload.service == "ClusterIP"
    (container,) = workload.pod["containers"]
    assert container["image"] == "ghcr.io/berriai/litellm-database:main-v1.80.12"
    assert container["envFrom"] == [{"secretRef": {"name": "litellm-provider-keys"}}]
    env = {e["name"]: e for e in container["env"]}
    assert env["PROXY_MASTER_KEY"]["valueFrom"]["secretKeyRef"] == {"name": "litellm-master", "key": "key"}
    assert env["DATABASE_PASSWORD"]["valueFrom"]["secretKeyRef"] == {"name": "litellm-db", "key": "password"}
    assert workload.pod["terminationGracePeriodSeconds"] == 700
    assert chart_literal_credentials(release) == []
    for policy in (
        "no-literal-credential",
        "no-literal-secret-env",
        "serving-resource-requests",
        "serving-privilege-escalation",
        "image-tag-pinned",
        "chart-version-pinned",
        "no-load-balancer-service",
        "chart-value-unread",
    ):
        assert found_by([release], policy) == [], policy


def test_a_literal_master_key_is_read_but_not_from_an_existing_database():
    values = {"masterkey": "sk-1234abcd", "db": {"deployStandalone": False}, "postgresql": {"auth": {"password": "pw"}}}
    release = {"kind": "HelmRelease", "spec": {"chart": {"spec": {"chart": "litellm-helm"}}, "values": values}}
    assert [(w, what) for w, what, _ in chart_literal_credentials(release)] == [
        ("spec.values.masterkey", "the proxy's master key (PROXY_MASTER_KEY)")
    ]


def test_clouddrop_config_file_is_read_as_the_generated_config_map(tmp_path):
    objs = _read(
        tmp_path,
        {
            "app/config/config.yaml": CLOUDDROP_CONFIG,
            "app/kustomization.yaml": CLOUDDROP_KUSTOMIZATION,
            "app/helmrelease.yaml": CLOUDDROP_RELEASE,
        },
    )
    objs = [o for o in objs if o.get("kind") != "Kustomization"]
    config = next(o for o in objs if o.get("kind") == "ConfigMap")
    assert config["metadata"]["name"] == "litellm-config" and list(config["data"]) == ["config.yaml"]
    (exposed,) = found_by(objs, "app-setting-exposure")
    assert exposed[0] == "advisory" and "require_auth_for_metrics_endpoint: false" in exposed[1]
    assert found_by(objs, "namespace-set") == []  # a file, not an object applied without a namespace
    drains = " ".join(m for _, m in found_by(objs, "termination-drains-streams"))
    assert "longest model call 600s (its configuration /app/config.yaml" in drains  # the proxy mounts the file


def test_a_config_file_no_manifest_uses_is_checked_on_itself(tmp_path):
    (config,) = _read(tmp_path, {"litellm_config.yaml": CLOUDDROP_CONFIG})
    assert config["metadata"]["name"] == "litellm-config" and list(config["data"]) == ["litellm_config.yaml"]
    assert len(found_by([config], "app-setting-exposure")) == 1


def test_careful_config_file_stays_silent_and_other_files_are_not_configs(tmp_path):
    careful = CLOUDDROP_CONFIG.replace("require_auth_for_metrics_endpoint: false", "require_auth_for_metrics_endpoint: true")
    careful = careful.replace("http://192.168.100.93:52415/v1", "http://vllm.ai.svc.cluster.local:8000/v1")
    (config,) = _read(tmp_path, {"proxy_config.yaml": careful})
    assert found_by([config], "app-setting-exposure") == [] and found_by([config], "namespace-set") == []
    assert not is_litellm_config({"model_list": ["gpt-4o"]})  # a list of names is no proxy config
    assert not is_litellm_config({"kind": "ConfigMap", "model_list": [], "general_settings": {}})
    assert litellm_config_object("notes.txt", yaml.safe_load(CLOUDDROP_CONFIG)) is None
