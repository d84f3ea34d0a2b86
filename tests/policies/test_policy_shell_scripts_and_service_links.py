"""`sh -c` scripts are read as the shell reads them (policies/reading/shell_words.py), so a server started from a
commented script is still a server, and S41 (service-links-spare-engine-variables) holds for a Service of any type
in the pod's namespace while enableServiceLinks is not false.

Fixture: KSign-Security-Lab/agents k8s/vllm.yaml at the commit of spent set 23 (/work/eval23/labels.yaml): a
Deployment vllm in namespace agents whose `sh -c` script opens with comment lines (one holding "?") before `exec
vllm serve ... ${TOOL_CALL_PARSER:+--tool-call-parser "$TOOL_CALL_PARSER" --enable-auto-tool-choice}`, beside a
NodePort Service named vllm: the kubelet gives the pod VLLM_PORT=tcp://..., which vLLM's get_vllm_port refuses
(vllm/envs.py).
"""

from __future__ import annotations

import copy

import pytest
from policy_fixtures import found_by, manifest

from policies.framework import Resource
from policies.reading.shell_words import split_shell
from policies.registry import evaluate

# KSign-Security-Lab/agents k8s/vllm.yaml (set 23), cut to what the rules read; the script's comments kept in form.
SCRIPT = (
    "# How many cards did the scheduler actually give this pod? The\n"
    "# device plugin sets CUDA_VISIBLE_DEVICES, so the pod sees only its\n"
    "# own, and nvidia-smi counts exactly those.\n"
    "GPUS=$(nvidia-smi -L | grep -c '^GPU')\n"
    'echo "vllm: $GPUS GPU(s) assigned, tensor-parallel-size=$GPUS"\n'
    'exec vllm serve "$MODEL_ID" \\\n'
    '  --served-model-name "$SERVED_MODEL_NAME" \\\n'
    '  --tensor-parallel-size "$GPUS" \\\n'
    "  --host 0.0.0.0 --port 8000 \\\n"
    '  ${TOOL_CALL_PARSER:+--tool-call-parser "$TOOL_CALL_PARSER" --enable-auto-tool-choice}\n'
)

DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "vllm", "namespace": "agents"},
    "spec": {
        "replicas": 1,
        "selector": {"matchLabels": {"app": "vllm"}},
        "template": {
            "metadata": {"labels": {"app": "vllm"}},
            "spec": {
                "containers": [
                    {
                        "name": "vllm",
                        "image": "vllm/vllm-openai:v0.27.1",
                        "command": ["/bin/sh", "-c"],
                        "args": [SCRIPT],
                        "envFrom": [{"configMapRef": {"name": "models"}}],
                        "ports": [{"name": "http", "containerPort": 8000}],
                        "resources": {"limits": {"nvidia.com/gpu": 1}},
                    }
                ]
            },
        },
    },
}

SERVICE = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "vllm", "namespace": "agents"},
    "spec": {
        "type": "NodePort",
        "selector": {"app": "vllm"},
        "ports": [{"name": "http", "port": 8000, "targetPort": "http", "nodePort": 30862}],
    },
}

S41 = "service-links-spare-engine-variables"


def test_a_commented_script_is_read_past_its_comments():
    words = split_shell(SCRIPT)
    start = words.index("exec")
    assert words[start : start + 5] == ["exec", "vllm", "serve", "$MODEL_ID", "--served-model-name"]
    # The conditional expansion is one run-time word, not an option "--enable-auto-tool-choice}".
    assert words[-2:] == ["${TOOL_CALL_PARSER}", ";"]


@pytest.mark.parametrize(
    ("script", "words"),
    [
        ("echo 'a # b' # gone\nrun", ["echo", "a # b", ";", "run"]),
        ('echo "it\'s" #x', ["echo", "it's"]),
        ("echo ${#ARGS[@]} a#b", ["echo", "${#ARGS[@]}", "a#b"]),
        ("#!/bin/sh\nexec vllm serve m", [";", "exec", "vllm", "serve", "m"]),
        ('run "${A:-x y}" ${B:-p q} end', ["run", "${A:-x y}", "${B}", "end"]),
    ],
)
def test_comments_quotes_and_expansions(script, words):
    assert split_shell(script) == words


@pytest.mark.parametrize("kind", ["NodePort", "ClusterIP", "LoadBalancer", None])
def test_a_service_named_vllm_of_any_type_in_the_namespace_blocks(kind):
    service = copy.deepcopy(SERVICE)
    if kind is None:
        del service["spec"]["type"]
    else:
        service["spec"]["type"] = kind
    assert found_by([DEPLOYMENT, service], S41) == [
        (
            "mandatory",
            "container vllm: the Service vllm of this namespace gives the pod VLLM_PORT=tcp://<ip>:<port> (service "
            "links are on), and the server reads VLLM_PORT as its port and refuses to start on a URI; set "
            "enableServiceLinks: false in the pod spec (or rename the Service)",
        )
    ]


def test_the_script_reader_change_adds_no_wrong_option_finding():
    assert found_by([DEPLOYMENT, SERVICE], "engine-options-exist") == []


def test_service_links_off_another_namespace_or_a_headless_service_are_silent():
    off = copy.deepcopy(DEPLOYMENT)
    off["spec"]["template"]["spec"]["enableServiceLinks"] = False
    assert found_by([off, SERVICE], S41) == []
    elsewhere = copy.deepcopy(SERVICE)
    elsewhere["metadata"]["namespace"] = "gateway"
    assert [e for e, _ in found_by([DEPLOYMENT, elsewhere], S41)] in ([], ["advisory"])
    headless = copy.deepcopy(SERVICE)
    headless["spec"] = {"clusterIP": "None", "selector": {"app": "vllm"}, "ports": [{"port": 8000}]}
    assert found_by([DEPLOYMENT, headless], S41) == []


def test_a_port_variable_the_container_sets_through_a_config_map_is_silent():
    # Set 47 trap (SecureCloudOps/llm-rag-infra-platform k8s/vllm/{deployment,configmap}.yaml): VLLM_PORT=8000 from an
    # envFrom ConfigMap; the kubelet adds a service-link variable only where the name is not already set
    # (pkg/kubelet/kubelet_pods.go makeEnvironmentVariables).
    config = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "vllm-config", "namespace": SERVICE["metadata"].get("namespace", "default")},
        "data": {"VLLM_PORT": "8000"},
    }
    deployment = copy.deepcopy(DEPLOYMENT)
    deployment["spec"]["template"]["spec"]["containers"][0]["envFrom"] = [{"configMapRef": {"name": "vllm-config"}}]
    assert found_by([deployment, SERVICE, config], S41) == []
    # A ConfigMap that does not hold it leaves the Service's variable in: still blocking.
    config["data"] = {"MODEL_NAME": "Qwen/Qwen2.5-0.5B-Instruct"}
    assert [e for e, _ in found_by([deployment, SERVICE, config], S41)] == ["mandatory"]


def _one_file(*objs: dict) -> list[tuple[str, str]]:
    """S41's findings on objects read from one file (resource names ``FILE#i Kind/name``, as policies check names them)."""
    resources = [
        Resource(type=manifest(o).type, name=f"k8s/vllm.yaml#{i} {o['kind']}/{o['metadata']['name']}", props=o)
        for i, o in enumerate(objs)
    ]
    return [(v.enforcement, v.message) for v in evaluate(resources) if v.policy == S41]


def test_a_service_or_pod_that_names_no_namespace_in_the_same_file_is_advice():
    unplaced = copy.deepcopy(SERVICE)
    del unplaced["metadata"]["namespace"]
    [(level, message)] = _one_file(DEPLOYMENT, unplaced)
    assert level == "advisory" and message.startswith(
        "container vllm: the Service vllm (with no namespace, while the pod names agents) lands in this pod's namespace"
    )
    pod_unplaced = copy.deepcopy(DEPLOYMENT)
    del pod_unplaced["metadata"]["namespace"]
    [(level, message)] = _one_file(pod_unplaced, SERVICE)
    assert level == "advisory" and "(in namespace agents, while the pod names none)" in message
    # In another file of the repository (another sample's Service), nothing ties the two together: only the older
    # advice on a workload named like the variable remains.
    assert all("lands in this pod's namespace" not in m for _, m in found_by([DEPLOYMENT, unplaced], S41))


def _files(*placed: tuple[str, dict]) -> list[tuple[str, str]]:
    """S41's findings on objects read from the files given (``FILE#0 Kind/name``, as policies check names them)."""
    resources = [
        Resource(type=manifest(o).type, name=f"{file}#0 {o['kind']}/{o['metadata']['name']}", props=o) for file, o in placed
    ]
    return [(v.enforcement, v.message) for v in evaluate(resources) if v.policy == S41]


def test_a_service_with_no_namespace_in_another_file_of_the_folder_is_advice():
    # savyasachi6/llm-serving-platform infra/kubernetes/base (spent set 28, labelled S41): vllm-deployment.yaml@05118a8
    # holds Service vllm with no namespace, vllm-agents-deployment.yaml@0fbeeb5 a vLLM Deployment in namespace default;
    # `kubectl apply -f infra/kubernetes/base` puts the Service in the client's namespace, default unless told otherwise.
    unplaced = copy.deepcopy(SERVICE)
    del unplaced["metadata"]["namespace"]
    [(level, message)] = _files(("base/agents.yaml", DEPLOYMENT), ("base/vllm.yaml", unplaced))
    assert level == "advisory" and message.startswith(
        "container vllm: the Service vllm (with no namespace in vllm.yaml, while the pod names agents) lands in this "
        "pod's namespace"
    )
    # In another folder (another sample, another overlay) nothing ties the two together.
    assert all(
        "lands in this pod's namespace" not in m for _, m in _files(("a/agents.yaml", DEPLOYMENT), ("b/vllm.yaml", unplaced))
    )
