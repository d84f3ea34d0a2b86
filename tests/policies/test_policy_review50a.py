"""Session 50 cold review (brief review50a) of servers50 and autoscale50: careful third-party forms that a blocking
finding must not reach, and the forms that must still block.

- S26 api-object-valid, empty image: a Kustomize base whose image a kustomization of the run fills through
  ``replacements`` (kubernetes-sigs/kustomize api/v0.21.1 api/types/replacement.go:17-26 Replacement{Source, Targets},
  :55-67 TargetSelector{Select, Reject, FieldPaths}) is written empty on purpose: the built object holds the image, so
  the base alone is advice, as for a base a ``patches[].target`` names.
"""

from __future__ import annotations

from policies import evaluate
from policies.check import load_resources, manifest_files

_BASE = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: web
          image: ""
          resources:
            requests: {cpu: 100m, memory: 128Mi}
            limits: {memory: 128Mi}
"""

_REPLACEMENTS = """\
resources:
  - ../base
configMapGenerator:
  - name: build
    literals: [image=nginx:1.27]
replacements:
  - source: {kind: ConfigMap, name: build, fieldPath: data.image}
    targets:
      - select: {kind: Deployment, name: web}
        fieldPaths:
          - spec.template.spec.containers.[name=web].image
"""


def _found(root, files: dict[str, str], policy: str) -> list[tuple[str, str]]:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    found = evaluate(load_resources(manifest_files([str(root)])))
    return [(v.enforcement, v.message) for v in found if v.policy == policy]


def test_a_base_image_filled_by_kustomize_replacements_is_advice(tmp_path):
    files = {"base/deploy.yaml": _BASE, "base/kustomization.yaml": "resources:\n  - deploy.yaml\n"}
    [(level, message)] = _found(tmp_path, {**files, "overlay/kustomization.yaml": _REPLACEMENTS}, "api-object-valid")
    assert level == "advisory" and "image is empty" in message


def test_a_base_image_left_empty_with_no_replacement_still_blocks(tmp_path):
    # The same base with an overlay that replaces another object's field: nothing fills the image.
    other = _REPLACEMENTS.replace("{kind: Deployment, name: web}", "{kind: Deployment, name: api}")
    files = {"base/deploy.yaml": _BASE, "base/kustomization.yaml": "resources:\n  - deploy.yaml\n"}
    [(level, _)] = _found(tmp_path, {**files, "overlay/kustomization.yaml": other}, "api-object-valid")
    assert level == "mandatory"


# -- scalers.model_word_hint: a name word "model" in an app that serves none ------------------------------------------

_REGISTRY = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: model-registry
  namespace: platform
spec:
  selector:
    matchLabels: {app: model-registry}
  template:
    metadata:
      labels: {app: model-registry}
    spec:
      containers:
        - name: api
          image: ghcr.io/acme/model-registry:1.4.2
          ports:
            - containerPort: 8080
          readinessProbe:
            httpGet: {path: /healthz, port: 8080}
          resources:
            requests: {cpu: 250m, memory: 256Mi}
            limits: {memory: 512Mi}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: model-registry
  namespace: platform
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: model-registry}
  minReplicas: 1
  maxReplicas: 5
  metrics:
    - type: Resource
      resource:
        name: memory
        target: {type: Utilization, averageUtilization: 80}
    - type: Pods
      pods:
        metric: {name: http_requests_per_second}
        target: {type: AverageValue, averageValue: "100"}
"""

_MODEL_SCALER_POLICIES = ("gpu-workload-no-resource-metric-hpa", "hpa-min-replicas-floor", "llm-autoscaler-behavior-explicit")


def _all_found(root, files: dict[str, str]) -> list[tuple[str, str, str]]:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return [(v.policy, v.enforcement, v.message) for v in evaluate(load_resources(manifest_files([str(root)])))]


def test_a_model_registry_is_no_model_server_to_the_scaler_rules(tmp_path):
    # Careful form: an app that stores models (Kubeflow's model-registry, an MLflow-like catalogue) is named after
    # them but serves none; the name word alone must not make its HPA a model server's (S6, G15, S8).
    found = _all_found(tmp_path, {"registry.yaml": _REGISTRY})
    assert [f for f in found if f[0] in _MODEL_SCALER_POLICIES] == []
    assert [f for f in found if f[1] == "mandatory"] == []


def test_a_model_named_server_still_draws_the_scaler_advice(tmp_path):
    served = _REGISTRY.replace("model-registry", "demo-model-a")
    found = _all_found(tmp_path, {"served.yaml": served})
    assert {f[0] for f in found if f[0] in _MODEL_SCALER_POLICIES} == set(_MODEL_SCALER_POLICIES)
    assert all(f[1] == "advisory" for f in found if f[0] in _MODEL_SCALER_POLICIES)


# -- Ray Serve run in a plain Deployment (servers50): a careful one blocks on nothing ---------------------------------

_RAY_SERVE = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: llm-serve
  namespace: serving
spec:
  selector:
    matchLabels: {app: llm-serve}
  template:
    metadata:
      labels: {app: llm-serve}
    spec:
      terminationGracePeriodSeconds: 120
      containers:
        - name: serve
          image: rayproject/ray-ml:2.9.3-py310
          command: ["serve", "run", "--host", "0.0.0.0", "app:deployment"]
          ports:
            - containerPort: 8000
          readinessProbe:
            httpGet: {path: /-/healthz, port: 8000}
          startupProbe:
            httpGet: {path: /-/healthz, port: 8000}
            periodSeconds: 10
            failureThreshold: 90
          resources:
            requests: {cpu: "4", memory: 16Gi}
            limits: {memory: 16Gi}
---
apiVersion: v1
kind: Service
metadata:
  name: llm-serve
  namespace: serving
spec:
  selector: {app: llm-serve}
  ports:
    - port: 8000
      targetPort: 8000
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: llm-serve
  namespace: serving
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: llm-serve}
  minReplicas: 2
  maxReplicas: 4
  metrics:
    - type: Resource
      resource:
        name: cpu
        target: {type: Utilization, averageUtilization: 70}
"""


def test_a_careful_ray_serve_deployment_blocks_on_nothing(tmp_path):
    # `serve run` in a Deployment is a model server of engine ray (policies/reading/ray_serve_cli.py); its advice
    # (G18, G22, G27, G33) may stand, but no blocking rule reaches a careful one.
    found = _all_found(tmp_path, {"serve.yaml": _RAY_SERVE})
    assert [f for f in found if f[1] == "mandatory"] == []
    assert any(f[0] == "serving-privilege-escalation" and "ray server" in f[2] for f in found)


# -- S26's empty image and a Carvel ytt template ----------------------------------------------------------------------

# A ytt template (carvel-dev/ytt: a value written `key: #@ expression` is filled when ytt renders the file): the YAML
# parser reads the value as null, which the empty-image check took for `image:` left empty.
_YTT = """\
#@ load("@ytt:data", "data")
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: #@ data.values.name
  namespace: web
spec:
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
        - name: web
          image: #@ data.values.image
          resources:
            requests: {cpu: 100m, memory: 128Mi}
            limits: {memory: 128Mi}
"""


def test_a_ytt_template_value_is_no_empty_image(tmp_path):
    found = _all_found(tmp_path, {"deploy.yaml": _YTT})
    assert [f for f in found if f[1] == "mandatory"] == []
    assert not any("image is empty" in f[2] for f in found)


def test_an_image_left_empty_beside_a_plain_comment_still_blocks(tmp_path):
    plain = _YTT.replace("#@ load", "# load").replace("#@ data.values.name", "web").replace("#@ data", "# data")
    found = _all_found(tmp_path, {"deploy.yaml": plain})
    assert [(f[0], f[1]) for f in found if "image is empty" in f[2]] == [("api-object-valid", "mandatory")]


def test_a_ytt_named_annotation_stays_a_comment_and_the_file_still_reads(tmp_path):
    # `#@overlay/...` annotates the node below; only `key: #@ expression` is a value.
    overlay = _YTT.replace("  namespace: web\n", "  namespace: web\nspec: #@overlay/match-child-defaults missing_ok=True\n", 1)
    overlay = overlay.replace("spec:\n  selector:", "  selector:", 1)
    found = _all_found(tmp_path, {"deploy.yaml": overlay})
    assert not any(f[0] == "manifest-is-kubernetes" and "not valid YAML" in f[2] for f in found)
    assert [f for f in found if f[1] == "mandatory"] == []
