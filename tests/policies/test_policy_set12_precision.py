"""Held-out set 12's wrong blocking findings and G35's literal argument credentials, each with its careful form.

Fixtures follow g-rabah/namla-usecases- nim-deployment.yaml at 3f71b9a048b052ed6b3b318cf3fdbcfa4929ea88 (a NIM
Deployment, a gpt-cli Pod pointed at it, Open WebUI on a hostPath, a cloudflared tunnel), reduced to the fields read.
"""

import copy

import pytest
from policy_fixtures import RAISED
from policy_fixtures import found_by as _pack_found_by


def found_by(objs: list[dict], policy: str, config: dict | None = None) -> list[tuple[str, str]]:
    """The pack's findings with the advisory hygiene rows raised (policy_fixtures.RAISED), so this file's
    proven-blocks / unproven-advises pairs stay told apart."""
    return _pack_found_by(objs, policy, RAISED if config is None else config)


def deployment(name: str, container: dict, volumes: list | None = None) -> dict:
    """A Deployment running one container (and its volumes)."""
    spec: dict = {"containers": [container]}
    if volumes:
        spec["volumes"] = volumes
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": spec},
        },
    }


def gpt_cli_pod(key: str) -> dict:
    """The gpt-command-line Pod: an OpenAI client whose base URL is the NIM Service, with OPENAI_API_KEY=key."""
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "gpt-command-line-pod"},
        "spec": {
            "containers": [
                {
                    "name": "gpt-command-line",
                    "image": "python:3.9-slim",
                    "command": ["sh", "-c", "pip install gpt-command-line && sleep infinity"],
                    "env": [
                        {"name": "OPENAI_API_KEY", "value": key},
                        {"name": "OPENAI_BASE_URL", "value": "http://llama3-8b-instruct-svc:8000/v1"},
                    ],
                }
            ]
        },
    }


@pytest.mark.parametrize("key", ["null", "EMPTY", "none", "dummy", "not-needed", "sk-no-key-required", "ollama"])
def test_a_placeholder_key_for_a_local_openai_endpoint_is_not_a_secret(key):
    # Set 12 trap (was a wrong blocking finding): OPENAI_API_KEY "null" for a local NIM.
    assert found_by([gpt_cli_pod(key)], "no-literal-secret-env") == []


def test_a_real_looking_key_still_blocks():
    assert found_by([gpt_cli_pod("my-team-key-2024")], "no-literal-secret-env") == [
        (
            "mandatory",
            "container gpt-command-line: env OPENAI_API_KEY has a literal value; a secret must come from "
            "valueFrom.secretKeyRef (a literal lands in the pod spec, etcd and the Pulumi state)",
        )
    ]


def cloudflared(args: list[str]) -> dict:
    """The ollama-cloudflared Deployment: cloudflared's own entrypoint with `tunnel run` args."""
    return deployment(
        "ollama-cloudflared-deployment", {"name": "ollama-cloudflared", "image": "cloudflare/cloudflared:2024.6.1", "args": args}
    )


def test_a_literal_tunnel_token_in_args_blocks():
    # Set 12 miss: the token (masked in the published copy, so no token shape) is a literal --token argument.
    token = "eyJ*********jMjJmNzJhNWNhMj****RWbExUZzRZe****VeiJ9"
    assert found_by([cloudflared(["tunnel", "--no-autoupdate", "run", "--token", token])], "no-literal-secret-env") == [
        (
            "mandatory",
            "container ollama-cloudflared: args[3]: --token has a literal value in args[4]; pass it as $(VAR) of an "
            "env var from valueFrom.secretKeyRef",
        )
    ]
    assert found_by([cloudflared(["tunnel", "run", f"--token={token}"])], "no-literal-secret-env") == [
        (
            "mandatory",
            "container ollama-cloudflared: args[2]: --token has a literal value; pass it as $(VAR) of an env var from "
            "valueFrom.secretKeyRef",
        )
    ]


@pytest.mark.parametrize(
    "args",
    [
        ["tunnel", "--no-autoupdate", "run", "--token", "$(TUNNEL_TOKEN)"],
        ["tunnel", "run", "--token-file", "/etc/cloudflared/token"],
        ["tunnel", "run", "--token", "/etc/cloudflared/token"],
        ["tunnel", "--no-autoupdate", "run"],
    ],
)
def test_a_token_from_the_environment_or_a_file_is_silent(args):
    assert found_by([cloudflared(args)], "no-literal-secret-env") == []


def test_a_placeholder_api_key_flag_is_silent_and_a_literal_one_blocks():
    vllm = {"name": "vllm", "image": "vllm/vllm-openai:v0.8.5", "args": ["--model", "Qwen/Qwen2-0.5B", "--api-key", "EMPTY"]}
    assert found_by([deployment("vllm", vllm)], "no-literal-secret-env") == []
    vllm["args"][-1] = "my-secret-key"
    assert [e for e, _ in found_by([deployment("vllm", vllm)], "no-literal-secret-env")] == ["mandatory"]


WEBUI = {
    "name": "open-webui",
    "image": "ghcr.io/open-webui/open-webui:v0.6.5",
    "volumeMounts": [{"name": "open-webui-storage", "mountPath": "/app/backend/data"}],
}
HOST_PATH = [{"name": "open-webui-storage", "hostPath": {"path": "/opt/namla/open-webui", "type": "DirectoryOrCreate"}}]


def test_a_writable_host_path_on_a_pod_that_serves_no_model_is_advice():
    # Set 12 (was a wrong blocking finding): Open WebUI keeps its data on a hostPath of the pinned node.
    assert found_by([deployment("open-webui-deployment", WEBUI, HOST_PATH)], "host-path-read-only") == [
        (
            "advisory",
            "container open-webui: mounts hostPath /opt/namla/open-webui (volume open-webui-storage) writable at "
            "/app/backend/data; a pod that writes to the node outlives itself there; mount it readOnly or use an "
            "emptyDir or PVC (advisory: this pod runs no model server and asks for no GPU; what it leaves on the "
            "node is its own state, not the serving path's)",
        )
    ]


def test_a_writable_host_path_on_a_model_server_still_blocks():
    # The NIM Deployment of the same file: its cache on a writable hostPath.
    nim = {
        "name": "llama3-8b-instruct",
        "image": "nvcr.io/nim/meta/llama3-8b-instruct:1.0.3",
        "resources": {"limits": {"nvidia.com/gpu": "1"}},
        "volumeMounts": [{"name": "nim-cache", "mountPath": "/opt/nim/.cache"}],
    }
    volumes = [{"name": "nim-cache", "hostPath": {"path": "/opt/namla/nim/models", "type": "DirectoryOrCreate"}}]
    assert [e for e, _ in found_by([deployment("llama3-8b-instruct", nim, volumes)], "host-path-read-only")] == ["mandatory"]
    gpu_only = copy.deepcopy(WEBUI) | {"resources": {"limits": {"nvidia.com/gpu": "1"}}}
    assert [e for e, _ in found_by([deployment("gpu-job", gpu_only, HOST_PATH)], "host-path-read-only")] == ["mandatory"]
