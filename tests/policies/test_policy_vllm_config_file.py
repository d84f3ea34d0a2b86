"""vLLM's --config file read as its options (policies/reading/vllm_args.py with_config_file), and S17 on the ConfigMap
that holds it (config-revision-pinned).

vLLM takes a --config YAML file's keys as options placed before the command line's own (vllm 0.33.0
vllm/utils/argparse_utils.py:371, :516-603 _pull_args_from_config, "cli > config > defaults" :568; a ``model`` key is
the model when the line names none, :577-596; :606-671 load_config_file: true --KEY, false --no-KEY).

Firing form: leehosanganson/homelab kubernetes/apps/vllm (spent set 75, labelled S17 on overlays/default/config.yaml):
ConfigMap vllm-config, key config.yaml ``model: unsloth/Qwen3-8B-unsloth-bnb-4bit``, mounted with subPath at
/etc/vllm/config.yaml and read by ``vllm serve --config /etc/vllm/config.yaml``. Silent: the file pins ``revision``.
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by, manifest

from policies.kube import cluster_view, evaluation_memo
from policies.reading.vllm_args import served_model, vllm_servers

S17 = "config-revision-pinned"
CONFIG = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "vllm-config"},
    "data": {
        "config.yaml": 'model: unsloth/Qwen3-8B-unsloth-bnb-4bit\nuvicorn-log-level: "info"\nmax_num_seqs: 4\n'
        "max_model_len: 20480\nenforce_eager: true\n"
    },
}
DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "llm-backend"},
    "spec": {
        "selector": {"matchLabels": {"app": "llm-backend"}},
        "template": {
            "metadata": {"labels": {"app": "llm-backend"}},
            "spec": {
                "containers": [
                    {
                        "name": "vllm",
                        "image": "vllm/vllm-openai:v0.10.1",
                        "command": ["/bin/sh", "-c"],
                        "args": ["vllm serve --config /etc/vllm/config.yaml --max-model-len 8192"],
                        "resources": {"limits": {"nvidia.com/gpu": "1"}},
                        "volumeMounts": [
                            {"name": "vllm-config-volume", "mountPath": "/etc/vllm/config.yaml", "subPath": "config.yaml"}
                        ],
                    }
                ],
                "volumes": [{"name": "vllm-config-volume", "configMap": {"name": "vllm-config"}}],
            },
        },
    },
}


def test_the_config_file_gives_the_options_and_the_line_wins():
    resources = [manifest(CONFIG), manifest(DEPLOYMENT)]
    with evaluation_memo(), cluster_view(resources):
        (server,) = vllm_servers(resources[1])
        assert served_model(server) == "unsloth/Qwen3-8B-unsloth-bnb-4bit"
        assert server.args["max-num-seqs"] == "4"
        assert "enforce-eager" in server.args and server.args["enforce-eager"] is None
        assert server.args["max-model-len"] == "8192"  # the command line's own value wins over the file's 20480


def test_a_config_file_naming_an_unpinned_hub_model_is_advice_on_the_config_map():
    ((level, message),) = found_by([CONFIG, DEPLOYMENT], S17)
    assert level == "advisory"
    assert message.startswith(
        "data.config.yaml is the vLLM --config file of Deployment llm-backend (container vllm) and names the Hugging Face "
        "model unsloth/Qwen3-8B-unsloth-bnb-4bit with no revision"
    )


def test_a_pinned_or_unmounted_config_file_stays_silent():
    pinned = copy.deepcopy(CONFIG)
    pinned["data"]["config.yaml"] += "revision: 4f8c2bd4a1d5b7e7c6e0f9a3b2c1d0e9f8a7b6c5\n"
    assert found_by([pinned, DEPLOYMENT], S17) == []
    unmounted = copy.deepcopy(DEPLOYMENT)
    unmounted["spec"]["template"]["spec"]["containers"][0]["args"] = ["vllm serve --config /etc/other/config.yaml"]
    assert found_by([CONFIG, unmounted], S17) == []


def test_a_model_the_line_names_is_not_the_config_files():
    """review50b: with a model tag on the line, vLLM serves the tag (vllm/utils/argparse_utils.py _pull_args_from_config
    keeps the CLI model; S38 reports the ignored --model): the ConfigMap's S17 advice must not name the line's model as
    the file's. The Deployment's own model-source-pinned reports the tag."""
    tagged = copy.deepcopy(DEPLOYMENT)
    tagged["spec"]["template"]["spec"]["containers"][0]["args"] = [
        "vllm serve Qwen/Qwen2.5-0.5B-Instruct --config /etc/vllm/config.yaml"
    ]
    assert found_by([CONFIG, tagged], S17) == []
    assert any("Qwen/Qwen2.5-0.5B-Instruct" in m for _, m in found_by([CONFIG, tagged], "model-source-pinned"))
