"""S19/S29 read KServe's storage initializer for every scheme it downloads (policies/reading/kserve_storage.py).

kserve v0.20.0: a storage URI other than pvc:// or oci:// is downloaded by the storage-initializer init container
(pkg/webhook/admission/pod/storage_initializer_injector.go:528-547) into an emptyDir with no sizeLimit at /mnt/models
(pkg/utils/storage.go:107-121); the init container requests CPU and memory only (storage.go:311-333). A ``storage:``
spec (key + path) is the same download with the scheme filled from the storage secret (components/component.go:44-54).

The firing form is the shape of alpha-hack-program/doc-bot vllm_runtime/vllm-mistral-7b-multigpu-instance.yaml at
commit 3f0a9a76e5daa66694c336ed31f5d5fc075e8296 (an InferenceService with ``storage: {key, path}`` and its vLLM
ServingRuntime in the same file, GPUs on the InferenceService), written out minimally here.
"""

from __future__ import annotations

import copy

from tests.policies.policy_fixtures import RAISED
from tests.policies.policy_fixtures import found_by as _pack_found_by


def found_by(objs: list[dict], policy: str, config: dict | None = None) -> list[tuple[str, str]]:
    """The pack's findings with the advisory hygiene rows raised (policy_fixtures.RAISED), so this file's
    proven-blocks / unproven-advises pairs stay told apart."""
    return _pack_found_by(objs, policy, RAISED if config is None else config)


_ISVC = {
    "apiVersion": "serving.kserve.io/v1beta1",
    "kind": "InferenceService",
    "metadata": {"name": "mistral-7b-2x-t4"},
    "spec": {
        "predictor": {
            "model": {
                "modelFormat": {"name": "pytorch"},
                "runtime": "mistral-7b-2x-t4",
                "resources": {"limits": {"nvidia.com/gpu": "2"}, "requests": {"nvidia.com/gpu": "2"}},
                "storage": {"key": "aws-connection-mistral", "path": "mistralai/Mistral-7B-Instruct-v0.2"},
            }
        }
    },
}
_RUNTIME = {
    "apiVersion": "serving.kserve.io/v1alpha1",
    "kind": "ServingRuntime",
    "metadata": {"name": "mistral-7b-2x-t4"},
    "spec": {
        "supportedModelFormats": [{"name": "pytorch", "autoSelect": True}],
        "containers": [
            {
                "name": "kserve-container",
                "image": "quay.io/rh-aiservices-bu/vllm-openai-ubi9:0.4.2",
                "args": ["--model", "/mnt/models/", "--download-dir", "/models-cache", "--tensor-parallel-size=2"],
                "resources": {"limits": {"cpu": "8", "memory": "24Gi"}, "requests": {"cpu": "6", "memory": "24Gi"}},
            }
        ],
    },
}


def _s19(tmp_path, *docs: dict) -> list[tuple[str, str]]:
    return found_by(list(docs), "gpu-pod-ephemeral-storage")


def _with(uri: str | None = None, **requests: str) -> dict:
    isvc = copy.deepcopy(_ISVC)
    model = isvc["spec"]["predictor"]["model"]
    if uri is not None:
        del model["storage"]
        model["storageUri"] = uri
    model["resources"]["requests"].update(requests)
    return isvc


def test_a_storage_spec_download_into_the_initializer_emptydir_blocks(tmp_path):
    [(level, message)] = _s19(tmp_path, _ISVC, _RUNTIME)
    assert level == "mandatory"
    assert message.startswith(
        "spec.predictor.model: downloads mistralai/Mistral-7B-Instruct-v0.2 (storage key aws-connection-mistral) from "
        "its storage, through KServe's storage initializer, into /mnt/models on the node's ephemeral storage"
    )


def test_every_downloading_scheme_counts(tmp_path):
    for uri in ("s3://models/mistral-7b", "gs://models/mistral-7b", "https://example.com/m.tar.gz", "hf://Qwen/Qwen3-8B"):
        assert [level for level, _ in _s19(tmp_path, _with(uri), _RUNTIME)] == ["mandatory"], uri


def test_mounted_schemes_and_a_request_are_quiet(tmp_path):
    # pvc:// mounts the claim (injector :528-540); oci:// runs a modelcar (injector :298-380): nothing downloads.
    for uri in ("pvc://models/mistral-7b", "oci://registry.example.com/models/mistral:1"):
        assert _s19(tmp_path, _with(uri), _RUNTIME) == [], uri
    assert _s19(tmp_path, _with(**{"ephemeral-storage": "40Gi"}), _RUNTIME) == []
    # The runtime's request counts: KServe merges its resources under the model's, key by key.
    runtime = copy.deepcopy(_RUNTIME)
    runtime["spec"]["containers"][0]["resources"]["requests"]["ephemeral-storage"] = "40Gi"
    assert _s19(tmp_path, _ISVC, runtime) == []


def test_a_runtime_outside_the_files_makes_it_advice(tmp_path):
    # The runtime that completes the container (and may request ephemeral-storage) is not among the files read.
    [(level, message)] = _s19(tmp_path, _ISVC)
    assert level == "advisory"
    assert "the runtime or config that completes this container is not in the files read" in message


def test_storage_uris_are_read(tmp_path):
    # predictor.model.storageUris (kserve v0.20.0 predictor.go:66): each non-pvc, non-OCI entry is downloaded into an
    # emptyDir at the entries' common parent path (storage_initializer_injector.go:428-500).
    isvc = copy.deepcopy(_ISVC)
    model = isvc["spec"]["predictor"]["model"]
    del model["storage"]
    model["storageUris"] = [{"uri": "s3://models/mistral-7b", "mountPath": "/mnt/models/base"}]
    [(level, message)] = _s19(tmp_path, isvc, _RUNTIME)
    assert level == "mandatory" and "downloads s3://models/mistral-7b from its storage" in message
    assert "into /mnt/models/base on the node's ephemeral storage" in message
    model["storageUris"] = [{"uri": "pvc://models/mistral-7b", "mountPath": "/mnt/models/base"}]
    assert _s19(tmp_path, isvc, _RUNTIME) == []


def _cache(kind: str = "LocalModelCache", uri: str = "hf://Qwen/Qwen3-8B", **metadata: str) -> dict:
    return {
        "apiVersion": "serving.kserve.io/v1alpha1",
        "kind": kind,
        "metadata": {"name": "qwen3-8b", **metadata},
        "spec": {"sourceModelUri": uri, "modelSize": "20Gi", "nodeGroups": ["gpu-a10g"]},
    }


def test_a_local_model_cache_of_the_set_is_mounted_not_downloaded(tmp_path):
    """Review 32 R17 (probe /work/review/s25/lmc.yaml): KServe's defaulter labels an InferenceService whose storageUri a
    LocalModelCache covers (kserve v0.20.0 pkg/apis/serving/v1beta1/inference_service_defaults.go:504-590, the match
    pkg/apis/serving/v1alpha1/storage_uri_utils.go:23-35) and the injector mounts the cache's node-local claim instead
    of downloading (pkg/webhook/admission/pod/storage_initializer_injector.go:724-737): nothing lands on the node's
    ephemeral storage."""
    for cache in (_cache(), _cache(uri="hf://Qwen/"), _cache("LocalModelNamespaceCache", namespace="llm")):
        isvc = _with("hf://Qwen/Qwen3-8B")
        isvc["metadata"]["namespace"] = "llm"
        assert _s19(tmp_path, isvc, _RUNTIME, cache) == [], cache
    # Still downloaded: another model, a prefix that is not a folder, another node group, the opt-out annotation, a
    # namespace cache of another namespace.
    assert _s19(tmp_path, _with("hf://Qwen/Qwen3-8B"), _RUNTIME, _cache(uri="hf://Qwen/Qwen3-8B-FP8")) != []
    assert _s19(tmp_path, _with("hf://Qwen/Qwen3-8B-FP8"), _RUNTIME, _cache(uri="hf://Qwen/Qwen3-8B")) != []
    grouped = _with("hf://Qwen/Qwen3-8B")
    grouped["metadata"]["annotations"] = {"serving.kserve.io/nodegroup": "gpu-h100"}
    assert [level for level, _ in _s19(tmp_path, grouped, _RUNTIME, _cache())] == ["mandatory"]
    opted_out = _with("hf://Qwen/Qwen3-8B")
    opted_out["metadata"]["annotations"] = {"serving.kserve.io/disable-localmodel": "true"}
    assert [level for level, _ in _s19(tmp_path, opted_out, _RUNTIME, _cache())] == ["mandatory"]
    elsewhere = _with("hf://Qwen/Qwen3-8B")
    elsewhere["metadata"]["namespace"] = "llm"
    assert _s19(tmp_path, elsewhere, _RUNTIME, _cache("LocalModelNamespaceCache", namespace="other")) != []
