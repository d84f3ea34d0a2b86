"""G45 pod-template-api-valid: what the API server's core validation refuses and the OpenAPI schema cannot say."""

from __future__ import annotations

import pytest
from policy_fixtures import LWS_TYPE, deployment_props, manifest, messages, resource

from policies.k8s_generic.pod_template_api_valid import POLICY


def _mistral_h100() -> dict:
    # Minimal form of llm-on-gke/vllm-inference@5fbc604da68f484f5e9481db3156dbb2dd8104ea
    # vllm-deploy-mistral-h100.yaml (spent set 10): volume `cache` mounted at /.triton and /.cache, and volume
    # `triton` at /.triton again. kubernetes v1.31.0 pkg/apis/core/validation/validation.go ValidateVolumeMounts:
    # mountpoints.Has(mnt.MountPath) -> field.Invalid(..., "must be unique").
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "vllm-server"},
        "spec": {
            "selector": {"matchLabels": {"app": "vllm"}},
            "template": {
                "metadata": {"labels": {"app": "vllm"}},
                "spec": {
                    "volumes": [
                        {"name": "cache", "emptyDir": {}},
                        {"name": "dshm", "emptyDir": {"medium": "Memory"}},
                        {"name": "triton", "emptyDir": {}},
                    ],
                    "containers": [
                        {
                            "name": "vllm-inference-server",
                            "image": "vllm/vllm-openai:v0.6.3",
                            "volumeMounts": [
                                {"mountPath": "/dev/shm", "name": "dshm"},
                                {"mountPath": "/.triton", "name": "cache"},
                                {"mountPath": "/.cache", "name": "cache"},
                                {"mountPath": "/.triton", "name": "triton"},
                            ],
                        }
                    ],
                },
            },
        },
    }


def test_duplicate_mount_path_blocks():
    assert messages(POLICY, manifest(_mistral_h100())) == [
        "container vllm-inference-server: volumeMounts cache, triton share the mountPath /.triton; the API server "
        "refuses the pod (mountPath must be unique), so no pod is created"
    ]


def test_one_volume_at_two_paths_and_subpaths_pass():
    # The careful form of the same file: `cache` at /.triton and /.cache is valid (one volume, two paths), and so are
    # subPath mounts of one claim at different paths (the usual model-cache layout).
    obj = _mistral_h100()
    mounts = obj["spec"]["template"]["spec"]["containers"][0]["volumeMounts"]
    mounts[3]["mountPath"] = "/root/.triton"
    mounts.append({"mountPath": "/models", "name": "cache", "subPath": "models"})
    assert messages(POLICY, manifest(obj)) == []


def test_duplicate_container_and_volume_names_block():
    props = deployment_props()
    spec = props["spec"]["template"]["spec"]
    spec["initContainers"] = [{"name": spec["containers"][0]["name"], "image": "busybox:1.36"}]
    # Keep the volumes the fixture's mounts name (a mount naming no volume is refused too: Not found).
    spec["volumes"] = [*spec.get("volumes", []), {"name": "models", "emptyDir": {}}, {"name": "models", "emptyDir": {}}]
    found = messages(POLICY, resource("kubernetes:apps/v1:Deployment", props, name="d"))
    assert len(found) == 2
    assert any("two containers are named" in m and "Duplicate value" in m for m in found)
    assert any(m.startswith("spec.template.spec.volumes: two volumes are named models") for m in found)


@pytest.mark.parametrize("env", [[{"name": "A", "value": "1"}, {"name": "A", "value": "2"}]])
def test_duplicate_env_names_are_allowed(env):
    # The API server only warns on a repeated env name (it keeps the last), so no finding.
    props = deployment_props()
    props["spec"]["template"]["spec"]["containers"][0]["env"] = env
    assert messages(POLICY, resource("kubernetes:apps/v1:Deployment", props, name="d")) == []


def test_leader_and_worker_templates_are_separate_pods():
    # An LWS leader and worker may name their containers alike: each template is its own pod.
    pod = {"containers": [{"name": "vllm", "image": "vllm/vllm-openai:v0.10.0"}]}
    props = {
        "leaderWorkerTemplate": {"size": 2, "leaderTemplate": {"spec": pod}, "workerTemplate": {"spec": pod}},
    }
    assert messages(POLICY, resource(LWS_TYPE, {"spec": props}, name="lws")) == []
