"""G45 kserve-model-mount-unique: KServe's own model mount at /mnt/models over a mount the predictor already has there.

Fires: set 44, sereno4/LLM-Pipeline-Platform- kserve/inferenceservice.yaml and kserve/servingruntime.yaml (labelled
G45/S33 blocking): ``storageUri: pvc://model-pvc/gpt2`` over ServingRuntime huggingface-cpu-runtime, whose
kserve-container mounts volume model-storage at /mnt/models. kserve v0.16.0
pkg/webhook/admission/pod/storage_initializer_injector.go:343-392 adds kserve-pvc-source (pvc://) or
kserve-provision-location (other schemes) at /mnt/models, and pkg/utils/storage.go:75-82 skips only a mount of the same
volume name. Same class, second form: the predictor's own kserve-container (spec.predictor.containers) mounting a cache
claim at /mnt/models beside an hf:// storageUri (the "model caching PVC" edit public OpenShift AI guides suggest).
Silent: the same runtime with no storageUri (the volume is the model), a mount at another path, an OCI modelcar URI.
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

POLICY = "kserve-model-mount-unique"

_ISVC = {
    "apiVersion": "serving.kserve.io/v1beta1",
    "kind": "InferenceService",
    "metadata": {"name": "gpt2-inference", "namespace": "kserve"},
    "spec": {
        "predictor": {
            "model": {
                "modelFormat": {"name": "huggingface"},
                "runtime": "huggingface-cpu-runtime",
                "storageUri": "pvc://model-pvc/gpt2",
            }
        }
    },
}
_RUNTIME = {
    "apiVersion": "serving.kserve.io/v1alpha1",
    "kind": "ServingRuntime",
    "metadata": {"name": "huggingface-cpu-runtime", "namespace": "kserve"},
    "spec": {
        "supportedModelFormats": [{"name": "huggingface", "version": "1", "autoSelect": True}],
        "containers": [
            {
                "name": "kserve-container",
                "image": "kserve/huggingfaceserver:v0.11.1",
                "args": ["--model_name={{.Name}}", "--model_dir=/mnt/models"],
                "volumeMounts": [{"name": "model-storage", "mountPath": "/mnt/models"}],
            }
        ],
        "volumes": [{"name": "model-storage", "persistentVolumeClaim": {"claimName": "model-pvc"}}],
    },
}
_CUSTOM = {
    "apiVersion": "serving.kserve.io/v1beta1",
    "kind": "InferenceService",
    "metadata": {"name": "vlm", "namespace": "vision"},
    "spec": {
        "predictor": {
            "containers": [
                {
                    "name": "kserve-container",
                    "image": "vllm/vllm-openai:v0.10.1",
                    "args": ["--model", "/mnt/models"],
                    "env": [{"name": "STORAGE_URI", "value": "hf://Qwen/Qwen2.5-VL-7B-Instruct"}],
                    "volumeMounts": [{"name": "model-cache", "mountPath": "/mnt/models"}],
                }
            ],
            "volumes": [{"name": "model-cache", "persistentVolumeClaim": {"claimName": "vllm-model-cache"}}],
        }
    },
}


def test_set44_runtime_mount_and_pvc_storage_uri_is_refused():
    ((level, message),) = found_by([_ISVC, _RUNTIME], POLICY)
    assert level == "mandatory"
    assert "model-storage" in message and "kserve-pvc-source" in message and "ServingRuntime/huggingface-cpu-runtime" in message


def test_own_container_mount_and_downloaded_uri_is_refused():
    ((level, message),) = found_by([_CUSTOM], POLICY)
    assert level == "mandatory" and "kserve-provision-location" in message and "spec.predictor.containers" in message


def test_careful_forms_stay_silent():
    no_uri = copy.deepcopy(_ISVC)
    del no_uri["spec"]["predictor"]["model"]["storageUri"]
    assert found_by([no_uri, _RUNTIME], POLICY) == []
    elsewhere = copy.deepcopy(_RUNTIME)
    elsewhere["spec"]["containers"][0]["volumeMounts"][0]["mountPath"] = "/data/cache"
    assert found_by([_ISVC, elsewhere], POLICY) == []
    oci = copy.deepcopy(_ISVC)
    oci["spec"]["predictor"]["model"]["storageUri"] = "oci://quay.io/models/gpt2:1"
    assert found_by([oci, _RUNTIME], POLICY) == []
    # The runtime is not among the objects checked: nothing is known of its mounts.
    assert found_by([_ISVC], POLICY) == []


def test_trailing_slash_mount_is_admitted_so_advice():
    # Review 45 #10 (/tmp/review45/m/g45): the API server compares mountPath strings (kubernetes
    # pkg/apis/core/validation/validation.go ValidateVolumeMounts, mountpoints.Has), so /mnt/models/ beside KServe's
    # /mnt/models is admitted: advice (one volume hides the other), not "the API server refuses it".
    slash = copy.deepcopy(_RUNTIME)
    slash["spec"]["containers"][0]["volumeMounts"][0]["mountPath"] = "/mnt/models/"
    ((level, message),) = found_by([_ISVC, slash], POLICY)
    assert level == "advisory" and "admits both" in message
