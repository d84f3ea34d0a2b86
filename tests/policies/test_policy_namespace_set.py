"""G38 namespace-set: a namespaced object a manifest file states with no namespace, unless the run sets it."""

from policies.check import load_resources, manifest_files
from policies.k8s_generic import namespace_set
from policies.registry import evaluate

# The form of GoogleCloudPlatform/kubernetes-engine-samples@2d03964a5a44d0261c94df8fb7513125a7a5109b:
# ai-ml/llm-serving-gemma/vllm/vllm-3-1b-it.yaml (a Deployment and its Service, neither naming a namespace).
DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: vllm-gemma-deployment
spec:
  replicas: 1
  selector: {matchLabels: {app: gemma-server}}
  template:
    metadata: {labels: {app: gemma-server}}
    spec:
      containers:
      - name: inference-server
        image: vllm/vllm-openai:v0.10.0
---
apiVersion: v1
kind: Service
metadata:
  name: llm-service
spec:
  selector: {app: gemma-server}
  ports: [{port: 8000, targetPort: 8000}]
"""


def found(folder):
    return [
        (v.resource.split(" ", 1)[-1], v.message)
        for v in evaluate(load_resources(manifest_files([str(folder)])), policies=[namespace_set.POLICY])
    ]


def test_each_object_that_names_no_namespace_is_one_finding(tmp_path):
    # One per object, as Checkov reports CKV_K8S_21 per resource: a finding is read on the object it names.
    (tmp_path / "vllm.yaml").write_text(DEPLOYMENT)
    assert [w for w, _ in found(tmp_path)] == ["Deployment/vllm-gemma-deployment", "Service/llm-service"]
    [(_, message), _] = found(tmp_path)
    assert message.startswith("Deployment/vllm-gemma-deployment states no metadata.namespace")


def test_an_object_beside_namespaced_siblings_is_named_alone(tmp_path):
    (tmp_path / "vllm.yaml").write_text(DEPLOYMENT.replace("name: llm-service", "name: llm-service\n  namespace: llm"))
    assert [w for w, _ in found(tmp_path)] == ["Deployment/vllm-gemma-deployment"]


def test_a_kustomize_base_under_a_namespaced_overlay_is_silent(tmp_path):
    base = tmp_path / "base"
    overlay = tmp_path / "overlays" / "prod"
    base.mkdir()
    overlay.mkdir(parents=True)
    (base / "vllm.yaml").write_text(DEPLOYMENT)
    (base / "kustomization.yaml").write_text("resources: [vllm.yaml]\n")
    (overlay / "kustomization.yaml").write_text("namespace: llm\nresources: [../../base]\n")
    assert found(tmp_path) == []
    # The base alone (its overlay not in the run) proves nothing of the namespace: advice, on each object.
    assert len(found(base)) == 2


def test_a_kustomization_beside_the_file_setting_the_namespace_is_silent(tmp_path):
    (tmp_path / "vllm.yaml").write_text(DEPLOYMENT)
    (tmp_path / "kustomization.yaml").write_text("namespace: llm\nresources: [vllm.yaml]\n")
    assert found(tmp_path) == []


def test_cluster_scoped_unknown_and_spared_objects_are_silent(tmp_path):
    (tmp_path / "cluster.yaml").write_text(
        "apiVersion: v1\nkind: Namespace\nmetadata: {name: llm}\n---\n"
        "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: gpu}\nspec: {}\n---\n"
        "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n---\n"
        "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: default}\n"
    )
    assert found(tmp_path) == []


def test_a_chart_template_is_silent(tmp_path):
    from policy_fixtures import chart_folder

    service_account = "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: {{ .Values.name }}\n"
    chart_folder(tmp_path / "chart", {"sa.yaml": service_account}, "name: vllm\n", "apiVersion: v2\nname: vllm\nversion: 0.1.0\n")
    assert found(tmp_path) == []


def test_pulumi_resources_are_silent():
    from policy_fixtures import DEPLOYMENT_TYPE, deployment_props, resource

    props = deployment_props()
    props["metadata"].pop("namespace", None)
    assert evaluate([resource(DEPLOYMENT_TYPE, props)], policies=[namespace_set.POLICY]) == []


def test_an_explicit_namespace_is_silent(tmp_path):
    (tmp_path / "vllm.yaml").write_text(DEPLOYMENT.replace("spec:\n  replicas", "  namespace: llm\nspec:\n  replicas"))
    text = (tmp_path / "vllm.yaml").read_text().replace("name: llm-service", "name: llm-service\n  namespace: llm")
    (tmp_path / "vllm.yaml").write_text(text)
    assert found(tmp_path) == []
