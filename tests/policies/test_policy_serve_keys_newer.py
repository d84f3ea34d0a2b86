"""S43 ray-serve-config-keys-current, the other way round: a Serve key newer than the Ray release the cluster runs
(Ray 2.9.0 ignores max_ongoing_requests and target_ongoing_requests; policies/ray/serve_config_keys_current.py)."""

from __future__ import annotations

from policy_fixtures import found_by

POLICY = "ray-serve-config-keys-current"


def _rayservice(image: str, ray_version: str | None) -> dict:
    # Minimal form of aabhimittal/Ray-serve-multi-model-GPU-autoscaling deploy/kuberay/rayservice.yaml (spent set 38,
    # labelled S43): per deployment max_ongoing_requests and autoscaling_config.target_ongoing_requests, images
    # rayproject/ray-ml:2.9.0-py310-gpu and rayVersion "2.9.0".
    serve = (
        "applications:\n- name: gateway\n  import_path: app:app\n  deployments:\n  - name: embedding\n"
        "    max_ongoing_requests: 16\n    autoscaling_config:\n      min_replicas: 1\n      max_replicas: 4\n"
        "      target_ongoing_requests: 8\n"
    )
    cluster: dict = {
        "headGroupSpec": {"rayStartParams": {}, "template": {"spec": {"containers": [{"name": "head", "image": image}]}}},
        "workerGroupSpecs": [],
    }
    if ray_version is not None:
        cluster["rayVersion"] = ray_version
    return {
        "apiVersion": "ray.io/v1",
        "kind": "RayService",
        "metadata": {"name": "multi-model-gateway"},
        "spec": {"serveConfigV2": serve, "rayClusterConfig": cluster},
    }


def test_keys_newer_than_the_release_are_said_to_be_ignored():
    found = found_by([_rayservice("rayproject/ray-ml:2.9.0-py310-gpu", "2.9.0")], POLICY)
    assert [level for level, _ in found] == ["advisory", "advisory"], found
    text = " ".join(message for _, message in found)
    assert "max_ongoing_requests is a Ray Serve field only from Ray 2.10" in text
    assert "max_concurrent_queries (default 100)" in text and "target_ongoing_requests" in text
    # The release read from rayVersion alone, the image naming none.
    assert len(found_by([_rayservice("my/serve:latest", "2.9.0")], POLICY)) == 2


def test_a_release_that_knows_the_keys_or_none_named_stays_silent():
    # Pradeeptalari14/tp-kuberay manifests/rayservice.yaml@af19dc205f96cdd64f33133b5a7ccf2d879b742c (spent set 25):
    # max_ongoing_requests on rayproject/ray:2.41.0-py311, rayVersion "2.41.0".
    assert found_by([_rayservice("rayproject/ray:2.41.0-py311", "2.41.0")], POLICY) == []
    assert found_by([_rayservice("rayproject/ray:2.10.0-py310", None)], POLICY) == []
    # No release named: the keys are the current ones, nothing to say.
    assert found_by([_rayservice("my/serve:latest", None)], POLICY) == []
