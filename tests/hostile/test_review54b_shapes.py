"""Shapes the cold review of session 54 (review54b) found with a mutation fuzzer over its third-party forms: a RayCluster
worker group whose replicas is .inf (components/derive/kuberay.py ray_pods: int(inf) raised OverflowError, reported as
an internal error) or a huge count (it derived one pod per replica, so replicas: 1000000000000 kept the check running
for minutes). Checked in-process without the containment of `policies check`, so any exception fails the test."""

from __future__ import annotations

import time

import pytest

from components.derive.kuberay import ray_pods
from policies.check import load_resources, manifest_files
from policies.registry import evaluate

_RAY = """
apiVersion: ray.io/v1
kind: RayCluster
metadata: {{name: rc, namespace: ray}}
spec:
  headGroupSpec:
    rayStartParams: {{}}
    template: {{spec: {{containers: [{{name: head, image: "rayproject/ray:2.46.0"}}]}}}}
  workerGroupSpecs:
  - groupName: gpu
    replicas: {replicas}
    template: {{spec: {{containers: [{{name: worker, image: "rayproject/ray:2.46.0"}}]}}}}
"""


@pytest.mark.parametrize("replicas", [".inf", "-.inf", ".nan", "1000000000000", "1e300"])
def test_a_hostile_worker_count_never_raises_nor_hangs(tmp_path, replicas):
    path = tmp_path / "ray.yaml"
    path.write_text(_RAY.format(replicas=replicas))
    start = time.monotonic()
    violations = evaluate(load_resources(manifest_files([str(path)])))
    assert all(isinstance(v.message, str) for v in violations)
    assert time.monotonic() - start < 30


def test_a_groups_pods_are_derived_up_to_a_bound():
    cluster = {
        "metadata": {"name": "rc"},
        "spec": {
            "headGroupSpec": {"template": {"spec": {"containers": [{"name": "head"}]}}},
            "workerGroupSpecs": [{"groupName": "gpu", "replicas": 10**12, "template": {"spec": {"containers": [{"name": "w"}]}}}],
        },
    }
    assert len(ray_pods(cluster)) == 1 + 256
    cluster["spec"]["workerGroupSpecs"][0]["replicas"] = 3
    assert [name for name, _ in ray_pods(cluster)] == ["rc-head", "rc-gpu-worker-0", "rc-gpu-worker-1", "rc-gpu-worker-2"]
    cluster["spec"]["workerGroupSpecs"][0]["replicas"] = float("inf")
    with pytest.raises(ValueError):
        ray_pods(cluster)


_ROUTER = """
apiVersion: v1
kind: ConfigMap
metadata: {name: router, namespace: ai}
data:
  FAST_CTX_LIMIT: "90000"
  config.yaml: |
    model_list:
    - model_name: fast
      litellm_params: {api_base: "http://vllm:8000/v1"}
      model_info: {context_window: 32768}
---
apiVersion: v1
kind: Pod
metadata: {name: client, namespace: ai}
spec:
  containers:
  - name: api
    image: ghcr.io/acme/api:1.0.0
    env: [{name: [FAST_CTX_LIMIT], value: "90000"}, {name: {a: 1}}, {name: 8, value: "3"}]
"""


def test_a_mistyped_key_or_env_name_is_no_context_limit(tmp_path):
    """S54's router limits (review54b's fuzzer: an env name that is a list was made a dict key, TypeError)."""
    path = tmp_path / "router.yaml"
    path.write_text(_ROUTER)
    violations = evaluate(load_resources(manifest_files([str(path)])))
    s54 = [v.message for v in violations if v.policy == "client-context-within-server"]
    assert s54 == [
        "data FAST_CTX_LIMIT=90000 lets the router send prompts of up to 90000 tokens to route fast, whose window is 32768 "
        "(ConfigMap/router data config.yaml model_list[0].model_info context_window): prompts between the two fail or "
        "are cut; keep FAST_CTX_LIMIT at most 32768, or send longer prompts to a route that holds them"
    ]
