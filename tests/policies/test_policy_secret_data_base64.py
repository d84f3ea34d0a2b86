"""G47 secret-data-base64: the API server decodes Secret.data as base64 and refuses a value that is not."""

from __future__ import annotations

import base64
import json

from policy_fixtures import found_by

POLICY = "secret-data-base64"


def _namla() -> list[dict]:
    # g-rabah/namla-usecases- nim-deployment.yaml@3f71b9a048b052ed6b3b318cf3fdbcfa4929ea88 (spent set 12): both Secrets
    # were masked with `*` before publishing, so neither value decodes.
    return [
        {
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": {"name": "ngc-secret"},
            "type": "kubernetes.io/dockerconfigjson",
            "data": {".dockerconfigjson": "eyJhdXRoc*************EJOYWxaciJ9fX0="},
        },
        {
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": {"name": "ngc-api-secret"},
            "data": {"NGC_API_KEY": "bnZhcGktT************************ZA=="},
        },
    ]


def test_masked_values_block():
    assert sorted(found_by(_namla(), POLICY)) == [
        (
            "mandatory",
            "data..dockerconfigjson is not valid base64 (illegal base64 data at input byte 9: a character outside the standard alphabet); the API server cannot decode it and "
            "refuses the Secret, so every pod reading it fails (CreateContainerConfigError, or no image pull); put the "
            "real base64 value (or plain text under stringData), or create the Secret at deploy time",
        ),
        (
            "mandatory",
            "data.NGC_API_KEY is not valid base64 (illegal base64 data at input byte 9: a character outside the standard alphabet); the API server cannot decode it and refuses the "
            "Secret, so every pod reading it fails (CreateContainerConfigError, or no image pull); put the real base64 "
            "value (or plain text under stringData), or create the Secret at deploy time",
        ),
    ]


def test_real_values_and_string_data_pass():
    # The careful form: the values as `kubectl create secret` writes them (wrapped base64 included), or stringData.
    config = base64.b64encode(json.dumps({"auths": {"nvcr.io": {"username": "$oauthtoken"}}}).encode()).decode()
    secrets = _namla()
    secrets[0]["data"][".dockerconfigjson"] = config
    secrets[1]["data"] = {
        "NGC_API_KEY": base64.b64encode(b"nvapi-xyz").decode()[:8] + "\n" + base64.b64encode(b"nvapi-xyz").decode()[8:]
    }
    assert found_by(secrets, POLICY) == []
    secrets[1] = {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": "ngc-api-secret"},
        "stringData": {"NGC_API_KEY": "***"},
    }
    assert found_by(secrets, POLICY) == []


def test_placeholder_is_advice_and_non_json_docker_config_blocks():
    secrets = _namla()
    secrets[0]["data"][".dockerconfigjson"] = base64.b64encode(b"not json").decode()
    secrets[1]["data"]["NGC_API_KEY"] = "${NGC_API_KEY_B64}"
    found = dict((message[:16], level) for level, message in found_by(secrets, POLICY))
    assert found == {"data..dockerconf": "mandatory", "data.NGC_API_KEY": "advisory"}
    assert sorted(m for _, m in found_by(secrets, POLICY))[0].startswith(
        "data..dockerconfigjson decodes to text that is not JSON"
    )
    assert sorted(m for _, m in found_by(secrets, POLICY))[1].endswith(
        "it is a placeholder; fill it with the base64 value, or use stringData"
    )


def test_no_part_of_the_value_is_reported():
    # A real token with one character masked is refused, and the report must not carry any of its text.
    token = base64.b64encode(b"hf_realtokenvalue0123456789").decode()
    bad = token[:10] + "*" + token[11:]
    secrets = _namla()
    secrets[1]["data"]["NGC_API_KEY"] = bad
    messages = [m for _, m in found_by(secrets, POLICY) if "NGC_API_KEY" in m]
    assert messages and all(bad[:4] not in m and "hf_" not in m for m in messages)
