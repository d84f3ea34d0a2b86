"""Pack settings for the platform assumptions policy messages make (docs/policy-settings.md): each message states
the value it used, and `python -m policies check --config FILE` changes it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import yaml
from policy_fixtures import DEPLOYMENT_TYPE, deployment_props, messages, resource, set_arg

from policies.timeouts.keep_alive_outlives_proxy import POLICY as KEEP_ALIVE
from policies.timeouts.termination_drains_streams import POLICY as DRAIN
from policies.vllm.max_model_len_fits_kv_cache import POLICY as FITS

ROOT = Path(__file__).resolve().parents[2]


def untagged(image="vllm/vllm-openai:latest", **flags):
    """The compliant vLLM Deployment on an image whose tag names no release."""
    props = deployment_props()
    container = props["spec"]["template"]["spec"]["containers"][0]
    container["image"] = image
    for flag, value in flags.items():
        set_arg(container, flag.replace("_", "-"), value)
    return resource(DEPLOYMENT_TYPE, props)


def test_drain_states_the_release_it_assumed_and_the_setting_changes_it():
    no_drain = untagged(shutdown_timeout=None)
    (msg,) = messages(DRAIN, no_drain)
    assert "(the image tag names no release: vLLM 0.33.0 assumed, setting defaultVllmRelease)" in msg
    # vLLM 0.12 has no --shutdown-timeout: the preStop sleep must last through the request instead.
    (msg,) = messages(DRAIN, no_drain, config={"defaultVllmRelease": "0.12.0"})
    assert msg == (
        "container kserve-container: this vLLM release (the image tag names no release: vLLM 0.12.0 assumed, "
        "setting defaultVllmRelease) cancels requests on SIGTERM (no --shutdown-timeout), so the preStop sleep "
        "15s must last through the longest request (300s)"
    )
    # A tag that names its release is read as it is, whatever the setting.
    tagged = untagged("vllm/vllm-openai:v0.33.0", shutdown_timeout=None)
    assert "assumed" not in messages(DRAIN, tagged, config={"defaultVllmRelease": "0.12.0"})[0]


def test_capacity_states_the_accounting_it_used():
    props = deployment_props()
    pod = props["spec"]["template"]["spec"]
    pod["nodeSelector"] = {"karpenter.k8s.aws/instance-gpu-name": "l4"}
    container = pod["containers"][0]
    container["image"] = "vllm/vllm-openai:latest"
    set_arg(container, "max-model-len", "131072")
    (msg,) = messages(FITS, resource(DEPLOYMENT_TYPE, props))
    assert (
        "on 1x L4 (22.04 GiB) (the image tag names no vLLM release: the most conservative accounting, setting "
        "defaultVllmRelease unset) does not start"
    ) in msg
    (msg,) = messages(FITS, resource(DEPLOYMENT_TYPE, props), config={"defaultVllmRelease": "0.33.0"})
    assert "(the image tag names no vLLM release: 0.33.0's accounting, setting defaultVllmRelease) does not start" in msg


def test_keep_alive_states_the_assumed_proxy_idle_timeout():
    props = deployment_props()
    container = props["spec"]["template"]["spec"]["containers"][0]
    container["env"] = [e for e in container["env"] if e["name"] != "VLLM_HTTP_TIMEOUT_KEEP_ALIVE"]
    (msg,) = messages(KEEP_ALIVE, resource(DEPLOYMENT_TYPE, props))
    assert (
        "the assumed idle timeout of the proxy in front (policy config assumedProxyIdleSeconds; an ALB's default) of 60s" in msg
    )
    # vLLM's 5 s keep-alive outlasts a proxy assumed to idle 4 s.
    assert messages(KEEP_ALIVE, resource(DEPLOYMENT_TYPE, props), config={"assumedProxyIdleSeconds": 4}) == []


def test_check_reads_the_settings_from_config_file(tmp_path):
    props = deployment_props()
    pod = props["spec"]["template"]["spec"]
    pod.pop("tolerations")
    pod["nodeSelector"] = {"node.kubernetes.io/instance-type": "g6e.xlarge"}
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "d.yaml").write_text(yaml.safe_dump(props))

    def tolerations_findings(*extra):
        proc = subprocess.run(
            [sys.executable, "-m", "policies", "check", str(tmp_path / "m"), "--format", "json", *extra],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
        )
        return [v for v in json.loads(proc.stdout)["violations"] if "does not tolerate" in v["message"]]

    assert len(tolerations_findings()) == 1
    (tmp_path / "cfg.json").write_text(json.dumps({"gpu-pod-tolerates-and-targets": {"gpuNodesTainted": False}}))
    assert tolerations_findings("--config", str(tmp_path / "cfg.json")) == []


def test_a_bad_release_setting_is_refused(tmp_path):
    (tmp_path / "cfg.json").write_text(json.dumps({"termination-drains-streams": {"defaultVllmRelease": "latest"}}))
    proc = subprocess.run(
        [sys.executable, "-m", "policies", "check", "policies", "--config", str(tmp_path / "cfg.json")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2
    assert "termination-drains-streams.defaultVllmRelease: 'latest' does not match" in proc.stderr
