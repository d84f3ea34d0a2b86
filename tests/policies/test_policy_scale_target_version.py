"""G40 scale-target-version-served: an HPA's scaleTargetRef under a group/version no longer served for its kind.

Form: spent set 78 ishaangulati8/kubernetes-gpu-inference@af4c161a2b0415eefd77fb948e48fdfb2836e85a hpa.yaml (HPA
my-gpu-app, scaleTargetRef apps/v1beta1 Deployment my-gpu-app). The HPA controller maps the target by group and kind
(kubernetes pkg/controller/podautoscaler/horizontal.go reconcileAutoscaler, RESTMappings(targetGK)): apps/v1beta1 still
resolves through apps/v1 (advice), extensions/v1beta1 has no Deployment from 1.16 (FailedGetScale: blocking).
"""

from __future__ import annotations

from policy_fixtures import found_by

POLICY = "scale-target-version-served"


def hpa(api_version="apps/v1beta1", kind="Deployment"):
    return {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "my-gpu-app", "namespace": "gpu"},
        "spec": {
            "maxReplicas": 3,
            "minReplicas": 1,
            "scaleTargetRef": {"apiVersion": api_version, "kind": kind, "name": "my-gpu-app"},
            "metrics": [
                {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 60}}}
            ],
        },
    }


def test_spent_set_78_apps_v1beta1_is_advice_that_says_the_hpa_still_scales():
    ((enforcement, message),) = found_by([hpa()], POLICY)
    assert enforcement == "advisory"
    assert message.startswith("spec.scaleTargetRef.apiVersion apps/v1beta1 Deployment 'my-gpu-app'")
    assert "still finds the apps/v1 Deployment and scales" in message


def test_extensions_deployment_never_scales():
    ((enforcement, message),) = found_by([hpa("extensions/v1beta1")], POLICY)
    assert enforcement == "mandatory"
    assert "the extensions group serves no Deployment from Kubernetes 1.16" in message and "FailedGetScale" in message


def test_an_older_cluster_is_not_judged():
    assert found_by([hpa("extensions/v1beta1")], POLICY, config={POLICY: {"kubernetesVersion": "1.15"}}) == []


def test_careful_forms_are_silent():
    assert found_by([hpa("apps/v1")], POLICY) == []
    assert found_by([hpa("apps/v1", "StatefulSet")], POLICY) == []
    assert found_by([hpa("serving.kserve.io/v1beta1", "InferenceService")], POLICY) == []
    assert found_by([hpa("extensions/v1beta1", "Ingress")], POLICY) == []
    broken = hpa()
    broken["spec"]["scaleTargetRef"] = "apps/v1beta1"
    assert found_by([broken, {**hpa(), "spec": None}], POLICY) == []
