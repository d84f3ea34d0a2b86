"""Review of exposure55's vLLM logging rows of G101 app-setting-exposure (brief review55b): the careful forms.

- ``--enable-log-outputs`` without ``--enable-log-requests`` logs nothing: vLLM refuses the command line (vllm 0.24.0
  wheel vllm/entrypoints/openai/cli_args.py:398-399, as at 0.11.0 cli_args.py:280-282: TypeError "--enable-log-outputs
  requires --enable-log-requests"), and a server with no request logger logs no output (serving_chat.py
  ``if self.enable_log_outputs and self.request_logger``).
- ``VLLM_LOGGING_LEVEL`` above INFO (WARNING, ERROR) drops the INFO lines both switches write (vllm 0.24.0
  vllm/logger.py:167-177 sets vLLM's handler and loggers to it; vllm/envs.py:772 default INFO).
"""

from __future__ import annotations

from policy_fixtures import found_by

SETTING = "app-setting-exposure"

_BOTH = "exec vllm serve /models/qwen \\\n  --enable-log-requests \\\n  --enable-log-outputs \\\n  --port 8000\n"


def _deployment(image: str, script: str, env: dict[str, str] | None = None) -> dict:
    container: dict = {
        "name": "vllm",
        "image": image,
        "command": ["/bin/sh", "-c"],
        "args": [script],
        "ports": [{"containerPort": 8000}],
        "resources": {"limits": {"nvidia.com/gpu": "1"}},
    }
    if env:
        container["env"] = [{"name": k, "value": v} for k, v in env.items()]
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "v", "namespace": "llm"},
        "spec": {
            "selector": {"matchLabels": {"app": "v"}},
            "template": {"metadata": {"labels": {"app": "v"}}, "spec": {"containers": [container]}},
        },
    }


def test_output_logging_without_request_logging_is_not_reported():
    alone = _BOTH.replace("  --enable-log-requests \\\n", "")
    for image in ("vllm/vllm-openai:v0.10.2", "vllm/vllm-openai:v0.24.0", "vllm/vllm-openai:latest"):
        assert found_by([_deployment(image, alone)], SETTING) == []


def test_a_logging_level_above_info_logs_no_prompt_or_output():
    for level in ("WARNING", "error"):
        for image in ("vllm/vllm-openai:v0.10.2", "vllm/vllm-openai:v0.24.0"):
            assert found_by([_deployment(image, _BOTH, {"VLLM_LOGGING_LEVEL": level})], SETTING) == []


def test_both_switches_at_the_default_level_are_advice():
    found = found_by([_deployment("vllm/vllm-openai:v0.10.2", _BOTH)], SETTING)
    assert [level for level, _ in found] == ["advisory", "advisory"]
    messages = sorted(m for _, m in found)
    assert messages[0].startswith("container vllm: --enable-log-outputs writes every generated response")
    assert messages[1].startswith("container vllm: --enable-log-requests (vLLM 0.10.2) writes every request's prompt")
    # From 0.11.1 the prompt is DEBUG's; the output stays at INFO.
    ((_, message),) = found_by([_deployment("vllm/vllm-openai:v0.24.0", _BOTH, {"VLLM_LOGGING_LEVEL": "INFO"})], SETTING)
    assert message.startswith("container vllm: --enable-log-outputs (VLLM_LOGGING_LEVEL=INFO) writes every generated")


def test_an_image_naming_no_release_logs_prompts_only_at_debug():
    requests = _BOTH.replace("  --enable-log-outputs \\\n", "")
    assert found_by([_deployment("vllm/vllm-openai:latest", requests)], SETTING) == []
    ((_, message),) = found_by([_deployment("vllm/vllm-openai:latest", requests, {"VLLM_LOGGING_LEVEL": "debug"})], SETTING)
    assert message.startswith("container vllm: --enable-log-requests (VLLM_LOGGING_LEVEL=debug) writes every request's")


def test_needs_and_since_are_checked():
    import pytest

    from components.app_exposure import AppExposureError, settings_of

    row = {"id": "x", "app": "vllm", "where": "flag", "name": "a", "risky": [True], "default": "d", "why": "w", "fix": "f"}
    row["source"] = "s"
    with pytest.raises(AppExposureError, match="needs: a list of options"):
        settings_of({"setting": [{**row, "needs": ["--enable-log-requests"]}]})
    with pytest.raises(AppExposureError, match="needs: on flag rows only"):
        settings_of({"setting": [{**row, "where": "env", "name": "X", "needs": ["b"]}]})
    with pytest.raises(AppExposureError, match="since: a release"):
        settings_of({"setting": [{**row, "since": "later"}]})
    (setting,) = settings_of({"setting": [{**row, "since": "0.11.1", "needs": ["b"]}]})
    assert (setting.since, setting.needs) == ("0.11.1", ("b",))


def test_a_chat_ui_release_behind_a_tls_load_balancer_is_not_said_to_be_on_plain_http():
    # An app-template release's Service carries the AWS Load Balancer Controller's TLS listener annotation: the load
    # balancer terminates TLS (aws-load-balancer-controller docs, service annotations #ssl-cert), so the UI's logins
    # do not cross the network on plain HTTP; the advice that it bypasses the gateway stands.
    release = {
        "apiVersion": "helm.toolkit.fluxcd.io/v2",
        "kind": "HelmRelease",
        "metadata": {"name": "open-webui"},
        "spec": {
            "chartRef": {"kind": "OCIRepository", "name": "app-template"},
            "values": {
                "controllers": {
                    "open-webui": {
                        "containers": {"app": {"image": {"repository": "ghcr.io/open-webui/open-webui", "tag": "v0.6.30"}}}
                    }
                },
                "service": {
                    "app": {
                        "type": "LoadBalancer",
                        "annotations": {
                            "service.beta.kubernetes.io/aws-load-balancer-ssl-cert": "arn:aws:acm:eu-west-1:1:certificate/x"
                        },
                        "ports": {"http": {"port": 443, "targetPort": 8080}},
                    }
                },
            },
        },
    }
    ((level, message),) = found_by([release], "no-load-balancer-service")
    assert level == "advisory"
    assert "plain HTTP" not in message
    assert message.startswith("spec.values.service.app.type: LoadBalancer makes the chart publish Open WebUI (a chat UI")
