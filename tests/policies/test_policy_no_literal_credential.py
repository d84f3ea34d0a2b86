"""G35 no-literal-credential: a credential in the spec of an object other than a Secret, a workload or a ConfigMap.

Firing form: envoyproxy/ai-gateway examples/inference-pool/aigwroute.yaml (an AIGatewayRoute whose rule matches
``Authorization: sk-...`` literally, "to demonstrate API key auth for a particular model"). Careful forms: the same
route matching only the model header, an HTTPRoute header filter with a non-credential header, a placeholder value.
"""

from __future__ import annotations

import base64
import copy

from policy_fixtures import resource

from policies.framework import Resource
from policies.k8s_generic import no_literal_credential
from policies.registry import evaluate

ROUTE = {
    "apiVersion": "aigateway.envoyproxy.io/v1alpha1",
    "kind": "AIGatewayRoute",
    "metadata": {"name": "inference-pool-with-aigwroute"},
    "spec": {
        "parentRefs": [{"name": "inference-pool-with-aigwroute", "kind": "Gateway"}],
        "rules": [
            {
                "matches": [
                    {
                        "headers": [
                            {"type": "Exact", "name": "x-ai-eg-model", "value": "meta-llama/Llama-3.1-8B-Instruct"},
                            {"type": "Exact", "name": "Authorization", "value": "sk-abcdefghijklmnopqrstuvwxyz"},
                        ]
                    }
                ],
                "backendRefs": [{"group": "inference.networking.k8s.io", "kind": "InferencePool", "name": "vllm"}],
            }
        ],
    },
}
TYPE = "kubernetes:aigateway.envoyproxy.io/v1alpha1:AIGatewayRoute"


def _found(props: dict) -> list[tuple[str, str]]:
    return [(v.enforcement, v.message) for v in evaluate([resource(TYPE, props)], policies=[no_literal_credential.POLICY])]


def test_an_authorization_header_matched_literally_blocks():
    ((level, message),) = _found(copy.deepcopy(ROUTE))
    assert level == "mandatory"
    assert message.startswith("spec.rules[0].matches[0].headers[1].value holds what looks like a literal value for Authorization")
    assert "sk-abcdefghijklmnopqrstuvwxyz" not in message  # the value itself is never printed


def test_a_token_shaped_literal_anywhere_in_a_spec_blocks():
    props = copy.deepcopy(ROUTE)
    props["spec"]["rules"][0]["matches"][0]["headers"].pop()
    props["spec"]["llmRequestCosts"] = [{"metadataKey": "hf_" + "aBcDeFgHiJkLmNoPqRsTuVwXyZ012345"}]
    ((level, message),) = _found(props)
    assert level == "mandatory" and message.startswith("spec.llmRequestCosts[0].metadataKey holds what looks like")


def test_careful_forms_are_silent():
    props = copy.deepcopy(ROUTE)
    props["spec"]["rules"][0]["matches"][0]["headers"].pop()  # the model header alone
    assert _found(props) == []
    placeholder = copy.deepcopy(ROUTE)
    placeholder["spec"]["rules"][0]["matches"][0]["headers"][1]["value"] = "${API_KEY}"
    assert _found(placeholder) == []


def _secret(**fields) -> list[tuple[str, str]]:
    props = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "hf-token"}, **fields}
    # A manifest file's object carries no URN (policies/check.py), unlike policy_fixtures.resource's.
    committed = Resource(type="kubernetes:core/v1:Secret", name="hf-token", props=props)
    found = evaluate([committed], policies=[no_literal_credential.POLICY])
    return [(v.enforcement, v.message) for v in found]


def test_a_secret_manifest_committed_with_its_token():
    """Held-out set 8 (after its measurement): crusoecloud/vllm-rayservice-model-serving-examples commits Secrets
    with stringData hf_token / HF_TOKEN values (one a placeholder "hf_xxxxxxxx" to replace in place)."""
    token = "hf_" + "aBcDeFgHiJkLmNoPqRsTuVwXyZ012345"
    ((level, message),) = _secret(stringData={"hf_token": token})
    assert level == "mandatory" and message.startswith("stringData.hf_token holds a Hugging Face token (hf_")
    assert token not in message
    encoded = base64.b64encode(token.encode()).decode()
    assert [level for level, _ in _secret(data={"token": encoded})] == ["mandatory"]
    ((level, message),) = _secret(stringData={"HF_TOKEN": "hf_xxxxxxxx"})
    assert level == "advisory" and "holds a literal value under a credential's name" in message
    # Careful forms: empty, a template placeholder, values under names that are not a credential's, a token Secret the
    # controller fills.
    assert _secret(stringData={"HF_TOKEN": ""}) == []
    assert _secret(stringData={"HF_TOKEN": "${HF_TOKEN}", "other": "<paste here>"}) == []
    assert _secret(stringData={"username": "admin", "config.json": '{"a": 1}'}) == []
    assert _secret(type="kubernetes.io/service-account-token", data={"token": encoded}) == []
    # A Secret a Pulumi program declares (it has a URN) takes its value from the stack's encrypted config at deploy
    # time: silent, even when the engine shows the value decrypted.
    props = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "hf-token"}, "stringData": {"HF_TOKEN": token}}
    declared = resource("kubernetes:core/v1:Secret", props)
    assert evaluate([declared], policies=[no_literal_credential.POLICY]) == []


def test_a_committed_secret_with_a_password_under_a_credential_key_is_advice():
    """Spent sets 54 and 64 (labels filed NONE before G35's title named a committed Secret): AdityaKhari1001/borgos
    @ef24cf9e:k8s/secrets.yaml stringData db-password 'borgos123'; ductaip/NeuralTwin-Enterprise-RAG-System-MLOps-Pipeline
    @961e780f:k8s/hpa.yaml data MONGO_PASSWORD (base64 of a real-looking password); grandiv/fragrance-palette-scalable
    @9d55ea1f:k8s/secrets.yaml data postgres-password. A password's shape proves nothing: advice."""
    ((level, message),) = _secret(
        stringData={"secret-key": "your-secret-key-here-change-in-production", "db-password": "borgos123"}
    )
    assert level == "advisory" and message.startswith("stringData.db-password holds a literal value under a credential's name")
    assert "borgos123" not in message
    encoded = base64.b64encode(b"llm_engineering").decode()
    ((level, message),) = _secret(data={"MONGO_PASSWORD": encoded})
    assert level == "advisory" and message.startswith("data.MONGO_PASSWORD holds")
    # Careful forms: empty keys, a stand-in, SOPS ciphertext (getsops/sops v3.9.0 aes/cipher.go L186 writes
    # ENC[AES256_GCM,...]; stores/stores.go L28 the top-level sops block), a SealedSecret (not a Secret).
    assert _secret(stringData={"openai-api-key": "", "db-password": "changeme"}) == []
    sops_value = "ENC[AES256_GCM,data:q1w2e3r4,iv:abc=,tag:def=,type:str]"
    assert _secret(stringData={"db-password": sops_value}) == []
    assert _secret(stringData={"db-password": "borgos123"}, sops={"version": "3.9.0", "age": []}) == []
    sealed = Resource(
        type="kubernetes:bitnami.com/v1alpha1:SealedSecret",
        name="db",
        props={"kind": "SealedSecret", "spec": {"encryptedData": {"db-password": "AgBy3i4OJSWK+PiTySYZZA=="}}},
    )
    assert evaluate([sealed], policies=[no_literal_credential.POLICY]) == []


def test_a_node_port_service_is_advice_and_cluster_ip_is_silent():
    """G32 no-load-balancer-service: a NodePort Service opens the model's port on every node (mudler/LocalAI-examples
    kubernetes/deployment-nvidia.yaml exposes LocalAI so); whether nodes are reachable from outside is not in the file,
    so it is advice. ClusterIP is the careful form."""
    from policies.k8s_generic import no_load_balancer_service

    def levels(kind: str) -> list[str]:
        svc = {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {"name": "local-ai"},
            "spec": {"type": kind, "ports": [{"port": 8080}]},
        }
        found = evaluate([resource("kubernetes:core/v1:Service", svc)], policies=[no_load_balancer_service.POLICY])
        return [v.enforcement for v in found]

    assert levels("NodePort") == ["advisory"] and levels("ClusterIP") == [] and levels("LoadBalancer") == ["advisory"]


def test_a_model_set_through_a_config_map_of_the_set_is_read():
    """opea-project/GenAIInfra microservices-connector/config/manifests/tgi_nv.yaml: TGI takes MODEL_ID from
    `envFrom: configMapRef: tgi-config`, a ConfigMap in the same file. Its settings are read as the pod gets them
    (policies/reading/engines.py env_values), so S17 sees the unpinned Hub model; without the ConfigMap it is unknown."""
    from policies.models import model_source_pinned

    config_map = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "tgi-config"},
        "data": {"MODEL_ID": "Intel/neural-chat-7b-v3-3"},
    }
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "tgi"},
        "spec": {
            "selector": {"matchLabels": {"app": "tgi"}},
            "template": {
                "metadata": {"labels": {"app": "tgi"}},
                "spec": {
                    "containers": [
                        {
                            "name": "tgi",
                            "image": "ghcr.io/huggingface/text-generation-inference:2.2.0",
                            "envFrom": [{"configMapRef": {"name": "tgi-config"}}],
                            "resources": {"limits": {"nvidia.com/gpu": 1}},
                        }
                    ]
                },
            },
        },
    }
    objects = [resource("kubernetes:core/v1:ConfigMap", config_map), resource("kubernetes:apps/v1:Deployment", deployment)]
    found = evaluate(objects, policies=[model_source_pinned.POLICY])
    assert [v.message.split(" comes from")[0] for v in found] == ["container tgi: model Intel/neural-chat-7b-v3-3"]
    assert evaluate(objects[1:], policies=[model_source_pinned.POLICY]) == []


# A Hugging Face token of letters only, as a real one can be (about 1 in 400 has no digit); built here so no token
# sits in the repository. Set 15's usman0491/vllm-demo simple_ray_vllm/vllm-ray-service.yaml@8d2a879 commented out a
# real one inside its serveConfigV2 (the value is not reproduced).
_LETTERS_TOKEN = "hf_" + "QwErTYuiOPasDFghJKlzXCvbNMqwERtyUI"
_SERVE_CONFIG = """applications:
- name: vllm_inference
  import_path: vllm-ray-deployments:deployment
  runtime_env:
    env_vars:
      RAY_SERVE_LOGGING_LEVEL: DEBUG
      # HUGGING_FACE_HUB_TOKEN: {token}
      MODEL_ID: "meta-llama/Meta-Llama-3-8B-Instruct"
      MAX_MODEL_LEN: "64000"
  deployments:
  - name: VLLMDeployment
    num_replicas: 1
"""


def _ray_service(token_line: str, worker_env: list | None = None) -> dict:
    return {
        "apiVersion": "ray.io/v1",
        "kind": "RayService",
        "metadata": {"name": "rayserve-vllm", "namespace": "ray-system"},
        "spec": {
            "serveConfigV2": _SERVE_CONFIG.format(token=token_line),
            "rayClusterConfig": {
                "headGroupSpec": {
                    "rayStartParams": {"num-cpus": "1"},
                    "template": {
                        "spec": {"containers": [{"name": "ray-head", "image": "rayproject/ray-llm:2.43.0-py311-cu124"}]}
                    },
                },
                "workerGroupSpecs": [
                    {
                        "groupName": "gpu-group",
                        "replicas": 1,
                        "template": {
                            "spec": {
                                "containers": [
                                    {
                                        "name": "ray-worker",
                                        "image": "rayproject/ray-llm:2.43.0-py311-cu124",
                                        "env": worker_env
                                        or [
                                            {
                                                "name": "HUGGING_FACE_HUB_TOKEN",
                                                "valueFrom": {"secretKeyRef": {"name": "hf-secret", "key": "hf_api_token"}},
                                            }
                                        ],
                                    }
                                ]
                            }
                        },
                    }
                ],
            },
        },
    }


def _ray_found(props: dict) -> list[tuple[str, str]]:
    found = evaluate([resource("kubernetes:ray.io/v1:RayService", props)], policies=[no_literal_credential.POLICY])
    return [(v.enforcement, v.message) for v in found]


def test_a_token_in_a_comment_of_a_ray_services_serve_config_blocks():
    """Set 15 (spent): the serveConfigV2 block scalar is text the RayService carries, its YAML comments included; a token
    there is published with the manifest, even commented out. The message shows only the redacted prefix."""
    ((level, message),) = _ray_found(_ray_service(_LETTERS_TOKEN))
    assert level == "mandatory"
    assert message.startswith("spec.serveConfigV2 holds what looks like a Hugging Face token (hf_...[redacted])")
    assert _LETTERS_TOKEN not in message


def test_a_ray_service_that_takes_its_token_from_a_secret_is_silent():
    """The careful form (the same file's workers): the token comes from secretKeyRef, the comment names no value; a
    placeholder capitalised word by word is no token either."""
    assert _ray_found(_ray_service("<your token>")) == []
    assert _ray_found(_ray_service("hf_" + "YourHuggingFaceTokenGoesHereXyzAbc")) == []


def test_a_token_in_a_ray_containers_env_is_left_to_no_literal_secret_env():
    """A container's env is no-literal-secret-env's (G35 too): this policy does not report it a second time."""
    env = [{"name": "HUGGING_FACE_HUB_TOKEN", "value": _LETTERS_TOKEN}]
    assert _ray_found(_ray_service("<your token>", worker_env=env)) == []


def _checked(tmp_path, text: str) -> list[tuple[str, str]]:
    from policies.check import load_resources

    path = tmp_path / "manifest.yaml"
    path.write_text(text)
    found = evaluate(load_resources([str(path)]), policies=[no_literal_credential.POLICY])
    return [(v.enforcement, v.message) for v in found]


def found_resources(tmp_path) -> list[str]:
    """The JSON report's ``resource`` of each G35 finding on the file _checked wrote."""
    import json
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-m", "policies", "check", str(tmp_path / "manifest.yaml"), "--format", "json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    return [v["resource"] for v in json.loads(proc.stdout)["violations"] if v["catalog"] == "G35"]


_COMMENTED = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: vllm
spec:
  template:
    spec:
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.8.4
        env:
        # - name: HUGGING_FACE_HUB_TOKEN
        #   value: {token}
        - name: HUGGING_FACE_HUB_TOKEN
          valueFrom: {{secretKeyRef: {{name: hf-secret, key: hf_api_token}}}}
"""


def test_a_token_in_a_yaml_comment_of_the_file_blocks(tmp_path):
    """A YAML comment is in no object, but it is in the file and the repository's history (set 15: a commented-out
    HUGGING_FACE_HUB_TOKEN; this is the same line outside a block scalar). Only the redacted shape is shown."""
    ((level, message),) = _checked(tmp_path, _COMMENTED.format(token=_LETTERS_TOKEN))
    assert level == "mandatory"
    assert message.startswith("line 13: a YAML comment holds what looks like a Hugging Face token (hf_...[redacted])")
    assert found_resources(tmp_path) == ["Deployment/vllm"]  # named as the object it sits in, for reports and labels
    assert _LETTERS_TOKEN not in message


def test_comments_without_a_token_and_block_scalar_tokens_are_not_reported_twice(tmp_path):
    assert _checked(tmp_path, _COMMENTED.format(token="<your Hugging Face token>")) == []
    # The token inside serveConfigV2's block scalar is carried by the RayService: one finding, on the object.
    import yaml

    service = yaml.safe_dump(_ray_service(_LETTERS_TOKEN), default_style=None)
    found = _checked(tmp_path, service)
    assert [m.split(" holds")[0] for _, m in found] == ["spec.serveConfigV2"]


def test_a_token_in_a_comment_of_a_file_with_no_kubernetes_object_is_advice(tmp_path):
    """A Helm values.yaml documents example values in its comments and holds no object the pack reads (review 28 #5):
    the shape is still reported, as advice; the same comment in a manifest file blocks."""
    from policies.check import load_resources

    values = tmp_path / "values.yaml"
    values.write_text(f"# Hugging Face token, e.g. {_LETTERS_TOKEN}\nhfToken: ''\nreplicaCount: 1\n")
    (tmp_path / "manifest.yaml").write_text(_COMMENTED.format(token="<your Hugging Face token>"))
    found = evaluate(load_resources([str(tmp_path)]), policies=[no_literal_credential.POLICY])
    assert [(v.enforcement, v.message.split(";")[0]) for v in found] == [
        ("advisory", "line 1: a YAML comment holds what looks like a Hugging Face token (hf_...[redacted])")
    ]
    assert "the file holds no Kubernetes object" in found[0].message and _LETTERS_TOKEN not in found[0].message
    ((level, _),) = _checked(tmp_path, _COMMENTED.format(token=_LETTERS_TOKEN))
    assert level == "mandatory"


def test_one_sops_reading_for_the_credential_and_the_schema_rules():
    """G35 and S26 share policies/reading/sops.py's strict reading: a top-level sops block holding mac, lastmodified
    or version (getsops/sops v3.9.0 stores/stores.go L28) makes the file SOPS's; a `sops` key holding none of them is
    no SOPS file. Both sides: the SOPS file (spent set 95 tpural/flux apps/openwebui/secret.yaml's block, trimmed) is
    silent on both rules even with a clear value SOPS left unencrypted; the stray key still lets G35 read a clear
    token (a leak the files prove) and S26 report the unknown field, while its ciphertext values stay silent."""
    from policy_fixtures import found_by

    from policies.reading.sops import sops_encrypted

    block = {"age": [{"recipient": "age1s6em2an08sfhsrrf"}], "lastmodified": "2025-10-07T05:43:15Z", "mac": "ENC[x]"}
    token = "hf_" + "aBcDeFgHiJkLmNoPqRsTuVwXyZ012345"
    cipher = "ENC[AES256_GCM,data:hrpL,iv:r0Wz,tag:oWTp,type:str]"
    assert sops_encrypted({"sops": block}) and sops_encrypted({"sops": {"version": "3.8.1"}})
    assert not sops_encrypted({"sops": {"note": "encrypt me"}}) and not sops_encrypted({"sops": "yes"})
    assert not sops_encrypted({}) and not sops_encrypted(None)  # type: ignore[arg-type]
    assert _secret(stringData={"HF_TOKEN": token}, sops=block) == []
    stray = {"note": "encrypt me"}
    assert [level for level, _ in _secret(stringData={"HF_TOKEN": token}, sops=stray)] == ["mandatory"]
    assert _secret(stringData={"HF_TOKEN": cipher}, sops=stray) == []
    secret = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "stringData": {"HF_TOKEN": cipher}}
    assert found_by([{**secret, "sops": block}], "api-schema-valid") == []
    assert [level for level, _ in found_by([{**secret, "sops": stray}], "api-schema-valid")] == ["mandatory"]
