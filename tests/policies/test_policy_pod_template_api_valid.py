"""G45 pod-template-api-valid: what the API server's core validation refuses and the OpenAPI schema cannot say."""

from __future__ import annotations

import pytest
from policy_fixtures import LWS_TYPE, deployment_props, found_by, manifest, messages, resource

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


def _phenixforge_vllm(selector: bool) -> dict:
    # Minimal form of PhenixForge/vllm-serving-kubernetes-platform@5916fc6b076c876bb547a5ea33c9b0c878bd93a9
    # kubernetes/deployment.yaml (spent set 115, labelled G45/S26 blocking): an apps/v1 Deployment with a pod template
    # and no spec.selector. With `selector`, the careful form of iheb24/vllm-gke@1752eb145cd909b30cbb2bfdb9dd0dd079ef7ea4
    # k8s/vllm/03-deployment.yaml (matchLabels app: vllm-server, carried by the template).
    spec: dict = {
        "template": {
            "spec": {
                "containers": [{"name": "vllm", "image": "vllm/vllm-openai:latest"}],
            }
        }
    }
    if selector:
        spec["selector"] = {"matchLabels": {"app": "vllm-server"}}
        spec["template"]["metadata"] = {"labels": {"app": "vllm-server"}}
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "vllm-server", "namespace": "vllm"}, "spec": spec}


def test_apps_v1_workload_without_selector_blocks():
    assert found_by([_phenixforge_vllm(selector=False)], "pod-template-api-valid") == [
        (
            "mandatory",
            "spec.selector is missing: apps/v1 requires it and does not default it from the template's labels, so the "
            "API server refuses the Deployment (spec.selector: Required value) and no pod is created; add "
            "spec.selector.matchLabels naming labels of spec.template.metadata.labels",
        )
    ]


def test_stated_selector_and_older_api_versions_pass():
    # The careful form, and extensions/v1beta1, which defaulted the selector from the template's labels.
    assert found_by([_phenixforge_vllm(selector=True)], "pod-template-api-valid") == []
    old = _phenixforge_vllm(selector=False)
    old["apiVersion"] = "extensions/v1beta1"
    assert found_by([old], "pod-template-api-valid") == []


def test_missing_selector_beside_a_kustomization_is_advice():
    # kustomize's commonLabels (and labels with includeSelectors) create spec.selector.matchLabels on these kinds.
    kustomization = {"apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization", "metadata": {"name": "k"}}
    found = found_by([_phenixforge_vllm(selector=False), kustomization], "pod-template-api-valid")
    assert [level for level, _ in found] == ["advisory"]
    assert found[0][1].endswith("(unless a kustomization of the run adds it with commonLabels)")


def test_server_side_apply_patch_without_containers_is_silent():
    # components/builders/model_source.py agent_user_patch: a DaemonSetPatch owning only the pod's securityContext.
    patch = {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": "kserve-localmodelnode-agent", "namespace": "kserve"},
        "spec": {"template": {"spec": {"securityContext": {"runAsUser": 1000, "runAsGroup": 1000}}}},
    }
    assert found_by([patch], "pod-template-api-valid") == []
