"""G35 no-literal-secret-env: one compliant fixture, one mutation per case."""

import io
import json

import pytest
import yaml
from policy_fixtures import isvc, isvc_props, messages, vllm_container

from policies.check import main
from policies.k8s_generic.no_literal_secret_env import POLICY
from policies.registry import evaluate

TOKEN_VALUE = "hf_SuperSecretValue123"


def with_env(*env):
    props = isvc_props()
    vllm_container(props)["env"] = list(env)
    return isvc(props)


def literal(name):
    return (
        f"container kserve-container: env {name} has a literal value; a secret must come from "
        f"valueFrom.secretKeyRef (a literal lands in the pod spec, etcd and the Pulumi state)"
    )


def test_compliant_inference_service_passes():
    assert messages(POLICY, isvc()) == []


@pytest.mark.parametrize(
    "name",
    [
        "HF_TOKEN",
        "HUGGING_FACE_HUB_TOKEN",
        "GITHUB_TOKEN",
        "DB_SECRET_KEY",
        "ADMIN_PASSWORD",
        "OPENAI_API_KEY",
        "AWS_SECRET_ACCESS_KEY",
        "hf_token",
    ],
)
def test_literal_secret_is_reported_without_its_value(name):
    found = messages(POLICY, with_env({"name": name, "value": TOKEN_VALUE}))
    assert found == [literal(name)]
    assert TOKEN_VALUE not in found[0]


def test_redacted_literal_is_still_a_literal():
    assert messages(POLICY, with_env({"name": "HF_TOKEN", "value": "[secret]"})) == [literal("HF_TOKEN")]


def test_empty_value_is_not_a_secret():
    assert messages(POLICY, with_env({"name": "HF_TOKEN", "value": ""})) == []


def test_config_map_ref_is_not_a_secret_store():
    assert messages(
        POLICY, with_env({"name": "HF_TOKEN", "valueFrom": {"configMapKeyRef": {"name": "settings", "key": "token"}}})
    ) == [
        "container kserve-container: env HF_TOKEN comes from valueFrom.configMapKeyRef; a secret must come "
        "from valueFrom.secretKeyRef"
    ]


def test_ordinary_env_is_fine():
    assert (
        messages(
            POLICY,
            with_env(
                {"name": "TOKENIZERS_PARALLELISM", "value": "false"}, {"name": "VLLM_HTTP_TIMEOUT_KEEP_ALIVE", "value": "75"}
            ),
        )
        == []
    )


def test_config_name_patterns():
    env = {"name": "MY_CREDENTIAL", "value": TOKEN_VALUE}
    assert messages(POLICY, with_env(env)) == []
    assert messages(POLICY, with_env(env), config={"namePatterns": ["*CREDENTIAL*"]}) == [literal("MY_CREDENTIAL")]


# --- tokens anywhere, flags in args and command, ConfigMap data --------------------------------

from policy_fixtures import resource  # noqa: E402

HF_TOKEN = "hf_" + "Ab3" * 12  # the shape of a Hugging Face token (hf_ + 34 characters)


def with_argv(field, argv):
    props = isvc_props()
    vllm_container(props)[field] = list(argv)
    return isvc(props)


def test_a_token_in_any_env_value_is_reported_by_shape():
    found = messages(POLICY, with_env({"name": "MODEL_SOURCE", "value": f"https://user:{HF_TOKEN}@hf.co"}))
    assert found == [
        "container kserve-container: env MODEL_SOURCE holds what looks like a Hugging Face token "
        "(hf_...[redacted]); a secret must come from valueFrom.secretKeyRef"
    ]
    assert HF_TOKEN not in found[0]


@pytest.mark.parametrize(
    "field,argv,expected",
    [
        (
            "args",
            ["--model", "m", f"--hf-token={HF_TOKEN}"],
            "args[2] holds what looks like a Hugging Face token (hf_...[redacted])",
        ),
        ("args", ["--model", "m", HF_TOKEN], "args[2] holds what looks like a Hugging Face token"),
        ("args", ["--api-key=letmein"], "args[0]: --api-key has a literal value; pass it as $(VAR)"),
        ("args", ["--api-key", "letmein"], "args[0]: --api-key has a literal value in args[1]; pass it as $(VAR)"),
        ("command", ["sh", "-c", "vllm serve m --api-key letmein"], "command[2]: --api-key has a literal value"),
        (
            "command",
            ["sh", "-c", "export AWS_KEY=AKIAABCDEFGHIJ234567; vllm serve"],
            "command[2] holds what looks like an AWS access key id (AKIA...[redacted])",
        ),
    ],
)
def test_literal_credentials_in_args_and_command(field, argv, expected):
    found = messages(POLICY, with_argv(field, argv))
    assert len(found) == 1 and expected in found[0]
    assert "letmein" not in found[0] and HF_TOKEN not in found[0] and "AKIAABCDEFGHIJ234567" not in found[0]


@pytest.mark.parametrize(
    "argv",
    [
        ["--api-key", "$(VLLM_API_KEY)"],
        ["--api-key=$(VLLM_API_KEY)"],
        ["sh", "-c", 'vllm serve m --api-key "$VLLM_API_KEY"'],
        ["--max-num-batched-tokens", "8192"],
        ["--tokenizer", "meta-llama/Llama-3.1-8B"],
    ],
)
def test_env_references_and_ordinary_flags_pass(argv):
    assert messages(POLICY, with_argv("args", argv)) == []


def config_map(data):
    return resource(
        "kubernetes:core/v1:ConfigMap", {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings"}, "data": data}
    )


def test_config_map_data():
    assert messages(POLICY, config_map({"MODEL": "m", "MAX_NUM_BATCHED_TOKENS": "8192"})) == []
    assert messages(POLICY, config_map({"HF_TOKEN": "abc"})) == [
        "ConfigMap data HF_TOKEN looks like a secret; store it in a Secret and reference it with secretKeyRef "
        "(a ConfigMap is clear text to anyone who can read it)"
    ]
    found = messages(POLICY, config_map({"settings.yaml": f"model: m\ntoken: {HF_TOKEN}\n"}))
    assert found == [
        "ConfigMap data settings.yaml holds what looks like a Hugging Face token (hf_...[redacted]); "
        "store it in a Secret and reference it with secretKeyRef"
    ]


def with_probe_headers(*headers, where="readinessProbe"):
    props = isvc_props()
    probe = {"httpGet": {"path": "/health", "port": 8080, "httpHeaders": list(headers)}}
    if where == "preStop":
        vllm_container(props)["lifecycle"] = {"preStop": probe}
    else:
        vllm_container(props)[where] = probe
    return isvc(props)


@pytest.mark.parametrize("where", ["readinessProbe", "startupProbe", "livenessProbe", "preStop"])
def test_literal_bearer_in_probe_header_is_reported(where):
    # Shape of spottabathula69/gpu-llm-inference-platform@a29f2166ff17862c2a646a5106ccd067a94de29c
    # infra/k8s/apps/vllm/deployment_llama8B.yaml: readiness, startup and liveness probes on vLLM send
    # "Authorization: Bearer sk-..." literally (spent set 10). core/v1 HTTPHeader has only name and value
    # (kubernetes pkg/apis/core/types.go at v1.31.0), so no Secret can supply it.
    found = messages(POLICY, with_probe_headers({"name": "Authorization", "value": "Bearer sk-admin-token-12345"}, where=where))
    label = f"lifecycle.{where}" if where == "preStop" else where
    assert len(found) == 1
    assert found[0].startswith(f"container kserve-container: {label}.httpGet.httpHeaders Authorization has a literal credential")
    assert "sk-admin" not in found[0]


def test_secret_named_header_and_token_shaped_header_are_reported():
    assert len(messages(POLICY, with_probe_headers({"name": "X-API-Key", "value": "abc123"}))) == 1
    assert len(messages(POLICY, with_probe_headers({"name": "X-Debug", "value": HF_TOKEN}))) == 1


@pytest.mark.parametrize(
    "header",
    [
        {"name": "Host", "value": "model.example.com"},  # KServe and GKE probes set Host headers
        {"name": "Authorization", "value": ""},
        {"name": "Authorization", "value": "Bearer"},  # a scheme with no credential
        {"name": "Accept", "value": "application/json"},
    ],
)
def test_ordinary_probe_headers_pass(header):
    assert messages(POLICY, with_probe_headers(header)) == []


# The reviewer's /tmp/review/g35/b.yaml: BuildKit's `--secret id=NAME,src=FILE` (moby/buildkit cmd/buildctl/build.go
# "Secret value exposed to the build. Format id=secretname,src=filepath"; docker buildx build --secret id=,env=) names a
# mounted file or a variable, not the secret.
@pytest.mark.parametrize(
    "argv",
    [
        ["build", "--frontend", "dockerfile.v0", "--secret", "id=hf_token,src=/run/secrets/hf/token"],
        ["build", "--secret=id=hf_token,env=HF_TOKEN"],
        ["sh", "-c", "buildctl-daemonless.sh build --secret id=hf_token,src=/run/secrets/hf/token --local context=."],
        ["build", "--secret", "id=hf_token"],
    ],
)
def test_a_buildkit_secret_spec_is_a_reference(argv):
    assert messages(POLICY, with_argv("args", argv)) == []


@pytest.mark.parametrize("argv", [["--secret", "s3cr3t-value"], ["--secret=id=x,value=s3cr3t"]])
def test_a_secret_flag_with_a_literal_still_fires(argv):
    found = messages(POLICY, with_argv("args", argv))
    assert len(found) == 1 and "--secret has a literal value" in found[0] and "s3cr3t" not in found[0]


# A LiteLLM proxy config.yaml inside a ConfigMap: its general_settings.master_key is the proxy's admin key. Spent set 28:
# paytm-temp/deepseek-using-vllm-on-eks llm-proxy/litellm-config.yaml@21da7bc92ebd754f091f350396bf7ac7c5447181 commits
# a words-only "sk-..." key (no token shape) there.
LITELLM_CONFIG = """model_list:
  - model_name: gpt-3.5-turbo
    litellm_params:
      model: local-model
      api_base: "http://localhost:8000/v1"
      api_key: ""
general_settings:
  master_key: {key}
router_settings:
  num_retries: 3
  timeout: 30
"""


def _levels(*resources):
    from policies.registry import evaluate

    return [(v.enforcement, v.message) for v in evaluate(list(resources), None, policies=[POLICY])]


def test_litellm_master_key_in_a_config_map_blocks():
    found = _levels(
        config_map(
            {"config.yaml": LITELLM_CONFIG.format(key='"sk-testing-llm-model-with-apikeys-locally-in-aws-using-deepseek"')}
        )
    )
    assert found == [
        (
            "mandatory",
            "ConfigMap data config.yaml sets general_settings.master_key to a literal value, a credential by its name; "
            "keep it in a Secret and let the program read it from the environment (LiteLLM: os.environ/NAME)",
        )
    ]


@pytest.mark.parametrize("key", ["os.environ/LITELLM_MASTER_KEY", '""', "${LITELLM_MASTER_KEY}", "<your-master-key>"])
def test_litellm_master_key_read_from_the_environment_passes(key):
    # The careful form LiteLLM documents: the key named by "os.environ/NAME", the Secret mounted as that variable.
    assert _levels(config_map({"config.yaml": LITELLM_CONFIG.format(key=key)})) == []


def test_a_credential_name_inside_other_embedded_config_is_advice():
    text = "server:\n  port: 8080\ndatabase:\n  db_password: hunter2x\n"
    found = _levels(config_map({"app.yaml": text}))
    assert [level for level, _ in found] == ["advisory"]
    assert "database.db_password" in found[0][1]
    # Plain text and an env-file-like value are not parsed as a mapping of credentials.
    assert _levels(config_map({"notes.txt": "just a line", "run.sh": "echo hi\nexport X=1\n"})) == []


def test_a_flag_given_the_name_of_a_secret_the_container_reads_is_no_literal_credential():
    # Fresh set 28 brayanpena530/multiLLM-EKS-Deploy services/jina_embeddings.yml: --hf-api-token=huggingface-token beside
    # env HF_TOKEN from secretKeyRef huggingface-token; the flag passes the Secret's name (a broken token, not a leak).
    from policies.k8s_generic.no_literal_secret_env import _check_argv

    container = {
        "name": "text-embeddings",
        "args": ["--model-id", "jinaai/jina-embeddings-v2-base-en", "--hf-api-token=huggingface-token"],
        "env": [{"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": {"name": "huggingface-token", "key": "token"}}}],
    }
    assert _check_argv("c", container, ["*TOKEN*"]) == []
    container["args"][-1] = "--hf-api-token=s3cr3t-Tr0ub4dor"
    assert len(_check_argv("c", container, ["*TOKEN*"])) == 1


def _envsubst_deployment(value: str) -> dict:
    # Minimal form of lahlfors/cybernetic-governance-engine deployment/k8s/backend-deployment.yaml.tpl at
    # 2bcc2f2e64f749a27aad59a5ebb0033106c61656 (env VLLM_API_KEY: "${VLLM_API_KEY}", filled by envsubst before apply).
    container = {"name": "ingress-agent", "image": "python:3.12", "env": [{"name": "VLLM_API_KEY", "value": value}]}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "advisor", "namespace": "x"},
        "spec": {
            "selector": {"matchLabels": {"app": "a"}},
            "template": {"metadata": {"labels": {"app": "a"}}, "spec": {"containers": [container]}},
        },
    }


def test_an_env_secret_written_as_an_envsubst_variable_is_advice(tmp_path, capsys):
    def levels(value: str) -> list[str]:
        (tmp_path / "d.yaml").write_text(yaml.safe_dump(_envsubst_deployment(value)))
        main([str(tmp_path), "--format", "json"], stdin=io.BytesIO())
        report = json.loads(capsys.readouterr().out)
        return [v["enforcement"] for v in report["violations"] if v["policy"] == POLICY.name]

    # No credential is in the file; once filled, the secret sits in the pod spec: advice.
    assert levels("${VLLM_API_KEY}") == ["advisory"]
    assert levels("$VLLM_API_KEY") == ["advisory"]
    # A sed step's marker for the whole value, as fresh set 103 archham/kube.web-ui@5cd101e1 03_deployment.yml writes
    # OPENAI_API_KEY: '__OPENAI_API_KEY__' (filled by its setup.sh; labelled S27 advisory).
    assert levels("__VLLM_API_KEY__") == ["advisory"]
    # A literal, and a fill-in left for a person (applied as written, the server sends it: sets 13 and 31), block.
    assert levels("sk-local-key-1234") == ["mandatory"]
    assert levels("<your-api-key>") == ["mandatory"]


def _named_env_deployment(name: str, value: str) -> dict:
    deployment = _envsubst_deployment(value)
    deployment["spec"]["template"]["spec"]["containers"][0]["env"][0]["name"] = name
    return deployment


@pytest.mark.parametrize(
    ("name", "value"),
    [
        # NiranEC77/documentation-improver k8s/backend-deployment.yaml@dd885e9539f902e1de1cb87ddf3707734753d4aa
        # (spent set 83, labelled G35 advisory: "the app signs sessions with a publicly known key").
        ("SECRET_KEY", "your-secret-key-here"),
        # bugbiteme/vllm-demo k8s/open-webui/deployment.yaml (spent set 70, labelled G35 advisory).
        ("WEBUI_SECRET_KEY", "change-me-to-a-real-random-value"),
        ("JWT_SECRET", "change-this-in-production"),
    ],
)
def test_a_fill_in_signing_key_is_advice_and_a_real_one_or_an_api_key_fill_in_blocks(tmp_path, capsys, name, value):
    def found(name: str, value: str) -> list[tuple[str, str]]:
        (tmp_path / "d.yaml").write_text(yaml.safe_dump(_named_env_deployment(name, value)))
        main([str(tmp_path), "--format", "json"], stdin=io.BytesIO())
        report = json.loads(capsys.readouterr().out)
        return [(v["enforcement"], v["message"]) for v in report["violations"] if v["policy"] == POLICY.name]

    # A key the app issues and checks itself, left as a fill-in: the app runs, with a key anyone can read: advice.
    ((level, message),) = found(name, value)
    assert level == "advisory" and f"env {name} holds the fill-in {value!r}, not a credential" in message
    # The same name with a real-looking literal is a committed secret: it blocks.
    assert [lv for lv, _ in found(name, "k8Qz2pLw9vXr4tYb7nMc")] == ["mandatory"]
    # A fill-in under an API key's name is what the client sends and the server refuses: it still blocks.
    assert [lv for lv, _ in found("OPENAI_API_KEY", value)] == ["mandatory"]


@pytest.mark.parametrize(
    ("name", "value"),
    [
        # k3s-ia-lab/infra apps/open-webui/open-webui.yaml at ff7dd2720a77b996881bb0401af9729da58aa1bb: a switch.
        ("ENABLE_PASSWORD_AUTH", "false"),
        ("DISABLE_API_KEY_CHECK", "1"),
        ("OAUTH_TOKEN_ENABLED", "yes"),
        # huggingface_hub's switch, written 1 (spent set 68 israa-benrjab/genai-platform k8s/backend.yaml, a wrong
        # blocking finding at session 49's freeze 1), and any secret-named switch written 0.
        ("HF_HUB_DISABLE_TOKEN", "1"),
        ("LITELLM_SECRET_CHECK", "0"),
        # The Docker images' _FILE convention and a path: where the secret is, not the secret.
        ("POSTGRES_PASSWORD_FILE", "/run/secrets/db-password"),
        ("HF_TOKEN_PATH", "/var/run/secrets/hf/token"),
        ("API_KEY", "/etc/keys/api"),
        # Which Secret holds it: johnahull/llm-d-xks-gke deployments/llm-d-infra-xks-gke-tpu-native-gateway/backups/
        # kserve-controller-backup.yaml at 7630140c1047f7b6e4b4f18353d96e44d10125f3 (KServe's controller env).
        ("SERVICE_CA_SIGNING_SECRET_NAME", "opendatahub-ca"),
        ("SERVICE_CA_SIGNING_SECRET_NAMESPACE", "cert-manager"),
        # How a secret is handled, not the secret: fresh set 83 (session 50) ConfigMap data PASSWORD_HASH_SCHEME drew a
        # mandatory G35 its labeller did not label; and the names of the same family.
        ("PASSWORD_HASH_SCHEME", "bcrypt"),
        ("JWT_SECRET_ALGORITHM", "HS256"),
        ("ACCESS_TOKEN_TTL", "3600"),
        ("API_KEY_HEADER", "Authorization"),
        ("PASSWORD_MIN_LENGTH", "12"),
        # A quantity per key written as a number: spent set 93 dios07022004-coder/ai-generation-api k8s/configmap.yaml
        # (session 51: a mandatory G35 at base its labeller did not label).
        ("RATE_LIMIT_PER_API_KEY", "120"),
        ("MAX_API_KEYS", "5"),
    ],
)
def test_a_secret_named_switch_or_path_is_no_credential(name, value):
    assert messages(POLICY, with_env({"name": name, "value": value})) == []
    data = config_map({name: value})
    assert messages(POLICY, data) == []


def test_a_secret_named_variable_with_a_value_still_fires():
    # The careful side: the same names with a credential-like value keep the finding.
    assert messages(POLICY, with_env({"name": "OAUTH_CLIENT_SECRET", "value": "AEm8dhQuIKaRBwqh"})) == [
        literal("OAUTH_CLIENT_SECRET")
    ]
    assert messages(POLICY, with_env({"name": "DB_PASSWORD", "value": "trueblue42"})) == [literal("DB_PASSWORD")]
    assert messages(POLICY, with_env({"name": "HF_HUB_TOKEN", "value": "10"})) == [literal("HF_HUB_TOKEN")]
    # digits under a password name with no quantity word stay a credential; a quantity word with a non-number too
    assert messages(POLICY, with_env({"name": "ADMIN_PASSWORD", "value": "123456"})) == [literal("ADMIN_PASSWORD")]
    assert messages(POLICY, with_env({"name": "RATE_LIMIT_API_KEY", "value": "k3yZ9pQ"})) == [literal("RATE_LIMIT_API_KEY")]
    # A description word inside the name (not last) keeps the finding: TYPE_PASSWORD, SCHEME_SECRET.
    assert messages(POLICY, with_env({"name": "SCHEME_SECRET", "value": "AEm8dhQuIKaRBwqh"})) == [literal("SCHEME_SECRET")]


@pytest.mark.parametrize("value", ["xxx", "sk-xxxxxxxx", "XXXX", "****"])
def test_a_masked_stand_in_is_advice(value):
    # walidshaari/sample-aws-eks-auto-mode examples/gpu/open-webui.yaml at 8ebbbeb3a721a0fe73e5ebf3032876a47c7361a3:
    # Open WebUI's OPENAI_API_KEY "xxx" for a vLLM server that checks no key.
    [(level, message)] = _levels(with_env({"name": "OPENAI_API_KEY", "value": value}))
    assert level == "advisory" and "a stand-in rather than a credential" in message
    # The careful side: anything else is a literal.
    assert messages(POLICY, with_env({"name": "OPENAI_API_KEY", "value": "sk-x1x2x3"})) == [literal("OPENAI_API_KEY")]


@pytest.mark.parametrize("value", ["dummy-key", "sk-no-key", "not-needed", "EMPTY", "ollama", "fake_token"])
def test_a_key_that_says_it_is_none_is_no_leak(value):
    # A client library insists on a key; the server checks none, and the value says so (components/secrets.py
    # placeholder_value: vLLM's own examples api_key="EMPTY", Ollama's "ollama"; spent sets 60 and 62: dummy-key,
    # sk-no-key, and not-needed in a ConfigMap, each read as a blocking leak at session 48's first freeze).
    assert messages(POLICY, with_env({"name": "OPENAI_API_KEY", "value": value})) == []
    config_map = resource(
        "kubernetes:core/v1:ConfigMap",
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "app"}, "data": {"VLLM_API_KEY": value}},
    )
    assert messages(POLICY, config_map) == []


# Review 49 item 2 (/tmp/r49/g35b.yaml): stand-in phrasing beyond a closed word list, and the family of words that
# say a key stands in for one, with or without an sk- prefix.
STAND_INS = ["not-a-real-key", "no-auth", "sk-fake-key-for-vllm", "placeholder", "none", "no-key", "unused", "test"]
STAND_INS += ["example-key", "local", "sk-local-dev", "NOT_NEEDED", "key-not-used", "sk-test-key"]
# Open WebUI joins one key per backend with ";" (sealed set 120 akamai-developers/multimodal-kuberay OPENAI_API_KEYS).
STAND_INS += ["test_token;test_token", "EMPTY;EMPTY"]


@pytest.mark.parametrize("value", STAND_INS)
def test_stand_in_phrasing_is_no_leak(value):
    assert messages(POLICY, with_env({"name": "LLM_API_KEY", "value": value})) == []
    config_map = resource(
        "kubernetes:core/v1:ConfigMap",
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "app"}, "data": {"OPENAI_API_KEY": value}},
    )
    assert messages(POLICY, config_map) == []


# 48 random characters after sk- (the shape of an OpenAI key), and the same behind stand-in words: a key.
_RANDOM_48 = "T3BlbkFJq8ZrXw2LmN5vB7cD9eF1gH4jK6pQ0sU3yA8tR2wE"


@pytest.mark.parametrize(
    "value",
    [
        *("sk-proj-4Fq9ZtL0pXw2", "hunter2", "my-secret-key", f"sk-{_RANDOM_48}", f"sk-fake-{_RANDOM_48}", "not-Xk29qLmZpTb"),
        f"test_token;sk-{_RANDOM_48}",  # a list holding one real key is a key
    ],
)
def test_a_real_looking_key_still_blocks(value):
    assert [v.enforcement for v in evaluate([with_env({"name": "OPENAI_API_KEY", "value": value})], policies=[POLICY])] == [
        "mandatory"
    ]


@pytest.mark.parametrize("value", ["test", "not-a-secret", "local"])
def test_a_password_in_stand_in_words_is_still_the_password(value):
    # Under a password's name the value is the credential the service takes, whatever its words (narrow list only).
    assert [v.enforcement for v in evaluate([with_env({"name": "DB_PASSWORD", "value": value})], policies=[POLICY])] == [
        "mandatory"
    ]


@pytest.mark.parametrize("value", ["$(OPENAI_KEY)", "Bearer $(OPENAI_KEY)"])
def test_a_dependent_variable_is_no_literal(value):
    """Review 51a: the kubelet expands $(VAR_NAME) in an env value from the container's earlier env (core/v1
    EnvVar.value, kubernetes-validate 1.37.0 v1.33.0-local-strict/envvar-v1.json:12), so the credential comes from the
    secretKeyRef variable it names: silent for SECRET_KEY and OPENAI_API_KEY. An escaped $$(...) stays a literal."""
    source = {"name": "OPENAI_KEY", "valueFrom": {"secretKeyRef": {"name": "openai", "key": "key"}}}
    for name in ("SECRET_KEY", "OPENAI_API_KEY"):
        assert messages(POLICY, with_env(source, {"name": name, "value": value})) == []
    assert messages(POLICY, with_env(source, {"name": "SECRET_KEY", "value": "x$$(OPENAI_KEY)y9Q"})) == [literal("SECRET_KEY")]
