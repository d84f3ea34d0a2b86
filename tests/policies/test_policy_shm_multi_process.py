"""S4 owns the /dev/shm of every multi-process GPU server, whatever engine, launcher or pod template runs it.

Which containers need one is policies/reading/shm.py shm_needs (engine table facts, components/rank_launchers.toml);
each form below fires or stays silent, and G36 (memory-emptydir-size-limit) never reports a volume S4 owns.
"""

from __future__ import annotations

import copy

import pytest
import yaml

from components.engine_shm import SHM
from components.engine_shm import load as load_shm
from components.rank_launchers import LAUNCHERS, load_launchers
from tests.conftest import shared_path
from tests.policies.policy_fixtures import found_by

S4 = "tensor-parallel-requires-dshm"
G36 = "memory-emptydir-size-limit"
NOTHING = "but nothing is mounted at /dev/shm"
UNBOUNDED = "has no sizeLimit and not every container of the pod has a memory limit"


def _deployment(container: dict, shm: dict | None = None, host_ipc: bool = False) -> dict:
    """A Deployment of one server container; ``shm`` the emptyDir mounted at /dev/shm (none when None)."""
    container = copy.deepcopy(container)
    pod: dict = {"containers": [container]}
    if shm is not None:
        container["volumeMounts"] = [{"name": "dshm", "mountPath": "/dev/shm"}]
        pod["volumes"] = [{"name": "dshm", "emptyDir": shm}]
    if host_ipc:
        pod["hostIPC"] = True
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "llm"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "llm"}},
            "template": {"metadata": {"labels": {"app": "llm"}}, "spec": pod},
        },
    }


def _gpus(count: int, memory: str | None = None) -> dict:
    limits: dict = {"nvidia.com/gpu": str(count)}
    if memory:
        limits["memory"] = memory
    return {"limits": limits}


TGI = {
    "name": "tgi",
    "image": "ghcr.io/huggingface/text-generation-inference:3.3.7",
    "args": ["--model-id", "meta-llama/Llama-3.1-70B-Instruct", "--num-shard", "2"],
    "resources": _gpus(2),
}
SGLANG = {
    "name": "sglang",
    "image": "lmsysorg/sglang:v0.5.5",
    "command": ["python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen3-32B", "--tp-size", "4"],
    "resources": _gpus(4),
}
TRTLLM = {
    "name": "trtllm",
    "image": "nvcr.io/nvidia/tensorrt-llm/release:1.0.0",
    "command": ["trtllm-serve", "/models/llama", "--tp_size", "2"],
    "resources": _gpus(2),
}
NIM = {
    "name": "nim",
    "image": "nvcr.io/nim/meta/llama-3.1-70b-instruct:1.12.0",
    "env": [{"name": "NIM_TENSOR_PARALLEL_SIZE", "value": "4"}],
    "resources": _gpus(4),
}
VLLM_MP = {
    "name": "vllm",
    "image": "vllm/vllm-openai:v0.33.0",
    "args": ["--model", "Qwen/Qwen3-8B", "--distributed-executor-backend", "mp"],
    "resources": _gpus(1),
}
TORCHRUN = {
    "name": "server",
    "image": "registry.example.com/team/llm-server:1.4.2",
    "command": ["bash", "-c", "pip list && torchrun --standalone --nproc_per_node=4 serve.py --port 8000"],
    "resources": _gpus(4),
}
DEEPSPEED = {
    "name": "server",
    "image": "registry.example.com/team/ds-server:2.0.1",
    "command": ["deepspeed", "serve.py", "--port", "8000"],
    "resources": _gpus(2),
}
TRITON_TRTLLM = {
    "name": "triton",
    "image": "nvcr.io/nvidia/tritonserver:24.08-trtllm-python-py3",
    "command": ["sh", "-c", "python3 /opt/scripts/launch_triton_server.py --world_size 2 --model_repo /models; sleep infinity"],
    "resources": _gpus(2),
}


@pytest.mark.parametrize(
    ("container", "why"),
    [
        (TGI, "runs 2 ranks (tensor parallel 2 × pipeline parallel 1)"),
        (SGLANG, "runs 4 ranks (tensor parallel 4 × pipeline parallel 1)"),
        (TRTLLM, "runs 2 ranks (tensor parallel 2 × pipeline parallel 1)"),
        (NIM, "runs 4 ranks (tensor parallel 4 × pipeline parallel 1)"),
        (VLLM_MP, "runs its workers as processes of their own (--distributed-executor-backend mp)"),
        (TORCHRUN, "starts 4 processes (torchrun --nproc-per-node 4)"),
        (DEEPSPEED, "starts 2 processes (deepspeed with no --num-gpus/--num-accelerators: one process per GPU)"),
        (TRITON_TRTLLM, "starts 2 processes (launch_triton_server.py (TensorRT-LLM backend) --world-size 2)"),
    ],
    ids=["tgi", "sglang", "trtllm", "nim", "vllm-mp", "torchrun", "deepspeed", "triton-trtllm"],
)
def test_every_engine_and_launcher_without_shm_is_advised(container, why):
    """No engine row but vLLM's says several ranks fail on 64Mi (shm_fails), and a launcher proves only the processes:
    advice, each with why the pod runs several processes."""
    assert found_by([_deployment(container)], S4) == [
        (
            "advisory",
            f"container {container['name']}: {why} {NOTHING}, where NCCL runs out of the runtime's 64Mi "
            "(vllm-project/vllm#1710); mount an emptyDir {medium: Memory, sizeLimit: ...} at /dev/shm",
        )
    ]


@pytest.mark.parametrize("container", [TGI, SGLANG, TRTLLM, NIM, VLLM_MP, TORCHRUN, DEEPSPEED, TRITON_TRTLLM])
def test_a_bounded_memory_shm_or_host_ipc_is_silent(container):
    assert found_by([_deployment(container, {"medium": "Memory", "sizeLimit": "8Gi"})], S4) == []
    assert found_by([_deployment(container, host_ipc=True)], S4) == []


def test_vllm_ranks_on_its_command_line_still_block():
    vllm = {"name": "vllm", "image": "vllm/vllm-openai:v0.33.0", "args": ["--model", "m", "-tp", "2"], "resources": _gpus(2)}
    assert [level for level, _ in found_by([_deployment(vllm)], S4)] == ["mandatory"]


def test_unbounded_and_uncounted_is_s4_advice_once_and_g36_leaves_it():
    objs = [_deployment(SGLANG, {"medium": "Memory"})]
    [(level, message)] = found_by(objs, S4)
    assert level == "advisory" and UNBOUNDED in message
    assert found_by(objs, G36) == []


def test_a_memory_limit_bounds_the_shm_silently():
    """k8s.io/api EmptyDirVolumeSource.sizeLimit: a memory emptyDir is bounded by the sum of the pod's memory limits."""
    sglang = {**SGLANG, "resources": _gpus(4, memory="200Gi")}
    objs = [_deployment(sglang, {"medium": "Memory"})]
    assert found_by(objs, S4) == []
    assert found_by(objs, G36) == []


def test_tgi_shards_over_every_gpu_when_num_shard_is_unset_and_asks_for_1gi():
    """TGI v3.3.7 launcher find_num_shards: neither --num-shard nor --sharded takes every visible GPU; its README gives
    /dev/shm 1Gi."""
    tgi = {**TGI, "args": ["--model-id", "meta-llama/Llama-3.1-70B-Instruct"], "resources": _gpus(4, memory="300Gi")}
    [(level, message)] = found_by([_deployment(tgi, {"medium": "Memory", "sizeLimit": "256Mi"})], S4)
    assert level == "advisory"
    assert message.startswith("container tgi: runs 4 Hugging Face TGI shards (--num-shard unset: one per GPU), but its")
    assert "sizeLimit 256Mi is below the 1Gi Hugging Face TGI's publisher asks for with several ranks" in message
    assert found_by([_deployment(tgi, {"medium": "Memory", "sizeLimit": "1Gi"})], S4) == []


@pytest.mark.parametrize(
    "container",
    [
        # one vLLM rank on one GPU
        {
            "name": "vllm",
            "image": "vllm/vllm-openai:v0.33.0",
            "args": ["--model", "m", "--tensor-parallel-size", "1"],
            "resources": _gpus(1),
        },
        # llama.cpp splits layers over GPUs in one process (no tensor-parallel setting in its row)
        {
            "name": "llama",
            "image": "ghcr.io/ggml-org/llama.cpp:server-cuda-b4500",
            "args": ["-m", "/models/q4.gguf", "--n-gpu-layers", "99"],
            "resources": _gpus(2),
        },
        # torchrun with one process; deepspeed named by pip, not run
        {**TORCHRUN, "command": ["torchrun", "--nproc-per-node", "1", "serve.py"]},
        {**DEEPSPEED, "command": ["sh", "-c", "pip install deepspeed && python serve.py"]},
    ],
    ids=["vllm-tp1", "llama-cpp-2-gpus", "torchrun-1", "pip-deepspeed"],
)
def test_single_process_servers_are_silent_and_their_shm_stays_g36s(container):
    assert found_by([_deployment(container)], S4) == []
    objs = [_deployment(container, {"medium": "Memory"})]
    assert found_by(objs, S4) == []
    assert [level for level, _ in found_by(objs, G36)] == ["advisory"]


def _lws(gpus: int, memory: str | None) -> dict:
    """A LeaderWorkerSet of size 2 whose in-house image runs an engine no row recognises, each pod on ``gpus`` GPUs."""

    def pod(name: str) -> dict:
        return {
            "spec": {
                "containers": [
                    {
                        "name": name,
                        "image": "registry.example.com/team/engine:3.1",
                        "resources": _gpus(gpus, memory),
                        "volumeMounts": [{"name": "dshm", "mountPath": "/dev/shm"}],
                    }
                ],
                "volumes": [{"name": "dshm", "emptyDir": {"medium": "Memory"}}],
            }
        }

    return {
        "apiVersion": "leaderworkerset.x-k8s.io/v1",
        "kind": "LeaderWorkerSet",
        "metadata": {"name": "group"},
        "spec": {
            "replicas": 1,
            "leaderWorkerTemplate": {"size": 2, "leaderTemplate": pod("leader"), "workerTemplate": pod("worker")},
        },
    }


def test_a_multi_node_lws_gpu_group_is_s4s():
    found = found_by([_lws(8, None)], S4)
    assert [level for level, _ in found] == ["advisory", "advisory"]
    assert all("is a GPU pod of a 2-pod leader/worker group" in m and UNBOUNDED in m for _, m in found)
    assert found_by([_lws(8, None)], G36) == []
    assert found_by([_lws(8, "500Gi")], S4) == []


def test_lws_tensorrt_llm_example_is_s4_advice():
    """kubernetes-sigs/lws docs/examples/tensorrt-llm/lws.yaml (corpus manifests-v2, PROVENANCE-v2.md): size 2, 8 GPUs a
    pod, a memory /dev/shm with no sizeLimit and no memory limit. Advice on both templates, nothing from G36."""
    path = shared_path("corpus", "manifests-v2", "kubernetes-sigs__lws", "docs__examples__tensorrt-llm__lws.yaml")
    objs = [d for d in yaml.safe_load_all(path.read_text()) if isinstance(d, dict)]
    found = found_by(objs, S4)
    assert [level for level, _ in found] == ["advisory", "advisory"]
    assert all(UNBOUNDED in m for _, m in found)
    assert found_by(objs, G36) == []


def test_sglang_distributed_statefulset_with_a_bounded_shm_is_silent():
    """sgl-project/sglang@622284e3 docker/k8s-sglang-distributed-sts.yaml (corpus manifests-v2): TP 16 over 2 nodes
    with a 10Gi memory /dev/shm, the careful form."""
    path = shared_path("corpus", "manifests-v2", "sgl-project__sglang", "docker__k8s-sglang-distributed-sts.yaml")
    objs = [d for d in yaml.safe_load_all(path.read_text()) if isinstance(d, dict)]
    assert found_by(objs, S4) == []


# ray-project/kuberay@59d663aeec13760646da3db9c1cf8cfe883e30b7 (v1.7.0)
# ray-operator/config/samples/ray-service.high-throughput-gemma4.yaml:76-121, the GPU worker group (a minimal form:
# the fields S4 reads): 8 GPUs, a memory request and no memory limit, a memory emptyDir at /dev/shm without sizeLimit.
KUBERAY_GEMMA4 = {
    "apiVersion": "ray.io/v1",
    "kind": "RayService",
    "metadata": {"name": "gemma4"},
    "spec": {
        "rayClusterConfig": {
            "headGroupSpec": {
                "rayStartParams": {},
                "template": {
                    "spec": {
                        "containers": [
                            {
                                "name": "ray-head",
                                "image": "rayproject/ray-llm:2.56.0-py312-cu130",
                                "resources": {"limits": {"cpu": "8", "memory": "16Gi"}},
                            }
                        ]
                    }
                },
            },
            "workerGroupSpecs": [
                {
                    "replicas": 1,
                    "groupName": "gpu-group",
                    "rayStartParams": {},
                    "template": {
                        "spec": {
                            "containers": [
                                {
                                    "name": "llm",
                                    "image": "rayproject/ray-llm:2.56.0-py312-cu130",
                                    "resources": {
                                        "limits": {"nvidia.com/gpu": "8"},
                                        "requests": {"nvidia.com/gpu": "8", "cpu": "128", "memory": "512Gi"},
                                    },
                                    "volumeMounts": [{"mountPath": "/dev/shm", "name": "dshm"}],
                                }
                            ],
                            "volumes": [{"name": "dshm", "emptyDir": {"medium": "Memory"}}],
                        }
                    },
                }
            ],
        }
    },
}


def test_kuberay_gemma4_sample_gpu_worker_shm_is_s4_advice():
    found = found_by([KUBERAY_GEMMA4], S4)
    assert [level for level, _ in found] == ["advisory"]
    assert found[0][1].startswith("spec.rayClusterConfig.workerGroupSpecs[0].template.spec container llm: is a Ray pod with GPUs")
    assert UNBOUNDED in found[0][1]
    assert found_by([KUBERAY_GEMMA4], G36) == []


def test_kuberay_cpu_worker_and_an_operator_mounted_shm_are_silent():
    """A CPU-only Ray worker needs no /dev/shm of S4's (its unbounded one stays G36's); a GPU worker mounting nothing
    gets KubeRay's (v1.7.0 pod.go:855-858, sized to its memory by makeEmptyDirVolume)."""
    cpu = copy.deepcopy(KUBERAY_GEMMA4)
    worker = cpu["spec"]["rayClusterConfig"]["workerGroupSpecs"][0]["template"]["spec"]["containers"][0]
    worker["resources"] = {"requests": {"cpu": "16", "memory": "64Gi"}}
    assert found_by([cpu], S4) == []
    assert [level for level, _ in found_by([cpu], G36)] == ["advisory"]
    bare = copy.deepcopy(KUBERAY_GEMMA4)
    pod = bare["spec"]["rayClusterConfig"]["workerGroupSpecs"][0]["template"]["spec"]
    pod.pop("volumes")
    pod["containers"][0].pop("volumeMounts")
    assert found_by([bare], S4) == []


def test_the_tables_state_their_sources():
    assert all(row.source.strip() for row in LAUNCHERS)
    assert {row.name for row in LAUNCHERS} >= {"torchrun", "deepspeed", "mpirun", "triton-trtllm"}
    tgi, vllm = SHM["tgi"], SHM["vllm"]
    assert tgi.size == "1Gi" and tgi.ranks_unset == "gpus" and "v3.3.7" in tgi.source
    assert vllm.fails and ("distributed-executor-backend", "mp") in vllm.multiprocess and "#1710" in vllm.source


def test_bad_table_rows_are_refused_by_name(tmp_path):
    bad = tmp_path / "launchers.toml"
    bad.write_text('[launchers.x]\ndisplay = "x"\ncommands = ["x"]\ncount = ["n"]\nall_gpus = []\nunset = "all"\nsource = "s"\n')
    with pytest.raises(ValueError, match=r"launchers.x\]\.unset"):
        load_launchers(bad)
    table = tmp_path / "engines.toml"
    table.write_text('[engines.tgi.shm]\nsize = "lots"\nsource = "s"\n')
    with pytest.raises(ValueError, match=r"tgi.shm\]\.size"):
        load_shm(table)
    table.write_text('[engines.tgi.shm]\nsize = "1Gi"\n')
    with pytest.raises(ValueError, match="source required"):
        load_shm(table)
