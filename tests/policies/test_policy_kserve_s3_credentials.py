"""S37 kserve-s3-credentials: a KServe InferenceService whose model is on s3:// names a way to the bucket's keys and
endpoint (advice).

Firing form: wbe7/torchrt@2db3af4d946a423594b89c11b3cc4ce3ad4744e5 inferenceservice.yaml (spent set 77, labelled NONE
blocking): ``spec.predictor.triton.storageUri: s3://models/torchrt/models/california_housing_trt`` and no
serviceAccountName. KServe reads S3 keys and endpoint from the predictor's ServiceAccount (``default`` when none is
named) and the serving.kserve.io/storageSecretName annotation only (kserve v0.20.0
pkg/credentials/service_account_credentials.go:211-215, :241, :249-256, :261).
Silent: a named ServiceAccount (loprych/kubeflow-infra inferenceservice.yaml, sa-minio-kserve), the annotation, a
storage spec, gs:// or hf://, a ``default`` ServiceAccount the files define.
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

RULE = "kserve-s3-credentials"
WBE7 = {
    "apiVersion": "serving.kserve.io/v1beta1",
    "kind": "InferenceService",
    "metadata": {"name": "california-housing", "namespace": "torchrt"},
    "spec": {"predictor": {"triton": {"storageUri": "s3://models/torchrt/models/california_housing_trt"}}},
}


def test_an_s3_model_with_no_account_is_advice():
    ((level, message),) = found_by([WBE7], RULE)
    assert level == "advisory"
    assert message.startswith(
        "storageUri s3://models/torchrt/models/california_housing_trt is on S3 but the predictor names no "
        "serviceAccountName and no serving.kserve.io/storageSecretName annotation"
    )


def test_a_way_to_the_keys_stays_silent():
    named = copy.deepcopy(WBE7)
    named["spec"]["predictor"]["serviceAccountName"] = "sa-minio-kserve"
    assert found_by([named], RULE) == []
    annotated = copy.deepcopy(WBE7)
    annotated["metadata"]["annotations"] = {"serving.kserve.io/storageSecretName": "s3-secret"}
    assert found_by([annotated], RULE) == []
    gcs = copy.deepcopy(WBE7)
    gcs["spec"]["predictor"]["triton"]["storageUri"] = "gs://kfserving-examples/models/triton/1"
    assert found_by([gcs], RULE) == []
    storage = {
        **WBE7,
        "spec": {"predictor": {"model": {"modelFormat": {"name": "triton"}, "storage": {"key": "minio", "path": "m/1"}}}},
    }
    assert found_by([storage], RULE) == []
    account = {
        "apiVersion": "v1",
        "kind": "ServiceAccount",
        "metadata": {"name": "default", "namespace": "torchrt"},
        "secrets": [{"name": "s3-secret"}],
    }
    assert found_by([WBE7, account], RULE) == []
