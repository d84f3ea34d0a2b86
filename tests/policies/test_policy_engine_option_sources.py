"""S38 engine-options-exist for the engines whose option tables are read from their source at each release tag
(tools/read_source_options.py): TGI's text-generation-launcher and TEI's text-embeddings-router (clap:
launcher/src/main.rs, router/src/main.rs ``struct Args``), llama.cpp's llama-server (common/arg.cpp). Each parser
as it reads an argument (the table's ``syntax``), release tags mapped per engine (``release_tag``), args alone to the
publisher's image (``args_tags``). Real third-party forms cut down from the cited files, and careful forms that stay
silent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from policy_fixtures import found_by

from components.engine_options import cli_options, tagged_release
from components.serving_engines import ENGINES
from tools.read_source_options import clap_options, llama_options

FLAGS = "engine-options-exist"
ROW = {e.name: e for e in ENGINES}


def deployment(image: str, args: list[str], command: list[str] | None = None, env: list[dict] | None = None) -> dict:
    container: dict = {"name": "server", "image": image, "args": args, "ports": [{"containerPort": 8080}]}
    if command:
        container["command"] = command
    if env:
        container["env"] = env
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "server"},
        "spec": {
            "selector": {"matchLabels": {"app": "server"}},
            "template": {"metadata": {"labels": {"app": "server"}}, "spec": {"containers": [container]}},
        },
    }


# TGI: args alone to the image (tgi-entrypoint.sh: exec text-generation-launcher $@), the --k=v form of the code
# index's stored file 51851684366 (a TGI 2.4 Deployment in an LLM serving guide), with one option misspelt.
TGI_ARGS = [
    "--model-id=meta-llama/Llama-3.1-8B-Instruct",
    "--max-input-tokens=4096",
    "--max-total-tokens=8192",
    "--max-batch-prefill-tokens=16384",
    "--max-concurrent-requests=64",
    "--port=8080",
]


def test_a_misspelt_tgi_option_blocks_at_a_pinned_release():
    args = [*TGI_ARGS, "--max-input-lenght", "4096"]
    ((level, message),) = found_by([deployment("ghcr.io/huggingface/text-generation-inference:2.4.1", args)], FLAGS)
    assert level == "mandatory"
    assert message == (
        "container server: --max-input-lenght is not an option of Hugging Face TGI 2.4.1, the release of image "
        "ghcr.io/huggingface/text-generation-inference:2.4.1 (no Hugging Face TGI release from 1.0.0 to 3.3.7 has it; "
        "did you mean --max-input-length?); Hugging Face TGI's argument parser exits on an unrecognized argument, so the "
        "server never starts; remove it or use the spelling of the image's release"
    )


def test_clap_reads_no_underscore_for_a_dash():
    # clap derives --max-total-tokens from the field max_total_tokens (v2.4.1 launcher/src/main.rs struct Args) and
    # turns no _ into -: --max_total_tokens is an unexpected argument.
    args = ["--model-id", "m", "--max_total_tokens", "8192"]
    ((level, message),) = found_by([deployment("ghcr.io/huggingface/text-generation-inference:2.4.1", args)], FLAGS)
    assert level == "mandatory"
    assert "--max_total_tokens is not an option of Hugging Face TGI 2.4.1" in message
    assert "did you mean --max-total-tokens?" in message


def test_an_option_newer_than_a_series_tag_blocks():
    # --max-input-tokens arrived in TGI 2.0.0; the 1.4 tag is the newest 1.4.x (build.yaml {{major}}.{{minor}}), and
    # no 1.4.x read has it, nor does the series move any more (2.x and 3.x were released after it).
    ((level, message),) = found_by([deployment("ghcr.io/huggingface/text-generation-inference:1.4", TGI_ARGS)], FLAGS)
    assert level == "mandatory"
    assert "--max-input-tokens is not an option of Hugging Face TGI 1.4" in message
    assert "Hugging Face TGI has it in 2.0.0 to 3.3.7" in message


def test_careful_tgi_forms_stay_silent():
    env = [{"name": "MAX_INPUT_TOKENS", "value": "4096"}, {"name": "MODEL_ID", "value": "m"}]
    forms = [
        # the guide's own form at its series tag, at a release and at latest: --k=v is clap's
        deployment("ghcr.io/huggingface/text-generation-inference:2.4", TGI_ARGS),
        deployment("ghcr.io/huggingface/text-generation-inference:2.4.1-rocm", TGI_ARGS),
        deployment("ghcr.io/huggingface/text-generation-inference:latest", TGI_ARGS),
        # --k v, and the launcher named in the command
        deployment(
            "ghcr.io/huggingface/text-generation-inference:2.0.4",
            ["--model-id", "m", "--max-input-tokens", "4096", "--num-shard", "2"],
            command=["text-generation-launcher"],
        ),
        # the env form (clap `env`): no option on the command line at all
        deployment("ghcr.io/huggingface/text-generation-inference:1.4.2", [], env=env),
        # an image tag naming no release read (the trtllm backend runs another server): no verdict
        deployment("ghcr.io/huggingface/text-generation-inference:3.0.1-trtllm", ["--max-input-lenght", "1"]),
    ]
    for form in forms:
        assert found_by([form], FLAGS) == [], form


def test_a_misspelt_option_on_a_moving_tag_is_advice():
    args = [*TGI_ARGS, "--max-input-lenght", "4096"]
    ((level, message),) = found_by([deployment("ghcr.io/huggingface/text-generation-inference:3.3", args)], FLAGS)
    assert level == "advisory"
    assert "the newest release read" in message


def test_a_tei_option_newer_than_the_image_blocks():
    # --served-model-name arrived in TEI 1.9.0 (router/src/main.rs); cpu-1.5 is the newest 1.5.x CPU image.
    args = ["--model-id", "BAAI/bge-small-en-v1.5", "--served-model-name", "bge"]
    ((level, message),) = found_by([deployment("ghcr.io/huggingface/text-embeddings-inference:cpu-1.5", args)], FLAGS)
    assert level == "mandatory"
    assert "--served-model-name is not an option of Text Embeddings Inference 1.5" in message
    silent = deployment("ghcr.io/huggingface/text-embeddings-inference:cpu-1.9", args)
    assert found_by([silent], FLAGS) == []


# The code index's stored file 3733905407 (a Deployment in a quantization guide): args alone to the llama.cpp server
# image, each option written --name=value, which llama.cpp's parser looks up whole (b8914 common/arg.cpp:480-487).
LLAMA_EQUALS = [
    "--model=/models/llama-2-7b-chat.Q4_K_M.gguf",
    "--ctx-size=4096",
    "--threads=8",
    "--n-gpu-layers=0",
    "--host=0.0.0.0",
    "--port=8080",
]


def test_llama_cpp_reads_no_equals_form():
    pinned = found_by([deployment("ghcr.io/ggml-org/llama.cpp:server-b4500", LLAMA_EQUALS)], FLAGS)
    assert len(pinned) == 6 and {level for level, _ in pinned} == {"mandatory"}
    assert next(m for _, m in pinned if "--ctx-size=" in m) == (
        "container server: --ctx-size=4096: in llama.cpp server b4500 (image ghcr.io/ggml-org/llama.cpp:server-b4500) "
        "llama.cpp server's parser turns _ into - and looks the whole argument up among its options (no --option=value "
        "form), so --ctx-size=4096 is no option and it exits with 'error: invalid argument: --ctx-size=4096' before "
        "serving; write --ctx-size and 4096 as two arguments"
    )
    # the file's own image, ghcr.io/ggerganov/llama.cpp:server, moves with every build: advice
    moving = found_by([deployment("ghcr.io/ggerganov/llama.cpp:server", LLAMA_EQUALS)], FLAGS)
    assert len(moving) == 6 and {level for level, _ in moving} == {"advisory"}


def test_llama_cpp_options_no_build_has():
    # The code index's stored file 9663150671 (a hardened llama-server Pod): --no-log and --no-slots-report are no
    # option of any build read (--log-disable, --no-slots); on the moving server tag, advice.
    args = ["--model", "/models/m.gguf", "--no-log", "--no-slots-report", "--api-key=sk-cui-project-alpha"]
    found = found_by([deployment("ghcr.io/ggerganov/llama.cpp:server", args, command=["/app/llama-server"])], FLAGS)
    assert {level for level, _ in found} == {"advisory"}
    text = " ".join(message for _, message in found)
    assert "--no-log is not an option of llama.cpp server b8914, the newest release read" in text
    assert "no llama.cpp server release from b3753 to b8914 has it" in text
    assert "--no-slots-report" in text
    assert "--api-key=<value>" in text and "sk-cui" not in text


def test_llama_cpp_option_dropped_before_a_build_blocks():
    # -p/--prompt was a common option up to b4233 and excludes the server from b4488 (common/arg.cpp set_excludes)
    args = ["-m", "/models/m.gguf", "--prompt", "hi"]
    ((level, message),) = found_by([deployment("ghcr.io/ggml-org/llama.cpp:server-cuda-b5000", args)], FLAGS)
    assert level == "mandatory"
    assert "--prompt is not an option of llama.cpp server b5000 (nor b4732 and b5022 around it)" in message


def test_careful_llama_cpp_forms_stay_silent():
    forms = [
        deployment(
            "ghcr.io/ggml-org/llama.cpp:server-cuda-b4500",
            ["-m", "/models/m.gguf", "--ctx-size", "4096", "--n_gpu_layers", "99", "--host", "0.0.0.0"],
        ),
        # the env form (LLAMA_ARG_*), and an option one build between two read ones has
        deployment(
            "ghcr.io/ggml-org/llama.cpp:server-b6100",
            ["--jinja"],
            env=[{"name": "LLAMA_ARG_CTX_SIZE", "value": "4096"}, {"name": "LLAMA_ARG_MODEL", "value": "/m.gguf"}],
        ),
        # the full image runs tools.sh: its args are not llama-server's
        deployment("ghcr.io/ggml-org/llama.cpp:full-b4500", ["--server", "--ctx-size=1"]),
    ]
    for form in forms:
        assert found_by([form], FLAGS) == [], form


def test_one_argument_with_a_space_exits_clap():
    # The code index's stored file 19264845687: "--quantize bitsandbytes-nf4" as one list item to TGI 1.4.2
    args = ["--model-id=/mnt/models/mistral-7b-lora", "--quantize bitsandbytes-nf4"]
    ((level, message),) = found_by([deployment("ghcr.io/huggingface/text-generation-inference:1.4.2", args)], FLAGS)
    assert level == "mandatory"
    assert "'--quantize bitsandbytes-nf4' is one argument" in message
    assert "or --quantize=bitsandbytes-nf4" in message


@pytest.mark.parametrize(
    ("engine", "image", "release"),
    [
        ("tgi", "ghcr.io/huggingface/text-generation-inference:2.4.1", "2.4.1"),
        ("tgi", "ghcr.io/huggingface/text-generation-inference:3.0.1-intel-xpu", "3.0.1"),
        ("tgi", "ghcr.io/huggingface/text-generation-inference:sha-abc1234", None),
        ("tei", "ghcr.io/huggingface/text-embeddings-inference:86-1.5", "1.5"),
        ("tei", "ghcr.io/huggingface/text-embeddings-inference:1.9.3", "1.9.3"),
        ("tei", "ghcr.io/huggingface/text-embeddings-inference:1.5-grpc", None),
        ("llama-cpp", "ghcr.io/ggml-org/llama.cpp:server-cuda-b4500", "b4500"),
        ("llama-cpp", "ghcr.io/ggml-org/llama.cpp:server", None),
    ],
)
def test_release_tags_per_engine(engine, image, release):
    options = ROW[engine].options
    assert options is not None
    assert tagged_release(image, options.images, options.release_tag) == release


def test_series_tags_stand_for_their_releases():
    table = cli_options("tgi_cli_flags.json")
    assert table.neighbours("1.4") == ("1.4.0", "1.4.1", "1.4.2", "1.4.3", "1.4.4", "1.4.5")
    assert table.neighbours("3.3") == () and table.open_series("3.3")
    assert cli_options("llama_cpp_cli_flags.json").neighbours("b4500") == ("b4488", "b4732")


def test_source_tables_record_tag_and_commit_per_release():
    here = Path(__file__).resolve().parents[2] / "components"
    for name in ("tgi", "tei", "llama_cpp"):
        data = json.loads((here / f"{name}_cli_flags.json").read_text())
        tags = data["provenance"]["tags"]
        assert list(tags) == data["releases"]
        for release, tag in tags.items():
            written, commit = tag.split()
            assert written.lstrip("v") == release and len(commit) == 40
        assert set(data["syntax"]) == {"equals", "underscores", "dotted", "hyphen_values"}


# The readers on text written here (no upstream code): the forms the module docstring describes.
CLAP = """
#[derive(Parser, Debug)]
#[clap(author, version, about)]
struct Args {
    /// doc
    #[clap(default_value = "m", long, env)]
    model_id: String,
    #[clap(long, short, env = "LISTEN_PORT")]
    port: u16,
    #[clap(
        long,
        alias = "hf-api-token",
        env
    )]
    hf_token: Option<String>,
    #[clap(long, env)]
    json_output: bool,
    positional: String,
}
"""

ARG_CPP = """
static bool parse(int argc, char ** argv) {
    if (arg.compare(0, arg_prefix.size(), arg_prefix) == 0) {
        std::replace(arg.begin(), arg.end(), '_', '-');
    }
    if (arg_to_options.find(arg) == arg_to_options.end()) { throw 1; }
    if (i+1 >= argc) { throw std::invalid_argument("expected value for argument"); }
}
void init() {
    add_opt(common_arg(
        {"-c", "--ctx-size"}, "N", "size // not a comment",
        [](common_params & params, int value) {}
    ).set_env("LLAMA_ARG_CTX_SIZE"));
    // add_opt(common_arg({"--commented-out"}, "", [](common_params &) {}));
    add_opt(common_arg(
        {"--webui"}, {"--no-webui"}, "ui",
        [](common_params & params, bool value) {}
    ).set_examples({LLAMA_EXAMPLE_SERVER}).set_env("LLAMA_ARG_WEBUI"));
    add_opt(common_arg(
        {"-p", "--prompt"}, "PROMPT", "prompt",
        [](common_params & params, const std::string & value) {}
    ).set_excludes({LLAMA_EXAMPLE_SERVER}));
    add_opt(common_arg(
        {"--interactive"}, "", [](common_params & params) {}
    ).set_examples({LLAMA_EXAMPLE_MAIN}));
}
"""


def test_clap_reader():
    found = clap_options(CLAP)
    assert set(found) == {
        "--help",
        "-h",
        "--version",
        "-V",
        "--model-id",
        "--port",
        "-p",
        "--hf-token",
        "--hf-api-token",
        "--json-output",
    }
    assert found["--model-id"]["env"] == "MODEL_ID" and found["--port"]["env"] == "LISTEN_PORT"
    assert found["--json-output"]["no_value"] and not found["--port"]["no_value"]
    # one value must follow a plain or Option<T> field; a bool takes none
    assert found["--model-id"]["value"] and found["--port"]["value"] and found["--hf-token"]["value"]
    assert not found["--json-output"]["value"] and not found["--help"]["value"]
    # Vec<T>, Option<Option<T>>, num_args: the number of values is not one, so the field is left out
    for kind in ("Vec<String>", "Option<Option<String>>", "Option<Vec<usize>>"):
        assert not clap_options(CLAP.replace("hf_token: Option<String>", f"hf_token: {kind}"))["--hf-token"]["value"]
    assert not clap_options(CLAP.replace("alias = ", "num_args = 0..=1, alias = "))["--hf-token"]["value"]


def test_llama_reader():
    found = llama_options(ARG_CPP)
    assert set(found) == {"-c", "--ctx-size", "--webui", "--no-webui"}
    assert found["--ctx-size"]["env"] == "LLAMA_ARG_CTX_SIZE"
    # a handler taking an int or a string takes the next argument; a bool handler (a --x/--no-x pair) takes none
    assert found["-c"]["value"] and found["--ctx-size"]["value"]
    assert not found["--webui"]["value"] and not found["--no-webui"]["value"]
    with pytest.raises(ValueError):
        llama_options(ARG_CPP.replace("arg_to_options.find(arg)", "lookup(arg)"))
    with pytest.raises(ValueError):  # a parse loop that does not refuse a value option left without its value
        llama_options(ARG_CPP.replace('"expected value for argument"', '"x"'))


def test_llama_arg_settings_cover_every_variable_the_table_read():
    # G74's names for llama.cpp (tools/read_source_options.py --env) hold every LLAMA_ARG_ variable of the option table
    from components.engine_env import ENV_SETTINGS

    data = json.loads((Path(__file__).resolve().parents[2] / "components" / "llama_cpp_cli_flags.json").read_text())
    table = {name for name in data["env"] if name.startswith("LLAMA_ARG_")}
    assert table and table <= ENV_SETTINGS["llama-cpp"].names


# Triton: tritonserver's own options (glibc getopt_long: --k v, --k=v, a unique prefix), releases named by the NGC
# container of each server release (build.py TRITON_VERSION_MAP). The command of the code index's stored Triton
# Deployments (`tritonserver --model-repository=... --strict-model-config=false --log-verbose=1`).
def triton(image: str, args: list[str]) -> dict:
    return deployment(image, args, command=["tritonserver"])


TRITON_ARGS = ["--model-repository=/models", "--strict-model-config=false", "--log-verbose=1", "--http-port", "8000"]


def test_a_misspelt_triton_option_blocks_at_a_release_tag():
    args = [*TRITON_ARGS, "--model-control=explicit"]  # a prefix of --model-control-mode: getopt_long takes it
    assert found_by([triton("nvcr.io/nvidia/tritonserver:24.08-py3", args)], FLAGS) == []
    # review46c item 7: the case above is a unique prefix only while the release has one --model-control-* option
    assert cli_options("triton_cli_flags.json").declared_prefixes("--model-control", "24.08") == ["--model-control-mode"]
    args = [*TRITON_ARGS, "--strict-readyness=false"]
    ((level, message),) = found_by([triton("nvcr.io/nvidia/tritonserver:24.08-trtllm-python-py3", args)], FLAGS)
    assert level == "mandatory"
    assert "--strict-readyness is not an option of Triton Inference Server 24.08" in message
    assert "did you mean --strict-readiness?" in message


def test_a_triton_option_newer_than_the_container_blocks():
    # --allow-client-shm is in the option table from NGC 26.04 (server v2.68.0) on
    args = [*TRITON_ARGS, "--allow-client-shm=true"]
    ((level, message),) = found_by([triton("nvcr.io/nvidia/tritonserver:24.08-py3", args)], FLAGS)
    assert level == "mandatory"
    assert "Triton Inference Server has it in 26.04 to 26.07" in message
    assert found_by([triton("nvcr.io/nvidia/tritonserver:26.05-py3", args)], FLAGS) == []
    # a rebuild under another name, or the SDK image, names no release read: silent, some release has it
    assert found_by([triton("registry.example.com/ml/tritonserver:24.08", args)], FLAGS) == []


def test_triton_options_whose_value_has_a_form_of_their_own_stay_silent():
    # review46c: tritonserver declares --backend-config, --cuda-memory-pool-byte-size, --host-policy, --metrics-config,
    # --rate-limit-resource ... with a literal describing their value ("<string>,<string>=<string>") where others have
    # Option::ArgStr (triton-inference-server/server v2.49.0 src/command_line_parser.cc:839, v2.18.0
    # src/servers/main.cc): the reader skipped them, and S38 blocked the commonest careful Triton command lines
    # (KServe's kserve-tritonserver runtime form: args [tritonserver, --model-store=/mnt/models, ...]).
    careful = [
        "--model-store=/mnt/models",
        "--grpc-port=9000",
        "--http-port=8080",
        "--allow-grpc=true",
        "--allow-http=true",
        "--backend-config=python,shm-default-byte-size=16777216",
        "--cuda-memory-pool-byte-size=0:268435456",
        "--host-policy=numa0,numa-node=0",
        "--rate-limit-resource=R1:10",
    ]
    for tag in ("22.01-py3", "23.05-py3", "24.08-trtllm-python-py3", "26.07-py3"):
        assert found_by([triton(f"nvcr.io/nvidia/tritonserver:{tag}", careful)], FLAGS) == [], tag
    table, newer = cli_options("triton_cli_flags.json"), ["--metrics-config=summary_latencies=true"]
    assert table.releases_with("--metrics-config")[0] != table.releases[0]
    # an option whose value has a form of its own still blocks where the container's server lacks it
    ((level, message),) = found_by([triton("nvcr.io/nvidia/tritonserver:22.01-py3", [*TRITON_ARGS, *newer])], FLAGS)
    assert level == "mandatory" and "--metrics-config is not an option of Triton Inference Server 22.01" in message


def test_triton_reader_takes_a_literal_value_form():
    from tools.read_source_options import triton_options

    text = (
        '{OPTION_HELP, "help", Option::ArgNone, "Print usage"},\n'
        '{OPTION_BACKEND_CONFIG, "backend-config", "<string>,<string>=<string>",\n "Specify a backend-specific setting"},'
    )
    assert triton_options(text) == {
        "--help": {"env": "", "no_value": True, "value": False},
        "--backend-config": {"env": "", "no_value": False, "value": True},
    }


# Arity (session 47): an option that takes a value with none after it. The tables' ``values`` are read per release
# by tools/read_source_options.py (clap: a plain or Option<T> field; llama.cpp: a handler taking a string or a number,
# b8914 common/arg.cpp:469-472 "expected value for argument"; Triton: every kind but Option::ArgNone is getopt's
# required_argument, v2.71.0 src/command_line_parser.cc:307, and '?' throws, :1335-1338).


def test_a_tgi_value_option_followed_by_an_option_blocks():
    # TGI_ARGS (the code index's stored file 51851684366) with --max-input-tokens' value dropped: clap 4 (TGI
    # launcher/Cargo.toml clap 4.4.5 at v2.4.1) takes --max-total-tokens for the next option
    args = ["--model-id", "meta-llama/Llama-3.1-8B-Instruct", "--max-input-tokens", "--max-total-tokens", "8192"]
    ((level, message),) = found_by([deployment("ghcr.io/huggingface/text-generation-inference:2.4.1", args)], FLAGS)
    assert level == "mandatory"
    assert message == (
        "container server: --max-input-tokens is followed by the option --max-total-tokens, but --max-input-tokens "
        "takes a value in Hugging Face TGI 2.4.1 (image ghcr.io/huggingface/text-generation-inference:2.4.1): clap exits "
        "with \"a value is required for '--max-input-tokens' but none was supplied\", so the server never starts; give "
        "--max-input-tokens its value (or remove it)"
    )
    # last on the line, and on a tag that names no release read (a rebuild): advice
    args = [*TGI_ARGS, "--quantize"]
    ((level, message),) = found_by([deployment("ghcr.io/huggingface/text-generation-inference:2.4.1", args)], FLAGS)
    assert level == "mandatory" and "--quantize is the last argument" in message
    ((level, _),) = found_by([deployment("registry.example.com/tgi:custom", args, command=["text-generation-launcher"])], FLAGS)
    assert level == "advisory"


def test_a_clap_flag_given_a_value_blocks():
    # review46c item 2: TGI's --trust-remote-code and TEI's --auto-truncate are bool fields (clap SetTrue): clap 4
    # refuses a value, "unexpected value 'true' for '--trust-remote-code' found; no more were expected", exit 2
    args = [*TGI_ARGS, "--trust-remote-code=true"]
    ((level, message),) = found_by([deployment("ghcr.io/huggingface/text-generation-inference:2.4.1", args)], FLAGS)
    assert level == "mandatory"
    assert "--trust-remote-code takes no value in Hugging Face TGI 2.4.1" in message
    assert "clap exits with \"unexpected value 'true' for '--trust-remote-code' found" in message
    args = ["--model-id", "BAAI/bge-large-en-v1.5", "--auto-truncate=true"]
    ((level, message),) = found_by([deployment("ghcr.io/huggingface/text-embeddings-inference:1.5", args)], FLAGS)
    assert "--auto-truncate takes no value" in message


def test_a_llama_cpp_value_option_last_blocks():
    # llama.cpp takes the next argument as the value whatever it is (-c --port only misreads); last, none is left
    args = ["-m", "/models/m.gguf", "--host", "0.0.0.0", "-c"]
    ((level, message),) = found_by([deployment("ghcr.io/ggml-org/llama.cpp:server-cuda-b4500", args)], FLAGS)
    assert level == "mandatory"
    assert "-c is the last argument, but -c takes a value in llama.cpp server b4500" in message
    assert "'expected value for argument'" in message


def test_a_triton_value_option_last_blocks():
    args = ["--model-repository=/models", "--log-verbose"]
    ((level, message),) = found_by([triton("nvcr.io/nvidia/tritonserver:24.08-py3", args)], FLAGS)
    assert level == "mandatory"
    assert "--log-verbose is the last argument" in message and "requires an argument" in message


def test_careful_value_forms_stay_silent():
    forms = [
        # clap: --k=v, a negative number (clap would refuse it, but it is left to other rules), an option after "--"
        deployment("ghcr.io/huggingface/text-generation-inference:2.4.1", [*TGI_ARGS, "--trust-remote-code", "--", "-x"]),
        # llama.cpp and getopt take the next argument as the value whatever it is
        deployment("ghcr.io/ggml-org/llama.cpp:server-cuda-b4500", ["-m", "/m.gguf", "--alias", "-x", "--port", "8080"]),
        triton("nvcr.io/nvidia/tritonserver:24.08-py3", ["--model-repository", "--strict-model-config=false", "--log-verbose=1"]),
        # --flash-attn took no value before b6427 and takes one from it: a build between two read ones is judged by both
        deployment("ghcr.io/ggml-org/llama.cpp:server-cuda-b6200", ["-m", "/m.gguf", "--flash-attn"]),
        # a value decided at run time
        deployment("ghcr.io/huggingface/text-generation-inference:2.4.1", ["--model-id", "$(MODEL_ID)", "--port", "80"]),
    ]
    for form in forms:
        assert found_by([form], FLAGS) == [], form


def test_an_empty_option_name_says_so():
    # review46c item 4: `--=x` is no option of any parser; the message no longer names an option "--"
    ((level, message),) = found_by([deployment("ghcr.io/ggml-org/llama.cpp:server-b4488", ["-m", "/m.gguf", "--=x"])], FLAGS)
    assert level == "mandatory"
    assert "'--=...' is an option with an empty name" in message and "-- is not an option" not in message


KSERVE_TRITON_RUNTIME = {
    # kserve v0.20.0 config/runtimes/kserve-tritonserver.yaml (its args form), at a pinned NGC container
    "apiVersion": "serving.kserve.io/v1alpha1",
    "kind": "ClusterServingRuntime",
    "metadata": {"name": "kserve-tritonserver"},
    "spec": {
        "supportedModelFormats": [{"name": "triton", "version": "2", "autoSelect": True}],
        "protocolVersions": ["v2", "grpc-v2"],
        "containers": [
            {
                "name": "kserve-container",
                "image": "nvcr.io/nvidia/tritonserver:23.05-py3",
                "args": ["tritonserver", "--model-store=/mnt/models", "--grpc-port=9000", "--http-port=8080"],
            }
        ],
    },
}


def isvc(predictor: dict) -> dict:
    return {
        "apiVersion": "serving.kserve.io/v1beta1",
        "kind": "InferenceService",
        "metadata": {"name": "triton-isvc"},
        "spec": {"predictor": predictor},
    }


def test_kserve_predictor_args_join_the_runtime_command_line():
    # review46c item 3: KServe appends a predictor's args to its ServingRuntime's (kserve v0.20.0
    # pkg/controller/v1beta1/inferenceservice/utils/utils.go:253-263) and turns a `triton` predictor into a model of
    # format triton (pkg/apis/serving/v1beta1/inference_service_defaults.go:323-335); runtimeVersion replaces the tag
    # (utils.go:339-355). The kserve docs' torchscript example's `triton` predictor, with --log-verbose misspelt.
    legacy = isvc({"triton": {"storageUri": "gs://kfserving-examples/models/torchscript", "args": ["--log-verbosity=1"]}})
    ((level, message),) = found_by([KSERVE_TRITON_RUNTIME, legacy], FLAGS)
    assert level == "mandatory"
    assert "--log-verbosity is not an option of Triton Inference Server 23.05" in message
    assert "ClusterServingRuntime/kserve-tritonserver merged in" in message
    model = isvc({"model": {"modelFormat": {"name": "triton"}, "runtimeVersion": "21.09-py3", "args": ["--log-verbose"]}})
    ((level, message),) = found_by([KSERVE_TRITON_RUNTIME, model], FLAGS)
    assert "--log-verbose is the last argument" in message
    assert level == "advisory"  # 21.09 is before the first release read: no release named
    careful = isvc({"triton": {"runtimeVersion": "24.08-py3", "args": ["--log-verbose=1", "--strict-model-config=false"]}})
    assert found_by([KSERVE_TRITON_RUNTIME, careful], FLAGS) == []
    # the runtime's own misspelling is the runtime's finding, once
    runtime = json.loads(json.dumps(KSERVE_TRITON_RUNTIME))
    runtime["spec"]["containers"][0]["args"].append("--bogus-x=1")
    found = found_by([runtime, careful], FLAGS)
    assert len(found) == 1 and "--bogus-x" in found[0][1] and "merged in" not in found[0][1]


def test_old_llama_cpp_b1_tags_are_read():
    # review46c item 6: ggerganov/llama.cpp's old server--b1-<commit> tags run the server on args too
    args = ["-m", "/m.gguf", "--typo-x"]
    ((level, message),) = found_by([deployment("ghcr.io/ggerganov/llama.cpp:server-cuda--b1-2b1f616", args)], FLAGS)
    assert level == "advisory" and "--typo-x is an option of no llama.cpp server release" in message
