"""G32 reads the Services a KubeRay resource writes out in full: a RayService's spec.serveService and a head group's
headService (*corev1.Service fields KubeRay creates with their own type and annotations)."""

from __future__ import annotations

import copy

from policy_fixtures import found_by

POLICY = "no-load-balancer-service"


def _ray_service(name: str, serve_service: dict) -> dict:
    return {
        "apiVersion": "ray.io/v1",
        "kind": "RayService",
        "metadata": {"name": name},
        "spec": {
            "serveService": serve_service,
            "serveConfigV2": "applications:\n- name: app\n  import_path: app:deployment\n",
            "rayClusterConfig": {
                "headGroupSpec": {
                    "rayStartParams": {},
                    "template": {"spec": {"containers": [{"name": "ray-head", "image": "rayproject/ray:2.46.0"}]}},
                }
            },
        },
    }


# yuyangd/sentinel-platform k8s/ray-factcheck-serve.yaml@e87b68670c3d2f455ab591e3c15d8bf4ce9a22af (spent set 27, labelled G32): serveService type LoadBalancer with
# the legacy NLB annotation (internet-facing by default).
SENTINEL = _ray_service(
    "sentinel-serving-factcheck",
    {
        "metadata": {
            "name": "sentinel-service-serve-svc",
            "annotations": {"service.beta.kubernetes.io/aws-load-balancer-type": "nlb"},
        },
        "spec": {"type": "LoadBalancer", "ports": [{"port": 8000, "targetPort": 8000, "name": "serve"}]},
    },
)
# ray-project/kuberay ray-operator/config/samples/ray-service.custom-serve-service.yaml@b2f504f2aea6f49277b3d80d2fa0d9f9a8cc064f:
# KubeRay's own sample of a custom serve Service, type LoadBalancer.
KUBERAY_SAMPLE = _ray_service(
    "rayservice-sample",
    {
        "metadata": {"name": "custom-ray-serve-service-name"},
        "spec": {"type": "LoadBalancer", "ports": [{"port": 12345, "targetPort": 12345}]},
    },
)


def test_a_load_balancer_serve_service_is_reported():
    for service in (SENTINEL, KUBERAY_SAMPLE):
        [(level, message)] = found_by([service], POLICY)
        assert level == "advisory"
        assert message.startswith(
            "spec.serveService.spec.type: LoadBalancer makes KubeRay create that Service as a separate cloud load balancer"
        )


def test_a_cluster_ip_or_internal_serve_service_is_silent_or_advice():
    cluster_ip = copy.deepcopy(KUBERAY_SAMPLE)
    cluster_ip["spec"]["serveService"]["spec"]["type"] = "ClusterIP"
    assert found_by([cluster_ip], POLICY) == []
    internal = copy.deepcopy(SENTINEL)
    internal["spec"]["serveService"]["metadata"]["annotations"]["service.beta.kubernetes.io/aws-load-balancer-internal"] = "true"
    [(level, _)] = found_by([internal], POLICY, config={POLICY: {"enforcementLevel": "mandatory"}})
    assert level == "advisory"
