"""Fill-ins in values that must resolve (components/fill_ins.toml "bucket" and "issuer" rows, the "my-bucket URI" row):
a bucket in the documentation's my-...-bucket form, an OIDC issuer on a documentation domain. S27 names them in a
ConfigMap's values (policies/reading/config_placeholders.py) and in any object's fields (policies/reading/placeholders.py).
Firing forms are cut down from the spent sets named beside them; the careful forms must stay silent."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from components.fill_ins import fill_in, resolving_fill_in
from policies.check import resources_of
from policies.manifests import read_manifests
from policies.registry import evaluate


def _s27(tmp_path: Path, text: str) -> list[str]:
    path = tmp_path / "manifest.yaml"
    path.write_text(textwrap.dedent(text))
    return [v.message for v in evaluate(resources_of(read_manifests([str(path)]))) if v.catalog == "S27"]


# spent set 110 WaffleBits/secure-gpu-inference-gateway@11da3385 deploy/kubernetes/gateway.yaml (cut down)
GATEWAY_CONFIG = """\
    apiVersion: v1
    kind: ConfigMap
    metadata: {name: gateway-config, namespace: secure-gpu-inference}
    data:
      AUDIT_LOG_PATH: /var/log/gateway/audit.log
      OIDC_ISSUER: https://issuer.example.com
      OIDC_AUDIENCE: secure-gpu-inference-gateway
    """

# spent set 114 Goutham-Annem/eks-llm-inference@ae5b8ed8 manifests/vllm-deployment.yaml (cut down)
VLLM_CONFIG = """\
    apiVersion: v1
    kind: ConfigMap
    metadata: {name: vllm-config, namespace: llm-inference}
    data:
      modelName: "meta-llama/Meta-Llama-3-8B-Instruct"
      modelBucket: "my-model-cache-bucket"
    """


def test_an_issuer_on_a_documentation_domain_is_named_on_its_config_map(tmp_path):
    [found] = _s27(tmp_path, GATEWAY_CONFIG)
    assert found.startswith("data.OIDC_ISSUER holds https://issuer.example.com: a fill-in its author left for the user")


def test_a_documentation_bucket_is_named_on_its_config_map(tmp_path):
    [found] = _s27(tmp_path, VLLM_CONFIG)
    assert found.startswith("data.modelBucket holds my-model-cache-bucket: a fill-in")


def test_real_issuers_buckets_and_other_example_hosts_are_careful(tmp_path):
    careful = GATEWAY_CONFIG.replace("https://issuer.example.com", "https://accounts.google.com").replace(
        "OIDC_AUDIENCE: secure-gpu-inference-gateway", "PUBLIC_URL: https://chat.example.com"
    )
    assert _s27(tmp_path, careful) == []
    assert _s27(tmp_path, VLLM_CONFIG.replace("my-model-cache-bucket", "acme-llm-weights-prod")) == []


def test_a_documentation_bucket_in_a_storage_uri_is_named_on_the_inference_service(tmp_path):
    isvc = """\
        apiVersion: serving.kserve.io/v1beta1
        kind: InferenceService
        metadata: {name: llama, namespace: serve}
        spec:
          predictor:
            model:
              modelFormat: {name: huggingface}
              storageUri: s3://my-model-bucket/llama-3-8b
        """
    found = _s27(tmp_path, isvc)
    assert any("spec.predictor.model.storageUri holds 's3://my-model-bucket'" in f for f in found)
    assert _s27(tmp_path, isvc.replace("my-model-bucket", "acme-models")) == []


@pytest.mark.parametrize(
    ("value", "field", "hit"),
    [
        ("my-bucket", "bucketName", "my-bucket"),
        ("gs://my-gcs-bucket/models", "MODEL_URI", "gs://my-gcs-bucket"),
        ("https://dex.example.org/", "issuer", "https://dex.example.org"),
        ("https://login.corp.example/keys", "jwksUri", "https://login.corp.example"),
        ("mybucket", "bucketName", None),  # one word: a name someone may own
        ("my-data", "bucketName", None),
        ("https://issuer.example.com", "url", None),  # any other URL on a documentation domain: a choice
        ("https://example.company.com", "issuer", None),
    ],
)
def test_the_rows_read_by_the_field_name(value, field, hit):
    assert resolving_fill_in(value, field) == hit
    assert fill_in(value, field) == hit
