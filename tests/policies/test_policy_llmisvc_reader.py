"""KServe LLMInferenceService read with the well-known presets merged in (policies/llmisvc_presets.py).

Fixtures follow KServe v0.20.0's own samples (docs/samples/llmisvc/multi-gpu-vendor/
llm-inference-service-qwen2-7b-nvidia-with-scheduler.yaml for the single-node form, docs/samples/llmisvc/dp-ep/
for data parallelism), written out here. The preset facts (policies/llmisvc_presets.py) were compared with the tag's
config/llmisvcconfig/*.yaml when written; the first test pins the ones the policies turn on.
"""

from __future__ import annotations

import copy

import yaml

from policies.check import resources_of
from policies.kube import cluster_view, pod_specs
from policies.llmisvc_presets import llmisvc_pod_specs, presets_for, shutdown_timeout
from policies.manifests import read_manifests
from policies.registry import evaluate

# One L40S-class replica's resources, as KServe's sample writes them (requests made equal to limits).
_RESOURCES = {
    "limits": {"cpu": "4", "memory": "32Gi", "nvidia.com/gpu": "1"},
    "requests": {"cpu": "4", "memory": "32Gi", "nvidia.com/gpu": "1"},
}
_QWEN = {
    "apiVersion": "serving.kserve.io/v1alpha1",
    "kind": "LLMInferenceService",
    "metadata": {"name": "qwen2-7b-instruct", "namespace": "llm"},
    "spec": {
        "model": {"uri": "hf://Qwen/Qwen2.5-7B-Instruct", "name": "Qwen/Qwen2.5-7B-Instruct"},
        "replicas": 3,
        "router": {"scheduler": {}, "route": {}, "gateway": {}},
        "template": {"containers": [{"name": "main", "resources": copy.deepcopy(_RESOURCES)}]},
    },
}


def _careful() -> dict:
    """The sample as a careful platform writes it: GPU type selected, the GPU taint tolerated and the model pinned to
    a commit (hf://<org>/<model>:<revision>, kserve v0.20.0 python/storage/kserve_storage/kserve_storage.py L650-657)."""
    svc = copy.deepcopy(_QWEN)
    svc["spec"]["model"]["uri"] = "hf://Qwen/Qwen2.5-7B-Instruct:a09a35458c702241afdd5dd84d6e6c3d3e6e3e8a"
    template = svc["spec"]["template"]
    template["nodeSelector"] = {"karpenter.k8s.aws/instance-gpu-name": "l40s"}
    template["tolerations"] = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
    # The storage initializer downloads hf:// into an emptyDir at /mnt/models (workload_storage.go:178-200, 396-422;
    # pkg/utils/storage.go:107-121): the node's disk, which the server's request accounts for (S19).
    template["containers"][0]["resources"]["requests"]["ephemeral-storage"] = "40Gi"
    return svc


def _violations(tmp_path, *docs: dict) -> list[tuple[str, str, str]]:
    path = tmp_path / "llmisvc.yaml"
    path.write_text(yaml.safe_dump_all(docs))
    return [(v.policy, v.enforcement, v.message) for v in evaluate(resources_of(read_manifests([str(path)])))]


def test_the_single_node_preset_supplies_the_model_server():
    [(path, pod)] = llmisvc_pod_specs(_QWEN["spec"])
    main = pod["containers"][0]
    assert path == "spec.template"
    assert main["command"][:3] == ["vllm", "serve", "/mnt/models"]
    assert main["readinessProbe"]["httpGet"] == {"path": "/health", "port": 8000}
    assert main["startupProbe"]["failureThreshold"] * main["startupProbe"]["periodSeconds"] == 600
    assert main["resources"]["limits"]["nvidia.com/gpu"] == "1"  # the service's own fields win
    assert pod["terminationGracePeriodSeconds"] == 60
    assert "--shutdown-timeout" in main["command"] and shutdown_timeout(pod) == 40  # 60 - 15 - 5


def test_a_careful_llmisvc_has_no_blocking_finding(tmp_path):
    assert [v for v in _violations(tmp_path, _careful()) if v[1] == "mandatory"] == []


def test_tensor_parallelism_beyond_the_gpus_fires(tmp_path):
    svc = _careful()
    svc["spec"]["parallelism"] = {"tensor": 2}
    found = [m for p, _, m in _violations(tmp_path, svc) if p == "vllm-tp-matches-gpu-limit"]
    assert found == [
        "spec.template container main: tensor parallel 2 × pipeline parallel 1 = 2 GPUs, but resources.limits "
        "nvidia.com/gpu is 1; vLLM runs one rank per GPU, so spare GPUs sit idle and missing ones stop the engine at startup"
    ]


def test_presets_follow_the_spec_shape():
    assert presets_for({}) == ["kserve-config-llm-template"]
    assert presets_for({"worker": {}, "parallelism": {"data": 16, "dataLocal": 8}}) == ["kserve-config-llm-worker-data-parallel"]
    assert presets_for({"worker": {}, "parallelism": {"pipeline": 2}}) == []  # v0.20.0 ships no pipeline preset
    assert presets_for({"prefill": {}}) == ["kserve-config-llm-prefill-template", "kserve-config-llm-decode-template"]


def test_data_parallel_ranks_count_the_local_engines(tmp_path):
    svc = _careful()
    spec = svc["spec"]
    spec["parallelism"] = {"data": 16, "dataLocal": 8, "expert": True}
    spec["template"]["containers"][0]["resources"] = {"limits": {"nvidia.com/gpu": "8", "cpu": "32", "memory": "512Gi"}}
    spec["worker"] = copy.deepcopy(spec["template"])
    assert [m for p, _, m in _violations(tmp_path, svc) if p == "vllm-tp-matches-gpu-limit"] == []
    spec["template"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] = "4"
    assert len([m for p, _, m in _violations(tmp_path, svc) if p == "vllm-tp-matches-gpu-limit"]) == 1


_CONFIG = {
    "apiVersion": "serving.kserve.io/v1alpha2",
    "kind": "LLMInferenceServiceConfig",
    "metadata": {"name": "gpu-sizing", "namespace": "llm"},
    "spec": {
        "template": {
            "containers": [{"name": "main", "resources": copy.deepcopy(_RESOURCES)}],
        }
    },
}


def test_base_refs_are_merged_and_a_config_alone_is_no_workload(tmp_path):
    svc = _careful()
    del svc["spec"]["template"]["containers"][0]["resources"]
    svc["spec"]["baseRefs"] = [{"name": "gpu-sizing"}]
    found = _violations(tmp_path, _CONFIG, svc)
    assert [v for v in found if v[0] in ("serving-memory-limit", "serving-resource-requests")] == []
    resources = resources_of(read_manifests([str(tmp_path / "llmisvc.yaml")]))
    with cluster_view(resources):
        assert pod_specs(resources[0]) == []  # the config is merged into the service, never read alone
        [(_, pod)] = pod_specs(resources[1])
    assert pod["containers"][0]["resources"]["limits"]["memory"] == "32Gi"


def test_a_base_ref_not_among_the_manifests_is_not_guessed(tmp_path):
    svc = _careful()
    del svc["spec"]["template"]["containers"][0]["resources"]
    svc["spec"]["baseRefs"] = [{"name": "elsewhere"}]
    assert [v for v in _violations(tmp_path, svc) if v[0] == "serving-memory-limit"] == []
    del svc["spec"]["baseRefs"]
    assert [v[0] for v in _violations(tmp_path, svc) if v[0] == "serving-memory-limit"] == ["serving-memory-limit"]


def _data_parallel() -> dict:
    """KServe v0.20.0's docs/samples/llmisvc/dp-ep form: DP16 over two 8-GPU pods, the worker beside the template."""
    svc = _careful()
    spec = svc["spec"]
    spec["parallelism"] = {"data": 16, "dataLocal": 8, "expert": True, "tensor": 1}
    resources = {"cpu": "64", "memory": "512Gi", "nvidia.com/gpu": "8"}
    spec["template"]["containers"][0]["resources"] = {"limits": dict(resources), "requests": dict(resources)}
    spec["worker"] = copy.deepcopy(spec["template"])
    return svc


def test_the_data_parallel_worker_is_a_headless_rank_without_probes():
    """config-llm-worker-data-parallel.yaml:290-533 at v0.20.0: the worker runs `vllm serve ... --headless` (:481) and
    defines no probe; its leader (spec.template) has the preset's probes. Same for the prefill worker (:482 of
    config-llm-prefill-worker-data-parallel.yaml), which earlier read as having the leader's probes."""
    pods = dict(llmisvc_pod_specs(_data_parallel()["spec"]))
    leader, worker = pods["spec.template"]["containers"][0], pods["spec.worker"]["containers"][0]
    assert "--headless" in worker["command"] and "--headless" not in leader["command"]
    assert not any(k in worker for k in ("readinessProbe", "startupProbe", "livenessProbe"))
    assert leader["readinessProbe"]["httpGet"]["path"] == "/health"
    prefill = {"prefill": {"parallelism": {"data": 2}, "worker": {}, "template": {}}, "parallelism": {"data": 2}, "worker": {}}
    pods = dict(llmisvc_pod_specs(prefill))
    assert "--headless" in pods["spec.prefill.worker"]["containers"][0]["command"]
    assert "readinessProbe" not in pods["spec.prefill.worker"]["containers"][0]
    assert "readinessProbe" in pods["spec.prefill.template"]["containers"][0]


def test_a_headless_worker_needs_no_readiness_or_startup_probe(tmp_path):
    """The careful form of KServe's dp-ep sample: the leader takes the requests, the headless worker holds ranks."""
    found = _violations(tmp_path, _data_parallel())
    assert [v for v in found if v[0] in ("serving-readiness-probe", "llm-startup-probe-budget")] == []


def test_a_worker_that_fronts_itself_still_needs_probes(tmp_path):
    """With no leader template (pipeline parallelism, no v0.20.0 preset) the workers join the InferencePool
    (workload_multi_node.go:141-145): a worker running `vllm serve` without probes fires G4 and S16."""
    svc = _data_parallel()
    spec = svc["spec"]
    spec["parallelism"] = {"pipeline": 2}
    del spec["template"]
    spec["worker"]["containers"][0]["image"] = "vllm/vllm-openai:v0.11.0"
    spec["worker"]["containers"][0]["args"] = ["--model", "Qwen/Qwen2.5-7B-Instruct", "--pipeline-parallel-size", "2"]
    found = {(p, m.split(":")[0]) for p, _, m in _violations(tmp_path, svc)}
    assert ("serving-readiness-probe", "spec.worker container main") in found
    assert ("llm-startup-probe-budget", "spec.worker container main") in found


# --- The derived pod as the controller renders it (session 47): the script's positional args, VLLM_ADDITIONAL_ARGS,
# a replaced command, the preset's securityContext. kserve/kserve v0.20.0 config/llmisvcconfig/config-llm-template.yaml.


def _main_of(svc: dict, path: str = "spec.template") -> dict:
    return dict(llmisvc_pod_specs(svc["spec"]))[path]["containers"][0]


def test_args_are_appended_to_the_script_not_replacing_its_flags(tmp_path):
    """The preset's `--` is the fourth word of its COMMAND (config-llm-template.yaml:16-19 and :179; bash -c takes it as
    $0), and the preset has no args: a user's `args: [--tensor-parallel-size, "2"]` is set whole (strategic merge,
    config_merge.go:779-827) and reaches vLLM as the script's "$@" (:177), after --served-model-name and --port
    (:166-168). Nothing of the preset is lost, so nothing blocks."""
    svc = _careful()
    main = svc["spec"]["template"]["containers"][0]
    main["args"] = ["--tensor-parallel-size", "2"]
    for key in ("limits", "requests"):
        main["resources"][key]["nvidia.com/gpu"] = "2"
    derived = _main_of(svc)
    assert derived["command"][:5] == ["vllm", "serve", "/mnt/models", "--port", "8000"]
    assert derived["args"] == ["--tensor-parallel-size", "2"]
    assert [v for v in _violations(tmp_path, svc) if v[1] == "mandatory"] == []


def test_vllm_additional_args_reach_the_derived_command_line(tmp_path):
    """`${VLLM_ADDITIONAL_ARGS}` is in the script's eval line (config-llm-template.yaml:176): its words are vLLM's
    flags. KServe v0.20.0's own sample (docs/samples/llmisvc/dp-ep/deepseek-r1-gpu-rdma-roce/
    llm-inference-service-dp-ep-deepseek-r1-gpu-naive.yaml) sets --gpu-memory-utilization and --max-model-len there,
    so S1 and S2 stay silent; a quoted JSON value stays one word, as the shell's eval keeps it."""
    svc = _careful()
    svc["spec"]["template"]["containers"][0]["env"] = [
        {
            "name": "VLLM_ADDITIONAL_ARGS",
            "value": '--gpu-memory-utilization 0.95 --max-model-len 8192 --kv_transfer_config \'{"kv_connector":"NixlConnector"}\'',
        }
    ]
    command = _main_of(svc)["command"]
    assert command[-6:] == [
        "--gpu-memory-utilization",
        "0.95",
        "--max-model-len",
        "8192",
        "--kv_transfer_config",
        '{"kv_connector":"NixlConnector"}',
    ]
    found = {v[0] for v in _violations(tmp_path, svc)}
    assert not found & {"vllm-gpu-memory-utilization-explicit", "vllm-max-model-len-explicit"}
    svc["spec"]["template"]["containers"][0]["env"] = [
        {"name": "VLLM_ADDITIONAL_ARGS", "valueFrom": {"configMapKeyRef": {"name": "x", "key": "y"}}}
    ]
    assert "--max-model-len" not in _main_of(svc)["command"]  # a valueFrom is not known from the files


def test_a_command_of_the_users_replaces_the_script():
    """Container.command is a list with no merge key: the user's replaces the preset's script, whose flags
    (--shutdown-timeout, VLLM_ADDITIONAL_ARGS) then never reach vLLM."""
    svc = _careful()
    main = svc["spec"]["template"]["containers"][0]
    main["command"] = ["vllm", "serve", "/mnt/models", "--port", "8080"]
    main["env"] = [{"name": "VLLM_ADDITIONAL_ARGS", "value": "--max-model-len 8192"}]
    assert _main_of(svc)["command"] == ["vllm", "serve", "/mnt/models", "--port", "8080"]


def _g28(tmp_path, svc: dict) -> list[tuple[str, str]]:
    return [(e, m) for p, e, m in _violations(tmp_path, svc) if p == "run-as-non-root-image-user"]


def test_the_presets_run_as_non_root_meets_a_root_image(tmp_path):
    """The preset's main container sets runAsNonRoot: true and no runAsUser (config-llm-template.yaml:187-196). A
    spec.template that swaps in vllm/vllm-openai (root: components/image_users.toml) gets a pod the kubelet refuses
    (G28, advice as for any pod: a platform that assigns UIDs fills runAsUser). The preset's own llm-d image is not
    listed as root, so the careful form is silent."""
    assert _g28(tmp_path, _careful()) == []
    svc = _careful()
    svc["spec"]["template"]["containers"][0]["image"] = "vllm/vllm-openai:v0.10.1"
    [(enforcement, message)] = _g28(tmp_path, svc)
    assert enforcement == "advisory" and message.startswith("spec.template container main: runAsNonRoot: true without runAsUser")
    # The pod-level field does not override the container's (core/v1 SecurityContext): still refused.
    svc["spec"]["template"]["securityContext"] = {"runAsNonRoot": False}
    assert len(_g28(tmp_path, svc)) == 1
    # The container's own runAsNonRoot: false merges over the preset's true (a map, field by field): silent.
    svc["spec"]["template"]["containers"][0]["securityContext"] = {"runAsNonRoot": False}
    assert _g28(tmp_path, svc) == []
    assert _main_of(svc)["securityContext"]["capabilities"] == {"drop": ["ALL"]}  # the rest of the preset's stays
