"""S38 engine-options-exist (session 47): an engine option that takes a value with none after it, on vLLM's parser.

argparse reads an argument starting with '-' (and not a negative number) as the next option, so a value option
followed by one ends ``parse_args`` with "argument --tool-call-parser: expected one argument" (CPython Lib/argparse.py
consume_optional), as does a value option last on the line; the server exits 2 before loading weights. Which options
take a value in which vLLM release is components/vllm_cli_flags.json ``values``, read from the wheels by
tools/read_engine_options.py (value_options: literal add_argument calls, and dataclass fields through get_kwargs,
0.34.0 vllm/engine/arg_utils.py:323-440, FrontendArgs' loop, vllm/entrypoints/common/cli_args.py:271-285).

Fires: the tool-calling form of vLLM's own docs (``--enable-auto-tool-choice --tool-call-parser hermes``,
docs/features/tool_calling.md at v0.10.1) with the parser's name left out, a form the public code index shows in
tools that guard against it but in no manifest it can name: a minimal hand-written Deployment. Careful forms silent:
``--enable-prefix-caching --max-model-len 8192``, ``--tool-call-parser=hermes``, ``--seed -1``, ``--`` separators, a
value starting with '-' given with '='."""

from __future__ import annotations

from policy_fixtures import found_by

FLAGS = "engine-options-exist"


def _deployment(image: str, args: list[str], command: list[str] | None = None) -> dict:
    container: dict = {"name": "vllm", "image": image, "args": args, "resources": {"limits": {"nvidia.com/gpu": 1}}}
    if command:
        container["command"] = command
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "m", "namespace": "llm"},
        "spec": {
            "selector": {"matchLabels": {"app": "m"}},
            "template": {"metadata": {"labels": {"app": "m"}}, "spec": {"containers": [container]}},
        },
    }


ARGS = ["--model", "Qwen/Qwen3-8B", "--max-model-len", "8192"]


def _missing(manifest: dict) -> list[tuple[str, str]]:
    return [f for f in found_by([manifest], FLAGS) if "takes a value" in f[1]]


def test_a_value_option_followed_by_an_option_blocks_on_a_named_release():
    args = [*ARGS, "--tool-call-parser", "--enable-auto-tool-choice"]
    ((level, message),) = _missing(_deployment("vllm/vllm-openai:v0.10.1", args))
    assert level == "mandatory"
    assert message == (
        "container vllm: --tool-call-parser is followed by the option --enable-auto-tool-choice, but --tool-call-parser "
        "takes a value in vLLM 0.10.1 (image vllm/vllm-openai:v0.10.1): argparse exits with 'argument "
        "--tool-call-parser: expected one argument' (or 'at least one' for a list; it takes an argument starting with "
        "'-' for the next option, CPython Lib/argparse.py consume_optional), so the server never starts; give "
        "--tool-call-parser its value (or remove it)"
    )


def test_a_value_option_last_blocks_and_a_list_option_too():
    ((level, message),) = _missing(_deployment("vllm/vllm-openai:v0.34.0", ["--model", "m", "--max-model-len"]))
    assert level == "mandatory" and "--max-model-len is the last argument" in message
    args = ["serve", "m", "--served-model-name", "--port", "8000"]
    ((level, message),) = _missing(_deployment("vllm/vllm-openai:v0.34.0", args[2:], command=["vllm", *args[:2]]))
    assert level == "mandatory" and "--served-model-name is followed by the option --port" in message
    # a shell line: the option is last before the operator
    script = "vllm serve Qwen/Qwen3-8B --api-key && echo done"
    ((level, message),) = _missing(_deployment("vllm/vllm-openai:v0.10.1", [], command=["sh", "-c", script]))
    assert level == "mandatory" and "--api-key is the last argument" in message


def test_where_the_release_is_not_named_it_is_advice():
    args = [*ARGS, "--tool-call-parser", "--enable-auto-tool-choice"]
    ((level, message),) = _missing(_deployment("vllm/vllm-openai:latest", args))
    assert level == "advisory" and "the newest release read, which image vllm/vllm-openai:latest runs today" in message
    ((level, message),) = _missing(_deployment("registry.example.com/vllm:custom", args, command=["vllm", "serve"]))
    assert level == "advisory" and "names none of them" in message


def test_careful_forms_stay_silent():
    image = "vllm/vllm-openai:v0.10.1"
    forms = [
        ["--enable-prefix-caching", "--max-model-len", "8192"],
        ["--tool-call-parser=hermes", "--enable-auto-tool-choice"],
        ["--seed", "-1", "--max-model-len", "8192"],
        ["--seed=-1", "--max-num-seqs", "16"],
        ["--tool-call-parser", "--", "hermes"],
        ["--tool-call-parser", "$(PARSER)", "--enable-auto-tool-choice"],
        ["--served-model-name", "a", "b", "--port", "8000"],
        ["--hf-token"],  # bool | str | None: an optional value
    ]
    for args in forms:
        assert _missing(_deployment(image, [*ARGS, *args])) == [], args


def test_allowed_options_silence_it():
    manifest = _deployment("vllm/vllm-openai:v0.10.1", [*ARGS, "--tool-call-parser", "--enable-auto-tool-choice"])
    assert _missing(manifest) and not [
        f for f in found_by([manifest], FLAGS, {FLAGS: {"allowedOptions": ["tool-call-parser"]}}) if "takes a value" in f[1]
    ]


_LLMISVC = {
    "apiVersion": "serving.kserve.io/v1alpha1",
    "kind": "LLMInferenceService",
    "metadata": {"name": "qwen", "namespace": "llm"},
    "spec": {
        "model": {"uri": "hf://Qwen/Qwen3-8B", "name": "Qwen/Qwen3-8B"},
        "template": {"containers": [{"name": "main", "image": "vllm/vllm-openai:v0.10.1", "env": [], "args": []}]},
    },
}


def _llmisvc(extra: str, args: list[str]) -> dict:
    import copy

    obj = copy.deepcopy(_LLMISVC)
    container = obj["spec"]["template"]["containers"][0]
    container["env"] = [{"name": "VLLM_ADDITIONAL_ARGS", "value": extra}] if extra else []
    container["args"] = args
    return obj


def test_an_llmisvc_reads_vllm_additional_args_before_its_args():
    # The preset's line: vllm serve /mnt/models ... ${VLLM_ADDITIONAL_ARGS} $@ under eval (kserve v0.20.0
    # config/llmisvcconfig/config-llm-template.yaml:166-177): the variable's words, then the args.
    ((level, message),) = _missing(_llmisvc("--max-model-len 8192 --tool-call-parser", ["--enable-auto-tool-choice"]))
    assert level == "mandatory" and "--tool-call-parser is followed by the option --enable-auto-tool-choice" in message
    assert _missing(_llmisvc("--max-model-len 8192 --tool-call-parser", ["hermes", "--enable-auto-tool-choice"])) == []
    misspelt = [f for f in found_by([_llmisvc("--max-model-lenght 8192", [])], FLAGS) if "--max-model-lenght" in f[1]]
    assert misspelt and misspelt[0][0] == "mandatory"


def _runtime_and_isvc(image: str, runtime_args: list[str], isvc_args: list[str], fmt: str) -> list[dict]:
    """A ServingRuntime and an InferenceService using it (the shape of review47c's k-06 and k-03 reproducers)."""
    runtime = {
        "apiVersion": "serving.kserve.io/v1alpha1",
        "kind": "ServingRuntime",
        "metadata": {"name": "rt", "namespace": "llm"},
        "spec": {
            "supportedModelFormats": [{"name": fmt, "autoSelect": True}],
            "containers": [{"name": "kserve-container", "image": image, "args": runtime_args}],
        },
    }
    if fmt == "vLLM":
        runtime["spec"]["containers"][0]["command"] = ["python3", "-m", "vllm.entrypoints.openai.api_server"]
    isvc = {
        "apiVersion": "serving.kserve.io/v1beta1",
        "kind": "InferenceService",
        "metadata": {"name": "v", "namespace": "llm"},
        "spec": {"predictor": {"model": {"modelFormat": {"name": fmt}, "runtime": "rt", "args": isvc_args}}},
    }
    return [runtime, isvc]


def test_a_serving_runtime_ending_with_a_value_option_is_advice():
    # review47c item 1: KServe appends each InferenceService's args after its ServingRuntime's (kserve v0.20.0
    # pkg/controller/v1beta1/inferenceservice/utils/utils.go:253-263), so a runtime whose args end with --model gets
    # its value from `args: [/mnt/models/llama, ...]`: the runtime alone never runs, no block there.
    objects = _runtime_and_isvc(
        "vllm/vllm-openai:v0.10.1",
        ["--port", "8080", "--served-model-name", "{{.Name}}", "--model"],
        ["/mnt/models/llama", "--max-model-len", "8192"],
        "vLLM",
    )
    found = [f for f in found_by(objects, FLAGS) if "takes a value" in f[1]]
    assert [level for level, _ in found] == ["advisory"]
    assert "--model is the last argument of this ServingRuntime's container" in found[0][1]
    assert "unless every InferenceService using it gives the value first" in found[0][1]
    tgi = "ghcr.io/huggingface/text-generation-inference:3.3.4"
    objects = _runtime_and_isvc(tgi, ["--port", "8080", "--model-id"], ["/mnt/models", "--max-input-tokens", "1024"], "tgi")
    assert [level for level, m in found_by(objects, FLAGS) if "takes a value" in m] == ["advisory"]
    # k-04: followed by the predictor's own option, appending cannot fix it: the InferenceService's finding blocks
    objects = _runtime_and_isvc(tgi, ["--model-id", "/mnt/models", "--api-key"], ["--max-input-tokens", "1024"], "tgi")
    levels = sorted((level, "InferenceService predictor" in m) for level, m in found_by(objects, FLAGS) if "takes a value" in m)
    assert levels == [("advisory", False), ("mandatory", True)]
    # an option followed by another option in the runtime itself stays mandatory
    objects = _runtime_and_isvc(tgi, ["--model-id", "--port", "8080"], [], "tgi")
    assert [level for level, m in found_by(objects, FLAGS) if "takes a value" in m] == ["mandatory"]
