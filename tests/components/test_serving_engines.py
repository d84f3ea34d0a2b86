"""components/serving_engines.toml: every row loads into a typed record, every fact group cites its source, and a
table with a typo fails the load naming the row and the field (never a rule that silently stops applying)."""

from __future__ import annotations

import pytest

from components.serving_engines import ENGINES, TABLE, EngineTableError, engine_named, load_engines

ROW = """
[engines.toy]
display = "Toy"
release = "v1"
images = ["toy/serve"]
commands = ["toy-serve"]
modules = []
model_positional = true
loads_before_serving = true
port = 9000
health = "/healthz"
readiness = "/ready"
drain = "flag"
drain_flag = "--drain_seconds"
drain_env = ""
drain_default = 5
memory_fraction_of = "total"
metrics_path = "/metrics"
metrics_port = 9000
queue_metric = "toy_waiting"
running_metric = "toy_running"
context_unset = "model"
context_override_env = "TOY_LONG"
startup_rules = ["vllm-context-within-model-limit"]
kv_heads_replicated = true
moving_tags = ["nightly"]

[engines.toy.settings]
max-model-len = ["max_context", "env:TOY_CONTEXT"]
trust-remote-code = ["allow-remote-code"]

[engines.toy.sources]
recognise = "toy v1 README L1"
settings = "toy v1 cli.py L10-20"
endpoints = "toy v1 server.py L5"
drain = "toy v1 server.py L40"
metrics = "toy v1 metrics.py L3"
startup = "toy v1 config.py L7"
tags = "toy v1 RELEASING.md L2"
"""


def test_the_product_table_holds_the_engines_the_issue_names_each_cited():
    names = [e.name for e in ENGINES]
    assert names == [
        "vllm",
        "sglang",
        "tgi",
        "triton",
        "tensorrt-llm",
        "nim",
        "llama-cpp",
        "ollama",
        "lmdeploy",
        "localai",
        "aphrodite",
        "tei",
        "ovms",
    ]
    for engine in ENGINES:
        for group in ("recognise", "settings", "endpoints", "drain", "metrics"):
            assert engine.sources.get(group), f"{engine.name}: {group} has no source"
        assert engine.commands or engine.images, engine.name


def test_facts_read_at_the_pinned_releases():
    tgi, triton = engine_named("tgi"), engine_named("triton")
    assert tgi is not None and triton is not None
    # TGI v3.3.7 launcher/src/main.rs L911-913, L811-813; Triton v2.71.0 command_line_parser.h L116, L215.
    assert (tgi.drain_flag, tgi.drain_default, tgi.spelling("gpu-memory-utilization")) == (
        "graceful-termination-timeout",
        90.0,
        "--cuda-memory-fraction",
    )
    assert tgi.env["max-model-len"] == ("MAX_TOTAL_TOKENS",)
    assert (triton.drain_flag, triton.drain_default, triton.metrics_port, triton.readiness) == (
        "exit-timeout-secs",
        30.0,
        8002,
        "/v2/health/ready",
    )


def test_a_row_loads_with_flags_normalised():
    (toy,) = load_engines(ROW)
    assert toy.commands == (("toy-serve",),) and toy.drain_flag == "drain-seconds"
    assert toy.flags["max-model-len"] == ("max-context",) and toy.env["max-model-len"] == ("TOY_CONTEXT",)
    assert toy.spelling("max-model-len") == "--max_context"


@pytest.mark.parametrize(
    "edit,message",
    [
        (("port = 9000", 'port = "9000"'), r"\[engines.toy\].port: '9000' is not of type int"),
        (("health = ", "helth = "), r"\[engines.toy\]: unknown field 'helth'"),
        (('drain = "flag"', 'drain = "maybe"'), r"\[engines.toy\].drain: 'maybe' is not one of"),
        (("max-model-len = ", "max-model-length = "), r"settings: unknown setting 'max-model-length'"),
        (('drain = "toy v1 server.py L40"', 'drain = " "'), r"sources.drain: every fact needs its source"),
        (('drain_flag = "--drain_seconds"', 'drain_flag = ""'), r"drain_flag: a drain of kind 'flag' names its flag"),
        (('context_unset = "model"', 'context_unset = "full"'), r"\[engines.toy\].context_unset: 'full' is not one of"),
        (
            ('startup_rules = ["vllm-context-within-model-limit"]', 'startup_rules = ["context-limit"]'),
            r"startup_rules: unknown rule 'context-limit'",
        ),
        (('startup = "toy v1 config.py L7"', 'startup = ""'), r"sources.startup: every fact needs its source"),
        (('tags = "toy v1 RELEASING.md L2"\n', ""), r"sources.tags: every fact needs its source"),
    ],
)
def test_a_typo_fails_the_load_naming_row_and_field(edit, message):
    with pytest.raises(EngineTableError, match=message):
        load_engines(ROW.replace(*edit))


def test_the_start_up_facts_of_each_engine_are_read_at_their_releases():
    sglang, tgi, vllm = engine_named("sglang"), engine_named("tgi"), engine_named("vllm")
    assert sglang is not None and tgi is not None and vllm is not None
    # SGLang model_config.py _derive_context_length; TGI v3.3.7 launcher/src/main.rs L693 (fitted default) and
    # flash_llama_modeling.py L172-175 (KV heads divisible by num_shard); vLLM: every rule of components/capacity/startup.py.
    assert (sglang.context_unset, sglang.context_override_env) == ("model", "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN")
    assert (tgi.context_unset, tgi.kv_heads_replicated, tgi.startup_rules) == (
        "fitted",
        False,
        ("vllm-tp-divides-attention-heads",),
    )
    assert len(vllm.startup_rules) == 5 and vllm.context_override_env == "VLLM_ALLOW_LONG_MAX_MODEL_LEN"
    assert engine_named("nim") is not None and engine_named("nim").env["trust-remote-code"] == ("NIM_TRUST_CUSTOM_CODE",)  # type: ignore[union-attr]


def test_the_table_file_is_beside_its_loader():
    assert TABLE.name == "serving_engines.toml" and TABLE.is_file()


def test_download_facts_read_at_the_pinned_releases():
    """The downloads tables S19/S29 read: TGI v3.3.7 Dockerfile L147 HF_HOME=/data (cache /data/hub) and Google's
    TGI image /tmp; huggingface_hub constants.py precedence HF_HUB_CACHE > HUGGINGFACE_HUB_CACHE > $HF_HOME/hub;
    Ollama v0.32.15 envconfig/config.go Models(); SGLang, TensorRT-LLM and LMDeploy drain until the grace period ends."""
    tgi, ollama, llama = engine_named("tgi"), engine_named("ollama"), engine_named("llama-cpp")
    assert tgi is not None and tgi.downloads is not None
    assert tgi.downloads.dirs == ("/data/hub", "/tmp")
    assert tgi.downloads.env[:3] == (("HF_HUB_CACHE", ""), ("HUGGINGFACE_HUB_CACHE", ""), ("HF_HOME", "hub"))
    assert ollama is not None and ollama.downloads is not None and ollama.drain == "aborts"
    assert (ollama.downloads.dirs, ollama.downloads.env, ollama.downloads.models) == (
        ("/root/.ollama/models",),
        (("OLLAMA_MODELS", ""),),
        ("unset", "name"),
    )
    assert llama is not None and llama.env_prefixes == ("LLAMA_ARG_",)
    assert [e.drain for e in map(engine_named, ("sglang", "tensorrt-llm", "lmdeploy"))] == ["waits"] * 3  # type: ignore[union-attr]
    assert engine_named("nim").drain == "unknown"  # type: ignore[union-attr]


OPTIONS = '\n[engines.toy.options]\nfile = "vllm_cli_flags.json"\nimages = ["toy/toy-server"]\n'


def test_an_options_table_loads_and_needs_its_file_and_source():
    with_source = ROW.replace('tags = "toy v1 RELEASING.md L2"\n', 'tags = "toy v1 RELEASING.md L2"\noptions = "toy v1 wheels"\n')
    (toy,) = load_engines(with_source + OPTIONS)
    assert toy.options is not None and toy.options.file == "vllm_cli_flags.json" and toy.options.images == ("toy/toy-server",)
    with pytest.raises(EngineTableError, match=r"sources.options: every fact needs its source"):
        load_engines(ROW + OPTIONS)
    with pytest.raises(EngineTableError, match=r"options.file: 'missing.json' is not a file beside serving_engines.toml"):
        load_engines(with_source + OPTIONS.replace("vllm_cli_flags.json", "missing.json"))
    with pytest.raises(EngineTableError, match=r"options.images: a non-empty list is required"):
        load_engines(with_source + OPTIONS.replace('["toy/toy-server"]', "[]"))


def test_an_options_table_reads_vendor_forks_and_names_a_bad_one():
    with_source = ROW.replace('tags = "toy v1 RELEASING.md L2"\n', 'tags = "toy v1 RELEASING.md L2"\noptions = "toy v1 wheels"\n')
    fork = 'forks = [{ image = "acme/toy-fork", after = "sdk/", releases = { "2.0" = "1.4" }, source = "acme tags" }]\n'
    (toy,) = load_engines(with_source + OPTIONS + fork)
    assert toy.options is not None and [(f.image, f.after, f.releases) for f in toy.options.forks] == [
        ("acme/toy-fork", "sdk/", (("2.0", "1.4"),))
    ]
    with pytest.raises(EngineTableError, match=r"options.forks\[0\].source: a non-empty str is required"):
        load_engines(with_source + OPTIONS + fork.replace(', source = "acme tags"', ""))
    with pytest.raises(EngineTableError, match=r"options.forks\[0\].releases: every vendor release must map"):
        load_engines(with_source + OPTIONS + fork.replace('"2.0" = "1.4"', '"2.0" = 1'))


def test_listens_loads_and_needs_a_host_setting_a_known_value_and_its_source():
    listening = ROW.replace(
        'moving_tags = ["nightly"]', 'moving_tags = ["nightly"]\nlistens = "loopback"\nimages_listen_all = true'
    )
    with_host = listening.replace(
        'max-model-len = ["max_context", "env:TOY_CONTEXT"]',
        'max-model-len = ["max_context", "env:TOY_CONTEXT"]\nhost = ["host", "env:TOY_HOST"]',
    )
    sourced = with_host.replace(
        'tags = "toy v1 RELEASING.md L2"\n', 'tags = "toy v1 RELEASING.md L2"\nlistens = "toy v1 server.py L9 host 127.0.0.1"\n'
    )
    (toy,) = load_engines(sourced)
    assert (toy.listens, toy.images_listen_all, toy.flags["host"], toy.env["host"]) == (
        "loopback",
        True,
        ("host",),
        ("TOY_HOST",),
    )
    with pytest.raises(EngineTableError, match=r"sources.listens: every fact needs its source"):
        load_engines(with_host)
    with pytest.raises(
        EngineTableError, match=r"settings.host: a row that states where the server listens names its host setting"
    ):
        load_engines(listening.replace('tags = "toy v1 RELEASING.md L2"\n', 'tags = "toy v1 RELEASING.md L2"\nlistens = "x"\n'))
    with pytest.raises(EngineTableError, match=r"\[engines.toy\].listens: 'everywhere' is not one of all, loopback"):
        load_engines(sourced.replace('listens = "loopback"', 'listens = "everywhere"'))


def test_gpu_or_cpu_loads_and_needs_its_devices_source():
    marked = ROW.replace('moving_tags = ["nightly"]', 'moving_tags = ["nightly"]\ngpu_or_cpu = true')
    sourced = marked.replace(
        'tags = "toy v1 RELEASING.md L2"\n', 'tags = "toy v1 RELEASING.md L2"\ndevices = "toy v1 device.py L3 CPU fallback"\n'
    )
    (toy,) = load_engines(sourced)
    assert toy.gpu_or_cpu is True
    (plain,) = load_engines(ROW)
    assert plain.gpu_or_cpu is False
    with pytest.raises(EngineTableError, match=r"sources.devices: every fact needs its source"):
        load_engines(marked)
    with pytest.raises(EngineTableError, match=r"gpu_or_cpu: 'yes' is not of type bool"):
        load_engines(sourced.replace("gpu_or_cpu = true", 'gpu_or_cpu = "yes"'))


def test_switches_load_as_flag_value_pairs_and_need_their_source():
    switched = ROW.replace(
        'moving_tags = ["nightly"]',
        'moving_tags = ["nightly"]\ndebug_flags = ["--log_verbose"]\nlenient_readiness = ["strict-readiness=False"]\n'
        'lazy_start = ["control-mode=explicit"]\nstart_models = "load-model"',
    )
    sourced = switched.replace(
        'tags = "toy v1 RELEASING.md L2"\n', 'tags = "toy v1 RELEASING.md L2"\nswitches = "toy v1 cli.py L30-40"\n'
    )
    (toy,) = load_engines(sourced)
    assert (toy.debug_flags, toy.lenient_readiness, toy.lazy_start, toy.start_models) == (
        ("log-verbose",),
        (("strict-readiness", "false"),),
        (("control-mode", "explicit"),),
        "load-model",
    )
    with pytest.raises(EngineTableError, match=r"sources.switches: every fact needs its source"):
        load_engines(switched)
    with pytest.raises(EngineTableError, match=r"\[engines.toy\].lazy_start: 'control-mode' is not FLAG=VALUE"):
        load_engines(sourced.replace('"control-mode=explicit"', '"control-mode"'))


def test_start_loads_are_read_for_an_engine_that_listens_first() -> None:
    """start_loads (LocalAI's LOCALAI_PRELOAD_MODELS): flags and env:NAME, stated with switches, and only on a row whose
    server otherwise loads no model before it listens."""
    lazy = ROW.replace("loads_before_serving = true", "loads_before_serving = false").replace(
        'moving_tags = ["nightly"]', 'moving_tags = ["nightly"]\nstart_loads = ["model", "--preload_models", "env:PRELOAD"]'
    )
    sourced = lazy.replace(
        'tags = "toy v1 RELEASING.md L2"\n', 'tags = "toy v1 RELEASING.md L2"\nswitches = "toy v1 cli.py L30-40"\n'
    )
    (toy,) = load_engines(sourced)
    assert (toy.start_load_flags, toy.start_load_env) == (("model", "preload-models"), ("PRELOAD",))
    with pytest.raises(EngineTableError, match=r"sources.switches: every fact needs its source"):
        load_engines(lazy)
    with pytest.raises(EngineTableError, match=r"start_loads: only for a row with loads_before_serving = false"):
        load_engines(sourced.replace("loads_before_serving = false", "loads_before_serving = true"))
    with pytest.raises(EngineTableError, match=r"start_loads: 'env:' is not a flag or env:NAME"):
        load_engines(sourced.replace('"env:PRELOAD"', '"env:"'))
