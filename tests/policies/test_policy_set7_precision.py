"""Held-out set 7's wrong blocking findings, as general causes: each shape reduced by hand, with a careful form that
must keep blocking (the rule is not switched off) and one that stays advice."""

from __future__ import annotations

import copy

from policy_fixtures import manifest

from policies.framework import Unproven
from policies.gpu import ephemeral_storage
from policies.gpu.ephemeral_storage import SMALL_CHECKPOINT_GIB, checkpoint_estimate_gib
from policies.gpu.tolerates_and_targets import targets_gpu_type
from policies.karpenter import gpu_nodepool_disruption_budget
from policies.manifests import read_manifests
from policies.models import model_source_pinned
from policies.reading.engines import table_servers
from policies.registry import evaluate
from policies.vllm import service_links_port


def _check(policy, obj: dict) -> list[str]:
    return policy.POLICY.check_resource(manifest(obj), policy.POLICY.defaults())


def _trtllm(script: str) -> dict:
    """A Deployment that starts trtllm-serve from a bash script (shape of murubhas/eks-llm-inference-optimization-lab
    experiments/08-vllm-vs-tensorrt-llm/manifests/tensorrt-llm-pytorch.yaml @ daa246c3f2d6ea3ed76e4ba196e4595237d298f7,
    reduced)."""
    container = {
        "name": "trtllm",
        "image": "nvcr.io/nvidia/tensorrt-llm/release@sha256:" + "1" * 64,
        "command": ["/bin/bash", "-lc"],
        "args": [script],
        "resources": {"requests": {"nvidia.com/gpu": "1"}, "limits": {"nvidia.com/gpu": "1"}},
        "volumeMounts": [{"name": "model-storage", "mountPath": "/models", "readOnly": True}],
    }
    volumes = [{"name": "model-storage", "persistentVolumeClaim": {"claimName": "models", "readOnly": True}}]
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "runtime-b-trtllm", "namespace": "model-serving"},
        "spec": {"template": {"spec": {"containers": [container], "volumes": volumes}}},
    }


SERVE = "set -euo pipefail\nexec trtllm-serve serve {model} \\\n  --tp_size 1 \\\n  --backend pytorch \\\n  --trust_remote_code\n"


def test_trtllm_serve_subcommand_names_the_model_after_it():
    # `trtllm-serve serve MODEL` is the default command spelled out (NVIDIA/TensorRT-LLM 00209af1
    # tensorrt_llm/commands/serve.py DefaultGroup.resolve_command): the model is the token after `serve`.
    (server,) = table_servers(manifest(_trtllm(SERVE.format(model="/models/qwen3.6-27b-bf16"))))
    assert server.model == "/models/qwen3.6-27b-bf16"
    assert server.args["tensor-parallel-size"] == "1"
    # The bare form is read as before.
    (bare,) = table_servers(manifest(_trtllm("exec trtllm-serve /models/llama --tp_size 2")))
    assert bare.model == "/models/llama" and bare.args["tensor-parallel-size"] == "2"


def test_trust_remote_code_from_a_local_path_is_advice_and_from_the_hub_blocks():
    (message,) = _check(model_source_pinned, _trtllm(SERVE.format(model="/models/qwen3.6-27b-bf16")))
    assert message.startswith(
        "container trtllm: --trust-remote-code imports Python from the repository of /models/qwen3.6-27b-bf16"
    )
    # What the volume holds is not in the manifest: reported, not blocked.
    assert isinstance(message, Unproven)
    # Careful form that must keep blocking: a Hub repository, whose code moves with its branch.
    hub = _check(model_source_pinned, _trtllm(SERVE.format(model="Qwen/Qwen3-32B")))
    trust = [m for m in hub if "--trust-remote-code" in m]
    assert len(trust) == 1 and not isinstance(trust[0], Unproven), hub
    # And without the flag, the local path says nothing.
    assert _check(model_source_pinned, _trtllm(SERVE.format(model="/models/x").replace(" \\\n  --trust_remote_code", ""))) == []


def _llmisvc(uri: str) -> dict:
    """A KServe LLMInferenceService with a prefill pool whose weights KServe's storage layer stages from the Hub (shape
    of ahmedwaleedmalik/k8s-llm-inference-platform serving/llm-d/llminferenceservice.yaml @
    441dd0a3a57db32484e853db7281dc787b1189d8, reduced)."""
    main = {
        "name": "main",
        "resources": {
            "requests": {"cpu": "1", "memory": "8Gi", "nvidia.com/gpu": 1},
            "limits": {"cpu": "2", "memory": "16Gi", "nvidia.com/gpu": 1},
        },
    }
    return {
        "apiVersion": "serving.kserve.io/v1alpha1",
        "kind": "LLMInferenceService",
        "metadata": {"name": "qwen-llmd", "namespace": "llm-d"},
        "spec": {
            "model": {"uri": uri, "name": "m"},
            "replicas": 1,
            "template": {"containers": [main]},
            "prefill": {"replicas": 1, "template": {"containers": [main]}},
            "router": {"scheduler": {}, "route": {}},
        },
    }


def test_a_small_checkpoint_without_an_ephemeral_storage_request_is_advice():
    found = _check(ephemeral_storage, _llmisvc("hf://Qwen/Qwen2.5-0.5B-Instruct"))
    assert len(found) == 2, found  # the decode pods and the prefill pods
    for message in found:
        assert "downloads hf://Qwen/Qwen2.5-0.5B-Instruct" in message
        assert isinstance(message, Unproven) and "the checkpoint is about 0.9 GiB" in message
    # Careful form that must keep blocking: an 8B model (~15 GiB) in the same shape.
    found = _check(ephemeral_storage, _llmisvc("hf://meta-llama/Llama-3.1-8B-Instruct"))
    assert len(found) == 2 and not any(isinstance(m, Unproven) for m in found), found


def test_checkpoint_estimate_reads_the_catalogue_then_the_parameter_count():
    assert checkpoint_estimate_gib("Qwen/Qwen3-0.6B") == checkpoint_estimate_gib("qwen3-0.6b")  # the catalogue
    assert round(checkpoint_estimate_gib("TinyLlama/TinyLlama-1.1B-Chat-v1.0") or 0, 1) == 2.0  # 1.1e9 x 2 bytes
    assert (checkpoint_estimate_gib("someorg/Mixtral-8x22B-Instruct") or 0) > 300  # 8 x 22B
    assert (checkpoint_estimate_gib("Qwen/Qwen3-30B-A3B") or 0) > SMALL_CHECKPOINT_GIB  # the total, not the active
    # A name with no parameter count, or no model at all: unknown, so the rule keeps its level.
    assert checkpoint_estimate_gib("microsoft/phi-2") is None
    assert checkpoint_estimate_gib("its model") is None


# An unrendered Helm template whose kind and name are literal (shape of Ofor-David/gke-llm-platform
# k8s/charts/ollama/templates/deployment.yaml @ be324c9fd4086894a991a48ecc94b0b0475424a2, reduced).
OLLAMA_TEMPLATE = (
    "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ollama\n  namespace: inference\nspec:\n  template:\n"
    "    spec:\n      containers:\n        - name: ollama\n"
    "          image: {{ .Values.image.repository }}:{{ .Values.image.tag }}\n"
    "          resources:\n            {{- toYaml .Values.resources | nindent 12 }}\n"
)


def _unreadable(tmp_path, text: str) -> list[tuple[str, str, str]]:
    (tmp_path / "deployment.yaml").write_text(text)
    found = read_manifests([str(tmp_path / "deployment.yaml")]).unreadable
    return [(u.shown_kind, u.name, u.kind) for u in found]


def test_a_template_names_the_object_it_spells_literally(tmp_path):
    assert _unreadable(tmp_path, OLLAMA_TEMPLATE) == [("Deployment", "ollama", "template")]
    # Careful forms: a templated name leaves the file's name; a templated kind leaves the document.
    templated_name = OLLAMA_TEMPLATE.replace("  name: ollama\n", '  name: {{ include "ollama.fullname" . }}\n')
    assert _unreadable(tmp_path, templated_name) == [("Deployment", "deployment.yaml", "template")]
    templated_kind = OLLAMA_TEMPLATE.replace("kind: Deployment\n", "kind: {{ .Values.kind }}\n")
    assert _unreadable(tmp_path, templated_kind) == [("Document", "deployment.yaml", "template")]
    # A `name:` deeper than metadata's first level (a label, a container) is not the object's name.
    nested = OLLAMA_TEMPLATE.replace("metadata:\n  name: ollama\n", "metadata:\n  labels:\n    name: x\n")
    assert _unreadable(tmp_path, nested) == [("Deployment", "deployment.yaml", "template")]


def _gpu_nodepool(disruption: dict) -> dict:
    """A GPU NodePool (shape of shawnawshk/ray-serve-on-eks k8s/karpenter/gpu-nodepool.yaml @
    fa037ec266ae622db6f946ed5148676ee74c783c, reduced)."""
    return {
        "apiVersion": "karpenter.sh/v1",
        "kind": "NodePool",
        "metadata": {"name": "gpu-nodepool"},
        "spec": {
            "disruption": disruption,
            "limits": {"cpu": 5000},
            "template": {
                "spec": {
                    "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "gpu"},
                    "requirements": [
                        {"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": ["g6", "g6e", "p5"]}
                    ],
                    "taints": [{"effect": "NoSchedule", "key": "nvidia.com/gpu", "value": "true"}],
                }
            },
        },
    }


def test_a_budget_that_is_karpenters_default_written_out_is_no_budget():
    default = {"budgets": [{"nodes": "10%"}], "consolidateAfter": "300s", "consolidationPolicy": "WhenEmpty"}
    (message,) = _check(gpu_nodepool_disruption_budget, _gpu_nodepool(default))
    assert isinstance(message, Unproven) and "the only budget is Karpenter's default written out" in message
    # Careful forms stay silent: a schedule makes the budget a choice; nodes "0" for Drifted confines drift.
    for budgets in (
        [{"nodes": "10%", "schedule": "0 7 * * 0", "duration": "4h"}],
        [{"nodes": "0", "reasons": ["Drifted"]}],
        [{"nodes": "1"}],
    ):
        assert _check(gpu_nodepool_disruption_budget, _gpu_nodepool(dict(default, budgets=budgets))) == [], budgets
    # A budget limited to Empty leaves Drifted unlimited (Karpenter v1.14.1 pkg/apis/v1/nodepool.go:363-377): advice
    # here, where no EC2NodeClass shows a moving AMI (set 8 labelled the @latest form blocking:
    # tests/policies/test_policy_platform_set8.py).
    (message,) = _check(
        gpu_nodepool_disruption_budget, _gpu_nodepool(dict(default, budgets=[{"nodes": "10%", "reasons": ["Empty"]}]))
    )
    assert isinstance(message, Unproven) and "none applies to Drifted" in message
    # Under WhenEmptyOrUnderutilized the default budget was already a block (no budget of 0 for Underutilized).
    busy = dict(default, consolidationPolicy="WhenEmptyOrUnderutilized")
    (message,) = _check(gpu_nodepool_disruption_budget, _gpu_nodepool(busy))
    assert not isinstance(message, Unproven) and "Underutilized" in message


# A vLLM Deployment named vllm with service links on (shape of VJK94/vllm-on-eks k8s/vllm/10-deployment.yaml @
# 7c3f17486bbc9264982e7bf0c973e9c7c52a5ffe, reduced; the repository's 20-service.yaml names its Service vllm in the same namespace).
VLLM_DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "vllm", "namespace": "inference"},
    "spec": {
        "template": {
            "metadata": {"labels": {"app.kubernetes.io/name": "vllm"}},
            "spec": {
                "containers": [
                    {
                        "name": "vllm",
                        "image": "vllm/vllm-openai:v0.11.0",
                        "args": ["--model=TheBloke/Mistral-7B-Instruct-v0.2-AWQ", "--port=8000"],
                        "resources": {"limits": {"nvidia.com/gpu": 1}},
                    }
                ]
            },
        }
    },
}
VLLM_SERVICE = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "vllm", "namespace": "inference"},
    "spec": {"selector": {"app.kubernetes.io/name": "vllm"}, "ports": [{"port": 8000}]},
}


def _s41(*objects: dict) -> list[tuple[str, str]]:
    """(enforcement, message) of S41 over the objects checked together."""
    found = evaluate([manifest(o) for o in objects], policies=[service_links_port.POLICY])
    return [(v.enforcement, v.message) for v in found]


def test_a_service_named_vllm_in_the_namespace_crashes_vllm_through_service_links():
    ((level, message),) = _s41(VLLM_DEPLOYMENT, VLLM_SERVICE)
    assert level == "mandatory"
    assert message.startswith("container vllm: the Service vllm of this namespace gives the pod VLLM_PORT=tcp://")
    # Without the Service among the files, a workload named vllm is advice.
    ((level, message),) = _s41(VLLM_DEPLOYMENT)
    assert level == "advisory" and "a Service named vllm in its namespace (not among the files read)" in message
    # Careful forms stay silent: links off; VLLM_PORT set by the container; the Service in another namespace; another
    # name for both the Service and the workload.
    off = copy.deepcopy(VLLM_DEPLOYMENT)
    off["spec"]["template"]["spec"]["enableServiceLinks"] = False
    assert _s41(off, VLLM_SERVICE) == []
    own = copy.deepcopy(VLLM_DEPLOYMENT)
    own["spec"]["template"]["spec"]["containers"][0]["env"] = [{"name": "VLLM_PORT", "value": "29500"}]
    assert _s41(own, VLLM_SERVICE) == []
    elsewhere = copy.deepcopy(VLLM_SERVICE)
    elsewhere["metadata"]["namespace"] = "other"
    renamed = copy.deepcopy(VLLM_DEPLOYMENT)
    renamed["metadata"]["name"] = "mistral"
    renamed["spec"]["template"]["metadata"]["labels"] = {"app": "mistral"}
    assert _s41(renamed, elsewhere) == []
    assert _s41(renamed, dict(VLLM_SERVICE, metadata={"name": "mistral", "namespace": "inference"})) == []
    # A Service of the namespace under another name is the one in front of it: no guess left.
    assert _s41(VLLM_DEPLOYMENT, dict(VLLM_SERVICE, metadata={"name": "vllm-leader", "namespace": "inference"})) == []


def test_a_headless_or_external_name_service_named_vllm_gives_no_link_variables():
    """The kubelet skips a Service whose cluster IP is "None" or empty (kubernetes/kubernetes
    pkg/kubelet/kubelet_pods.go getServiceEnvVarMap, ``!v1helper.IsServiceIPSet``): a StatefulSet's governing
    headless Service named vllm, or an ExternalName alias, crashes nothing (cold review 32-s25 R20)."""
    headless = copy.deepcopy(VLLM_SERVICE)
    headless["spec"]["clusterIP"] = "None"
    assert _s41(VLLM_DEPLOYMENT, headless) == []
    alias = dict(VLLM_SERVICE, spec={"type": "ExternalName", "externalName": "vllm.llm.svc.cluster.local"})
    assert _s41(VLLM_DEPLOYMENT, alias) == []
    # A ClusterIP Service of that name still blocks.
    assert [level for level, _ in _s41(VLLM_DEPLOYMENT, VLLM_SERVICE)] == ["mandatory"]


def _isvc_model_path(path: str) -> dict:
    """A KServe InferenceService whose vLLM serves a node cache folder (shape of Kelvinskell/k8s-llm-serving-platform
    kubernetes/serving/kserve/auto/phi-chat-2.yaml @ a8bc61829f12f8a20eb6e61921c489098ee53996, reduced)."""
    return {
        "apiVersion": "serving.kserve.io/v1beta1",
        "kind": "InferenceService",
        "metadata": {"name": "phi-chat-2"},
        "spec": {
            "predictor": {
                "containers": [
                    {
                        "name": "kserve-container",
                        "image": "vllm/vllm-openai:v0.10.1",
                        "command": ["python3", "-m", "vllm.entrypoints.openai.api_server"],
                        "args": ["--model", path, "--served-model-name", "phi-2"],
                        "resources": {"limits": {"nvidia.com/gpu": "1"}},
                        "volumeMounts": [{"name": "model-cache", "mountPath": "/models", "readOnly": True}],
                    }
                ],
                "volumes": [{"name": "model-cache", "hostPath": {"path": "/mnt/models", "type": "Directory"}}],
            }
        },
    }


def test_a_model_folder_named_after_a_moving_branch_is_advice():
    (message,) = _check(model_source_pinned, _isvc_model_path("/models/microsoft/phi-2/main"))
    assert isinstance(message, Unproven)
    assert "model path /models/microsoft/phi-2/main is a folder named after the branch main of microsoft/phi-2" in message
    # Careful forms stay silent: a folder named after a commit, a folder with no org/repo before main, a plain folder.
    for path in ("/models/microsoft/phi-2/" + "0" * 40, "/models/main", "/models/phi-2", "/mnt/models"):
        assert _check(model_source_pinned, _isvc_model_path(path)) == [], path


def test_a_pod_pinned_to_one_named_node_targets_that_nodes_gpu():
    # Shape of Tennsoku/k8s-llm-serving-public kubernetes/deploy-vllm.yaml @ 3135340af62cbc16308c445ffe6c6fd6268fbe5c
    # (nodeSelector kubernetes.io/hostname: spark-4151, the single GB10 host).
    assert targets_gpu_type({"nodeSelector": {"kubernetes.io/hostname": "spark-4151"}})
    assert targets_gpu_type({"nodeName": "spark-4151"})
    # Careful forms that still target nothing: a zone, an architecture, no selector.
    assert not targets_gpu_type({"nodeSelector": {"topology.kubernetes.io/zone": "us-east-1a"}})
    assert not targets_gpu_type({"nodeSelector": {"kubernetes.io/arch": "arm64"}})
    assert not targets_gpu_type({})


def test_service_links_on_an_operators_pod_are_advice():
    # A KServe InferenceService's pod is built by KServe (and by Knative in serverless mode, which turns service
    # links off by default): with the Service vllm beside it, the finding does not block.
    isvc = _isvc_model_path("/models/microsoft/phi-2/" + "0" * 40)
    isvc["metadata"]["namespace"] = "inference"
    ((level, message),) = _s41(isvc, VLLM_SERVICE)
    assert level == "advisory" and "the Service vllm of this namespace gives the pod VLLM_PORT" in message
