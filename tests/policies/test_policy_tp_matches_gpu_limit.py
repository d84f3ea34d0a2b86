"""S3 vllm-tp-matches-gpu-limit: one compliant fixture, one mutation per case."""

from policy_fixtures import LWS_TYPE, RAY_CLUSTER_TYPE, isvc, isvc_props, messages, resource, set_arg, vllm_container

from policies.vllm.tp_matches_gpu_limit import POLICY

IDLE = "vLLM runs one rank per GPU, so spare GPUs sit idle and missing ones stop the engine at startup"
LABEL = "container kserve-container"


def mutated(tp=None, pp=None, limit="1", request="1"):
    props = isvc_props()
    container = vllm_container(props)
    if tp is not None:
        set_arg(container, "tensor-parallel-size", tp)
    if pp is not None:
        set_arg(container, "pipeline-parallel-size", pp)
    for section, value in (("limits", limit), ("requests", request)):
        if value is None:
            container["resources"][section].pop("nvidia.com/gpu")
        else:
            container["resources"][section]["nvidia.com/gpu"] = value
    return isvc(props)


def test_compliant_inference_service_passes():
    assert messages(POLICY, isvc()) == []


def test_float_gpu_limit_from_the_engine_is_accepted():
    assert messages(POLICY, mutated(tp="2", limit=2.0, request=2.0)) == []


def test_tensor_parallel_above_gpu_limit():
    assert messages(POLICY, mutated(tp="2")) == [
        f"{LABEL}: tensor parallel 2 × pipeline parallel 1 = 2 GPUs, but resources.limits nvidia.com/gpu is 1; {IDLE}"
    ]


def test_pipeline_parallel_counts():
    assert messages(POLICY, mutated(tp="2", pp="2", limit="2", request="2")) == [
        f"{LABEL}: tensor parallel 2 × pipeline parallel 2 = 4 GPUs, but resources.limits nvidia.com/gpu is 2; {IDLE}"
    ]


def test_gpu_limit_above_ranks():
    assert messages(POLICY, mutated(limit="4", request="4")) == [
        f"{LABEL}: tensor parallel 1 × pipeline parallel 1 = 1 GPU, but resources.limits nvidia.com/gpu is 4; {IDLE}"
    ]


def test_absent_flags_default_to_one():
    assert messages(POLICY, mutated(tp=None, pp=None)) == []
    props = isvc_props()
    set_arg(vllm_container(props), "tensor-parallel-size", None)
    set_arg(vllm_container(props), "pipeline-parallel-size", None)
    assert messages(POLICY, isvc(props)) == []


def test_missing_gpu_limit_is_left_to_gpu_engine_has_gpu_limit():
    # No GPU limit at all is G13's (policies/gpu/engine_gpu_limit.py): S3 judges a written size against a limit.
    assert messages(POLICY, mutated(tp="2", limit=None, request=None)) == []


def test_request_differing_from_limit_is_left_to_gpu_request_equals_limit():
    assert messages(POLICY, mutated(request="2")) == []


def test_request_absent_is_fine():
    assert messages(POLICY, mutated(request=None)) == []


def test_invalid_tensor_parallel_size():
    assert messages(POLICY, mutated(tp="two")) == [f"{LABEL}: --tensor-parallel-size=two is not a positive integer"]


def test_short_alias_is_read():
    props = isvc_props()
    container = vllm_container(props)
    set_arg(container, "tensor-parallel-size", None)
    container["args"] += ["-tp", "4"]
    assert messages(POLICY, isvc(props)) == [
        f"{LABEL}: tensor parallel 4 × pipeline parallel 1 = 4 GPUs, but resources.limits nvidia.com/gpu is 1; {IDLE}"
    ]


def ray_cluster(backend):
    args = ["vllm serve m --tensor-parallel-size 4 --pipeline-parallel-size 2"]
    if backend:
        args[0] += f" --distributed-executor-backend {backend}"
    head = {
        "name": "ray-head",
        "image": "vllm/vllm-openai:v0.33.0",
        "command": ["/bin/bash", "-c"],
        "args": args,
        "resources": {"limits": {"nvidia.com/gpu": 4.0}},
    }
    props = {
        "metadata": {"name": "big"},
        "spec": {
            "headGroupSpec": {"template": {"spec": {"containers": [head]}}},
            "workerGroupSpecs": [
                {
                    "replicas": 1.0,
                    "template": {
                        "spec": {
                            "containers": [
                                {
                                    "name": "ray-worker",
                                    "image": "vllm/vllm-openai:v0.33.0",
                                    "resources": {"limits": {"nvidia.com/gpu": 4.0}},
                                }
                            ]
                        }
                    },
                }
            ],
        },
    }
    return resource(RAY_CLUSTER_TYPE, props)


def test_ray_backend_compares_tensor_parallel_only():
    assert messages(POLICY, ray_cluster("ray")) == []


def test_ray_cluster_without_ray_backend_needs_all_ranks_in_the_pod():
    assert messages(POLICY, ray_cluster(None)) == [
        "spec.headGroupSpec.template.spec container ray-head: tensor parallel 4 × pipeline parallel 2 = "
        f"8 GPUs, but resources.limits nvidia.com/gpu is 4; {IDLE}"
    ]


def lws(size, gpus):
    leader = {
        "name": "vllm-leader",
        "image": "vllm/vllm-openai:v0.33.0",
        "command": ["sh", "-c"],
        "args": [
            "bash multi-node-serving.sh leader --ray_cluster_size=$(LWS_GROUP_SIZE); "
            "python3 -m vllm.entrypoints.openai.api_server --port 8080 --model m "
            "--tensor-parallel-size 8 --pipeline_parallel_size 2"
        ],
        "resources": {"limits": {"nvidia.com/gpu": gpus}},
    }
    worker = {
        "name": "vllm-worker",
        "image": "vllm/vllm-openai:v0.33.0",
        "command": ["sh", "-c"],
        "args": ["bash multi-node-serving.sh worker --ray_address=$(LWS_LEADER_ADDRESS)"],
        "resources": {"limits": {"nvidia.com/gpu": gpus}},
    }
    props = {
        "metadata": {"name": "vllm"},
        "spec": {
            "leaderWorkerTemplate": {
                "size": size,
                "leaderTemplate": {"spec": {"containers": [leader]}},
                "workerTemplate": {"spec": {"containers": [worker]}},
            }
        },
    }
    return resource(LWS_TYPE, props)


def test_leader_worker_set_spreads_ranks_over_its_pods():
    assert messages(POLICY, lws(2.0, "8")) == []


def test_leader_worker_set_with_too_few_gpus():
    assert messages(POLICY, lws(2.0, "4")) == [
        "spec.leaderWorkerTemplate.leaderTemplate.spec container vllm-leader: tensor parallel 8 × pipeline "
        f"parallel 2 = 16 GPUs over 2 pods, but resources.limits nvidia.com/gpu is 4 per pod; {IDLE}"
    ]


def gpuless_head_cluster(replicas=2.0, worker_gpus="8", num_gpus=None, tp="8", pp="2"):
    """The shape our RayVllmService renders: a GPU-less head running vLLM, GPU workers."""
    head = {
        "name": "ray-head",
        "image": "vllm/vllm-openai:v0.33.0",
        "command": ["/bin/bash", "-c"],
        "args": [
            f"set -eu\nexec vllm serve m --tensor-parallel-size={tp} --pipeline-parallel-size={pp} "
            f"--distributed-executor-backend=ray\n"
        ],
        "resources": {"limits": {"memory": "64Gi"}},
    }
    worker = {
        "name": "ray-worker",
        "image": "vllm/vllm-openai:v0.33.0",
        "resources": {"limits": {"nvidia.com/gpu": worker_gpus}, "requests": {"nvidia.com/gpu": worker_gpus}},
    }
    group = {
        "groupName": "gpu-workers",
        "replicas": replicas,
        "minReplicas": replicas,
        "maxReplicas": replicas,
        "rayStartParams": {} if num_gpus is None else {"num-gpus": num_gpus},
        "template": {"spec": {"containers": [worker]}},
    }
    props = {
        "metadata": {"name": "llama-405b"},
        "spec": {
            "headGroupSpec": {"rayStartParams": {"num-gpus": "0"}, "template": {"spec": {"containers": [head]}}},
            "workerGroupSpecs": [group],
        },
    }
    return resource(RAY_CLUSTER_TYPE, props)


HEAD = "spec.headGroupSpec.template.spec container ray-head"
RAY_IDLE = "vLLM runs one rank per GPU, so spare GPUs sit idle and missing ones leave the engine waiting for its placement group"


def test_gpuless_head_with_workers_covering_every_rank_passes():
    assert messages(POLICY, gpuless_head_cluster()) == []


def test_ray_cluster_with_too_few_workers():
    assert messages(POLICY, gpuless_head_cluster(replicas=1.0)) == [
        f"{HEAD}: tensor parallel 8 × pipeline parallel 2 = 16 GPUs placed by Ray, but the Ray cluster has 8 GPUs "
        f"(head 0 + gpu-workers 1 x 8); {RAY_IDLE}"
    ]


def test_ray_cluster_with_more_gpus_than_ranks():
    assert messages(POLICY, gpuless_head_cluster(pp="1")) == [
        f"{HEAD}: tensor parallel 8 × pipeline parallel 1 = 8 GPUs placed by Ray, but the Ray cluster has 16 GPUs "
        f"(head 0 + gpu-workers 2 x 8); {RAY_IDLE}"
    ]


def test_ray_num_gpus_parameter_is_what_ray_sees():
    assert messages(POLICY, gpuless_head_cluster(num_gpus="4")) == [
        f"{HEAD}: tensor parallel 8 × pipeline parallel 2 = 16 GPUs placed by Ray, but the Ray cluster has 8 GPUs "
        f"(head 0 + gpu-workers 2 x 4); {RAY_IDLE}"
    ]


def test_ray_service_cluster_is_read_too():
    cluster = gpuless_head_cluster(replicas=3.0)
    props = {"metadata": {"name": "svc"}, "spec": {"rayClusterConfig": cluster.props["spec"]}}
    assert messages(POLICY, resource("kubernetes:ray.io/v1:RayService", props)) == [
        f"spec.rayClusterConfig.headGroupSpec.template.spec container ray-head: tensor parallel 8 × pipeline "
        f"parallel 2 = 16 GPUs placed by Ray, but the Ray cluster has 24 GPUs (head 0 + gpu-workers 3 x 8); {RAY_IDLE}"
    ]
