"""A pod template in a custom resource no reader knows is still found when its image is an unrendered placeholder.

policies.check turns a placeholder (``${APP_IMAGE}``, ``your-acr-repo.azurecr.io/...``) into framework.UNKNOWN before
the rules run (S27 names it); the generic search (policies/kube.py generic_pod_specs) took a container only by a string
image or a command, so an operator CR whose only container had a placeholder image lost its whole pod template, and
every generic rule (G1 on the tag, S19, G11, S15, G46 on the reference as written) went silent on it.
"""

from __future__ import annotations

import yaml

from policies.check import resources_of
from policies.kube import pod_specs
from policies.manifests import read_manifests
from policies.registry import evaluate

# mohameddhameem/vllm-aks-keda-worker k8s/scaledjob.yaml (spent set 28, labelled G1 and S19): a KEDA ScaledJob whose
# jobTargetRef is a batch/v1 JobSpec (kedacore/keda apis/keda/v1alpha1 scaledjob_types.go JobTargetRef), its image
# your-acr-repo.azurecr.io/vllm-whisper-batch:latest, the Hugging Face cache an emptyDir with no ephemeral-storage request.
SCALED_JOB = {
    "apiVersion": "keda.sh/v1alpha1",
    "kind": "ScaledJob",
    "metadata": {"name": "vllm-whisper-batch-job", "namespace": "vllm-speech"},
    "spec": {
        "jobTargetRef": {
            "parallelism": 1,
            "completions": 1,
            "template": {
                "spec": {
                    "containers": [
                        {
                            "name": "vllm-worker",
                            "image": "your-acr-repo.azurecr.io/vllm-whisper-batch:latest",
                            "env": [{"name": "MODEL_NAME", "value": "openai/whisper-large-v3"}],
                            "volumeMounts": [{"name": "huggingface-cache", "mountPath": "/root/.cache/huggingface"}],
                            "resources": {
                                "limits": {"nvidia.com/gpu": "1", "memory": "16Gi"},
                                "requests": {"nvidia.com/gpu": "1", "memory": "8Gi"},
                            },
                        }
                    ],
                    "volumes": [{"name": "huggingface-cache", "emptyDir": {}}],
                    "restartPolicy": "Never",
                }
            },
        },
        "maxReplicaCount": 5,
        "triggers": [{"type": "azure-servicebus", "metadata": {"queueName": "audio-transcription-queue"}}],
    },
}

# duglin/helloworld service1.yaml@0bd89703c5c19b09765785bd50f70387614f963b: a Knative v1alpha1 Service whose single
# `container` holds only `image: ${APP_IMAGE}`, which the repository's kapply script fills before kubectl apply.
KNATIVE = {
    "apiVersion": "serving.knative.dev/v1alpha1",
    "kind": "Service",
    "metadata": {"name": "helloworld"},
    "spec": {
        "runLatest": {
            "configuration": {"revisionTemplate": {"spec": {"container": {"image": "${APP_IMAGE}"}, "containerConcurrency": 1}}}
        }
    },
}


def _read(tmp_path, *docs: dict):
    path = tmp_path / "cr.yaml"
    path.write_text(yaml.safe_dump_all(docs))
    return resources_of(read_manifests([str(path)]))


def _findings(tmp_path, *docs: dict) -> list[tuple[str, str, str]]:
    return [(v.catalog, v.enforcement, v.message) for v in evaluate(_read(tmp_path, *docs))]


def test_the_scaled_job_template_is_found_behind_its_placeholder_image(tmp_path):
    [job] = _read(tmp_path, SCALED_JOB)
    assert [path for path, _ in pod_specs(job)] == ["spec.jobTargetRef.template.spec"]
    found = _findings(tmp_path, SCALED_JOB)
    g1 = [m for c, e, m in found if c == "G1"]
    assert g1 == [
        "spec.jobTargetRef.template.spec container vllm-worker: image your-acr-repo.azurecr.io/vllm-whisper-batch:latest "
        "uses the mutable tag latest; pin a version tag (ideally a digest, image@sha256:...)"
    ]
    assert [e for c, e, _ in found if c == "S19"] == ["advisory"]
    assert all(e == "advisory" for c, e, _ in found if c != "S27")


def test_a_single_placeholder_container_is_found_and_judged_as_written(tmp_path):
    [svc] = _read(tmp_path, KNATIVE)
    assert [path for path, _ in pod_specs(svc)] == ["spec.runLatest.configuration.revisionTemplate.spec.container"]
    g46 = [(e, m) for c, e, m in _findings(tmp_path, KNATIVE) if c == "G46"]
    assert len(g46) == 1 and g46[0][0] == "advisory" and "'${APP_IMAGE}' holds a variable" in g46[0][1]


def test_a_rendered_job_with_a_pinned_image_and_a_sized_cache_stays_silent(tmp_path):
    # The careful form: a real registry, a version tag, the cache on a claim, memory requested as limited.
    job = yaml.safe_load(yaml.safe_dump(SCALED_JOB))
    container = job["spec"]["jobTargetRef"]["template"]["spec"]["containers"][0]
    container["image"] = "contoso.azurecr.io/vllm-whisper-batch:1.4.2"
    container["resources"]["requests"]["memory"] = "16Gi"
    job["spec"]["jobTargetRef"]["template"]["spec"]["volumes"][0] = {
        "name": "huggingface-cache",
        "persistentVolumeClaim": {"claimName": "hf-cache"},
    }
    catalogs = {c for c, _, _ in _findings(tmp_path, job)}
    assert not catalogs & {"G1", "G46", "S19", "G11", "S27"}, catalogs


def test_a_mapping_or_number_under_image_is_no_container(tmp_path):
    # Values-style image settings (repository and tag apart) and a count are not containers: no pod template.
    cr = {
        "apiVersion": "example.com/v1",
        "kind": "Settings",
        "metadata": {"name": "s"},
        "spec": {"a": {"image": {"repository": "r", "tag": "1"}}, "b": {"image": 3}},
    }
    [res] = _read(tmp_path, cr)
    assert pod_specs(res) == []
