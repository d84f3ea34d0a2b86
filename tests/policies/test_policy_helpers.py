"""Shared helpers: quantities, loose numbers, pod specs of every workload kind, vLLM arguments."""

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from policy_fixtures import isvc, isvc_props, ray_serve_llm

from policies.framework import UNKNOWN, Resource
from policies.kube import WORKLOAD_TYPES, as_int, as_quantity, containers, parse_quantity, pod_specs, requests_gpu
from policies.reading.serving import engine_configs
from policies.reading.vllm_args import (
    is_vllm_container,
    parse_vllm_args,
    positional_tokens,
    vllm_args,
    vllm_command_line,
    vllm_servers,
)


@pytest.mark.parametrize(
    "text, value",
    [
        ("8Gi", 8 * 2**30),
        ("512Mi", 512 * 2**20),
        ("1Ki", 1024.0),
        ("2Ti", 2 * 2**40),
        ("500m", 0.5),
        ("1k", 1000.0),
        ("1M", 1e6),
        ("48G", 48e9),
        ("1T", 1e12),
        ("1E", 1e18),
        ("1e3", 1000.0),
        ("1.5E2", 150.0),
        ("+2", 2.0),
        (".5", 0.5),
        ("8", 8.0),
        (2.0, 2.0),
        (1, 1.0),
    ],
)
def test_parse_quantity(text, value):
    assert parse_quantity(text) == value


@pytest.mark.parametrize("bad", ["8GB", "abc", "", "[secret]", None, True, ["8Gi"], UNKNOWN])
def test_parse_quantity_rejects(bad):
    with pytest.raises(ValueError):
        parse_quantity(bad)
    assert as_quantity(bad) is None


@given(st.integers(min_value=0, max_value=2**20), st.sampled_from(["Ki", "Mi", "Gi", "Ti"]))
def test_binary_quantities_scale_by_powers_of_1024(n, suffix):
    power = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40}[suffix]
    assert parse_quantity(f"{n}{suffix}") == n * 2**power


@given(st.integers(min_value=-(10**9), max_value=10**9))
def test_as_int_accepts_every_shape_the_engine_sends(n):
    assert as_int(n) == as_int(float(n)) == as_int(str(n)) == as_int(f"{n}.0") == n


@pytest.mark.parametrize("value", [2.5, "2.5", "two", None, True, UNKNOWN, [2]])
def test_as_int_rejects(value):
    assert as_int(value) is None


def pod(type_, props):
    return [path for path, _ in pod_specs(Resource(type_, "r", props))]


TEMPLATE = {"template": {"spec": {"containers": []}}}


@pytest.mark.parametrize(
    "type_, spec, paths",
    [
        ("kubernetes:apps/v1:Deployment", TEMPLATE, ["spec.template.spec"]),
        ("kubernetes:apps/v1:StatefulSet", TEMPLATE, ["spec.template.spec"]),
        ("kubernetes:apps/v1:DaemonSet", TEMPLATE, ["spec.template.spec"]),
        ("kubernetes:apps/v1:ReplicaSet", TEMPLATE, ["spec.template.spec"]),
        ("kubernetes:batch/v1:Job", TEMPLATE, ["spec.template.spec"]),
        ("kubernetes:batch/v1:CronJob", {"jobTemplate": {"spec": TEMPLATE}}, ["spec.jobTemplate.spec.template.spec"]),
        ("kubernetes:core/v1:Pod", {"containers": []}, ["spec"]),
        (
            "kubernetes:serving.kserve.io/v1beta1:InferenceService",
            {"predictor": {"workerSpec": {}}, "transformer": {}},
            ["spec.predictor", "spec.transformer", "spec.predictor.workerSpec"],
        ),
        ("kubernetes:serving.kserve.io/v1alpha1:ServingRuntime", {"containers": []}, ["spec"]),
        ("kubernetes:serving.kserve.io/v1alpha1:ClusterServingRuntime", {"containers": []}, ["spec"]),
        (
            "kubernetes:ray.io/v1:RayCluster",
            {"headGroupSpec": TEMPLATE, "workerGroupSpecs": [TEMPLATE, TEMPLATE]},
            [
                "spec.headGroupSpec.template.spec",
                "spec.workerGroupSpecs[0].template.spec",
                "spec.workerGroupSpecs[1].template.spec",
            ],
        ),
        (
            "kubernetes:ray.io/v1:RayService",
            {"rayClusterConfig": {"headGroupSpec": TEMPLATE}},
            ["spec.rayClusterConfig.headGroupSpec.template.spec"],
        ),
        (
            "kubernetes:ray.io/v1:RayJob",
            {"rayClusterSpec": {"workerGroupSpecs": [TEMPLATE]}},
            ["spec.rayClusterSpec.workerGroupSpecs[0].template.spec"],
        ),
        (
            "kubernetes:leaderworkerset.x-k8s.io/v1:LeaderWorkerSet",
            {"leaderWorkerTemplate": {"leaderTemplate": {"spec": {}}, "workerTemplate": {"spec": {}}}},
            ["spec.leaderWorkerTemplate.leaderTemplate.spec", "spec.leaderWorkerTemplate.workerTemplate.spec"],
        ),
        ("kubernetes:core/v1:ConfigMap", {"containers": []}, []),
    ],
)
def test_pod_specs(type_, spec, paths):
    assert pod(type_, {"spec": spec}) == paths


def test_every_workload_type_has_a_pod_spec_reader():
    specs = {
        "Pod": {"containers": []},
        "CronJob": {"jobTemplate": {"spec": TEMPLATE}},
        "InferenceService": {"predictor": {}},
        "ServingRuntime": {},
        "ClusterServingRuntime": {},
        "RayCluster": {"headGroupSpec": TEMPLATE},
        "RayService": {"rayClusterConfig": {"headGroupSpec": TEMPLATE}},
        "RayJob": {"rayClusterSpec": {"headGroupSpec": TEMPLATE}},
        "LeaderWorkerSet": {"leaderWorkerTemplate": {"leaderTemplate": {"spec": {}}}},
        "RayClusterFleet": {"template": {"spec": {"headGroupSpec": TEMPLATE}}},
        "LLMInferenceService": {},  # the well-known preset supplies spec.template
        "DynamoGraphDeployment": {"services": {"worker": {"componentType": "worker"}}},
        "StormService": {"template": {"spec": {"roles": [{"name": "decode", "template": {"spec": {"containers": []}}}]}}},
    }
    for type_ in WORKLOAD_TYPES:
        kind = type_.rsplit(":", 1)[1]
        assert pod(type_, {"spec": specs.get(kind, TEMPLATE)}), type_


def test_containers_include_init_and_model_on_request():
    podspec = {"containers": [{"name": "a"}], "initContainers": [{"name": "i"}], "model": {"args": []}}
    assert [c["name"] for c in containers(podspec)] == ["a"]
    assert [c["name"] for c in containers(podspec, init=True, model=True)] == ["a", "i", "kserve-container"]


def test_requests_gpu_reads_strings_and_floats():
    assert requests_gpu({"containers": [{"resources": {"limits": {"nvidia.com/gpu": 1.0}}}]})
    assert requests_gpu({"containers": [{"resources": {"requests": {"nvidia.com/gpu": "2"}}}]})
    assert not requests_gpu({"containers": [{"resources": {"limits": {"nvidia.com/gpu": "0"}}}]})
    assert not requests_gpu({"containers": [{"resources": {"limits": {"cpu": "8"}}}]})


@pytest.mark.parametrize(
    "container, expected",
    [
        ({"image": "vllm/vllm-openai:v0.33.0"}, True),
        ({"image": "python:3.12", "command": ["vllm", "serve", "m"]}, True),
        ({"image": "python:3.12", "command": ["python3", "-m", "vllm.entrypoints.openai.api_server"]}, True),
        ({"image": "python:3.12", "command": ["/bin/sh", "-c", "pip install x && vllm serve m"]}, True),
        ({"image": "python:3.12", "command": ["python3", "app.py"]}, False),
        ({"image": "nginx:1.27"}, False),
    ],
)
def test_is_vllm_container(container, expected):
    assert is_vllm_container(container) is expected


@pytest.mark.parametrize(
    "container, line",
    [
        ({"command": ["vllm", "serve"], "args": ["m", "--port=8080"]}, ["m", "--port=8080"]),
        ({"command": ["/usr/local/bin/vllm", "serve", "m"]}, ["m"]),
        ({"image": "vllm/vllm-openai:v0.33.0", "args": ["m", "--port", "8080"]}, ["m", "--port", "8080"]),
        ({"image": "rocm/vllm:latest", "args": ["m"]}, ["m"]),
        ({"image": "rayproject/ray-vllm0.7:2.41", "args": ["m"]}, None),
        ({"command": ["python3", "-m", "vllm.entrypoints.openai.api_server", "--model", "m"]}, ["--model", "m"]),
        ({"command": ["/bin/sh", "-c"], "args": ["ray start --head; exec vllm serve m --tp 2 && echo done"]}, ["m", "--tp", "2"]),
        ({"command": ["bash", "-ec", "vllm serve m \\\n  --max-model-len 4096\nsleep 1"]}, ["m", "--max-model-len", "4096"]),
        ({"image": "vllm/vllm-openai:v0.33.0", "command": ["sh", "-c", "ray start --block"]}, None),
        ({"image": "vllm/vllm-openai:v0.33.0", "command": ["sh", "-c", "echo 'unbalanced"]}, None),
        ({"command": ["vllm", "serve", 2.0]}, ["2"]),
    ],
)
def test_vllm_command_line(container, line):
    assert vllm_command_line(container) == line


def test_kuberay_replaces_the_image_entrypoint():
    container = {"image": "vllm/vllm-openai:v0.33.0", "args": ["m"]}
    assert vllm_command_line(container, image_entrypoint=False) is None
    assert vllm_args(container, image_entrypoint=False) == {}


def test_parse_vllm_args():
    tokens = [
        "meta-llama/Llama-3.1-8B-Instruct",
        "--tensor-parallel-size=2",
        "--max_model_len",
        "8192",
        "--enforce-eager",
        "--trust-remote-code",
        "--served-model-name=my_model",
        "-pp",
        "2",
        "--enable-prefix-caching",
        "--kv-transfer-config",
        '{"a": 1}',
        "--seed",
        "-1",
        "--port",
        "80",
        "--port",
        "8080",
        "--disable-log-stats",
    ]
    assert parse_vllm_args(tokens) == {
        "tensor-parallel-size": "2",
        "max-model-len": "8192",
        "enforce-eager": None,
        "trust-remote-code": None,
        "served-model-name": "my_model",
        "pipeline-parallel-size": "2",
        "enable-prefix-caching": None,
        "kv-transfer-config": '{"a": 1}',
        "seed": "-1",
        "port": "8080",
        "disable-log-stats": None,
    }


def test_dotted_options_fold_into_their_json_object():
    # vllm 0.33.0 vllm/utils/argparse_utils.py:377-393 (underscores become dashes up to the first dot only) and
    # :461-499 (dotted keys of one option merged into a JSON object passed after every other argument, so it wins
    # over an --X '{...}'; a dotted option takes the next word even when it starts with a dash; `key+` joins a list).
    tokens = [
        "--kv-transfer-config",
        '{"kv_connector": "A"}',
        "--kv_transfer_config.kv_connector",
        "NixlConnector",
        "--kv-transfer-config.kv_role=kv_both",
        "--kv-transfer-config.kv_port",
        "14579",
        "--compilation-config.cudagraph_capture_sizes+",
        "1,2,4",
        "--speculative-config.num_speculative_tokens",
        "-1",
        "qwen/Qwen3-8B",
    ]
    assert parse_vllm_args(tokens) == {
        "kv-transfer-config": '{"kv_connector": "NixlConnector", "kv_role": "kv_both", "kv_port": 14579}',
        "compilation-config": '{"cudagraph_capture_sizes": ["1", "2", "4"]}',
        "speculative-config": '{"num_speculative_tokens": -1}',
    }
    assert positional_tokens(tokens) == [(11, "qwen/Qwen3-8B")]


def test_a_dotted_value_with_a_size_suffix_is_an_integer():
    # Review48 item 8. vllm 0.33.0 wheel (vllm-0.33.0-cp38-abi3-manylinux_2_28_x86_64.whl, RECORD sha256
    # 8K0sXmusIeO3NpvMku_MpiSv00XjGdn7Nn2O--cvv3E) vllm/utils/argparse_utils.py:476-485: a dotted value that is not JSON
    # is read by human_readable_int (:30-74: k/m/g/t decimal, K/M/G/T binary with no decimals, else int()), else kept
    # as text.
    values = {"a": "80g", "b": "1K", "c": "25.6k", "d": "1.5K", "e": "1_000", "f": "NixlConnector", "g": "2T", "h": "7"}
    tokens = [token for key, value in values.items() for token in (f"--x.{key}", value)]
    assert json.loads(parse_vllm_args(tokens)["x"]) == {
        "a": 80 * 10**9,
        "b": 1024,
        "c": 25600,
        "d": "1.5K",
        "e": 1000,
        "f": "NixlConnector",
        "g": 2 * 2**40,
        "h": 7,
    }
    assert json.loads(parse_vllm_args(["--x.y", "9" * 400 + "k"])["x"]) == {"y": "9" * 400 + "k"}  # no traceback


def test_a_no_flag_takes_no_value_and_the_later_of_a_pair_stays():
    # Every --no-X of vLLM 0.33.0 is BooleanOptionalAction's off form (engine/arg_utils.py:384-386): no value, and
    # --X / --no-X set one field, so argparse keeps the later one.
    assert parse_vllm_args(["--no-enforce-eager", "meta-llama/Llama-3.1-8B-Instruct", "--port", "8000"]) == {
        "no-enforce-eager": None,
        "port": "8000",
    }
    assert parse_vllm_args(["--enable-chunked-prefill", "--no-enable-chunked-prefill"]) == {"no-enable-chunked-prefill": None}
    assert parse_vllm_args(["--no-enable-chunked-prefill", "--enable-chunked-prefill"]) == {"enable-chunked-prefill": None}


def test_ray_serve_llm_engine_kwargs_read_as_the_container_flags_they_stand_for():
    # A false kwarg is vLLM's --no-<flag> (BooleanOptionalAction, vllm 0.33.0 engine/arg_utils.py:384-386),
    # not an absent flag: a policy reading a boolean flag sees Ray Serve as it sees a container. A null one is the
    # field's default: no flag at all.
    service = ray_serve_llm(
        "engine_kwargs: {enable_prefix_caching: false, enable_chunked_prefill: false, enforce_eager: false, "
        "trust_remote_code: true, max_model_len: 8192, revision: null}"
    )
    tokens = [
        "--no-enable-prefix-caching",
        "--no-enable-chunked-prefill",
        "--no-enforce-eager",
        "--trust-remote-code",
        "--max-model-len",
        "8192",
    ]
    assert engine_configs(service)[0].args == parse_vllm_args(tokens)
    assert parse_vllm_args(tokens)["no-enable-prefix-caching"] is None


def test_vllm_servers_in_the_fixture():
    servers = vllm_servers(isvc())
    assert [(s.path, s.label, s.runtime_merged) for s in servers] == [("spec.predictor", "container kserve-container", False)]
    assert servers[0].args["gpu-memory-utilization"] == "0.9"


def test_vllm_servers_find_the_runtime_model_spec():
    props = isvc_props()
    props["spec"]["predictor"]["containers"] = []
    props["spec"]["predictor"]["model"] = {"modelFormat": {"name": "huggingface"}, "args": ["--backend=vllm"]}
    assert [(s.label, s.runtime_merged) for s in vllm_servers(isvc(props))] == [("spec.predictor.model", True)]
    props["spec"]["predictor"]["model"] = {"modelFormat": {"name": "sklearn"}}
    assert vllm_servers(isvc(props)) == []
