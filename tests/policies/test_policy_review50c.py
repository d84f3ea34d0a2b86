"""Cold review of session 50's blocking rules (brief review50c): careful third-party forms that must not block.

- G96 quota-requests-set: the pod evaluator reads each container's requests and limits as the API server receives
  them (kubernetes pkg/quota/v1/evaluator/core/pods.go Constraints, enforcePodContainerConstraints at code index stored
  version 05e7cb29); a ``resources: ${RESOURCES}`` an envsubst step fills, or a LimitRange that states no namespace
  (it lands in the namespace it is applied to), is nothing the files prove missing.
- G84 claim-writable-by-user (Grafana over a new gp3 claim): an OpenShift run (a Route of the files) gets an fsGroup from
  its restricted SCC (MustRunAs) when the pod states none, and a runAsUser left to a template is no user the files
  state: neither blocks.
- S30 single-attach-volume-shared: a ReadWriteOncePod claim shared with a Deployment kept at replicas: 0 (a variant
  switched off until scaled up) holds no second pod, so nothing is Pending: advice, not a block.
- S26 crd-validation-rules: the version that decides refusal vs advice is the one of the type token that chose the
  schema; a resource whose props state no apiVersion (a Pulumi resource's inputs) under a live alpha version
  (serving.kserve.io/v1alpha1, which KServe v0.20.0 still extends) stays advice.
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by
from test_policy_none50 import _grafana
from test_policy_single_attach_shared import OLLAMA, WEBUI, _claim

from policies.crd import validation_rules
from policies.framework import Resource
from policies.registry import evaluate

G96 = "quota-requests-set"
G84 = "claim-writable-by-user"

QUOTA = {
    "apiVersion": "v1",
    "kind": "ResourceQuota",
    "metadata": {"name": "compute", "namespace": "llm"},
    "spec": {"hard": {"requests.cpu": "8", "limits.memory": "16Gi"}},
}
DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "vllm", "namespace": "llm"},
    "spec": {
        "selector": {"matchLabels": {"app": "vllm"}},
        "template": {
            "metadata": {"labels": {"app": "vllm"}},
            "spec": {"containers": [{"name": "vllm", "image": "vllm/vllm-openai:v0.8.5"}]},
        },
    },
}


def _with_resources(resources: object) -> dict:
    deployment = copy.deepcopy(DEPLOYMENT)
    deployment["spec"]["template"]["spec"]["containers"][0]["resources"] = resources
    return deployment


def test_quota_still_blocks_a_container_stating_nothing():
    ((level, message),) = found_by([QUOTA, DEPLOYMENT], G96)
    assert level == "mandatory" and "must specify limits.memory for: vllm; requests.cpu for: vllm" in message


def test_quota_resources_left_to_a_renderer_stay_silent():
    assert found_by([QUOTA, _with_resources("${RESOURCES}")], G96) == []
    assert found_by([QUOTA, _with_resources({"limits": "${LIMITS}", "requests": {"cpu": "1"}})], G96) == []


def test_quota_with_a_limit_range_stating_no_namespace_stays_silent():
    limit_range = {
        "apiVersion": "v1",
        "kind": "LimitRange",
        "metadata": {"name": "defaults"},
        "spec": {"limits": [{"type": "Container", "default": {"cpu": "1", "memory": "1Gi"}}]},
    }
    assert found_by([QUOTA, limit_range, DEPLOYMENT], G96) == []


def test_grafana_on_openshift_or_with_a_templated_user_does_not_block():
    assert [level for level, _ in found_by(_grafana(), G84)] == ["mandatory"]
    route = {
        "apiVersion": "route.openshift.io/v1",
        "kind": "Route",
        "metadata": {"name": "grafana", "namespace": "monitoring"},
        "spec": {"to": {"kind": "Service", "name": "grafana"}},
    }
    assert [level for level, _ in found_by([*_grafana(), route], G84)] == ["advisory"]
    assert found_by(_grafana(pod_context={"runAsUser": "{{ .Values.uid }}"}), G84) == []


def test_read_write_once_pod_shared_with_a_workload_scaled_to_zero_is_advice():
    assert [e for e, _ in found_by([OLLAMA, WEBUI, _claim("ReadWriteOncePod")], "single-attach-volume-shared")] == [
        "mandatory",
        "mandatory",
    ]
    off = copy.deepcopy(WEBUI)
    off["spec"]["replicas"] = 0
    found = found_by([OLLAMA, off, _claim("ReadWriteOncePod")], "single-attach-volume-shared")
    assert [e for e, _ in found] == ["advisory", "advisory"]


def test_an_unknown_field_under_a_live_alpha_type_without_api_version_in_props_is_advice():
    props = {"metadata": {"name": "qwen"}, "spec": {"model": {"uri": "hf://Qwen/Qwen3-0.6B"}, "replicaz": 2}}
    resource = Resource(type="kubernetes:serving.kserve.io/v1alpha1:LLMInferenceService", name="q", props=props)
    found = [(v.enforcement, v.message.split(":")[0]) for v in evaluate([resource], policies=[validation_rules.POLICY])]
    assert found == [("advisory", "spec.replicaz")]
