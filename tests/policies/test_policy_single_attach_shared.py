"""S30 single-attach-volume-shared: two workloads of a run mounting one ReadWriteOnce(Pod) claim.

Third-party form: silavsale/ollama-open-webui-docker k8s/ollama.yaml, k8s/open-webui.yaml and k8s/ollama-pvc.yaml at
a9ecd108f5ff9cafa6bec5a27e679137c64612c6 (spent set 81, labelled none): Open WebUI mounts ollama-pvc, the Ollama
Deployment's ReadWriteOnce claim, at /root/.ollama. The attach/detach controller attaches a volume to a second node only
for ReadWriteMany or ReadOnlyMany (kubernetes pkg/volume/util/util.go IsMultiAttachAllowed). Minimal hand-written forms.
"""

import copy

from policy_fixtures import found_by


def _deployment(name: str, image: str, mount: str, claim: str = "ollama-pvc", **podspec) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "ollama"},
        "spec": {
            "replicas": 1,
            "strategy": {"type": "Recreate"},
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {
                    "containers": [
                        {"name": name, "image": image, "volumeMounts": [{"name": "ollama-storage", "mountPath": mount}]}
                    ],
                    "volumes": [{"name": "ollama-storage", "persistentVolumeClaim": {"claimName": claim}}],
                    **podspec,
                },
            },
        },
    }


OLLAMA = _deployment("ollama", "ollama/ollama:0.5.7", "/root/.ollama")
WEBUI = _deployment("open-webui", "ghcr.io/open-webui/open-webui:v0.5.20", "/root/.ollama")


def _claim(mode: str = "ReadWriteOnce", name: str = "ollama-pvc") -> dict:
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": name, "namespace": "ollama"},
        "spec": {"accessModes": [mode], "resources": {"requests": {"storage": "20Gi"}}},
    }


def _found(*objs):
    return found_by(list(objs), "single-attach-volume-shared")


def test_two_deployments_on_one_read_write_once_claim_are_advised():
    found = _found(OLLAMA, WEBUI, _claim())
    assert [e for e, _ in found] == ["advisory", "advisory"]
    assert found[1][1].startswith(
        "spec.template.spec.volumes ollama-storage: PersistentVolumeClaim ollama-pvc is ReadWriteOnce (attached to one "
        "node) and Deployment/ollama mounts it too"
    )
    assert "Multi-Attach error" in found[1][1]


def test_read_write_once_pod_between_two_deployments_blocks_and_a_job_advises():
    found = _found(OLLAMA, WEBUI, _claim("ReadWriteOncePod"))
    assert [e for e, _ in found] == ["mandatory", "mandatory"]
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "preload", "namespace": "ollama"},
        "spec": {"template": {"spec": copy.deepcopy(OLLAMA["spec"]["template"]["spec"]) | {"restartPolicy": "Never"}}},
    }
    assert [e for e, _ in _found(OLLAMA, job, _claim("ReadWriteOncePod"))] == ["advisory", "advisory"]


def test_the_careful_forms_stay_silent():
    # Each its own claim; a ReadWriteMany claim; the UI pinned beside Ollama; the UI's mount read-only; one workload.
    own = _deployment("open-webui", "ghcr.io/open-webui/open-webui:v0.5.20", "/app/backend/data", claim="webui-pvc")
    assert _found(OLLAMA, own, _claim(), _claim(name="webui-pvc")) == []
    assert _found(OLLAMA, WEBUI, _claim("ReadWriteMany")) == []
    together = {
        "podAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": {"matchLabels": {"app": "ollama"}}, "topologyKey": "kubernetes.io/hostname"}
            ]
        }
    }
    pinned = _deployment("open-webui", "ghcr.io/open-webui/open-webui:v0.5.20", "/root/.ollama", affinity=together)
    assert _found(OLLAMA, pinned, _claim()) == []
    read_only = copy.deepcopy(WEBUI)
    read_only["spec"]["template"]["spec"]["volumes"][0]["persistentVolumeClaim"]["readOnly"] = True
    assert _found(OLLAMA, read_only, _claim()) == []
    assert _found(OLLAMA, _claim()) == []
