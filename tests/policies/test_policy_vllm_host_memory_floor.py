"""G46 vllm-host-memory-floor: a vLLM container's memory limit holds what vLLM allocates in host memory.

Fixtures: fresh set 47 SecureCloudOps/llm-rag-infra-platform k8s/vllm/deployment.yaml at
5c772f91cfa74806d2476c25c296b941f65bb1c0 (vllm/vllm-openai:latest, limits.memory 2Gi; labelled G46 blocking: advice
here, V1 allocates no swap); spent set 15 robertgshaw2-neuralmagic/vllm-k8s vllm-kserve/serving-runtime.yml at
dcd1dd031ce9d3d9daa03e87922f30427dd54b47 (vllm/vllm-openai:v0.4.2, a V0 release, limits.memory 2Gi in a
ServingRuntime whose GPUs the InferenceService supplies: advice).
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

POLICY = "vllm-host-memory-floor"

SECURE = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "vllm", "namespace": "ai-system"},
    "spec": {
        "selector": {"matchLabels": {"app": "vllm"}},
        "template": {
            "metadata": {"labels": {"app": "vllm"}},
            "spec": {
                "containers": [
                    {
                        "name": "vllm",
                        "image": "vllm/vllm-openai:latest",
                        "command": ["python", "-m", "vllm.entrypoints.openai.api_server"],
                        "args": ["--model", "Qwen/Qwen2.5-0.5B-Instruct"],
                        "resources": {"requests": {"cpu": "250m", "memory": "512Mi"}, "limits": {"cpu": "1", "memory": "2Gi"}},
                    }
                ]
            },
        },
    },
}
RUNTIME = {
    "apiVersion": "serving.kserve.io/v1alpha1",
    "kind": "ServingRuntime",
    "metadata": {"name": "nm-vllm"},
    "spec": {
        "supportedModelFormats": [{"name": "huggingface", "autoSelect": True}],
        "containers": [
            {
                "name": "kserve-container",
                "image": "vllm/vllm-openai:v0.4.2",
                "command": ["python3", "-m", "vllm.entrypoints.openai.api_server"],
                "args": ["--model", "/mnt/models"],
                "resources": {"requests": {"cpu": "1", "memory": "2Gi"}, "limits": {"cpu": "1", "memory": "2Gi"}},
            }
        ],
    },
}


def _container(doc: dict) -> dict:
    return doc["spec"]["template"]["spec"]["containers"][0]


def test_a_small_limit_on_a_v1_server_is_advice():
    ((enforcement, message),) = found_by([SECURE], POLICY)
    assert enforcement == "advisory" and "2 GiB" in message


def test_a_serving_runtime_at_a_v0_release_without_its_gpus_is_advice():
    assert [e for e, _ in found_by([RUNTIME], POLICY)] == ["advisory"]


def test_a_v0_gpu_server_below_its_pinned_swap_space_blocks():
    v0 = copy.deepcopy(SECURE)
    _container(v0)["image"] = "vllm/vllm-openai:v0.6.6"
    _container(v0)["resources"]["limits"].update({"memory": "3Gi", "nvidia.com/gpu": 1})
    ((enforcement, message),) = found_by([v0], POLICY)
    assert enforcement == "mandatory"
    assert "1 x --swap-space 4 GiB, its default" in message
    # VLLM_USE_V1=0 on a later release runs V0 too; two ranks pin twice as much.
    forced = copy.deepcopy(v0)
    _container(forced)["image"] = "vllm/vllm-openai:v0.9.2"
    _container(forced)["env"] = [{"name": "VLLM_USE_V1", "value": "0"}]
    _container(forced)["args"] += ["--tensor-parallel-size", "2"]
    _container(forced)["resources"]["limits"].update({"memory": "6Gi", "nvidia.com/gpu": 2})
    assert [e for e, _ in found_by([forced], POLICY)] == ["mandatory"]


def test_careful_forms_are_silent():
    roomy = copy.deepcopy(SECURE)
    _container(roomy)["resources"]["limits"]["memory"] = "16Gi"
    no_swap = copy.deepcopy(SECURE)
    _container(no_swap)["image"] = "vllm/vllm-openai:v0.6.6"
    _container(no_swap)["args"] += ["--swap-space", "0"]
    _container(no_swap)["resources"]["limits"].update({"memory": "8Gi", "nvidia.com/gpu": 1})
    cpu = copy.deepcopy(SECURE)
    _container(cpu)["image"] = "vllm/vllm-openai-cpu:v0.12.0"
    unset = copy.deepcopy(SECURE)
    _container(unset)["resources"]["limits"].pop("memory")
    for doc in (roomy, no_swap, cpu, unset):
        assert found_by([doc], POLICY) == [], doc["spec"]["template"]["spec"]["containers"][0]
    # The positive twin of the no-swap form: the same server with the default swap space is read and blocks (so the
    # silence above is the rule's, not a reader that stopped seeing the server: review 45 #19).
    twin = copy.deepcopy(no_swap)
    _container(twin)["args"] = _container(twin)["args"][:-2]
    _container(twin)["resources"]["limits"]["memory"] = "3Gi"
    assert [e for e, _ in found_by([twin], POLICY)] == ["mandatory"]


def test_multi_node_ranks_are_charged_to_the_gpus_this_container_holds():
    # Review 45 #5 (/tmp/review45/m/g46a, LeaderWorkerSet): TP 8 x PP 2 over two 8-GPU pods pins 8 x 4 GiB in the
    # leader's cgroup (each worker pins in its own process), under its 48Gi limit: silent. Below 32 GiB it blocks.
    lws = copy.deepcopy(SECURE)
    _container(lws)["image"] = "vllm/vllm-openai:v0.6.6"
    _container(lws)["args"] += ["--tensor-parallel-size", "8", "--pipeline-parallel-size", "2"]
    _container(lws)["resources"]["limits"].update({"memory": "48Gi", "nvidia.com/gpu": 8})
    assert found_by([lws], POLICY) == []
    _container(lws)["resources"]["limits"]["memory"] = "24Gi"
    ((enforcement, message),) = found_by([lws], POLICY)
    assert enforcement == "mandatory" and "8 x --swap-space" in message


def test_release_of_a_kustomize_retagged_image_is_unknown(tmp_path, capsys):
    # Review 45 #9 (/tmp/review45/m/kz3): base v0.6.6 (V0), limit 3Gi; an overlay's images: newTag v0.10.1 (V1, no
    # pinned swap) deploys another release: advice (the 4 GiB floor) at most. Without the overlay it blocks.
    import json
    from pathlib import Path

    from policies.check import main

    v0 = copy.deepcopy(SECURE)
    _container(v0)["image"] = "vllm/vllm-openai:v0.6.6"
    _container(v0)["resources"]["limits"].update({"memory": "3Gi", "nvidia.com/gpu": 1})
    base = Path(tmp_path, "base")
    base.mkdir()
    (base / "deploy.yaml").write_text(json.dumps(v0))
    (base / "kustomization.yaml").write_text("resources: [deploy.yaml]\n")

    def levels() -> list[str]:
        main([str(tmp_path), "--format", "json"])
        rows = json.loads(capsys.readouterr().out)["violations"]
        return [r["enforcement"] for r in rows if r["policy"] == POLICY]

    assert levels() == ["mandatory"]
    prod = Path(tmp_path, "prod")
    prod.mkdir()
    (prod / "kustomization.yaml").write_text("resources: [../base]\nimages:\n- name: vllm/vllm-openai\n  newTag: v0.10.1\n")
    assert levels() == ["advisory"]
