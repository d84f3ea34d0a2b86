"""S10 blocks only on a longest request a timeout enforces; a figure no component reads is advice.

S10 treats a vLLM server's --shutdown-timeout as the manifest's own longest request (it blocks on findings measured
against it). KServe's LLMInferenceService presets compute that flag from the grace period and pass it only to
vLLM 0.18.0 and later: the script asks ``vllm --version`` and adds ``--shutdown-timeout {{ shutdownTimeout ... 15 }}``
only from 0.18.0 on (kserve/kserve v0.20.0 config/llmisvcconfig/config-llm-template.yaml:145, :152-156). The reader
added it whatever the image, so set 35's nirjhar17/openshift-ai-3-deployment LLMInferenceService (vLLM v0.8.4, preStop
sleep 15 s, grace 60 s from the preset) was blocked for a preStop shorter than a "longest request" of 40 s that is
only the preset's arithmetic (60 - 15 - 5) and that vLLM 0.8.4 never receives. The same holds for a user's own
--shutdown-timeout on a release that does not read it (it has none before 0.18.0, components/vllm_flags.py).
"""

from __future__ import annotations

import copy

from policy_fixtures import DEPLOYMENT_TYPE, deployment_props, manifest, resource, set_arg

from policies.check import resources_of
from policies.kube import cluster_view, pod_specs
from policies.manifests import read_manifests
from policies.registry import evaluate
from policies.timeouts import termination_drains_streams as s10
from tests.conftest import shared_path

# nirjhar17/openshift-ai-3-deployment 04-llm-d-deployment/llminferenceservice.yaml at
# f1d28ffe137373ecfc96e9cc3b32d5222c476e63 (held-out set 35), its serving part: the upstream vLLM image for a
# Tesla T4 under the well-known preset (no preStop or grace of its own: the preset's sleep 15 and 60 s apply).
_NIRJHAR = {
    "apiVersion": "serving.kserve.io/v1alpha1",
    "kind": "LLMInferenceService",
    "metadata": {"name": "qwen3-0-6b", "namespace": "my-first-model"},
    "spec": {
        "replicas": 2,
        "model": {"uri": "hf://Qwen/Qwen3-0.6B", "name": "Qwen/Qwen3-0.6B"},
        "router": {"scheduler": {}, "route": {}, "gateway": {}},
        "template": {
            "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
            "containers": [
                {
                    "name": "main",
                    "image": "vllm/vllm-openai:v0.8.4",
                    "env": [
                        {"name": "VLLM_USE_V1", "value": "0"},
                        {
                            "name": "VLLM_ADDITIONAL_ARGS",
                            "value": "--dtype=half --max-model-len=4096 --gpu-memory-utilization=0.85 --enforce-eager",
                        },
                    ],
                    "resources": {
                        "limits": {"cpu": "2", "memory": "12Gi", "nvidia.com/gpu": "1"},
                        "requests": {"cpu": "1", "memory": "8Gi", "nvidia.com/gpu": "1"},
                    },
                }
            ],
        },
    },
}
# kserve/kserve docs/samples/llmisvc/single-node-gpu/llm-inference-service-qwen2-7b-gpu.yaml at
# aaac4e294dae2c7b1aa1886447793f3aa1c30912 (manifests-v2): the preset's own llm-d image, which gets the flag.
_KSERVE_SAMPLE = "kserve__kserve/docs__samples__llmisvc__single-node-gpu__llm-inference-service-qwen2-7b-gpu.yaml"


def _main_command(obj: dict) -> list[str]:
    r = manifest(obj)
    with cluster_view([r]):
        (_, pod), *_ = pod_specs(r)
    return next(c["command"] for c in pod["containers"] if c["name"] == "main")


def _s10(obj: dict) -> list[tuple[str, str]]:
    return [(v.enforcement, v.message) for v in evaluate([manifest(obj)], policies=[s10.POLICY])]


def test_the_preset_passes_no_shutdown_timeout_to_a_vllm_older_than_0_18():
    assert "--shutdown-timeout" not in _main_command(_NIRJHAR)
    found = _s10(_NIRJHAR)
    # Still reported (vLLM 0.8.4 cancels streams on SIGTERM), but against the assumed 300 s, and as advice.
    assert found and {level for level, _ in found} == {"advisory"}
    assert not any("(40s)" in message for _, message in found)


def test_a_vllm_that_reads_the_flag_gets_the_presets_figure_and_drains():
    newer = copy.deepcopy(_NIRJHAR)
    newer["spec"]["template"]["containers"][0]["image"] = "vllm/vllm-openai:v0.18.0"
    command = _main_command(newer)
    assert command[command.index("--shutdown-timeout") + 1] == "40"  # grace 60 - 15 - min(5, 60)
    assert _s10(newer) == []


def test_the_kserve_sample_with_the_preset_image_stays_silent():
    path = shared_path("corpus", "manifests-v2", *_KSERVE_SAMPLE.split("/"))
    resources = resources_of(read_manifests([str(path)]))
    assert [v for v in evaluate(resources, policies=[s10.POLICY])] == []


def test_a_users_shutdown_timeout_on_a_release_without_it_is_no_stated_figure():
    props = deployment_props()
    container = props["spec"]["template"]["spec"]["containers"][0]
    container.pop("lifecycle", None)
    set_arg(container, "shutdown-timeout", "600")
    blocked = evaluate([resource(DEPLOYMENT_TYPE, copy.deepcopy(props))], policies=[s10.POLICY])
    assert blocked and {v.enforcement for v in blocked} == {"mandatory"}  # a release that reads it: the figure holds
    container["image"] = "vllm/vllm-openai:v0.10.0"
    advised = evaluate([resource(DEPLOYMENT_TYPE, props)], policies=[s10.POLICY])
    assert advised and {v.enforcement for v in advised} == {"advisory"}


def test_the_presets_derived_shutdown_timeout_is_no_stated_longest_request():
    # S9 takes a written --shutdown-timeout for the longest request a workload serves (routes must outlast it); the
    # 40 s the preset derives from the grace period states nothing about requests. A service that writes the flag
    # itself (in the main container's args) states it.
    from policies.timeouts.timeout_chain_ordered import _longest_request

    newer = copy.deepcopy(_NIRJHAR)
    newer["spec"]["template"]["containers"][0]["image"] = "vllm/vllm-openai:v0.18.0"
    r = manifest(newer)
    with cluster_view([r]):
        assert _longest_request(r) is None
    newer["spec"]["template"]["containers"][0]["args"] = ["--shutdown-timeout", "600"]
    r = manifest(newer)
    with cluster_view([r]):
        assert _longest_request(r) == 600


def test_s10_on_the_presets_derived_figure_is_advice():
    # The preset's figure with the user's own grace period of 30 s and a preStop sleep of 20 s: the derived 10 s drain
    # window no longer covers the sleep-plus-drain the grace allows; measured against a figure nobody wrote: advice.
    newer = copy.deepcopy(_NIRJHAR)
    template = newer["spec"]["template"]
    template["containers"][0]["image"] = "vllm/vllm-openai:v0.18.0"
    template["terminationGracePeriodSeconds"] = 30
    template["containers"][0]["lifecycle"] = {"preStop": {"sleep": {"seconds": 25}}}
    found = _s10(newer)
    assert found and {level for level, _ in found} == {"advisory"}, found
