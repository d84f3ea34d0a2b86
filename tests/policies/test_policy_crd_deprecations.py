"""G40: the versions and fields the pinned CRDs mark deprecated (policies/crd/deprecations.json, extracted by
tools/crd_deprecations.py), read by api-version-deprecated and api-field-deprecated.

Firing forms: Envoy AI Gateway's own basic example at v0.2.0 (envoyproxy/ai-gateway@4b5ebbd9 examples/basic/basic.yaml),
an aigateway.envoyproxy.io/v1alpha1 AIGatewayRoute attached by spec.targetRefs with spec.schema, the form spent set 110
labelled G40 (elizabetht/token-labs deploy/platform/gateway/aigwroute.yaml@629493b1). Careful forms: the same example
at v1.1.0 (envoyproxy/ai-gateway@c217da8a examples/basic/basic.yaml: v1beta1, spec.parentRefs), and an HTTPRoute in
gateway.networking.k8s.io/v1beta1, which Gateway API v1.6.1 serves and does not mark deprecated.
"""

from __future__ import annotations

import copy
import json

from policy_fixtures import found_by

from policies.crd import deprecations
from tests.conftest import shared_path
from tools import crd_deprecations

AIGW = "envoyproxy/ai-gateway"
ROUTE_CRD = "manifests/charts/ai-gateway-crds-helm/templates/aigateway.envoyproxy.io_aigatewayroutes.yaml"

# envoyproxy/ai-gateway examples/basic/basic.yaml at v0.2.0 (4b5ebbd930a7de3a43bd8f8213cfcb7a611a174e), lines 25-44.
V0_2_ROUTE = {
    "apiVersion": "aigateway.envoyproxy.io/v1alpha1",
    "kind": "AIGatewayRoute",
    "metadata": {"name": "envoy-ai-gateway-basic", "namespace": "default"},
    "spec": {
        "schema": {"name": "OpenAI"},
        "targetRefs": [{"name": "envoy-ai-gateway-basic", "kind": "Gateway", "group": "gateway.networking.k8s.io"}],
        "rules": [
            {
                "matches": [{"headers": [{"type": "Exact", "name": "x-ai-eg-model", "value": "gpt-4o-mini"}]}],
                "backendRefs": [{"name": "envoy-ai-gateway-basic-openai"}],
            }
        ],
    },
}
# The same example at v1.1.0 (c217da8a539570ba3f6014a60c2687c29a945f1f), lines 45-62.
V1_1_ROUTE = {
    "apiVersion": "aigateway.envoyproxy.io/v1beta1",
    "kind": "AIGatewayRoute",
    "metadata": {"name": "envoy-ai-gateway-basic", "namespace": "default"},
    "spec": {
        "parentRefs": [{"name": "envoy-ai-gateway-basic", "kind": "Gateway", "group": "gateway.networking.k8s.io"}],
        "rules": [
            {
                "matches": [{"headers": [{"type": "Exact", "name": "x-ai-eg-model", "value": "some-cool-self-hosted-model"}]}],
                "backendRefs": [{"name": "envoy-ai-gateway-basic-testupstream"}],
            }
        ],
    },
}


def test_the_table_is_the_pinned_crds_deprecations():
    reference = shared_path("crds").parent
    committed = deprecations.DATA.read_text(encoding="utf-8")
    assert crd_deprecations.render(crd_deprecations.extract(reference)) == committed, (
        "run python tools/crd_deprecations.py --write"
    )


def test_the_groups_read_before_the_table_are_its_groups():
    kinds = json.loads(deprecations.DATA.read_text(encoding="utf-8"))["kinds"]
    assert deprecations.GROUPS == {key.split("/")[0] for key in kinds}


def test_a_deprecated_version_is_advised_with_the_crds_warning():
    ((level, message),) = found_by([V0_2_ROUTE], "api-version-deprecated")
    assert level == "advisory"
    assert message == (
        "apiVersion aigateway.envoyproxy.io/v1alpha1 AIGatewayRoute is deprecated: its CRD marks the version deprecated "
        f"({AIGW} v1.1.0 {ROUTE_CRD}:26) and the API server answers every request with the warning "
        "'aigateway.envoyproxy.io/v1alpha1 is deprecated; use aigateway.envoyproxy.io/v1beta1 instead'; a later release "
        "stops serving it; write aigateway.envoyproxy.io/v1beta1"
    )


def test_a_field_the_crd_deprecated_and_dropped_names_its_replacement():
    found = found_by([V0_2_ROUTE], "api-field-deprecated")
    assert [level for level, _ in found] == ["advisory", "advisory"]
    assert found[1][1] == (
        "spec.targetRefs: the AIGatewayRoute CRD marks this field deprecated "
        f"({AIGW} v0.3.0 {ROUTE_CRD}:734: 'Deprecated: use the ParentRefs field instead. This field will be dropped in "
        f"Envoy AI Gateway v0.4.0.') and the pinned CRD ({AIGW} v1.1.0) has no such field, so a current controller "
        "never reads it (the API server drops it, or refuses the object under strict field validation); do what the "
        "note says"
    )
    assert found[0][1].startswith("spec.schema: the AIGatewayRoute CRD marks this field deprecated")


def test_a_deprecated_field_inside_a_list_is_named_by_its_index():
    # prometheus-operator v0.93.0 example/prometheus-operator-crd/monitoring.coreos.com_servicemonitors.yaml:216:
    # endpoints[].bearerTokenSecret "Deprecated: use `authorization` instead."
    monitor = {
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "ServiceMonitor",
        "metadata": {"name": "vault", "namespace": "vault"},
        "spec": {
            "selector": {"matchLabels": {"app.kubernetes.io/name": "vault"}},
            "endpoints": [
                {"port": "http", "path": "/v1/sys/metrics", "bearerTokenSecret": {"name": "vault-metrics-token", "key": "token"}}
            ],
        },
    }
    ((level, message),) = found_by([monitor], "api-field-deprecated")
    assert level == "advisory"
    assert message.startswith("spec.endpoints[0].bearerTokenSecret: the ServiceMonitor CRD marks this field deprecated")
    assert "'Deprecated: use `authorization` instead.') and a later release may drop it" in message
    # The zero value an operator's Go types write back (`kubectl get -o yaml`: bearerTokenSecret: {key: ""}) sets nothing.
    monitor["spec"]["endpoints"][0]["bearerTokenSecret"] = {"key": ""}
    assert found_by([monitor], "api-field-deprecated") == []


def test_the_current_version_and_fields_are_silent():
    assert found_by([V1_1_ROUTE], "api-version-deprecated") == []
    assert found_by([V1_1_ROUTE], "api-field-deprecated") == []


def test_a_version_served_and_not_marked_deprecated_is_silent():
    # johnahull/llm-d-xks-gke deployments/gateway-api/pattern2-multimodel/manifests/pattern2-bbr-gpu.yaml@7630140c (spent
    # set 110): an HTTPRoute in gateway.networking.k8s.io/v1beta1 beside v1 routes. Gateway API v1.6.1
    # config/crd/standard/gateway.networking.k8s.io_httproutes.yaml serves v1beta1 (line 6916) with no deprecated mark.
    route = {
        "apiVersion": "gateway.networking.k8s.io/v1beta1",
        "kind": "HTTPRoute",
        "metadata": {"name": "llm-d-pattern2-bbr-fallback", "namespace": "llm-d"},
        "spec": {
            "parentRefs": [{"name": "infra-pattern2-inference-gateway", "namespace": "llm-d"}],
            "rules": [{"backendRefs": [{"group": "inference.networking.k8s.io", "kind": "InferencePool", "name": "phi3"}]}],
        },
    }
    assert found_by([route], "api-version-deprecated") == []
    assert found_by([route], "api-field-deprecated") == []


def test_a_crd_of_the_files_is_what_the_cluster_serves():
    crd = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "aigatewayroutes.aigateway.envoyproxy.io"},
        "spec": {
            "group": "aigateway.envoyproxy.io",
            "names": {"kind": "AIGatewayRoute", "plural": "aigatewayroutes"},
            "scope": "Namespaced",
            "versions": [{"name": "v1alpha1", "served": True, "storage": True}],
        },
    }
    assert found_by([crd, copy.deepcopy(V0_2_ROUTE)], "api-version-deprecated") == []
    assert found_by([crd, copy.deepcopy(V0_2_ROUTE)], "api-field-deprecated") == []


def test_the_table_is_not_read_without_an_object_of_its_groups():
    deprecations.table.cache_clear()
    found_by([V1_1_ROUTE | {"apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute"}], "api-field-deprecated")
    assert deprecations.table.cache_info().currsize == 0


def test_a_field_kubernetes_deprecates_is_advised_on_its_own_kinds():
    # pesuga/homelab infrastructure/kubernetes/dns/coredns-deployment.yaml@c3027c18fe1d367690ecfa4ab802176e47105816,
    # lines 103-122: a LoadBalancer Service asking for its address by spec.loadBalancerIP, which Kubernetes' ServiceSpec
    # documents "Deprecated: This field was under-specified ..." (Kubernetes 1.33 OpenAPI).
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "coredns-homelab-lb", "namespace": "dns"},
        "spec": {
            "type": "LoadBalancer",
            "loadBalancerIP": "100.81.76.55",
            "ports": [{"port": 53, "targetPort": 53, "protocol": "TCP", "name": "dns-tcp"}],
            "selector": {"app": "coredns-homelab"},
        },
    }
    ((level, message),) = found_by([service], "api-field-deprecated")
    assert level == "advisory"
    assert message.startswith("spec.loadBalancerIP: the Kubernetes API marks this field deprecated (Kubernetes 1.33 OpenAPI")
    assert "'Deprecated: This field was under-specified" in message and "keeps it only for compatibility" in message
    del service["spec"]["loadBalancerIP"]
    assert found_by([service], "api-field-deprecated") == []


def test_a_deprecated_alias_beside_the_field_its_note_names_is_silent():
    # johnahull/llm-d-xks-gke deployments/llm-d-infra-xks-gke-tpu-native-gateway/backups/kserve-controller-backup.yaml
    # @7630140c1047f7b6e4b4f18353d96e44d10125f3, lines 130-131: a `kubectl get -o yaml` export, where the API server
    # writes the deprecated serviceAccount beside serviceAccountName ("Deprecated: Use serviceAccountName instead.").
    pod_spec = {
        "serviceAccount": "kserve-controller-manager",
        "serviceAccountName": "kserve-controller-manager",
        "containers": [{"name": "manager", "image": "kserve/kserve-controller:v0.15.0"}],
    }
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "kserve-controller-manager", "namespace": "kserve"},
        "spec": {
            "selector": {"matchLabels": {"control-plane": "kserve-controller-manager"}},
            "template": {"metadata": {"labels": {"control-plane": "kserve-controller-manager"}}, "spec": pod_spec},
        },
    }
    assert found_by([deployment], "api-field-deprecated") == []
    # Written alone, the alias is the deprecated form.
    del pod_spec["serviceAccountName"]
    ((level, message),) = found_by([deployment], "api-field-deprecated")
    assert level == "advisory" and message.startswith("spec.template.spec.serviceAccount: the Kubernetes API marks")
    assert "'Deprecated: Use serviceAccountName instead.'" in message


def test_an_in_tree_volume_kubernetes_no_longer_supports_is_not_said_to_work():
    """Review53b: kubernetes/examples volumes/glusterfs/glusterfs-pod.yaml@7685f4e5, a Pod mounting a glusterfs volume.
    The 1.33 OpenAPI note says the in-tree type is 'no longer supported' (the driver was removed in 1.26:
    kubernetes/examples volumes/glusterfs/README.md@02f71e3e), so the field is no compatibility alias that still works."""
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "glusterfs"},
        "spec": {
            "containers": [
                {"name": "glusterfs", "image": "nginx", "volumeMounts": [{"mountPath": "/mnt/glusterfs", "name": "glusterfsvol"}]}
            ],
            "volumes": [
                {"name": "glusterfsvol", "glusterfs": {"endpoints": "glusterfs-cluster", "path": "kube_vol", "readOnly": True}}
            ],
        },
    }
    ((level, message),) = found_by([pod], "api-field-deprecated")
    assert level == "advisory" and message.startswith("spec.volumes[0].glusterfs: the Kubernetes API marks")
    assert "keeps it only for compatibility" not in message
    assert (
        "and no current kubelet supports the in-tree type: the API server still accepts the field, but the volume does not mount"
        in message
    )
