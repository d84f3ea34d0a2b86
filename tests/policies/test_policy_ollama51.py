"""Brief ollama51: settings engines do not read (G74) and clients asking for a model nothing serves (S65).

G74 engine-env-file-unread, firing form: spent set 82 olafkfreund/SOW-generator@2e78b6f84c07e1b9b699bfe56594fb1622955e04
deployment/k8s-pod-amd.yaml (ConfigMap ollama-amd-config, ollama.conf of OLLAMA_...= lines mounted at /etc/ollama into
an Ollama rebuild, labelled G74 on the ConfigMap): Ollama reads its settings with os.Getenv only (ollama/ollama v0.32.15
envconfig/config.go:375-376). Careful forms: the file sourced by the command; the settings also in the container's env.
"""

from __future__ import annotations

from policy_fixtures import config_map, manifest, service, workload

from policies.registry import evaluate

FILE_UNREAD = "engine-env-file-unread"

OLLAMA_CONF = config_map(
    "ollama-amd-config",
    {
        "ollama.conf": "# Ollama configuration\nOLLAMA_HOST=0.0.0.0:11434\nOLLAMA_FLASH_ATTENTION=1\n"
        "OLLAMA_TENSOR_PARALLEL_SIZE=1\nOLLAMA_MAX_BATCH_SIZE=32\n",
        "gpu-info.sh": "#!/bin/bash\nrocm-smi --showallinfo\n",
    },
    namespace="sow",
)


def _deployment(name: str, containers: list, volumes: list | None = None, namespace: str = "sow") -> dict:
    return workload(name, containers, namespace=namespace, volumes=volumes)


def _ollama(image: str = "ollama-amd:latest", **extra) -> dict:
    return {
        "name": "ollama",
        "image": image,
        "ports": [{"containerPort": 11434}],
        "env": [{"name": "OLLAMA_HOST", "value": "0.0.0.0:11434"}],
        "volumeMounts": [{"name": "ollama-config", "mountPath": "/etc/ollama", "readOnly": True}],
        **extra,
    }


def _found(objs: list[dict], policy: str) -> list[tuple[str, str, str]]:
    return [(v.enforcement, v.resource, v.message) for v in evaluate([manifest(o) for o in objs]) if v.policy == policy]


def _with_config(container: dict) -> list[dict]:
    volumes = [{"name": "ollama-config", "configMap": {"name": "ollama-amd-config"}}]
    return [_deployment("ollama-amd", [container], volumes), OLLAMA_CONF]


def test_an_unsourced_ollama_conf_is_said_on_its_config_map():
    ((level, where, message),) = _found(_with_config(_ollama()), FILE_UNREAD)
    assert (level, where) == ("advisory", "ConfigMap/ollama-amd-config")
    assert message.startswith(
        "this ConfigMap's file /etc/ollama/ollama.conf sets OLLAMA_FLASH_ATTENTION, OLLAMA_MAX_BATCH_SIZE, "
        "OLLAMA_TENSOR_PARALLEL_SIZE, but Ollama reads its settings only from its environment (unless a rebuilt"
    )
    assert "nothing in container ollama of Deployment ollama-amd sources the file" in message
    ((_, _, published),) = _found(_with_config(_ollama("ollama/ollama:0.6.2")), FILE_UNREAD)
    assert "unless a rebuilt" not in published


def test_a_sourced_or_env_set_ollama_conf_is_silent_on_the_config_map():
    sourced = _ollama(command=["sh", "-c", "set -a; . /etc/ollama/ollama.conf; exec ollama serve"])
    assert _found(_with_config(sourced), FILE_UNREAD) == []
    in_env = _ollama("ollama/ollama:0.6.2")
    in_env["env"] = [
        {"name": n, "value": "1"}
        for n in ("OLLAMA_HOST", "OLLAMA_FLASH_ATTENTION", "OLLAMA_TENSOR_PARALLEL_SIZE", "OLLAMA_MAX_BATCH_SIZE")
    ]
    assert _found(_with_config(in_env), FILE_UNREAD) == []
    # A client container (no Ollama server) mounting the same file is no engine's.
    client = {"name": "app", "image": "python:3.12", "volumeMounts": _ollama()["volumeMounts"]}
    volumes = [{"name": "ollama-config", "configMap": {"name": "ollama-amd-config"}}]
    assert _found([_deployment("app", [client], volumes), OLLAMA_CONF], FILE_UNREAD) == []


# S57 ollama-client-model-pulled: the client forms brief ollama51 reaches. The Ollama server of each run below keeps its
# store on an emptyDir and nothing pulls (ollama/ollama v0.32.15 server/routes.go:3107-3116: 404 model not found).
PULLED = "ollama-client-model-pulled"


def _ollama_server(pull: str = "") -> list[dict]:
    server = {"name": "ollama", "image": "ollama/ollama:0.6.2", "ports": [{"containerPort": 11434}]}
    server["volumeMounts"] = [{"name": "data", "mountPath": "/root/.ollama"}]
    if pull:
        server["lifecycle"] = {"postStart": {"exec": {"command": ["sh", "-c", f"sleep 5; ollama pull {pull}"]}}}
    deployment = _deployment("ollama", [server], [{"name": "data", "emptyDir": {}}], namespace="ai")
    return [deployment, service("ollama-service", "ollama", [{"port": 11434}], namespace="ai")]


def _client(name: str, env: dict, mounts: dict | None = None) -> dict:
    container: dict = {"name": name, "image": f"example/{name}:1.0", "env": [{"name": k, "value": v} for k, v in env.items()]}
    volumes = []
    if mounts:
        container["volumeMounts"] = [{"name": "cfg", "mountPath": path, "subPath": key} for key, path in mounts["files"].items()]
        volumes = [{"name": "cfg", "configMap": {"name": mounts["map"]}}]
    return _deployment(name, [container], volumes, namespace="ai")


def _config_map(name: str, data: dict) -> dict:
    return config_map(name, data, namespace="ai")


def test_a_prefixed_pair_naming_the_engine_in_between_is_a_client():
    # spent set 88 geekychris/enterprise_social_platform k8s/social-app.yaml
    app = _client("social-app", {"SOCIAL_AI_OLLAMA_URL": "http://ollama:11434", "SOCIAL_AI_MODEL": "llama3.2:latest"})
    ((level, where, message),) = _found([*_ollama_server(), app], PULLED)
    assert (level, where) == ("advisory", "Deployment/social-app")
    assert message.startswith("container social-app: SOCIAL_AI_MODEL asks Ollama for llama3.2:latest")
    # Pulled: silent. A prefix that also holds another provider's URL may send the model there: silent.
    assert _found([*_ollama_server("llama3.2"), app], PULLED) == []
    mixed = _client(
        "social-app",
        {"APP_OLLAMA_URL": "http://ollama:11434", "APP_OPENAI_URL": "https://api.openai.com/v1", "APP_MODEL": "gpt-4o"},
    )
    assert _found([*_ollama_server(), mixed], PULLED) == []


LITELLM = """model_list:
  - model_name: smollm:135m
    litellm_params:
      model: ollama/smollm:135m
      api_base: http://ollama-service:11434
  - model_name: gpt-4o
    litellm_params:
      model: openai/gpt-4o
"""


def test_a_litellm_ollama_route_is_a_client_on_its_config_map_and_gateway():
    # spent set 84 rjmad1/AegisOS k8s/configmaps.yaml (litellm 1.77.7 main.py:3327-3332 sends the rest to api_base)
    cm = _config_map("aegisos-configs", {"litellm-config.yaml": LITELLM, "nginx.conf": "events {}\n"})
    gateway = _client("litellm", {}, {"map": "aegisos-configs", "files": {"litellm-config.yaml": "/app/config.yaml"}})
    found = {where: message for _, where, message in _found([*_ollama_server(), cm, gateway], PULLED)}
    # The server is told too (a ConfigMap naming Ollama lists smollm:135m and nothing pulls: spent set 64's reading).
    assert set(found) == {"ConfigMap/aegisos-configs", "Deployment/litellm", "Deployment/ollama"}
    assert found["ConfigMap/aegisos-configs"].startswith(
        "ConfigMap aegisos-configs key litellm-config.yaml: LiteLLM route smollm:135m (litellm_params.model "
        "ollama/smollm:135m) asks Ollama for smollm:135m"
    )
    assert _found([*_ollama_server("smollm:135m"), cm, gateway], PULLED) == []


APPSETTINGS = """{
  "Pipeline": {
    "LlmProvider": {"DefaultProvider": "Ollama", "OllamaEndpoint": "http://ollama-service:11434",
                    "DefaultChatModel": "llama3", "DefaultEmbeddingModel": "nomic-embed-text"},
    "Other": {"Provider": "OpenAI", "Endpoint": "http://ollama-service:11434", "Model": "gpt-4o"}
  }
}"""


def test_an_appsettings_section_beside_an_ollama_endpoint_is_a_client():
    # spent set 90 PMeeske/Ouroboros-v2 k8s/configmap.yaml and k8s/deployment.yaml (the label is on the Deployment)
    cm = _config_map("monadic-pipeline-config", {"appsettings.Production.json": APPSETTINGS})
    app = _client(
        "monadic-pipeline", {}, {"map": "monadic-pipeline-config", "files": {"appsettings.Production.json": "/app/a.json"}}
    )
    found = [(where, message) for _, where, message in _found([*_ollama_server("llama3"), cm, app], PULLED)]
    assert {w for w, _ in found} == {"ConfigMap/monadic-pipeline-config", "Deployment/monadic-pipeline"}
    assert all("nomic-embed-text" in m and "gpt-4o" not in m for _, m in found)  # the OpenAI section is not Ollama's
    assert "Pipeline.LlmProvider.DefaultEmbeddingModel asks Ollama for nomic-embed-text, but the run pulls only" in found[0][1]
    # A settings file with no Ollama endpoint asks nothing of it.
    plain = _config_map(
        "monadic-pipeline-config", {"appsettings.json": '{"Llm": {"Endpoint": "http://vllm:8000", "Model": "x"}}'}
    )
    assert _found([*_ollama_server("llama3"), plain, app], PULLED) == []


# G74 engine-env-known on vLLM: the names its releases read (components/engine_env_names.json settings.vllm, written by
# tools/read_engine_env.py vllm from the PyPI wheels; vllm 0.34.0 vllm/envs.py:662 environment_variables, and
# vllm/platforms/interface.py:1494-1502 warns "Unknown vLLM environment variable detected" for any other VLLM_ name).
# Firing form: spent set 62 david66l/travelagent3 k8s/vllm-deployment.yaml (VLLM_MODEL, VLLM_SERVED_MODEL_NAME,
# VLLM_PROMETHEUS_MULTIPROC_DIR on a rebuild given only vLLM's flags).
ENV_KNOWN = "engine-env-known"


def _vllm(image: str, env: dict, **extra) -> dict:
    container = {
        "name": "vllm",
        "image": image,
        "args": ["--model", "Qwen/Qwen2.5-14B-Instruct", "--port", "8000", "--gpu-memory-utilization", "0.85"],
        "ports": [{"containerPort": 8000}],
        "env": [{"name": k, "value": v} for k, v in env.items()],
        "resources": {"limits": {"nvidia.com/gpu": 1}},
        **extra,
    }
    return _deployment("vllm", [container])


def _g74(objs: list[dict]) -> list[str]:
    return [m for _, _, m in _found(objs, ENV_KNOWN)]


def test_a_variable_no_vllm_release_reads_is_advice():
    env = {"VLLM_MODEL": "Qwen/Qwen2.5-14B-Instruct", "VLLM_LOGGING_LEVEL": "INFO"}
    (message,) = _g74([_vllm("ghcr.io/travelagent/travel-agent-vllm:latest", env)])
    assert message.startswith("container vllm: env VLLM_MODEL is no setting vLLM reads (no release of it reads")
    assert message.endswith("(unless this rebuilt image's own entrypoint reads it)")
    (published,) = _g74([_vllm("vllm/vllm-openai:v0.11.0", env)])
    assert "VLLM_MODEL" in published and "unless this rebuilt" not in published


def test_a_variable_the_release_reads_is_judged_at_the_tag():
    assert _g74([_vllm("vllm/vllm-openai:v0.11.0", {"VLLM_USE_V1": "1"})]) == []
    (message,) = _g74([_vllm("vllm/vllm-openai:latest", {"VLLM_USE_V1": "1"})])
    assert "env VLLM_USE_V1 is no setting vLLM 0.34.0 (the tag latest follows the newest release) reads" in message


def test_vllm_careful_forms_stay_silent():
    # A fork republished under the publisher's name (aibrix/vllm-openai reads VLLM_USE_VINEYARD_CACHE).
    assert _g74([_vllm("aibrix/vllm-openai:v0.6.1-edb07092-20250118", {"VLLM_USE_VINEYARD_CACHE": "1"})]) == []
    # A variable the container's own command reads.
    script = ["sh", "-c", "vllm serve $VLLM_MODEL --port 8000"]
    assert _g74([_vllm("vllm/vllm-openai:v0.11.0", {"VLLM_MODEL": "x"}, command=script)]) == []
    # A shared ConfigMap given through envFrom (the app's VLLM_BASE_URL for its clients).
    shared = _vllm("vllm/vllm-openai:v0.11.0", {})
    shared["spec"]["template"]["spec"]["containers"][0]["envFrom"] = [{"configMapRef": {"name": "app-config"}}]
    config = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "app-config", "namespace": "sow"}}
    config["data"] = {"VLLM_BASE_URL": "http://vllm:8000/v1"}
    assert _g74([shared, config]) == []
