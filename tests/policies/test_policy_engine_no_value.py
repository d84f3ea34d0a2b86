"""S38 engine-options-exist: a vLLM flag that takes no value written with one (``--enforce-eager=true``). vLLM's
FlexibleArgumentParser passes ``--key=value`` to argparse unchanged (0.33.0 vllm/utils/argparse_utils.py:386-391), and
argparse exits with "ignored explicit argument" when an action of nargs 0 (store_true, BooleanOptionalAction) gets one
(CPython Lib/argparse.py consume_optional). Which flags take no value in which release is components/vllm_cli_flags.json
``flags``, read from the wheels by tools/read_engine_options.py (no_value_options)."""

from __future__ import annotations

from policy_fixtures import found_by

from components.engine_options import cli_options
from policies.vllm.option_values import explicit_values

FLAGS = "engine-options-exist"


def _deployment(image: str, args: list[str]) -> dict:
    # The shape the brief's held-out misses describe (a vllm/vllm-openai server given --enforce-eager=true and the like);
    # the public code index shows the form only in tools that guard against it (e.g. "vLLM rejects
    # --enable-prefix-caching=true" in recipe renderers), with no manifest it can name: a minimal hand-written shape.
    container = {"name": "vllm", "image": image, "args": args, "resources": {"limits": {"nvidia.com/gpu": 1}}}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "m", "namespace": "llm"},
        "spec": {
            "selector": {"matchLabels": {"app": "m"}},
            "template": {"metadata": {"labels": {"app": "m"}}, "spec": {"containers": [container]}},
        },
    }


ARGS = ["--model", "/models/qwen", "--max-model-len", "8192"]


def _value_findings(manifest: dict) -> list[tuple[str, str]]:
    return [f for f in found_by([manifest], FLAGS) if "takes no value" in f[1]]


def test_the_table_records_flags_taking_no_value_per_release():
    table = cli_options()
    assert table.takes_no_value("--enforce-eager", "0.33.0")  # EngineArgs.enforce_eager: bool -> BooleanOptionalAction
    assert table.takes_no_value("--enforce_eager", "0.6.0")  # action="store_true" in 0.6.0
    assert table.takes_no_value("--trust-remote-code", "0.10.0")
    assert not table.takes_no_value("--gpu-memory-utilization", "0.33.0")
    assert not table.takes_no_value("--max-model-len", "0.33.0")


def test_a_flag_written_with_a_value_blocks_on_a_named_release():
    ((level, message),) = _value_findings(_deployment("vllm/vllm-openai:v0.33.0", [*ARGS, "--enforce-eager=true"]))
    assert level == "mandatory"
    assert message == (
        "container vllm: --enforce-eager=true: --enforce-eager takes no value in vLLM 0.33.0 (image "
        "vllm/vllm-openai:v0.33.0), so argparse exits with \"ignored explicit argument 'true'\" and the server never "
        "starts; write --enforce-eager alone (or its --no- form, where the release has one) instead of "
        "--enforce-eager=true"
    )


def test_on_an_image_naming_no_release_it_is_advice():
    levels = [level for level, _ in _value_findings(_deployment("vllm/vllm-openai:latest", [*ARGS, "--trust-remote-code=True"]))]
    assert levels == ["advisory"]


def test_careful_forms_stay_silent():
    # The bare flag, a value flag written with =, the --no- form, and a variable decided at run time.
    careful = [*ARGS, "--enforce-eager", "--gpu-memory-utilization=0.9", "--no-enable-prefix-caching", "--dtype=$(DTYPE)"]
    assert _value_findings(_deployment("vllm/vllm-openai:v0.33.0", careful)) == []
    # KServe's Hugging Face server reads vLLM's options with parse_known_args: not vLLM's parser (already silent for S38).
    assert explicit_values(["--enforce-eager=true", "&&", "--x=1"]) == [("--enforce-eager", "true")]


def test_allowed_options_silence_it():
    manifest = _deployment("vllm/vllm-openai:v0.33.0", [*ARGS, "--enforce-eager=true"])
    assert [
        f for f in found_by([manifest], FLAGS, {FLAGS: {"allowedOptions": ["enforce-eager"]}}) if "takes no value" in f[1]
    ] == []


# The reviewer's /tmp/review/sec/s.yaml: a value refused by a flag that takes none may be a mis-pasted credential; only
# boolean-looking words are echoed (as G47 keeps refused Secret values out of its messages).
def test_a_refused_value_that_is_no_boolean_word_is_not_printed():
    from policies.vllm.flags_exist import POLICY

    container = {
        "name": "vllm",
        "image": "vllm/vllm-openai:v0.33.0",
        "args": ["--model", "m/m", "--enforce-eager=hf_TOKENVALUE42", "--disable-log-stats=sk-XYZSECRET", "--api-key sk-ONEARG"],
    }
    obj = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "v"},
        "spec": {
            "selector": {"matchLabels": {"a": "v"}},
            "template": {"metadata": {"labels": {"a": "v"}}, "spec": {"containers": [container]}},
        },
    }
    found = found_by([obj], POLICY.name)
    text = " ".join(m for _, m in found)
    assert "--enforce-eager=<value>: --enforce-eager takes no value" in text
    assert "--disable-log-stats=<value>" in text and "'--api-key <value>' is one argument" in text
    assert "TOKENVALUE42" not in text and "XYZSECRET" not in text and "ONEARG" not in text


def test_a_boolean_word_after_a_flag_is_a_stray_argument():
    """Spent set 93 cc-automation-projects/voicegraph-autonomous-agent infra/k8s/vllm-deployment.yaml:
    '--enable-prefix-caching' 'true' on vllm/vllm-openai:v0.6.1, whose flag takes no value there (the table's `flags`),
    so argparse exits with 'unrecognized arguments: true' (labelled S38 blocking). The careful forms stay silent: the
    flag alone, a value option followed by a word, and a moving tag is advice."""
    manifest = _deployment("vllm/vllm-openai:v0.6.1", [*ARGS, "--enable-prefix-caching", "true"])
    stray = [(level, m) for level, m in found_by([manifest], FLAGS) if "--enable-prefix-caching true" in m]
    assert [level for level, _ in stray] == ["mandatory"], stray
    assert "unrecognized arguments: true" in stray[0][1]
    assert not [
        m
        for _, m in found_by([_deployment("vllm/vllm-openai:v0.6.1", [*ARGS, "--enable-prefix-caching"])], FLAGS)
        if " true" in m
    ]
    value_option = _deployment("vllm/vllm-openai:v0.6.1", ["--model", "/models/qwen", "--served-model-name", "true"])
    assert not [m for _, m in found_by([value_option], FLAGS) if "positional" in m]
    moving = _deployment("vllm/vllm-openai:latest", [*ARGS, "--enforce-eager", "false"])
    assert [level for level, m in found_by([moving], FLAGS) if "--enforce-eager false" in m] == ["advisory"]


def test_a_boolean_word_after_a_flag_blocks_only_where_no_positional_takes_it():
    """Review 51a: from vLLM 0.10.0 the API server's make_arg_parser declares an optional model_tag positional (0.10.0
    vllm/entrypoints/openai/cli_args.py:214; up to 0.9.2 only serve's sub-parser has it, vllm/entrypoints/cli/serve.py:68)
    that api_server never reads: '--enable-prefix-caching true' given to python -m vllm.entrypoints.openai.api_server
    there starts (advice). A `vllm serve` line has the tag already, or takes the word for the model: it blocks."""
    api_server = _deployment("vllm/vllm-openai:v0.10.1", [*ARGS, "--enable-prefix-caching", "true"])
    api_server["spec"]["template"]["spec"]["containers"][0]["command"] = ["python3", "-m", "vllm.entrypoints.openai.api_server"]
    assert [level for level, m in found_by([api_server], FLAGS) if "--enable-prefix-caching true" in m] == ["advisory"]
    serve = _deployment("vllm/vllm-openai:v0.10.1", ["/models/qwen", "--enable-prefix-caching", "true"])
    serve["spec"]["template"]["spec"]["containers"][0]["command"] = ["vllm", "serve"]
    assert [level for level, m in found_by([serve], FLAGS) if "--enable-prefix-caching true" in m] == ["mandatory"]
    old = _deployment("vllm/vllm-openai:v0.9.2", [*ARGS, "--enable-prefix-caching", "true"])
    old["spec"]["template"]["spec"]["containers"][0]["command"] = ["python3", "-m", "vllm.entrypoints.openai.api_server"]
    assert [level for level, m in found_by([old], FLAGS) if "--enable-prefix-caching true" in m] == ["mandatory"]
