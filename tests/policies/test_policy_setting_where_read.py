"""G107 setting-where-read: well-known keys on objects their controller never reads (components/setting_homes.toml), and
Knative-only settings on a Standard-mode InferenceService. Firing forms are third-party manifests as committed; the
careful forms beside them must stay quiet."""

from __future__ import annotations

import pytest
import yaml
from policy_fixtures import messages, resource

from components.setting_homes import HOMES, home_of, load
from policies.k8s_generic.setting_where_read import POLICY


def _objects(text: str) -> list:
    return [
        resource(f"kubernetes:{'core/v1' if d['apiVersion'] == 'v1' else d['apiVersion']}:{d['kind']}", d)
        for d in yaml.safe_load_all(text)
    ]


def _found(text: str) -> list[str]:
    return [m for r in _objects(text) for m in messages(POLICY, r)]


# askulkarni2/ray-serve-with-eks-auto@534ddcc0 app/ray-serve-nlb.yaml (spent set 112), cut to the keys that matter.
NLB_SERVICE = """
apiVersion: v1
kind: Service
metadata:
  name: ray-serve-nlb
  annotations:
    service.beta.kubernetes.io/aws-load-balancer-type: "external"
    service.beta.kubernetes.io/aws-load-balancer-nlb-target-type: "ip"
    service.beta.kubernetes.io/aws-load-balancer-target-group-attributes: "deregistration_delay.timeout_seconds=30"
    elbv2.k8s.aws/pod-readiness-gate-inject: "enabled"
spec:
  type: LoadBalancer
  selector: {ray.io/node-type: head}
  ports: [{name: http, port: 80, targetPort: 8000}]
"""

# johnahull/llm-d-xks-gke@7630140c deployments/gateway-api/pattern2-multimodel/manifests/pattern2-bbr-gpu.yaml (set 110).
GKE_ROUTE = """
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: llm-d-pattern2-bbr-fallback
  annotations:
    networking.gke.io/app-protocols: '{"http":"HTTP2"}'
spec:
  parentRefs: [{name: infra-pattern2-inference-gateway}]
  rules: [{backendRefs: [{name: gaie-pattern2-epp, port: 9002}]}]
"""

# jingggg-wenn/llmops-demo@c9013b86 llmops-via-argocd/deploy_model/base/inferenceservice.yaml, cut.
STANDARD_ISVC = """
apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata:
  name: qwen25-05b-instruct
  annotations:
    serving.kserve.io/deploymentMode: Standard
spec:
  predictor:
    minReplicas: 1
    maxReplicas: 1
    containerConcurrency: 1
    model:
      modelFormat: {name: vLLM}
      runtime: qwen25-05b-instruct
"""

# vllm-project/vllm@cf6f12c2 examples/online_serving/prometheus_grafana/k8s-monitoring/vllm-deployment.yaml (corpus):
# the scrape annotations on the pod template, where Prometheus's pod role reads them.
POD_TEMPLATE_SCRAPE = """
apiVersion: apps/v1
kind: Deployment
metadata:
  name: vllm
spec:
  selector: {matchLabels: {app: vllm}}
  template:
    metadata:
      labels: {app: vllm}
      annotations:
        prometheus.io/scrape: "true"
        prometheus.io/port: "8000"
        prometheus.io/path: /metrics
    spec:
      containers: [{name: vllm, image: vllm/vllm-openai:v0.11.0}]
"""


def test_the_readiness_gate_label_written_as_a_service_annotation_fires_and_the_nlb_keys_stay_quiet():
    found = _found(NLB_SERVICE)
    assert len(found) == 1
    assert found[0].startswith(
        "metadata.annotations[elbv2.k8s.aws/pod-readiness-gate-inject]: the AWS Load Balancer Controller's pod webhook "
        "reads elbv2.k8s.aws/pod-readiness-gate-inject only as a label of the Namespace, never on a Service"
    )


def test_the_readiness_gate_label_on_its_namespace_is_careful():
    namespace = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: serve\n  labels:\n    elbv2.k8s.aws/pod-readiness-gate-inject: enabled\n"
    assert _found(namespace) == []


def test_the_readiness_gate_key_as_a_namespace_annotation_is_the_wrong_form():
    namespace = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: serve\n  annotations:\n    elbv2.k8s.aws/pod-readiness-gate-inject: enabled\n"
    [found] = _found(namespace)
    assert "reads elbv2.k8s.aws/pod-readiness-gate-inject as a label, not as an annotation" in found


def test_app_protocols_on_an_httproute_fires_naming_the_service():
    [found] = _found(GKE_ROUTE)
    assert "only as an annotation of a Service (the one in front of the pods), never on a Gateway API route" in found


def test_app_protocols_on_the_service_is_careful():
    service = GKE_ROUTE.replace("gateway.networking.k8s.io/v1", "v1").replace("HTTPRoute", "Service")
    assert _found(service) == []


def test_scrape_annotations_on_the_pod_template_are_careful():
    assert _found(POD_TEMPLATE_SCRAPE) == []


def test_scrape_annotations_on_the_deployment_itself_fire_once_naming_each_key():
    moved = yaml.safe_load(POD_TEMPLATE_SCRAPE)
    moved["metadata"]["annotations"] = moved["spec"]["template"]["metadata"].pop("annotations")
    [found] = _found(yaml.safe_dump(moved, sort_keys=False))
    assert found.startswith(
        "metadata.annotations[prometheus.io/scrape, prometheus.io/port, prometheus.io/path]: Prometheus's Kubernetes "
        "service discovery (the scrape convention of the community configs) reads these keys only as an annotation of "
        "a pod (a workload's spec.template.metadata) or a Service (the one in front of the pods), never on a "
        "workload's own metadata, so written here they configure nothing and what they ask for does not happen; move "
        "them there"
    )


def test_a_key_on_both_the_deployment_and_its_pod_template_is_careful():
    both = yaml.safe_load(POD_TEMPLATE_SCRAPE)
    both["metadata"]["annotations"] = {"prometheus.io/scrape": "true"}  # a kustomization's commonAnnotations writes both
    assert _found(yaml.safe_dump(both)) == []


def test_do_not_disrupt_on_the_deployment_fires_and_as_a_pod_label_is_the_wrong_form():
    deployment = yaml.safe_load(POD_TEMPLATE_SCRAPE)
    deployment["metadata"]["annotations"] = {"karpenter.sh/do-not-disrupt": "true"}
    assert any("never on a workload's own metadata" in f for f in _found(yaml.safe_dump(deployment)))
    deployment["metadata"].pop("annotations")
    deployment["spec"]["template"]["metadata"]["labels"]["karpenter.sh/do-not-disrupt"] = "true"
    [found] = _found(yaml.safe_dump(deployment))
    assert found.startswith("spec.template.metadata.labels[karpenter.sh/do-not-disrupt]: Karpenter reads")


def test_knative_only_settings_on_a_standard_inferenceservice_fire():
    [found] = _found(STANDARD_ISVC)
    assert found.startswith("spec.predictor.containerConcurrency: 1 is a Knative setting that has no effect here")
    canary = STANDARD_ISVC.replace("containerConcurrency: 1", "canaryTrafficPercent: 100").replace(
        "  annotations:\n", "  annotations:\n    autoscaling.knative.dev/target: '10'\n"
    )
    assert sorted(f.split(":", 1)[0] for f in _found(canary)) == [
        "metadata.annotations[autoscaling.knative.dev/target]",
        "spec.predictor.canaryTrafficPercent",
    ]


@pytest.mark.parametrize("mode", ["Serverless", "Knative", None])
def test_knative_settings_are_careful_where_knative_may_run(mode):
    # NVIDIA/nim-deploy@3c6bcbd0 kserve/nim-models/llama-3.1-70b-instruct_2xgpu_1.1.0.yaml (corpus v2) states no mode.
    text = (
        STANDARD_ISVC.replace("Standard", mode)
        if mode
        else STANDARD_ISVC.replace(
            "    serving.kserve.io/deploymentMode: Standard\n", "    autoscaling.knative.dev/target: '10'\n"
        )
    )
    assert _found(text) == []


def test_the_table_rows_cover_their_keys_and_exceptions():
    assert home_of("alb.ingress.kubernetes.io/scheme") is not None
    assert home_of("service.beta.kubernetes.io/aws-load-balancer-quic-enabled-containers") is None
    assert home_of("example.com/anything") is None
    assert all(home.source and home.controller for home in HOMES)


def test_a_malformed_row_is_refused_naming_it():
    row = {"key": "x/*", "except": [], "form": "note", "read_on": [], "judged_on": [], "controller": "c", "source": "s"}
    with pytest.raises(ValueError, match=r"key\[0\]: form must be one of"):
        load({"key": [row]})
    with pytest.raises(ValueError, match=r"key\[0\]: read_on must be a list"):
        load({"key": [{**row, "form": "label", "read_on": ["deployment"]}]})
