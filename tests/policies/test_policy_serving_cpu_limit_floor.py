"""G9 serving-cpu-limit-floor: a model server's CPU limit below the processes its engine keeps busy (vLLM: its API
server and engine core, and from two GPUs a worker per GPU; components/serving_engines.toml [engines.vllm.cpus],
read from vllm-project/vllm@10056c17168807fb2f1081374ad79a3520b09bcf
docs/configuration/optimization.md "CPU Resources for GPU Deployments" and
@840e7972c6ab74061696e81e17d8a74db2aefd7e vllm/config/parallel.py, world size 1 -> the "uni" executor)."""

from __future__ import annotations

import copy

import pytest
from policy_fixtures import found_by

from components import engine_cpus

POLICY = "serving-cpu-limit-floor"


def _vllm(limits: dict | None, args: list[str] | None = None, gpus: int = 1) -> dict:
    resources: dict = {"requests": {"cpu": "1", "memory": "16Gi", "nvidia.com/gpu": gpus}}
    resources["limits"] = {"nvidia.com/gpu": gpus, **(limits or {})}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "vllm"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "vllm"}},
            "template": {
                "metadata": {"labels": {"app": "vllm"}},
                "spec": {
                    "containers": [
                        {
                            "name": "vllm",
                            "image": "vllm/vllm-openai:v0.10.1",
                            "args": ["--model", "Qwen/Qwen2.5-7B-Instruct", *(args or [])],
                            "resources": resources,
                        }
                    ]
                },
            },
        },
    }


# GoogleCloudPlatform/kubernetes-engine-samples ai-ml/gke-model-armor/preparing-the-model/vllm-gemma-deployment.yaml
# at 2b5036514162a489145c5e5570bc320efbcb37bf (corpus manifests-v2 row 11; the upstream file is not valid YAML, so
# its list items are re-indented here): `python3 -m vllm.entrypoints.api_server --tensor-parallel-size=2` on 2 L4s
# with limits.cpu "2": 1 API server + 1 engine core + 2 GPU workers keep 4 processes busy.
GEMMA = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "vllm-gemma-deployment"},
    "spec": {
        "replicas": 1,
        "selector": {"matchLabels": {"app": "gemma-server"}},
        "template": {
            "metadata": {"labels": {"app": "gemma-server"}},
            "spec": {
                "containers": [
                    {
                        "name": "inference-server",
                        "image": "us-docker.pkg.dev/vertex-ai/vertex-vision-model-garden-dockers/pytorch-vllm-serve:20250801_0916_RC01",
                        "resources": {
                            "requests": {"cpu": "2", "memory": "25Gi", "ephemeral-storage": "25Gi", "nvidia.com/gpu": 2},
                            "limits": {"cpu": "2", "memory": "25Gi", "ephemeral-storage": "25Gi", "nvidia.com/gpu": 2},
                        },
                        "command": ["python3", "-m", "vllm.entrypoints.api_server"],
                        "args": ["--model=/models/gemma-7b", "--tensor-parallel-size=2"],
                    }
                ]
            },
        },
    },
}


def test_a_one_cpu_limit_on_a_one_gpu_vllm_server_is_advice():
    ((level, message),) = found_by([_vllm({"cpu": 1})], POLICY)
    assert level == "advisory"
    assert message.startswith("container vllm: resources.limits.cpu 1 is below the 2 CPUs this vLLM server's own processes")
    assert "1500m" in found_by([_vllm({"cpu": "1500m"})], POLICY)[0][1]


def test_the_real_form_two_cpus_for_two_gpu_workers():
    ((level, message),) = found_by([GEMMA], POLICY)
    assert level == "advisory" and "is below the 4 CPUs" in message and "and 2 GPU worker processes" in message


def test_careful_limits_stay_silent():
    # No CPU limit; 4 CPUs on one GPU; 2 CPUs on one GPU (the two processes); 4 CPUs for TP 2; the GEMMA form with
    # its tensor parallel size removed (one GPU used of the two) and cpu 2.
    assert found_by([_vllm(None)], POLICY) == []
    assert found_by([_vllm({"cpu": "4"})], POLICY) == []
    assert found_by([_vllm({"cpu": "2"})], POLICY) == []
    assert found_by([_vllm({"cpu": "4"}, ["--tensor-parallel-size", "2"], gpus=2)], POLICY) == []
    one = copy.deepcopy(GEMMA)
    one["spec"]["template"]["spec"]["containers"][0]["args"] = ["--model=/models/gemma-7b"]
    assert found_by([one], POLICY) == []


def test_no_gpu_or_a_tensor_parallel_size_beyond_the_pods_gpus():
    # A container with no GPU (vLLM's CPU backend) keeps its API server and engine core busy, the engine core now
    # computing every token (session 51): below 2 CPUs is advice, 2 is silent; a multi-node TP 16 whose pod holds 8
    # GPUs counts the pod's 8 workers: 10 CPUs.
    cpu_only = _vllm({"cpu": "1"})
    resources = cpu_only["spec"]["template"]["spec"]["containers"][0]["resources"]
    del resources["limits"]["nvidia.com/gpu"], resources["requests"]["nvidia.com/gpu"]
    ((level, message),) = found_by([cpu_only], POLICY)
    assert level == "advisory" and "below the 2 CPUs" in message and "holds no GPU" in message
    resources["limits"]["cpu"] = "2"
    assert found_by([cpu_only], POLICY) == []
    ((_, message),) = found_by([_vllm({"cpu": "8"}, ["--tensor-parallel-size", "16"], gpus=8)], POLICY)
    assert "is below the 10 CPUs" in message


def test_a_cpu_container_only_named_like_vllm_is_no_cpu_backend():
    # Spent set 93 xinhangl44-blip/llm-inference-optimization@5d87a865 k8s/consumer-deployment.yaml: vllm-consumer:v1,
    # no command or args, limit 1 CPU, VLLM_ENDPOINT http://vllm-service:80: a Redis stream consumer calling vLLM, not
    # vLLM's CPU backend (review51b: the CPU-only advice said it was).
    consumer = _vllm({"cpu": "1"})
    container = consumer["spec"]["template"]["spec"]["containers"][0]
    container.update(image="vllm-consumer:v1", env=[{"name": "VLLM_ENDPOINT", "value": "http://vllm-service:80"}])
    del container["args"], container["resources"]["limits"]["nvidia.com/gpu"]
    del container["resources"]["requests"]["nvidia.com/gpu"]
    assert found_by([consumer], POLICY) == []
    container["image"] = "quay.io/pierdipi/vllm-cpu:latest"  # a CPU build of vLLM: the advice stands
    ((level, _),) = found_by([consumer], POLICY)
    assert level == "advisory"


def test_the_floor_is_a_fact_of_the_engine_table():
    assert [engine_cpus.min_cpus("vllm", n) for n in (1, 2, 8)] == [2, 4, 10]
    assert "CPU Resources for GPU Deployments" in engine_cpus.CPUS["vllm"].source
    assert engine_cpus.min_cpus("sglang", 1) == 0  # not established: no advice


def test_a_bad_cpus_table_fails_the_load_naming_it(tmp_path):
    path = tmp_path / "serving_engines.toml"
    path.write_text('[engines.x.cpus]\nprocesses = 0\nworker_per_gpu_from = 2\nsource = "s"\n')
    with pytest.raises(ValueError, match=r"\[engines.x.cpus\].processes"):
        engine_cpus.load(path)
    path.write_text("[engines.x.cpus]\nprocesses = 2\n")
    with pytest.raises(ValueError, match="must hold exactly"):
        engine_cpus.load(path)


# CPU-only model servers (res48): an engine that computes the model on CPU threads when it holds no GPU (the engine
# table's [engines.NAME.cpu_inference]: ollama/ollama v0.32.15 llm/llama_server.go L412-416 and api/types.go L1118,
# llama.cpp b8914 common/common.cpp L266-275 / L188-205, mudler/LocalAI v4.9.0 core/application/startup.go L58-61).
def _cpu_server(image: str, cpu_limit: object, name: str = "ollama", **podspec: object) -> dict:
    container: dict = {"name": name, "image": image, "ports": [{"containerPort": 11434}]}
    if cpu_limit is not None:
        container["resources"] = {"requests": {"cpu": "250m", "memory": "4Gi"}, "limits": {"cpu": cpu_limit, "memory": "8Gi"}}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [container], **podspec}},
        },
    }


def test_engine_table_states_cpu_inference_with_a_source():
    assert {"ollama", "llama-cpp", "localai"} <= set(engine_cpus.CPU_INFERENCE)
    assert all(row.min_cpus == 1 and "L" in row.source for row in engine_cpus.CPU_INFERENCE.values())


def test_a_cpu_only_server_under_one_core_is_advised():
    # The form a tutorial writes: ollama/ollama with requests 250m/limits 500m and no GPU.
    [(level, message)] = found_by([_cpu_server("ollama/ollama:0.5.4", "500m")], POLICY)
    assert level == "advisory"
    assert message.startswith("container ollama: resources.limits.cpu 500m on this Ollama server, which holds no GPU")
    assert "raise the limit to 1 CPU or more" in message
    llama = _cpu_server("ghcr.io/ggml-org/llama.cpp:server-b4500", "0.25", name="llama")
    llama["spec"]["template"]["spec"]["containers"][0]["args"] = ["-m", "/models/qwen2.5-0.5b-instruct-q4_k_m.gguf"]
    assert [lvl for lvl, _ in found_by([llama], POLICY)] == ["advisory"]


def test_cpu_only_careful_forms_stay_silent():
    # One CPU with the threads left to one per physical core is advice since brief engines50b (spent set 81
    # TrainWithShubham/AI-BankApp-DevOps, Ollama at 1000m); two CPUs are silent.
    assert found_by([_cpu_server("ollama/ollama:0.5.4", "2")], POLICY) == []
    assert found_by([_cpu_server("ollama/ollama:0.5.4", "4")], POLICY) == []
    assert found_by([_cpu_server("ollama/ollama:0.5.4", None)], POLICY) == []
    assert found_by([_cpu_server("ollama/ollama:0.5.4", "{{ .Values.cpu }}")], POLICY) == []
    # A GPU in any form: the model is not computed on the CPU.
    assert found_by([_cpu_server("ollama/ollama:0.5.4", "500m", nodeSelector={"nvidia.com/gpu.present": "true"})], POLICY) == []
    gpu = _cpu_server("ollama/ollama:0.5.4", "500m")
    gpu["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] = 1
    assert found_by([gpu], POLICY) == []
    # Not a model server (a chat UI beside it).
    assert found_by([_cpu_server("ghcr.io/open-webui/open-webui:v0.6.5", "500m", name="webui")], POLICY) == []


def _named(name: str = "qwen-app-vllm-container", image: str = "IMAGE_NAME", **changes) -> dict:
    """Spent set 70 ngthecoder/qwen_serving k8s/vllm/deployment.yaml, reduced: image IMAGE_NAME (the repository's
    Dockerfile, not among the files, is FROM vllm/vllm-openai:v0.19.1), a container named after vLLM on 8000 with one
    GPU and cpu 1000m."""
    obj = _vllm({"cpu": "1000m", "memory": "8Gi"}, ["--host", "0.0.0.0", "--port", "8000", "--max-model-len", "2048"])
    container = obj["spec"]["template"]["spec"]["containers"][0]
    container.update(name=name, image=image, ports=[{"containerPort": 8000}])
    container["args"][1] = "Qwen/Qwen2-1.5B-Instruct"
    container.update(changes)
    return obj


def test_a_server_named_after_vllm_under_an_unnamed_image_is_vllm():
    ((level, message),) = found_by([_named()], POLICY)
    assert level == "advisory"
    assert message.startswith(
        "container qwen-app-vllm-container: resources.limits.cpu 1000m is below the 2 CPUs this vLLM server's own "
        "processes keep busy with 1 GPU"
    )
    assert len(found_by([_named(name="vllm", image="registry.example.com/team/qwen-serving:1.2")], POLICY)) == 1


def test_careful_named_forms_are_not_taken_for_vllm():
    assert found_by([_named(name="vllm-router")], POLICY) == []  # another program named after it
    assert found_by([_named(image="nginx:1.27")], POLICY) == []
    assert found_by([_named(name="qwen-server")], POLICY) == []  # no engine word in the name
    assert found_by([_named(ports=[{"containerPort": 9000}], args=["--port", "9000"])], POLICY) == []  # not vLLM's port
    assert found_by([_named(command=["python", "serve.py"])], POLICY) == []  # its own program
    assert found_by([_named(args=[])], POLICY) == []  # the image's own script, options unseen
    no_gpu = _named()
    no_gpu["spec"]["template"]["spec"]["containers"][0]["resources"] = {"limits": {"cpu": "1000m"}}
    assert found_by([no_gpu], POLICY) == []
