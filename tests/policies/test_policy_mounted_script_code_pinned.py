"""S31 serving-code-pinned: a ConfigMap script the serving pod's container runs is read like an inline `sh -c`.

Fires: spent set 82, dell-examples/generative-ai@feba53869e3badfd1281c2a0d1454a759d47580e intel-XE9680-gaudi3/TGI/
Configmap.yml and deployment.yml: the TGI pod's init container (workingDir /root, `bash -c config/init_quant.sh`) runs
init_quant.sh from the ConfigMap tgi mounted at /root/config, which `git clone`s optimum-habana at its default branch and
`pip install git+https://github.com/huggingface/optimum-habana.git` with no ref at every start (labelled S31).
Silent: the same script cloning a tag (`-b v2.0`, as the repository's init.sh does) and installing git+...@1.17.0; a
ConfigMap script the container does not run.
"""

from __future__ import annotations

from tests.policies.policy_fixtures import found_by

_MOVING = """#!/bin/bash
if [ -d "optimum-habana" ] ; then
  echo "optimum-habana directory exists"
else
  git clone https://github.com/huggingface/optimum-habana.git
fi
cd optimum-habana/examples/text-generation
python3 -m pip install git+https://github.com/huggingface/optimum-habana.git
python3 -m pip install git+https://github.com/HabanaAI/DeepSpeed.git@1.17.0
"""
_PINNED = _MOVING.replace("optimum-habana.git\nfi", "optimum-habana.git -b v1.13.0\nfi").replace(
    "install git+https://github.com/huggingface/optimum-habana.git\n",
    "install git+https://github.com/huggingface/optimum-habana.git@v1.13.0\n",
)


def _objs(script: str, run: str = "config/init_quant.sh") -> list[dict]:
    config_map = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "tgi"}, "data": {"init_quant.sh": script}}
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "tgi"},
        "spec": {
            "selector": {"matchLabels": {"app": "tgi"}},
            "template": {
                "metadata": {"labels": {"app": "tgi"}},
                "spec": {
                    "initContainers": [
                        {
                            "name": "init-tgi",
                            "image": "vault.habana.ai/gaudi-docker/1.17.1/ubuntu22.04/habanalabs/pytorch-installer-2.3.1:latest",
                            "command": ["bash"],
                            "args": ["-c", run],
                            "workingDir": "/root",
                            "volumeMounts": [{"name": "config", "mountPath": "/root/config"}],
                        }
                    ],
                    "containers": [
                        {
                            "name": "tgi",
                            "image": "ghcr.io/huggingface/tgi-gaudi:2.0.4",
                            "args": ["--model-id", "meta-llama/Meta-Llama-3-8B"],
                            "resources": {"limits": {"habana.ai/gaudi": 1}},
                        }
                    ],
                    "volumes": [{"name": "config", "configMap": {"name": "tgi"}}],
                },
            },
        },
    }
    return [config_map, deployment]


def _script_findings(objs: list[dict]) -> list[tuple[str, str]]:
    return [f for f in found_by(objs, "serving-code-pinned") if "the script /root/config/init_quant.sh" in f[1]]


def test_the_spent_init_script_fires_relative_to_the_working_dir():
    found = _script_findings(_objs(_MOVING))
    assert {e for e, _ in found} == {"advisory"} and len(found) == 2
    assert any("clones a repository's default branch" in m for _, m in found)
    assert any("installs git+https://github.com/huggingface/optimum-habana.git without a pinned ref" in m for _, m in found)
    assert not any("DeepSpeed" in m for _, m in found)


def test_pinned_script_and_a_script_not_run_stay_silent():
    assert _script_findings(_objs(_PINNED)) == []
    assert _script_findings(_objs(_MOVING, run="echo ready")) == []
