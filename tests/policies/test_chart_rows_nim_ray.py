"""NVIDIA's nim-llm and KubeRay's ray-cluster charts as data (components/helm_charts.toml, chart_value_keys.toml).

Fires: spent set 113 Neutrollized/free-tier-gke@43f481f2d0244f75ef0084170c471e6df5702900
examples/nvidia-nim/nim_custom_value.yaml (nim-llm values with ``model.persistence``, ``model.resources``,
``model.imagePullSecrets``: the chart reads them top-level, labelled G107 twice), read as a release of nim-llm through
its path word ``nvidia-nim`` and its ``model.ngcAPISecret``.
Silent: NVIDIA/nim-deploy@3c6bcbd05f0c70612d2ed96112248e623035ed05
cloud-service-providers/aws/eks/storage/custom-values-ebs-sc.yaml (every key one the chart reads; a StatefulSet whose
claim template keeps the model), and the ray-cluster Application of ray-project/ray@33df588f1b358140e1e883805be74c9bad232bae
doc/source/cluster/kubernetes/examples/argocd.md (worker groups under ``additionalWorkerGroups``, which the chart ranges
over, and ``head.rayStartParams``/``autoscalerOptions`` it reads whole).
"""

from __future__ import annotations

import copy

import yaml

from components.chart_value_keys import keys_at
from components.helm_charts import chart_named
from policies.chart_nim import nim_llm
from policies.helm_charts import chart_pod_specs, chart_workloads
from policies.manifests import read_manifests
from policies.values_files import values_release
from tests.policies.policy_fixtures import found_by

_POLICY = "chart-value-unread"

NEUTROLLIZED = """\
image:
  repository: "nvcr.io/nim/google/gemma-3-1b-it" # container location
  tag: 1.12.0 # NIM version you want to deploy
model:
  ngcAPISecret: ngc-api  # k8s secret containing your NGC_API_KEY
  resources:
    limits:
      nvidia.com/gpu: 1
    requests:
      nvidia.com/gpu: 1
  persistence:
    enabled: true
  imagePullSecrets:
    - name: ngc-secret
"""

NIM_EBS = """\
image:
  repository: nvcr.io/nim/meta/llama3-8b-instruct
imagePullSecrets:
  - name: registry-secret
model:
  name: meta/llama3-8b-instruct
  ngcAPISecret: ngc-api
  nimCache: /nim-cache
podSecurityContext:
  runAsUser: 1000
  runAsGroup: 1000
  fsGroup: 1000
persistence:
  enabled: true
  storageClass: "ebs-sc"
  accessMode: ReadWriteOnce
  stsPersistentVolumeClaimRetentionPolicy:
      whenDeleted: Retain
      whenScaled: Retain
statefulSet:
  enabled: true
resources:
  limits:
    nvidia.com/gpu: 1
service:
  openaiPort: 8000
  name: "nim-llm-service"
metrics:
  serviceMonitor:
    enabled: true
    additionalLabels:
      release: prometheus
      app: prometheus
autoscaling:
  enabled: true
  minReplicas: 1
  maxReplicas: 2
  scaleDownStabilizationSecs: 300
  metrics:
  - type: Pods
    pods:
      metric:
        name: num_requests_running
      target:
        type: Value
        averageValue: 5
"""

RAY_APPLICATION = """\
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: raycluster
  namespace: argocd
spec:
  project: default
  destination: {server: "https://kubernetes.default.svc", namespace: ray-cluster}
  source:
    repoURL: https://ray-project.github.io/kuberay-helm/
    chart: ray-cluster
    targetRevision: "1.5.1"
    helm:
      releaseName: raycluster
      valuesObject:
        image: {repository: docker.io/rayproject/ray, tag: latest, pullPolicy: IfNotPresent}
        head:
          rayStartParams: {num-cpus: "0"}
          enableInTreeAutoscaling: true
          autoscalerOptions:
            version: v2
            upscalingMode: Default
            idleTimeoutSeconds: 600
            env: [{name: AUTOSCALER_MAX_CONCURRENT_LAUNCHES, value: "100"}]
        worker:
          groupName: standard-worker
          replicas: 1
          minReplicas: 1
          maxReplicas: 200
          rayStartParams: {resources: '"{\\"standard-worker\\": 1}"'}
          resources: {requests: {cpu: "1", memory: "1G"}}
        additionalWorkerGroups:
          additional-worker-group1:
            image: {repository: docker.io/rayproject/ray, tag: latest, pullPolicy: IfNotPresent}
            disabled: false
            replicas: 1
            minReplicas: 1
            maxReplicas: 30
            rayStartParams: {resources: '"{\\"additional-worker-group1\\": 1}"'}
            resources: {requests: {cpu: "1", memory: "1G"}}
"""


def _read(tmp_path, folder: str, name: str, text: str) -> list[dict]:
    where = tmp_path / folder
    where.mkdir(parents=True)
    (where / name).write_text(text)
    return [o.obj for o in read_manifests([str(tmp_path)]).objects]


def test_rows_load_and_name_the_charts():
    nim, ray = chart_named("nim-llm"), chart_named("ray-cluster")
    assert nim is not None and nim.container == "nim-llm" and nim.port == 8000
    assert nim.default_tag("1.1.2") == "1.0.3" and nim.nearest_tag("1.13.1") == "1.0.3"
    assert ray is not None and ray.default_tag("1.4.2") == "2.46.0" and ray.probes == ()
    # The shared repository of the KubeRay charts names no chart by itself: kuberay-operator is not ray-cluster.
    assert chart_named("kuberay-operator", "https://ray-project.github.io/kuberay-helm/") is None
    assert chart_named("text-reranking-nim", "https://helm.ngc.nvidia.com/nim/nvidia") is None


def test_value_keys_are_read_per_version():
    nim = keys_at("nim-llm", "1.1.2")
    assert nim is not None and {"persistence.enabled", "resources", "imagePullSecrets", "model.ngcAPISecret"} <= nim.read
    assert "model.persistence" not in nim.read and "env" in nim.read
    ray = keys_at("ray-cluster", "1.5.1")  # newer than the table: what its newest version read reads
    assert ray is not None and "worker.maxReplicas" in ray.read and "additionalWorkerGroups" in ray.read
    assert "worker.miniReplicas" not in ray.read and "worker.miniReplicas" in keys_at("ray-cluster", "0.6.1").read


def test_neutrollized_values_under_model_fire_naming_the_top_level_keys(tmp_path):
    objs = _read(tmp_path, "examples/nvidia-nim", "nim_custom_value.yaml", NEUTROLLIZED)
    assert [o["spec"]["chart"]["spec"]["chart"] for o in objs] == ["nim-llm"]
    found = found_by(objs, _POLICY)
    assert {level for level, _ in found} == {"advisory"}
    assert sorted(m.split(" is a value")[0] for _, m in found) == [
        "spec.values.model.imagePullSecrets",
        "spec.values.model.persistence",
        "spec.values.model.resources",
    ]
    assert all("did you mean" in m and "chart nim-llm (version not pinned: any version)" in m for _, m in found)
    assert "did you mean persistence?" in " ".join(m for _, m in found)


def test_neutrollized_pod_keeps_the_model_on_an_empty_dir(tmp_path):
    (release,) = _read(tmp_path, "examples/nvidia-nim", "nim_custom_value.yaml", NEUTROLLIZED)
    ((_, pod),) = chart_pod_specs(release)
    (container,) = pod["containers"]
    assert container["image"] == "nvcr.io/nim/google/gemma-3-1b-it:1.12.0"
    assert container["resources"] == {"limits": {"nvidia.com/gpu": 1}}  # model.resources is dropped
    assert {"name": "model-store", "emptyDir": {}} in pod["volumes"]
    assert container["readinessProbe"]["httpGet"] == {"path": "/v1/health/ready", "port": "http-openai"}
    assert container["startupProbe"]["failureThreshold"] == 180
    secret = next(e for e in container["env"] if e["name"] == "NGC_API_KEY")
    assert secret["valueFrom"]["secretKeyRef"] == {"name": "ngc-api", "key": "NGC_API_KEY"}
    assert not [v for v in found_by([release], "chart-value-unread") if v[0] == "mandatory"]


def test_careful_nim_values_are_read_and_stay_silent(tmp_path):
    objs = _read(tmp_path, "nvidia-nim", "custom-values-ebs-sc.yaml", NIM_EBS)
    assert [o["metadata"]["name"] for o in objs] == ["nim-llm"]
    assert found_by(objs, _POLICY) == []
    ((where, workload),) = chart_workloads(objs[0])
    assert where.startswith("spec.values[nim-llm chart (version not pinned) defaults")
    assert workload.replicas is None and workload.strategy == {"rollingUpdate": {"maxSurge": 0}}
    assert workload.claims == {"model-store-nim-llm-0": []}  # the StatefulSet's claim template: one claim per pod
    (container,) = workload.pod["containers"]
    assert {"name": "model-store", "mountPath": "/nim-cache"} in container["volumeMounts"]
    assert workload.pod["imagePullSecrets"] == [{"name": "registry-secret"}]
    assert found_by(objs, "single-attach-chart-rolls") == []


def test_path_words_count_only_with_the_ngc_secret(tmp_path):
    own = {"image": {"repository": "ghcr.io/me/nim-lang-app"}, "resources": {"limits": {"cpu": "1"}}}
    assert values_release("apps/nim/values.yaml", own) is None  # the word nim alone is not the chart
    assert values_release("apps/nim/values.yaml", yaml.safe_load(NEUTROLLIZED)) is not None
    assert values_release("apps/nim-llm/values.yaml", own) is not None  # the chart's own name needs no more


def test_careful_ray_application_stays_silent_and_a_misspelt_key_fires():
    app = yaml.safe_load(RAY_APPLICATION)
    assert found_by([app], _POLICY) == []
    assert chart_pod_specs(app) == []  # a RayCluster: the operator renders the pods
    typo = copy.deepcopy(app)
    worker = typo["spec"]["source"]["helm"]["valuesObject"]["worker"]
    worker["maxReplica"] = worker.pop("maxReplicas")
    # 1.5.1 is newer than the newest chart read (ray-cluster-1.4.2): its templates were not read (review54c)
    assert found_by([typo], _POLICY) == []
    typo["spec"]["source"]["targetRevision"] = "1.4.2"
    ((level, message),) = found_by([typo], _POLICY)
    assert level == "advisory"
    assert message.startswith(
        "spec.source.helm.valuesObject.worker.maxReplica is a value chart ray-cluster 1.4.2 never reads (did you mean "
        "worker.maxReplicas?)"
    )


def _chart():
    chart = chart_named("nim-llm")
    assert chart is not None
    return chart


def test_renderer_follows_the_chart_storage_forms():
    chart = _chart()

    def store(values: dict) -> dict:
        (workload,) = nim_llm(chart, values, "1.1.2", "llm")
        return next(v for v in workload.pod["volumes"] if v["name"] == "model-store")

    assert store({"persistence": {"enabled": True, "existingClaim": "models"}}) == {
        "name": "model-store",
        "persistentVolumeClaim": {"claimName": "models"},
    }
    shared = {"persistence": {"enabled": True, "accessMode": "ReadWriteMany"}}
    assert store(shared)["persistentVolumeClaim"] == {"claimName": "llm-nim-llm"}
    (deployment,) = nim_llm(chart, {"statefulSet": {"enabled": False}, "persistence": {"enabled": True}}, "", "llm")
    assert deployment.claims == {"llm-nim-llm": ["ReadWriteOnce"]} and deployment.strategy == {}
    assert store({"hostPath": {"enabled": True, "path": "/models"}})["hostPath"]["path"] == "/models"
    assert nim_llm(chart, {"multiNode": {"enabled": True}}, "", "llm") == []
    (plain,) = nim_llm(chart, {"livenessProbe": {"enabled": False}}, "1.1.2", "llm")
    (container,) = plain.pod["containers"]
    assert "livenessProbe" not in container and container["image"] == "nvcr.io/nim/meta/llama3-8b-instruct:1.0.3"
