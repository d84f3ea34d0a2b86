"""G35 no-literal-secret-env: a URL whose userinfo carries a password (scheme://user:password@host) in a ConfigMap value
or a container's env is a credential in clear text, whatever the name of the key.

Fixtures:
- set 29, hdiazf/ollama_mlops k8s/backend-deployment.yaml@32ef154150a83fae1635276a764b8ccb11c85f62: ConfigMap
  backend-config DATABASE_URL postgresql://postgres:<password>@postgres-service:5432/mlops_db, read through envFrom;
- advisory, not blocking (the default-credential form class: a password that repeats its user name, as in set 29's
  own file and spent set 57's rag-platform ConfigMap, which its labeller left unlabelled; set 46's labeller filed
  litellm:postgres123 blocking): a generic ConfigMap DATABASE_URL postgresql://postgres:postgres@db, an AMQP
  guest:guest URL, and POSTGRES_PASSWORD beside POSTGRES_USER with the same value;
- silent: ADORSYS-GIS/ai-ops terraform/config-map.tf@a72b4805e04f099f32fd5a2e6fac78d89494cc4d: DATABASE_URL built from
  $(DATABASE_USERNAME):$(DATABASE_PASSWORD) references the kubelet expands from a Secret-fed env.
"""

from __future__ import annotations

import pytest
from policy_fixtures import found_by, isvc, isvc_props, messages, resource, vllm_container

from policies.k8s_generic.no_literal_secret_env import POLICY, url_password


def _config_map(data: dict):
    return resource(
        "kubernetes:core/v1:ConfigMap",
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "backend-config"}, "data": data},
    )


def test_a_password_in_a_config_map_url_blocks():
    found = messages(
        POLICY,
        _config_map(
            {
                "DATABASE_URL": "postgresql://postgres:Pg-2b7e41@postgres-service:5432/mlops_db",
                "OLLAMA_URL": "http://ollama-service:11434",
            }
        ),
    )
    assert found == [
        "ConfigMap data DATABASE_URL holds a URL with a password in it (scheme://user:password@host); store it in a "
        "Secret and reference it with secretKeyRef"
    ]
    assert url_password("redis://:s3cret@redis:6379/0")
    assert url_password("amqp://guest:guest@rabbitmq:5672/")


def test_a_password_in_an_env_url_blocks():
    props = isvc_props()
    vllm_container(props)["env"] = [{"name": "DATABASE_URL", "value": "postgresql+asyncpg://app:hunter2@db:5432/app"}]
    (found,) = messages(POLICY, isvc(props))
    assert "env DATABASE_URL holds a URL with a password in it" in found


def test_references_placeholders_and_plain_urls_stay_silent():
    silent = {
        "DATABASE_URL": "postgresql://$(DATABASE_USERNAME):$(DATABASE_PASSWORD)@$(DATABASE_HOST)/$(DATABASE_NAME)",
        "TEMPLATED": "postgresql://app:{{ .Values.password }}@db/app",
        "DOC": "postgresql://user:<password>@host:5432/db",
        "MASKED": "postgresql://user:****@host/db",
        "USER_ONLY": "postgresql://postgres@db:5432/app",
        "GIT": "git+ssh://git@github.com/org/repo.git",
        "IMAGE": "docker://registry:5000/image@sha256:abc",
        "PLAIN": "http://vllm:8000/v1",
    }
    assert messages(POLICY, _config_map(silent)) == []


def test_json_around_a_url_is_not_its_userinfo():
    # set 29, aws-samples/sample-eks-cache-aware-llm-routing manifests/vllm-deployment.yaml@5e23f9d5: vLLM's
    # --kv-events-config JSON holds tcp://*:5556 and a topic kv@$(POD_IP):8000@MODEL; no password there.
    text = '{"enable_kv_cache_events":true,"publisher":"zmq","endpoint":"tcp://*:5556","topic":"kv@$(POD_IP):8000@mistralai/Mistral-7B-Instruct-v0.3"}'
    assert not url_password(text)


@pytest.mark.parametrize(
    "text",
    [
        "postgresql://USER:PASSWORD@HOST:5432/DB",
        "postgresql://your-user:your-password@your-host:5432/db",
        "postgresql://app:REPLACE_ME@db:5432/app",
        "redis://:changeme@redis:6379/0",
        "redis://:%s@redis:6379",
        "postgresql://app:YOUR_PASSWORD@db/app",
    ],
)
def test_a_fill_in_password_is_no_credential(text):
    # Cold review 29, finding 1: stand-in words and fill-ins the placeholder recogniser names are what a sample asks
    # the reader to replace (S28 and G46 read them the same way); printf verbs are filled at run time.
    assert not url_password(text)


def test_the_same_urls_with_a_real_password_still_fire():
    assert url_password("postgresql://USER:Tr0ub4dor-3@HOST:5432/DB")
    assert url_password("redis://:changeme2024!@redis:6379/0")


def test_a_query_or_fragment_ends_the_authority():
    # Cold review 29b, finding 3: "?" and "#" end a URL's authority (RFC 3986 3.2), so an "@" after them is no userinfo.
    assert not url_password("smtp://mail.internal:587?from=alerts@example.com")
    assert not url_password("http://vllm:8000/v1#user:x@y")


def _levels(objs: list[dict]) -> list[tuple[str, str]]:
    return found_by(objs, "no-literal-secret-env")


def _config_map_manifest(data: dict) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "app-config"}, "data": data}


def test_a_password_that_repeats_its_user_is_advice():
    # Class: a default credential (the user name written again: postgres:postgres, guest:guest) commits no secret;
    # anyone guesses it, so the finding is advice, not a blocking leak.
    found = _levels(
        [
            _config_map_manifest(
                {
                    "DATABASE_URL": "postgresql+psycopg://postgres:postgres@postgres:5432/app",
                    "BROKER_URL": "amqp://guest:guest@rabbitmq:5672/",
                    "REDIS_URL": "redis://redis:6379/0",
                }
            )
        ]
    )
    assert [level for level, _ in found] == ["advisory", "advisory"]
    assert all("repeats its user name" in message for _, message in found)


def test_one_real_password_among_default_ones_still_blocks():
    found = _levels([_config_map_manifest({"URLS": "postgresql://postgres:postgres@a/x amqp://app:Rb-93x1@b/"})])
    assert [level for level, _ in found] == ["mandatory"]


def test_an_env_password_equal_to_its_user_is_advice():
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "db"},
        "spec": {
            "selector": {"matchLabels": {"app": "db"}},
            "template": {
                "metadata": {"labels": {"app": "db"}},
                "spec": {
                    "containers": [
                        {
                            "name": "postgres",
                            "image": "postgres:16",
                            "env": [
                                {"name": "POSTGRES_USER", "value": "postgres"},
                                {"name": "POSTGRES_PASSWORD", "value": "postgres"},
                            ],
                        }
                    ]
                },
            },
        },
    }
    assert [level for level, _ in _levels([deployment])] == ["advisory"]
    deployment["spec"]["template"]["spec"]["containers"][0]["env"][1]["value"] = "Pg-2b7e41"
    assert [level for level, _ in _levels([deployment])] == ["mandatory"]


def test_a_config_map_password_key_equal_to_its_user_key_is_advice():
    found = _levels([_config_map_manifest({"DB_USERNAME": "admin", "DB_PASSWORD": "admin"})])
    assert [level for level, _ in found] == ["advisory"]
    found = _levels([_config_map_manifest({"DB_USERNAME": "admin", "DB_PASSWORD": "s3cr3t-admin"})])
    assert [level for level, _ in found] == ["mandatory"]
