"""G56 service-selector-not-generated: a Service does not select pods by a name or hash a controller generates.

Fires: spent set 89 doublefix/OpsFlow deploy/deepseek_r1_svc_nodepoint.yaml (NodePort Service selecting
ray.io/cluster: deepseek-r1-671b-raycluster-t4ld9 beside RayJob deepseek-r1-671b of deploy/rayjob.yaml; labelled G56
blocking; advice: a script outside the files may rewrite the selector). KubeRay names a RayJob's cluster <name>-raycluster-<rand.String(5)> through v1.3.x (ray-project/kuberay v1.1.0
ray-operator/controllers/ray/utils/util.go:28, :229-231) and <name>-<rand.String(5)> from v1.4.0 (v1.7.0 :369-371).
Silent: a selector on the pod template's own labels, a ray.io/cluster naming a RayCluster of the files, a value of
another shape. Minimal forms of those manifests below.
"""

from __future__ import annotations

from policy_fixtures import found_by

POLICY = "service-selector-not-generated"
RAYJOB = {
    "apiVersion": "ray.io/v1",
    "kind": "RayJob",
    "metadata": {"name": "deepseek-r1-671b", "namespace": "kuberay"},
    "spec": {"entrypoint": "vllm serve /model", "rayClusterSpec": {"headGroupSpec": {"template": {"spec": {}}}}},
}


def _service(selector: dict) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "deepseek-r1-671b-raycluster-target-svc", "namespace": "kuberay"},
        "spec": {"type": "NodePort", "selector": selector, "ports": [{"port": 8000, "targetPort": 8000}]},
    }


def test_a_selector_on_a_rayjobs_generated_cluster_name_is_advice():
    service = _service({"ray.io/cluster": "deepseek-r1-671b-raycluster-t4ld9", "ray.io/node-type": "head"})
    ((level, message),) = found_by([RAYJOB, service], POLICY)
    assert level == "advisory"
    assert "names one generated RayCluster of deepseek-r1-671b" in message
    # KubeRay 1.4+ drops "-raycluster": the same finding.
    ((level, message),) = found_by([RAYJOB, _service({"ray.io/cluster": "deepseek-r1-671b-x7k2p"})], POLICY)
    assert level == "advisory" and "of deepseek-r1-671b" in message


def test_the_shape_alone_or_a_template_hash_is_advice():
    ((level, _),) = found_by([_service({"ray.io/cluster": "llm-raycluster-t4ld9"})], POLICY)
    assert level == "advisory"
    ((level, message),) = found_by([_service({"app": "vllm", "pod-template-hash": "5d9f7c6b8"})], POLICY)
    assert level == "advisory" and "pod-template-hash" in message


def test_careful_forms_stay_silent():
    cluster = {"apiVersion": "ray.io/v1", "kind": "RayCluster", "metadata": {"name": "llm", "namespace": "kuberay"}}
    for objects in (
        [RAYJOB, _service({"app": "deepseek", "ray.io/node-type": "head"})],
        [cluster, _service({"ray.io/cluster": "llm", "ray.io/node-type": "head"})],
        [RAYJOB, _service({"ray.io/cluster": "deepseek-r1-671b"})],
        [RAYJOB, _service({"ray.io/cluster": "deepseek-r1-671b-aeiou"})],  # vowels: no rand.String suffix
        [
            RAYJOB,
            {**cluster, "metadata": {"name": "deepseek-r1-671b-t4ld9"}},
            _service({"ray.io/cluster": "deepseek-r1-671b-t4ld9"}),
        ],
    ):
        assert found_by(objects, POLICY) == [], objects
