"""S17 storage-uri-versioned: a KServe storage URI on an object store names a versioned path (advice).

Firing forms (spent set 77, labelled S17 advisory): wbe7/torchrt@2db3af4d946a423594b89c11b3cc4ce3ad4744e5
inferenceservice-full.yaml (``spec.predictor.triton.storageUri: s3://models/torchrt/models/``) and
loprych/kubeflow-infra@11b0eccd04a2ee7763e42ee1e89ce29a06f2538d inferenceservice.yaml (``predictor.model.storageUri:
s3://mlpipeline/kserve``). KServe's storage initializer copies every object under the prefix at each pod start (kserve
v0.20.0 python/storage/kserve_storage/kserve_storage.py:504-533 and :678-703).
Silent: a versioned path (KServe's own gs://kfserving-examples/models/sklearn/1.0/model), an object version, hf://,
pvc://, an unrendered URI.
"""

from __future__ import annotations

import pytest
from policy_fixtures import found_by

from policies.models.storage_uri_versioned import unversioned

RULE = "storage-uri-versioned"


def _isvc(predictor: dict) -> dict:
    return {
        "apiVersion": "serving.kserve.io/v1beta1",
        "kind": "InferenceService",
        "metadata": {"name": "m", "namespace": "ml"},
        "spec": {"predictor": predictor},
    }


def test_an_unversioned_prefix_is_advice_in_every_form():
    triton = _isvc({"triton": {"storageUri": "s3://models/torchrt/models/", "runtimeVersion": "24.01-py3"}})
    ((level, message),) = found_by([triton], RULE)
    assert level == "advisory"
    assert message.startswith("spec.predictor.triton.storageUri s3://models/torchrt/models/ names a prefix with no version")
    model = _isvc({"model": {"modelFormat": {"name": "pytorch"}, "storageUri": "s3://mlpipeline/kserve"}})
    assert [lv for lv, _ in found_by([model], RULE)] == ["advisory"]
    llmisvc = {
        "apiVersion": "serving.kserve.io/v1alpha1",
        "kind": "LLMInferenceService",
        "metadata": {"name": "q"},
        "spec": {"model": {"uri": "gs://weights/qwen2.5-7b-instruct"}},
    }
    assert [lv for lv, _ in found_by([llmisvc], RULE)] == ["advisory"]


@pytest.mark.parametrize(
    "uri",
    [
        "gs://kfserving-examples/models/sklearn/1.0/model",
        "s3://models/llama/v3/",
        "s3://models/llama/2024-05-01/",
        "s3://models/llama/model_v2/",
        "s3://models/llama/3f9a2c1d/",
        "s3://models/llama/?versionId=abc",
        "hf://meta-llama/Llama-3.1-8B-Instruct",
        "pvc://model-store/llama",
        "s3://${BUCKET}/model",
    ],
)
def test_a_versioned_or_other_source_stays_silent(uri):
    assert not unversioned(uri)
    assert found_by([_isvc({"model": {"modelFormat": {"name": "pytorch"}, "storageUri": uri}})], RULE) == []


def test_model_names_with_digits_are_no_version():
    assert unversioned("s3://models/Qwen2.5-7B-Instruct/")
    assert unversioned("https://acct.blob.core.windows.net/models/llama")
