"""Cold start: the startup budget from the model source, the source's flags and objects, pre-pull, PDB."""

from __future__ import annotations

import re

import pytest

from components.builders import model_source as src
from components.builders import vllm_service as vllm
from components.capacity import cold_start
from components.capacity.plan import plan_stack
from components.capacity.pools import plan_pools
from components.config import load_stack_config
from components.errors import ConfigError
from tests.conftest import stack_config
from tests.kube_schemas import validate_object


@pytest.fixture(scope="module")
def prod():
    cfg = load_stack_config(stack_config("prod"))
    plans = plan_stack(cfg)
    return cfg, plans, plan_pools(cfg.gpu_pools, cfg.models, plans)


def model(cfg, name):
    return next(m for m in cfg.models if m.name == name)


def test_budget_parts_follow_the_source():
    hf = cold_start.startup_budget("huggingface", 131.4, 4, False, None)
    s3 = cold_start.startup_budget("s3", 131.4, 4, False, None)
    cache = cold_start.startup_budget("localCache", 131.4, 4, False, None)
    assert [p.name for p in hf.parts] == [
        "process start",
        "download from Hugging Face",
        "load from disk",
        "compile, CUDA graphs, profiling",
    ]
    assert [p.name for p in s3.parts] == ["process start", "stream from S3 (Run:ai streamer)", "compile, CUDA graphs, profiling"]
    assert [p.name for p in cache.parts] == ["process start", "load from node NVMe cache", "compile, CUDA graphs, profiling"]
    # 131.4 GiB at the cited rates: HF 16 GB / 180 s, S3 15 GB / 8.45 s, NVMe 1.5 GB/s.
    assert hf.parts[1].seconds == 1588 and s3.parts[1].seconds == 80 and cache.parts[1].seconds == 95
    assert hf.seconds == 3380 == int(-(-hf.sum_seconds * cold_start.SAFETY // 10) * 10)
    assert s3.seconds == cold_start.FLOOR_S and s3.sum_seconds * cold_start.SAFETY < cold_start.FLOOR_S
    # Each part cites a public source (owner/repo and the PR, issue or docs page), or says it is an estimate.
    assert all(re.search(r"[a-z-]+/[a-z-]+ (PR|issues?|docs)|^an estimate", p.basis) for p in hf.parts), [
        p.basis for p in hf.parts
    ]


def test_a_configured_budget_wins_and_eager_skips_the_compile():
    assert cold_start.startup_budget("huggingface", 15, 1, False, 1200).seconds == 1200
    assert cold_start.startup_budget("huggingface", 15, 1, True, None).parts[-1].seconds == cold_start.ENGINE_INIT_S["eager"]


def test_the_probe_carries_the_derived_budget(prod):
    cfg, plans, _ = prod
    for name in ("chat-8b", "qwen3-32b", "llama-70b"):
        plan = plans[name]
        probe = vllm.vllm_container(model(cfg, name), plan, None)["startupProbe"]
        assert probe["periodSeconds"] * probe["failureThreshold"] == plan.startup.seconds
        assert plan.report()["startup"]["budget_seconds"] == plan.startup.seconds


def test_s3_source_streams_with_the_runai_loader(prod):
    cfg, plans, _ = prod
    m = model(cfg, "llama-70b")
    args = vllm.vllm_args(m, plans[m.name])
    assert args[:3] == [m.source.uri, "--load-format=runai_streamer", '--model-loader-extra-config={"concurrency":16}']
    assert not any(a.startswith("--revision=") for a in args)
    assert {"name": "AWS_REGION", "value": "us-east-1"} in src.model_env(m)
    isvc = vllm.inference_service(m, plans[m.name], cfg.namespace, m.pool, None)
    assert isvc["spec"]["predictor"]["serviceAccountName"] == "model-reader"
    assert plans[m.name].resources.ephemeral_storage_gib == 10


def test_s3_reader_may_only_read_the_mirror_prefix():
    policy = src.s3_read_policy("s3://llm-prod-models/meta-llama/x/abc")
    get, listing = policy["Statement"]
    assert get["Action"] == "s3:GetObject" and get["Resource"] == "arn:aws:s3:::llm-prod-models/meta-llama/x/abc/*"
    assert listing["Condition"] == {"StringLike": {"s3:prefix": ["meta-llama/x/abc", "meta-llama/x/abc/*"]}}


def test_local_cache_source_reads_the_node_cache(prod):
    cfg, plans, pools = prod
    m = model(cfg, "chat-8b")
    assert vllm.vllm_args(m, plans[m.name])[0] == src.LOCAL_MODEL_PATH
    assert src.model_env(m) == [{"name": "STORAGE_URI", "value": f"hf://{m.model}:{m.revision}"}]
    cache = src.local_model_cache(m, plans[m.name].model.checkpoint_gib)
    group = src.local_model_node_group(pools["l40s"])
    assert validate_object(cache) == [] and validate_object(group) == []
    assert cache["spec"]["nodeGroups"] == ["l40s"] and cache["spec"]["sourceModelUri"] == f"hf://{m.model}:{m.revision}"
    # The node agent's fixed hostPath (kserve v0.20.0 charts/kserve-localmodel-resources/files/resources.yaml:384-386).
    assert group["spec"]["persistentVolumeSpec"]["local"]["path"] == src.AGENT_HOST_PATH == "/models"
    assert pools["l40s"].cached_models == ("chat-8b",)


def test_prepull_daemonset_pulls_every_image_of_the_pool(prod):
    cfg, _, pools = prod
    ds = src.prepull_daemonset(pools["l40s"], pools["l40s"].images, cfg.namespace)
    assert validate_object(ds) == []
    spec = ds["spec"]["template"]["spec"]
    assert [c["image"] for c in spec["initContainers"]] == ["vllm/vllm-openai:v0.33.0"]
    assert spec["nodeSelector"] == {"karpenter.sh/nodepool": "l40s"}
    assert spec["tolerations"] == [
        {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
        {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "PreferNoSchedule"},
    ]


def test_pdb_never_takes_the_last_ready_replica_and_evicts_crash_loops(prod):
    cfg, _, _ = prod
    pdb = vllm.pod_disruption_budget(model(cfg, "chat-8b"), cfg.namespace)
    # maxUnavailable counts unready pods: with 2 replicas and one crash-looping, no eviction of the ready one.
    assert pdb["spec"]["maxUnavailable"] == 1 and "minAvailable" not in pdb["spec"]
    assert model(cfg, "chat-8b").replicas.min >= 2
    assert pdb["spec"]["unhealthyPodEvictionPolicy"] == "AlwaysAllow"
    assert validate_object(pdb) == []


def test_prod_needs_two_replicas_unless_the_stack_says_why():
    raw = stack_config("prod")
    raw["llm-serving:models"][0]["replicas"]["min"] = 1
    with pytest.raises(ConfigError) as err:
        load_stack_config(raw)
    assert [str(p) for p in err.value.problems] == [
        "models[0].replicas.min = 1: a prod model runs at least 2 replicas, so a node drain or a crash never takes its last "
        "ready one; raise it or set replicas.singleReplicaReason"
    ]
    raw["llm-serving:models"][0]["replicas"]["singleReplicaReason"] = "canary model"
    assert load_stack_config(raw).models[0].replicas.min == 1


@pytest.mark.parametrize(
    "source,expected",
    [
        ({"type": "s3", "uri": "s3://b/p"}, "type s3 needs region, serviceAccount"),
        ({"type": "s3", "uri": "http://b/p", "region": "us-east-1", "serviceAccount": "r"}, "uri must be s3://<bucket>/<prefix>"),
        (
            {"type": "huggingface", "uri": "s3://bucket/p"},
            "uri, region, serviceAccount and kmsKeyArn are not read with type huggingface",
        ),
        ({"type": "localCache", "region": "us-east-1"}, "region, serviceAccount and kmsKeyArn are only read with type s3"),
        ({"type": "gcs"}, "input should be 'huggingface', 's3' or 'localCache'"),
    ],
)
def test_bad_sources_name_the_field_and_the_rule(source, expected):
    raw = stack_config("dev")
    raw["llm-serving:models"][0]["source"] = source
    with pytest.raises(ConfigError) as err:
        load_stack_config(raw)
    assert any(expected in str(p) and str(p).startswith("models[0].source") for p in err.value.problems), [
        str(p) for p in err.value.problems
    ]
