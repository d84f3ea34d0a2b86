"""Stack configuration: valid stacks load; every kind of bad input names its field path and rule."""

from __future__ import annotations

import pytest

from components.config import StackConfig, load_stack_config
from components.errors import ConfigError
from tests.conftest import stack_config


@pytest.mark.parametrize("name", ["dev", "staging", "prod"])
def test_shipped_stacks_are_valid(name):
    cfg = load_stack_config(stack_config(name))
    assert isinstance(cfg, StackConfig)
    assert cfg.has_hf_token


def test_prod_has_a_70b_tensor_parallel_model_on_h100():
    cfg = load_stack_config(stack_config("prod"))
    pools = {p.name: p for p in cfg.gpu_pools}
    big = [m for m in cfg.models if "70B" in m.model]
    assert len(cfg.models) >= 3 and len(cfg.gpu_pools) >= 2
    assert big and big[0].engine.tensor_parallel_size > 1
    assert pools[big[0].pool].instance_types == ("p5.48xlarge",)


def test_defaults_are_documented_and_applied(dev_config):
    cfg = load_stack_config(dev_config)
    m = cfg.models[0]
    assert m.engine.block_size == 16 and m.engine.max_num_seqs is None
    assert m.startup.budget_seconds is None and m.source.type == "huggingface"
    for model in (StackConfig, type(m), type(m.engine), type(m.slo)):
        for name, field in model.model_fields.items():
            assert field.description, f"{model.__name__}.{name} has no description"
            if not field.is_required():
                assert "Default" in field.description, f"{model.__name__}.{name} does not state its default"


def _set(cfg: dict, path: list, value):
    node = cfg
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value


def _delete(cfg: dict, path: list):
    node = cfg
    for part in path[:-1]:
        node = node[part]
    del node[path[-1]]


BAD = [
    # (mutation path, value, expected message line)
    (["llm-serving:models", 0, "engine", "maxModelLen"], 0, "models[0].engine.maxModelLen = 0: input should be greater than 0"),
    (
        ["llm-serving:models", 0, "engine", "maxModelLen"],
        "long",
        "models[0].engine.maxModelLen = 'long': input should be a valid integer",
    ),
    (
        ["llm-serving:models", 0, "engine", "maxModelLen"],
        "8192",
        "models[0].engine.maxModelLen = '8192': input should be a valid integer",
    ),
    (
        ["llm-serving:models", 0, "engine", "tensorParallelSize"],
        True,
        "models[0].engine.tensorParallelSize = True: input should be a valid integer",
    ),
    (
        ["llm-serving:models", 0, "engine", "gpuMemoryUtilization"],
        "0.9",
        "models[0].engine.gpuMemoryUtilization = '0.9': input should be a valid number",
    ),
    (
        ["llm-serving:models", 0, "engine", "gpuMemoryUtilization"],
        1.5,
        "models[0].engine.gpuMemoryUtilization = 1.5: input should be less than or equal to 1",
    ),
    (
        ["llm-serving:models", 0, "engine", "gpuMemoryUtilization"],
        -0.1,
        "models[0].engine.gpuMemoryUtilization = -0.1: input should be greater than 0",
    ),
    (
        ["llm-serving:models", 0, "engine", "tensorParallelSize"],
        0,
        "models[0].engine.tensorParallelSize = 0: input should be greater than or equal to 1",
    ),
    (
        ["llm-serving:models", 0, "engine", "kvCacheDtype"],
        "int4",
        "models[0].engine.kvCacheDtype = 'int4': input should be 'auto', 'fp8', 'fp8_e4m3' or 'fp8_e5m2'",
    ),
    (
        ["llm-serving:models", 0, "engine", "blockSize"],
        24,
        "models[0].engine.blockSize = 24: must be one of 1, 8, 16, 32, 64, 128, 256",
    ),
    (["llm-serving:models", 0, "replicas", "min"], -1, "models[0].replicas.min = -1: input should be greater than or equal to 0"),
    (
        ["llm-serving:models", 0, "replicas"],
        {"min": 3, "max": 2},
        'models[0].replicas = {"max": 2, "min": 3}: max (2) must be >= min (3)',
    ),
    (
        ["llm-serving:models", 0, "revision"],
        "main",
        "models[0].revision = 'main': must be a full 40-character commit hash, so the weights cannot change under the service",
    ),
    (
        ["llm-serving:models", 0, "model"],
        "llama",
        "models[0].model = 'llama': must be a Hugging Face id of the form <org>/<name>",
    ),
    (
        ["llm-serving:models", 0, "name"],
        "Chat_8B",
        "models[0].name = 'Chat_8B': must be a DNS-1035 label (lowercase letters, digits and '-', starting with a letter) of at most 40 characters",
    ),
    (
        ["llm-serving:models", 0, "slo", "maxRequestSeconds"],
        0,
        "models[0].slo.maxRequestSeconds = 0: input should be greater than 0",
    ),
    (
        ["llm-serving:models", 0, "engine", "extraArgs"],
        ["--max-model-len=4096"],
        'models[0].engine.extraArgs = ["--max-model-len=4096"]: --max-model-len is a typed engine field or set by the component; set it there instead',
    ),
    (["llm-serving:gpuPools", 0, "gpuLimit"], 0, "gpuPools[0].gpuLimit = 0: input should be greater than 0"),
    (
        ["llm-serving:gpuPools", 0, "buffer", "replicas"],
        -1,
        "gpuPools[0].buffer.replicas = -1: input should be greater than or equal to 0",
    ),
    (
        ["llm-serving:models", 0, "engine", "quantization"],
        "int3",
        "models[0].engine.quantization = 'int3': input should be 'fp8', 'awq',",
    ),
    (
        ["llm-serving:models", 0, "engine", "enforceEager"],
        "yes",
        "models[0].engine.enforceEager = 'yes': input should be a valid boolean",
    ),
    (
        ["llm-serving:models", 0, "engine", "maxNumQueuedReqs"],
        -1,
        "models[0].engine.maxNumQueuedReqs = -1: input should be greater than or equal to 0",
    ),
    (
        ["llm-serving:models", 0, "autoscaling"],
        {"targetInFlightPerPod": 0},
        "models[0].autoscaling.targetInFlightPerPod = 0: input should be greater than 0",
    ),
    (
        ["llm-serving:models", 0, "traffic"],
        {"typicalRequestSeconds": 0},
        "models[0].traffic.typicalRequestSeconds = 0: input should be greater than 0",
    ),
    (
        ["llm-serving:models", 0, "traffic"],
        {"typicalRequestTokens": 1.5},
        "models[0].traffic.typicalRequestTokens = 1.5: input should be a valid integer",
    ),
    (
        ["llm-serving:models", 0, "startup"],
        {"budgetSeconds": 10},
        "models[0].startup.budgetSeconds = 10: input should be greater than or equal to 60",
    ),
    (
        ["llm-serving:models", 0, "architecture"],
        {"configPath": "c.json", "weightsGib": -1},
        "models[0].architecture.weightsGib = -1: input should be greater than 0",
    ),
    (["llm-serving:models", 0, "architecture"], {"weightsGib": 3}, "models[0].architecture.configPath: is required"),
    (
        ["llm-serving:models", 0, "image"],
        "Vllm Image",
        "models[0].image = 'Vllm Image': must be an image reference like vllm/vllm-openai:v0.33.0",
    ),
    (
        ["llm-serving:models", 0, "slo"],
        {"maxRequestSeconds": 5, "timeToFirstTokenSeconds": 5},
        'models[0].slo = {"maxRequestSeconds": 5, "timeToFirstTokenSeconds": 5}: timeToFirstTokenSeconds must be below maxRequestSeconds',
    ),
    (
        ["llm-serving:gpuPools", 0, "instanceTypes"],
        ["m5.large"],
        "gpuPools[0].instanceTypes = [\"m5.large\"]: 'm5.large' has no GPU (a CPU instance family); a GPU pool lists GPU instance types (known: g4dn.12xlarge",
    ),
    (
        ["llm-serving:gpuPools", 0, "instanceTypes"],
        ["g6e.2xlarg"],
        "gpuPools[0].instanceTypes = [\"g6e.2xlarg\"]: unknown GPU instance type 'g6e.2xlarg'",
    ),
    (
        ["llm-serving:gpuPools", 0, "instanceTypes"],
        ["inf2.xlarge"],
        "gpuPools[0].instanceTypes = [\"inf2.xlarge\"]: unknown GPU instance type 'inf2.xlarge'",
    ),
    (
        ["llm-serving:gpuPools", 0, "instanceTypes"],
        ["g6e.2xlarge", "p5.48xlarge"],
        "gpuPools[0].instanceTypes = [\"g6e.2xlarge\", \"p5.48xlarge\"]: mixes GPU models ['H100', 'L40S']",
    ),
    (
        ["llm-serving:gpuPools", 0, "capacityTypes"],
        ["preemptible"],
        "gpuPools[0].capacityTypes[0] = 'preemptible': input should be 'on-demand', 'spot' or 'reserved'",
    ),
    (
        ["llm-serving:cluster", "kubernetesVersion"],
        "1.9",
        'cluster.kubernetesVersion = \'1.9\': must be a Kubernetes minor version between "1.30" and "1.37", quoted',
    ),
    (
        ["llm-serving:cluster", "kubernetesVersion"],
        "1.29",
        'cluster.kubernetesVersion = \'1.29\': must be a Kubernetes minor version between "1.30" and "1.37", quoted',
    ),
    (["llm-serving:namespace"], "LLM", "namespace = 'LLM': must be a DNS-1035 label"),
    (["aws:region"], "mars-1", "aws:region = 'mars-1': must be an AWS region such as us-west-2"),
    (
        ["llm-serving:ingress", "host"],
        "not a host",
        "ingress.host = 'not a host': must be a lowercase DNS name such as llm.example.com",
    ),
]


@pytest.mark.parametrize("path,value,expected", BAD, ids=[".".join(map(str, b[0][1:])) or b[0][0] for b in BAD])
def test_bad_value_names_field_value_and_rule(dev_config, path, value, expected):
    _set(dev_config, path, value)
    with pytest.raises(ConfigError) as err:
        load_stack_config(dev_config)
    lines = [str(p) for p in err.value.problems]
    assert any(line.startswith(expected) for line in lines), lines


def test_typo_key_is_named_with_the_allowed_keys(dev_config):
    dev_config["llm-serving:models"][0]["engine"]["maxModelLength"] = 4096
    with pytest.raises(ConfigError) as err:
        load_stack_config(dev_config)
    (problem,) = err.value.problems
    assert problem.path == "models[0].engine.maxModelLength"
    assert problem.rule.startswith("unknown key; allowed keys here: tensorParallelSize, pipelineParallelSize, maxModelLen,")


def test_typo_top_level_key(dev_config):
    dev_config["llm-serving:modles"] = dev_config.pop("llm-serving:models")
    with pytest.raises(ConfigError) as err:
        load_stack_config(dev_config)
    paths = [p.path for p in err.value.problems]
    assert paths == ["llm-serving:modles", "models"]
    assert str(err.value.problems[0]).startswith(
        "llm-serving:modles: unknown key; allowed keys: llm-serving:addons, llm-serving:apiKey, llm-serving:cluster,"
    )
    assert str(err.value.problems[1]) == "models: is required"


def test_missing_required_field(dev_config):
    _delete(dev_config, ["llm-serving:models", 0, "engine", "maxModelLen"])
    with pytest.raises(ConfigError) as err:
        load_stack_config(dev_config)
    assert [str(p) for p in err.value.problems] == ["models[0].engine.maxModelLen: is required"]


def test_pool_that_does_not_exist(dev_config):
    dev_config["llm-serving:models"][0]["pool"] = "h100"
    with pytest.raises(ConfigError) as err:
        load_stack_config(dev_config)
    assert [str(p) for p in err.value.problems] == ["models[0].pool = 'h100': no gpuPools entry has this name (pools: l40s)"]


def test_a_single_node_model_is_refused_on_the_pool_of_a_multi_node_engine(prod_config):
    # Such a pool holds drift for a planned roll (builders/karpenter.py holds_drift: Drifted budget 0 nodes, no
    # terminationGracePeriod, which Karpenter v1.14.1 hashes into drift: nodeclaim.go:73; expireAfter Never), so a
    # single-node model there would never get new AMIs by itself (review of issue 30, finding 4).
    prod_config["llm-serving:models"][3]["pool"] = "h100"
    with pytest.raises(ConfigError) as err:
        load_stack_config(prod_config)
    (problem,) = [p for p in err.value.problems if "multi-node engine" in p.rule]
    assert problem.path == "models[2].pool" and problem.value == "h100"
    assert "llama-405b" in problem.rule and "a pool of its own" in problem.rule


def test_prod_gives_the_multi_node_engine_a_pool_of_its_own():
    cfg = load_stack_config(stack_config("prod"))
    by_pool: dict[str, list[str]] = {}
    for m in cfg.models:
        by_pool.setdefault(m.pool, []).append(m.name)
    assert by_pool["h100-ray"] == ["llama-405b"] and by_pool["h100"] == ["llama-70b"]


def test_tensor_parallel_larger_than_the_node(dev_config):
    dev_config["llm-serving:models"][0]["engine"]["tensorParallelSize"] = 2
    with pytest.raises(ConfigError) as err:
        load_stack_config(dev_config)
    (problem,) = err.value.problems
    assert problem.path == "models[0].engine.tensorParallelSize"
    assert str(problem) == (
        "models[0].engine.tensorParallelSize = 2: tensorParallelSize x pipelineParallelSize = 2 GPUs exceeds the 1 GPUs "
        "per node of pool 'l40s' (g6e.2xlarge, g6e.4xlarge); use a pool with larger nodes, or set "
        "models[0].distributed: {backend: ray} to spread the engine over several nodes (KubeRay)"
    )


def test_duplicate_model_names(prod_config):
    prod_config["llm-serving:models"][1]["name"] = "chat-8b"
    with pytest.raises(ConfigError) as err:
        load_stack_config(prod_config)
    assert [str(p) for p in err.value.problems] == ["models[1].name = 'chat-8b': duplicates models[0].name"]


def test_min_replicas_beyond_the_pool_gpu_limit(dev_config):
    dev_config["llm-serving:models"][0]["replicas"] = {"min": 3, "max": 3}
    with pytest.raises(ConfigError) as err:
        load_stack_config(dev_config)
    assert [str(p) for p in err.value.problems] == [
        "models[0].replicas.min = 3: 3 replicas x 1 GPUs exceed gpuPools[0].gpuLimit = 2"
    ]


def test_clear_text_token_is_refused_without_echoing_it(dev_config):
    dev_config["llm-serving:hfToken"] = "hf_cleartextvalue"
    with pytest.raises(ConfigError) as err:
        load_stack_config(dev_config)
    text = str(err.value)
    assert "llm-serving:hfToken: must be a Pulumi secret" in text
    assert "hf_cleartextvalue" not in text


def test_all_problems_are_reported_at_once(dev_config):
    dev_config["llm-serving:models"][0]["engine"]["maxModelLen"] = -5
    dev_config["llm-serving:gpuPools"][0]["gpuLimit"] = -1
    with pytest.raises(ConfigError) as err:
        load_stack_config(dev_config)
    assert {p.path for p in err.value.problems} == {"models[0].engine.maxModelLen", "gpuPools[0].gpuLimit"}


def test_unknown_namespace(dev_config):
    dev_config["llm-servign:models"] = []
    with pytest.raises(ConfigError) as err:
        load_stack_config(dev_config)
    assert [str(p) for p in err.value.problems] == ["llm-servign:models: unknown config namespace 'llm-servign'"]


def test_config_models_are_frozen(dev_config):
    cfg = load_stack_config(dev_config)
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="frozen"):
        cfg.models[0].engine.max_model_len = 1  # type: ignore[misc]


def test_snake_case_keys_are_not_the_contract(dev_config):
    engine = dev_config["llm-serving:models"][0]["engine"]
    engine["max_model_len"] = engine.pop("maxModelLen")
    with pytest.raises(ConfigError) as err:
        load_stack_config(dev_config)
    assert [p.path for p in err.value.problems] == ["models[0].engine.maxModelLen", "models[0].engine.max_model_len"]


@pytest.mark.parametrize(
    "path",
    [["llm-serving:namespace"], ["aws:region"], ["llm-serving:models", 0, "revision"], ["llm-serving:cluster", "name"]],
)
def test_a_secret_in_the_wrong_place_is_never_echoed(dev_config, path):
    _set(dev_config, path, {"secure": "v1:CIPHERTEXT_SHOULD_NOT_PRINT"})
    with pytest.raises(ConfigError) as err:
        load_stack_config(dev_config)
    assert "CIPHERTEXT_SHOULD_NOT_PRINT" not in str(err.value)
    assert "[secret]" in str(err.value)


def test_a_token_in_extra_args_is_refused_without_echoing_it(dev_config):
    dev_config["llm-serving:models"][0]["engine"]["extraArgs"] = ["--hf-token", "hf_SEPARATE_TOKEN"]
    with pytest.raises(ConfigError) as err:
        load_stack_config(dev_config)
    assert "hf_SEPARATE_TOKEN" not in str(err.value)
    assert "models[0].engine.extraArgs: --hf-token would put a secret on the command line" in str(err.value)


def test_errors_after_a_long_context_sibling_name_the_stack_files_own_index(prod_config):
    # The loader inserts each longContext sibling after its model; a later model's error must still
    # name its index in the stack file, not in that expanded list (models[1], not models[2]).
    models = prod_config["llm-serving:models"]
    models[0]["longContext"] = {"maxModelLen": 32768, "replicas": {"min": 2, "max": 2}}
    models[1]["replicas"] = {"min": 1, "max": 3}
    with pytest.raises(ConfigError) as err:
        load_stack_config(prod_config)
    assert [p.path for p in err.value.problems] == ["models[1].replicas.min"]


def test_source_rules_after_a_long_context_sibling_name_the_stack_files_own_index(prod_config):
    # localCache on Bottlerocket: each model is reported once, at its own index; the sibling (which
    # inherits its model's source) is not reported again, nor does it shift the next model's index.
    prod_config["llm-serving:gpuPools"][0]["amiAlias"] = "bottlerocket@1.55.0"
    models = prod_config["llm-serving:models"]
    models[0]["longContext"] = {"maxModelLen": 4 * models[0]["engine"]["maxModelLen"], "replicas": {"min": 2, "max": 2}}
    models[1]["source"] = {"type": "localCache"}
    with pytest.raises(ConfigError) as err:
        load_stack_config(prod_config)
    assert [p.path for p in err.value.problems] == ["models[0].source.type", "models[1].source.type"]
    assert all("runs Bottlerocket" in p.rule for p in err.value.problems)
