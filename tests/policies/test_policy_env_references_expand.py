"""G105 env-references-expand: a `$(VAR)` the kubelet cannot expand stays the literal text `$(VAR)`.

Upstream: kubernetes/api v0.35.7 core/v1/types.go:2472-2480 (EnvVar.Value: expanded from the *previously defined*
variables and the service variables; an unresolved reference is left unchanged; `$$` escapes) and :2914-2930
(Container.Command/Args: expanded from the container's environment, in any order); huggingface_hub v1.28.0
src/huggingface_hub/utils/_validators.py:28-35,137-139 (a Hub repo id is word characters, '-', '_' and '.');
vllm-project/vllm@00522333 vllm/entrypoints/openai/cli_args.py FrontendArgs ``port: int = 8000``.

Fires:
- spent set 94 DArkadich/corp-ai-agent@4863e462c091de48123c48bc49590f410d20194b k8s/agent/deployment.yaml (labelled
  none): PG_DSN embeds $(POSTGRES_PASSWORD), declared after it (advice: the DSN's password is the literal text);
- a variable defined nowhere in an env value (advice), in a client's args (advice), in a vLLM server's --port or
  --model (blocking: argparse refuses the text as a number, and it is no Hub id).
Silent: the variable defined earlier (a secretKeyRef, the downward API fieldRef); `$$(VAR)`; an envFrom ConfigMap of
the files that holds it (spent set 95 FruitieX/homelab@54cb5f6d apps/llama-cpp, filed a trap); an envFrom Secret not
among the files; `$(date)` in a `sh -c` script; args naming a variable defined anywhere in env (command and args
expand from the whole environment); LWS's injected LWS_LEADER_ADDRESS; a service-link variable.
"""

from __future__ import annotations

from policies.framework import Resource
from policies.registry import evaluate
from tests.policies.policy_fixtures import found_by, manifest

_POLICY = "env-references-expand"


def _deployment(container: dict, kind: str = "Deployment", api: str = "apps/v1") -> dict:
    return {
        "apiVersion": api,
        "kind": kind,
        "metadata": {"name": "agent-api", "namespace": "corp-ai"},
        "spec": {
            "selector": {"matchLabels": {"app": "agent-api"}},
            "template": {"metadata": {"labels": {"app": "agent-api"}}, "spec": {"containers": [container]}},
        },
    }


def _secret_env(name: str) -> dict:
    return {"name": name, "valueFrom": {"secretKeyRef": {"name": "corp-secrets", "key": name}}}


# spent set 94 DArkadich/corp-ai-agent@4863e462 k8s/agent/deployment.yaml, env as committed
_AGENT = {
    "name": "agent",
    "image": "ghcr.io/darkadich/corp-ai-agent/corp-agent:78e57f0",
    "env": [
        {"name": "OPENAI_API_BASE", "value": "http://litellm.corp-ai.svc.cluster.local:4000"},
        _secret_env("OPENAI_API_KEY"),
        {
            "name": "PG_DSN",
            "value": "postgresql+psycopg2://raguser:$(POSTGRES_PASSWORD)@pgvector.corp-ai.svc.cluster.local:5432/ragdb",
        },
        _secret_env("POSTGRES_PASSWORD"),
        {"name": "TEI_URL", "value": "http://tei.corp-ai.svc.cluster.local"},
    ],
}


def test_a_reference_to_a_variable_defined_later_is_advice():
    [(level, message)] = found_by([_deployment(_AGENT)], _POLICY)
    assert level == "advisory"
    assert message == (
        "container agent: env PG_DSN refers to $(POSTGRES_PASSWORD), which is defined later in the env list (item 4, "
        "PG_DSN is item 3); the kubelet expands a reference in env[].value only from the variables defined before it, "
        "so PG_DSN holds the literal text `$(POSTGRES_PASSWORD)`; move POSTGRES_PASSWORD above PG_DSN"
    )
    # the careful order (ryanolson/lab's openwebui, spent set 95's trap): the secret first, then the DSN
    env = _AGENT["env"]
    ordered = {**_AGENT, "env": [env[0], env[1], env[3], env[2], env[4]]}
    assert found_by([_deployment(ordered)], _POLICY) == []


def test_a_variable_defined_nowhere_in_an_env_value_is_advice():
    container = {"name": "app", "image": "app:1", "env": [{"name": "URL", "value": "http://$(API_HOST):8080"}]}
    [(level, message)] = found_by([_deployment(container)], _POLICY)
    assert level == "advisory"
    assert "env URL refers to $(API_HOST), which no env item or envFrom source of the container defines" in message


def _vllm(args: list, env: list | None = None, **extra: object) -> dict:
    container = {
        "name": "vllm",
        "image": "vllm/vllm-openai:v0.8.5",
        "args": args,
        "resources": {"limits": {"nvidia.com/gpu": 1}},
        **extra,
    }
    if env is not None:
        container["env"] = env
    return _deployment(container)


def test_a_model_servers_port_or_model_left_literal_blocks():
    [(level, message)] = found_by([_vllm(["--model", "Qwen/Qwen2.5-0.5B-Instruct", "--port", "$(PORT)"])], _POLICY)
    assert level == "mandatory"
    assert message == (
        "container vllm: the argument `$(PORT)` refers to $(PORT), which no env item or envFrom source of the container "
        "defines; the kubelet leaves it as written, so the vllm server is started with --port set to the literal text "
        "`$(PORT)`: a value the engine's parser refuses for port (a number), and it exits at start; define PORT in the "
        "container's env"
    )
    [(level, message)] = found_by([_vllm(["--model=$(MODEL_ID)"])], _POLICY)
    assert level == "mandatory"
    assert "started with --model set to the literal text `$(MODEL_ID)`: no file or Hub model of that name" in message
    # vLLM's positional model
    serve = _vllm(["--port", "8000"], command=["vllm", "serve", "$(MODEL_ID)"])
    [(level, message)] = found_by([serve], _POLICY)
    assert level == "mandatory"
    assert "started with the positional model set to the literal text `$(MODEL_ID)`" in message
    # a flag that is no model, port or size: advice
    [(level, _)] = found_by([_vllm(["--model", "m", "--served-model-name", "$(SERVED_NAME)"])], _POLICY)
    assert level == "advisory"


def test_careful_forms_stay_silent():
    # args expand from the whole environment: a variable defined after nothing, or later in the list, is expanded
    later = [{"name": "A", "value": "1"}, {"name": "MODEL_ID", "value": "Qwen/Qwen2.5-0.5B-Instruct"}]
    assert found_by([_vllm(["--model", "$(MODEL_ID)"], env=later)], _POLICY) == []
    # the downward API earlier in the list
    pod_ip = [
        {"name": "POD_IP", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}},
        {"name": "ADVERTISE", "value": "http://$(POD_IP):8000"},
    ]
    assert found_by([_vllm(["--model", "m"], env=pod_ip)], _POLICY) == []
    # escaped: the literal text is meant
    escaped = [{"name": "TEMPLATE", "value": "echo $$(HOME_DIR)"}, {"name": "HOME_DIR", "value": "/data"}]
    assert found_by([_vllm(["--model", "m"], env=escaped)], _POLICY) == []
    # a service-link variable and the API server's own
    links = [{"name": "UPSTREAM", "value": "http://$(LITELLM_SERVICE_HOST):$(KUBERNETES_SERVICE_PORT)"}]
    assert found_by([_vllm(["--model", "m"], env=links)], _POLICY) == []
    # `$(date)` in a shell script is the shell's command substitution
    script = {"name": "pull", "image": "ollama/ollama:0.5.4", "command": ["sh", "-c"], "args": ["echo $(date); ollama serve"]}
    assert found_by([_deployment(script)], _POLICY) == []
    # an envFrom Secret not among the files may hold the name
    hidden = {
        "name": "vllm",
        "image": "vllm/vllm-openai:v0.8.5",
        "args": ["--model", "m", "--api-key", "$(VLLM_API_KEY)"],
        "envFrom": [{"secretRef": {"name": "vllm-secrets"}}],
    }
    assert found_by([_deployment(hidden)], _POLICY) == []


def test_an_env_from_config_map_of_the_files_defines_the_names():
    # spent set 95 FruitieX/homelab@54cb5f6d apps/llama-cpp/{config,deployment}.yaml: args $(MODEL_FILE) ... from the
    # envFrom ConfigMap llama-cpp-config (filed as a trap: the args are expanded)
    config = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "llama-cpp-config", "namespace": "corp-ai"},
        "data": {"MODEL_FILE": "Qwen2.5-3B-Instruct-Q4_K_M.gguf", "LLAMA_CTX_SIZE": "32768"},
    }
    server = {
        "name": "llama-cpp",
        "image": "ghcr.io/ggml-org/llama.cpp:server",
        "envFrom": [{"configMapRef": {"name": "llama-cpp-config"}}],
        "args": ["-m", "/models/$(MODEL_FILE)", "--ctx-size", "$(LLAMA_CTX_SIZE)"],
    }
    assert found_by([config, _deployment(server)], _POLICY) == []
    # without the ConfigMap among the files the source is unknown: silent too
    assert found_by([_deployment(server)], _POLICY) == []
    # a name the ConfigMap lacks is defined nowhere: llama.cpp's --ctx-size is a number
    missing = {**server, "args": ["-m", "/models/$(MODEL_FILE)", "--ctx-size", "$(CTX)"]}
    [(level, message)] = found_by([config, _deployment(missing)], _POLICY)
    assert level == "mandatory"
    assert "the llama-cpp server is started with --ctx-size set to the literal text `$(CTX)`" in message


def test_an_operators_injected_variables_stay_silent():
    # kubernetes-sigs/lws docs/examples/sglang/lws.yaml: LWS injects LWS_LEADER_ADDRESS, LWS_GROUP_SIZE ...
    container = {
        "name": "sglang-leader",
        "image": "lmsysorg/sglang:v0.4.6-cu124",
        "command": [
            "python3",
            "-m",
            "sglang.launch_server",
            "--model-path",
            "m",
            "--dist-init-addr",
            "$(LWS_LEADER_ADDRESS):20000",
        ],
    }
    lws = {
        "apiVersion": "leaderworkerset.x-k8s.io/v1",
        "kind": "LeaderWorkerSet",
        "metadata": {"name": "sglang"},
        "spec": {"leaderWorkerTemplate": {"size": 2, "leaderTemplate": {"spec": {"containers": [container]}}}},
    }
    assert found_by([lws], _POLICY) == []


def test_a_kustomize_var_of_the_files_is_replaced_at_build():
    # kustomize replaces $(NAME) of its `vars` in command, args and env values (kubernetes-sigs/kustomize
    # kustomize/v5.8.1 api/internal/konfig/builtinpluginconsts/varreference.go:36-42)
    kustomization = {
        "apiVersion": "kustomize.config.k8s.io/v1beta1",
        "kind": "Kustomization",
        "metadata": {"name": "serving"},
        "resources": ["deployment.yaml"],
        "vars": [{"name": "MODEL_NAME", "objref": {"kind": "ConfigMap", "name": "m", "apiVersion": "v1"}}],
    }
    server = _vllm(["--model", "$(MODEL_NAME)"])
    assert found_by([kustomization, server], _POLICY) == []
    assert [level for level, _ in found_by([server], _POLICY)] == ["mandatory"]


def test_a_kustomize_replacement_of_the_files_may_overwrite_the_field():
    # review52a: kustomize `replacements` write a source's value over a target's field at build (kubernetes-sigs/kustomize
    # kustomize/v5.8.1 api/types/replacement.go:17-22, :55-63), so a `$(VAR)` in a target's args may be the placeholder it
    # replaces: advice at most, not a block. A replacement aimed at another object proves nothing for this one.
    server = _vllm(["--model", "$(MODEL_NAME)"])
    name = server["metadata"]["name"]

    def kustomization(select: dict | None, path: bool = False) -> dict:
        replacement: dict = (
            {"path": "model-replacement.yaml"}
            if path
            else {
                "source": {"kind": "ConfigMap", "name": "model", "fieldPath": "data.model"},
                "targets": [{"select": select, "fieldPaths": ["spec.template.spec.containers.[name=vllm].args.1"]}],
            }
        )
        return {
            "apiVersion": "kustomize.config.k8s.io/v1beta1",
            "kind": "Kustomization",
            "metadata": {"name": "serving"},
            "resources": ["deployment.yaml"],
            "replacements": [replacement],
        }

    for aimed in ({"kind": "Deployment", "name": name}, {"kind": "Deployment"}):
        assert "mandatory" not in [lv for lv, _ in found_by([kustomization(aimed), server], _POLICY)]
    assert "mandatory" not in [lv for lv, _ in found_by([kustomization(None, path=True), server], _POLICY)]
    other = kustomization({"kind": "Deployment", "name": "another"})
    assert [lv for lv, _ in found_by([other, server], _POLICY)] == ["mandatory"]


def test_a_kustomize_patch_is_not_judged_alone():
    # an overlay's strategic-merge patch lists only the env items it adds: the base defines the rest
    patch = _deployment({"name": "app", "env": [{"name": "URL", "value": "http://$(API_HOST):8080"}]})
    resource = Resource(type="kubernetes:apps/v1:Deployment", name="Deployment/agent-api", props=patch, patch=True)
    assert [v for v in evaluate([resource]) if v.policy == _POLICY] == []
    # the same object applied as written: advice
    assert [v.enforcement for v in evaluate([manifest(patch)]) if v.policy == _POLICY] == ["advisory"]
