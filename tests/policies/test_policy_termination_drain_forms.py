"""S10 termination-drains-streams on the forms issue 21 added: a preStop hook that drains vLLM (careful, quiet)
next to the mutations that must fire; SGLang servers; Ray Serve's graceful_shutdown_timeout_s."""

from __future__ import annotations

import copy

from policy_fixtures import DEPLOYMENT_TYPE, LWS_TYPE, deployment_props, messages, ray_serve_llm, resource

from policies.timeouts.termination_drains_streams import POLICY, drains_in_pre_stop

# The drain hook as people publish it: poll vLLM's /metrics until nothing runs or waits.
DRAIN = {
    "exec": {
        "command": [
            "/bin/sh",
            "-c",
            "sleep 10; while true; do m=$(curl -s localhost:8080/metrics); "
            "r=$(echo \"$m\" | grep '^vllm:num_requests_running' | awk '{s+=$2} END {print s+0}'); "
            "w=$(echo \"$m\" | grep '^vllm:num_requests_waiting' | awk '{s+=$2} END {print s+0}'); "
            '[ "$r" = 0 ] && [ "$w" = 0 ] && exit 0; sleep 2; done',
        ]
    }
}


def draining(grace: float = 330.0, hook: dict = DRAIN, shutdown_timeout: bool = False):
    """A vLLM Deployment whose preStop drains it, without --shutdown-timeout (the hook makes it unneeded)."""
    props = deployment_props()
    pod = props["spec"]["template"]["spec"]
    pod["terminationGracePeriodSeconds"] = grace
    container = pod["containers"][0]
    container["lifecycle"] = {"preStop": copy.deepcopy(hook)}
    if not shutdown_timeout:
        container["args"] = [a for a in container["args"] if not a.startswith("--shutdown-timeout")]
    return resource(DEPLOYMENT_TYPE, props)


def test_the_drain_hook_is_recognised():
    assert drains_in_pre_stop(DRAIN)
    assert not drains_in_pre_stop({"exec": {"command": ["/bin/sh", "-c", "sleep 30"]}})
    assert not drains_in_pre_stop(
        {"exec": {"command": ["/bin/sh", "-c", "curl -s localhost:8080/metrics | grep num_requests_running"]}}
    )


def test_a_preStop_drain_within_a_long_grace_period_is_careful_and_stays_quiet():
    assert messages(POLICY, draining()) == []


def test_the_drain_in_a_grace_period_shorter_than_the_longest_request_fires():
    assert messages(POLICY, draining(grace=120.0)) == [
        "container kserve-container: the preStop hook waits for vLLM's running and waiting requests to reach 0, but "
        "terminationGracePeriodSeconds 120 is not above the longest request (300s): the kubelet kills the pod mid-drain"
    ]


def test_a_hook_that_only_sleeps_is_not_a_drain():
    found = messages(POLICY, draining(hook={"exec": {"command": ["/bin/sh", "-c", "sleep 30"]}}))
    assert (
        "container kserve-container: --shutdown-timeout is unset (0 = abort): vLLM aborts in-flight requests on SIGTERM; "
        "set --shutdown-timeout to the longest request (300s)" in found
    )


def sglang_deployment(grace=None, pre_stop=None):
    """SGLang as the Gateway API Inference Extension's sample runs it."""
    props = deployment_props()
    pod = props["spec"]["template"]["spec"]
    pod.pop("terminationGracePeriodSeconds")
    if grace is not None:
        pod["terminationGracePeriodSeconds"] = grace
    pod["containers"] = [
        {
            "name": "sglang",
            "image": "lmsysorg/sglang:v0.5.2-cu126",
            "command": ["python3", "-m", "sglang.launch_server"],
            "args": ["--model-path=Qwen/Qwen3-8B", "--port=8000", "--tp=1", "--context-length=32768"],
            "resources": {"limits": {"nvidia.com/gpu": 1}},
        }
    ]
    if pre_stop:
        pod["containers"][0]["lifecycle"] = {"preStop": pre_stop}
    return resource(DEPLOYMENT_TYPE, props)


def test_sglang_without_drain_settings_fires():
    assert messages(POLICY, sglang_deployment()) == [
        "container sglang: no preStop hook: the pod gets SIGTERM while the Service and load balancers still send it "
        "requests; sleep in preStop until they have deregistered it",
        "container sglang: terminationGracePeriodSeconds 30 < preStop 0s + longest request 300s (setting maxRequestSeconds): "
        "the kubelet kills SGLang's streams in flight on scale-down",
    ]


def test_sglang_with_a_preStop_sleep_and_a_long_grace_period_is_quiet():
    assert messages(POLICY, sglang_deployment(grace=330.0, pre_stop={"sleep": {"seconds": 15}})) == []
    assert (
        messages(POLICY, sglang_deployment(grace=330.0, pre_stop={"sleep": {"seconds": 15}}), config={"maxRequestSeconds": 600})
        != []
    )


def test_lws_sglang_workers_take_no_requests():
    server = sglang_deployment().props["spec"]["template"]["spec"]["containers"][0]
    lws = {
        "apiVersion": "leaderworkerset.x-k8s.io/v1",
        "kind": "LeaderWorkerSet",
        "metadata": {"name": "sglang"},
        "spec": {
            "leaderWorkerTemplate": {
                "leaderTemplate": {
                    "spec": {
                        "terminationGracePeriodSeconds": 330,
                        "containers": [{**server, "lifecycle": {"preStop": {"sleep": {"seconds": 15}}}}],
                    }
                },
                "workerTemplate": {"spec": {"containers": [server]}},
            }
        },
    }
    assert messages(POLICY, resource(LWS_TYPE, lws)) == []


def ray_service(deployment_config: str) -> object:
    """A Ray Serve LLM RayService as KubeRay's samples write it, with this ``deployment_config``."""
    return ray_serve_llm(f"deployment_config: {deployment_config}")


def test_ray_serve_default_graceful_shutdown_cuts_streams():
    assert messages(POLICY, ray_service("{autoscaling_config: {min_replicas: 1, max_replicas: 4}}")) == [
        "serveConfigV2 application llms llm_configs[0]: llm_configs[0].deployment_config.graceful_shutdown_timeout_s unset "
        "(Ray Serve's 20s) < longest request 300s (setting maxRequestSeconds): Ray Serve kills a draining replica's streams "
        "after it on every downscale and upgrade; set graceful_shutdown_timeout_s above the longest request"
    ]


def test_ray_serve_with_a_long_graceful_shutdown_is_quiet():
    assert messages(POLICY, ray_service("{graceful_shutdown_timeout_s: 330}")) == []
