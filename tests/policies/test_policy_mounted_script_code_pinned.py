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


def test_the_config_map_that_holds_the_script_is_told_too():
    # Spent set 82 labels ConfigMap/tgi (the script is written there): script-map-code-pinned says it on the ConfigMap.
    found = found_by(_objs(_MOVING), "script-map-code-pinned")
    assert [e for e, _ in found] == ["advisory", "advisory"]
    assert found[0][1] == (
        "key init_quant.sh (run as /root/config/init_quant.sh by container init-tgi of Deployment tgi) clones a "
        "repository's default branch (git clone with no --branch tag or checkout of a commit) at every start: each "
        "restart may run code nobody reviewed; pin the reference (a tag or commit) in the script, or bake the code into "
        "the image"
    )
    assert "installs git+https://github.com/huggingface/optimum-habana.git without a pinned ref" in found[1][1]
    assert found_by(_objs(_PINNED), "script-map-code-pinned") == []
    assert found_by(_objs(_MOVING, run="echo ready"), "script-map-code-pinned") == []
    assert found_by(_objs(_MOVING)[:1], "script-map-code-pinned") == []  # no pod runs it among the files


def test_an_app_pod_that_clones_a_default_branch_at_start():
    # Spent set 90: barbaria888/KubeOps-AI k8s/backend.yaml@3a157731, the LLM backend's init container (no model server,
    # no GPU) clones runwhen-contrib/rw-cli-codecollection's default branch into an emptyDir at every start.
    clone = "git clone --depth 1 https://github.com/runwhen-contrib/rw-cli-codecollection.git /opt/runwhen && chown -R 1000:1000 /opt/runwhen"
    backend = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "backend"},
        "spec": {
            "selector": {"matchLabels": {"app": "backend"}},
            "template": {
                "metadata": {"labels": {"app": "backend"}},
                "spec": {
                    "initContainers": [
                        {"name": "fetch-runwhen-skills", "image": "alpine/git:latest", "command": ["sh", "-c", clone]}
                    ],
                    "containers": [{"name": "backend", "image": "hardik0811/kubeops-ai-backend:latest"}],
                },
            },
        },
    }
    [(level, message)] = found_by([backend], "serving-code-pinned")
    assert level == "advisory"
    assert message.startswith("container fetch-runwhen-skills: clones a repository's default branch")
    pinned = clone.replace("--depth 1", "--depth 1 --branch v0.0.9")
    backend["spec"]["template"]["spec"]["initContainers"][0]["command"][2] = pinned
    assert found_by([backend], "serving-code-pinned") == []
    # a Job runs once per run: not this reading's
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "once"},
        "spec": {"template": backend["spec"]["template"]},
    }
    job["spec"]["template"]["spec"]["initContainers"][0]["command"][2] = clone
    job["spec"]["template"]["spec"]["restartPolicy"] = "Never"
    assert found_by([job], "serving-code-pinned") == []
