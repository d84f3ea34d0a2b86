"""S38 engine-options-exist on KServe's Hugging Face server: its vLLM backend adds vLLM's options to its parser and
reads the predictor's args with parse_known_args (kserve v0.20.0 python/huggingfaceserver/huggingfaceserver/
__main__.py:168-213), which ignores unknown options but still exits on a value option with no value and a flag given
one (policies/vllm/kserve_hf_lines.py)."""

from __future__ import annotations

import copy

from policy_fixtures import found_by

from policies.vllm.kserve_hf_lines import hf_vllm_releases

POLICY = "engine-options-exist"

# prokube-ai/kubeflow-examples@6ea41f503ca675cccb4a047de8ee58a418c1da66
# serving/kserve-hf-vllm-completion/inference-service.yaml (spent set 113): --tool-call-parser, then --enforce-eager.
PROKUBE = {
    "apiVersion": "serving.kserve.io/v1beta1",
    "kind": "InferenceService",
    "metadata": {"name": "qwen-inf-serv"},
    "spec": {
        "predictor": {
            "model": {
                "modelFormat": {"name": "huggingface"},
                "args": [
                    "--model_name=qwen-model-name",
                    "--model_id=Qwen/Qwen2.5-1.5B-Instruct",
                    "--tool-call-parser",
                    "--enforce-eager",
                ],
                "resources": {
                    "limits": {"cpu": "8", "memory": "16Gi", "nvidia.com/gpu": "1"},
                    "requests": {"cpu": "2", "memory": "4Gi", "nvidia.com/gpu": "1"},
                },
            }
        }
    },
}

# kserve/kserve@1fb781055dd1567164358233e1125142ca6ef1fe (v0.20.0) docs/samples/fluid/kserve-isvc.yaml: vLLM's options
# each with its value or as a bare flag.
FLUID = {
    "apiVersion": "serving.kserve.io/v1beta1",
    "kind": "InferenceService",
    "metadata": {"name": "llama-31-8b-instruct"},
    "spec": {
        "predictor": {
            "model": {
                "modelFormat": {"name": "huggingface"},
                "args": [
                    "--gpu-memory-utilization=0.95",
                    "--max-model-len=1024",
                    "--tensor-parallel-size=1",
                    "--enforce-eager",
                    "--disable-log-stats",
                ],
                "storageUri": "s3://bucket/models/meta-llama--Meta-Llama-3.1-8B-Instruct",
            }
        }
    },
}


def _args(obj: dict, args: list[str]) -> dict:
    out = copy.deepcopy(obj)
    out["spec"]["predictor"]["model"]["args"] = args
    return out


def test_value_option_followed_by_option_is_advice_where_no_release_is_named():
    """KServe v0.13.0-v0.14.1 add only vLLM's engine arguments (huggingfaceserver/vllm/utils.py v0.14.0:54-57), so
    with no release named the predictor may start on an older cluster (review54c)."""
    found = found_by([PROKUBE], POLICY)
    assert found == [
        (
            "advisory",
            "spec.predictor.model (KServe's Hugging Face server): --tool-call-parser is "
            "followed by the option --enforce-eager, but --tool-call-parser takes a value in vLLM 0.8.1, 0.8.5, 0.9.2, "
            "0.15.1, 0.19.0, 0.20.0, 0.24.0 (image kserve/huggingfaceserver v0.15.0 to v0.20.0, whose vLLM backend adds "
            "vLLM's parser to its own): argparse exits with 'argument --tool-call-parser: expected one argument' (or 'at "
            "least one' for a list; it takes an argument starting with '-' for the next option, CPython Lib/argparse.py "
            "consume_optional), so the server never starts; give --tool-call-parser its value (or remove it) (if the "
            "cluster's KServe is one of those releases: the files name none, and v0.13.0 to v0.14.1 add vLLM's engine "
            "arguments only)",
        )
    ]


def test_runtime_image_tag_names_the_release_and_blocks():
    runtime = {
        "apiVersion": "serving.kserve.io/v1alpha1",
        "kind": "ClusterServingRuntime",
        "metadata": {"name": "kserve-huggingfaceserver"},
        "spec": {
            "supportedModelFormats": [{"name": "huggingface", "version": "1", "autoSelect": True}],
            "containers": [{"name": "kserve-container", "image": "kserve/huggingfaceserver:v0.16.0-gpu"}],
        },
    }
    [(level, message)] = found_by([PROKUBE, runtime], POLICY)
    assert level == "mandatory"
    assert "takes a value in vLLM 0.9.2 (image kserve/huggingfaceserver v0.16.0," in message


def test_runtime_version_names_one_release():
    obj = copy.deepcopy(PROKUBE)
    obj["spec"]["predictor"]["model"]["runtimeVersion"] = "v0.15.2"
    [(level, message)] = found_by([obj], POLICY)
    assert level == "mandatory"
    assert "takes a value in vLLM 0.8.5 (image kserve/huggingfaceserver v0.15.2," in message


def test_flag_given_a_value_blocks():
    obj = _args(PROKUBE, ["--model_id=Qwen/Qwen2.5-1.5B-Instruct", "--enforce-eager=true"])
    obj["spec"]["predictor"]["model"]["runtimeVersion"] = "v0.19.0"
    [(level, message)] = found_by([obj], POLICY)
    assert level == "mandatory"
    assert message.startswith(
        "spec.predictor.model (KServe's Hugging Face server): --enforce-eager=true: --enforce-eager takes no value in vLLM"
    )


def test_unknown_architecture_is_advice():
    """A model whose architecture the tables do not know may run the Hugging Face backend, which never adds vLLM's
    parser."""
    obj = _args(PROKUBE, ["--model_id=acme/house-model", "--tool-call-parser", "--enforce-eager"])
    [(level, message)] = found_by([obj], POLICY)
    assert level == "advisory"
    assert message.endswith("(if its vLLM backend runs: the model's architecture is not known to be one vLLM loads)")


def test_careful_forms_stay_silent():
    assert found_by([FLUID], POLICY) == []
    given = ["--model_id=Qwen/Qwen2.5-1.5B-Instruct", "--tool-call-parser", "hermes", "--enable-auto-tool-choice"]
    assert found_by([_args(PROKUBE, given)], POLICY) == []
    # the Hugging Face backend never adds vLLM's parser
    assert found_by([_args(PROKUBE, [*PROKUBE["spec"]["predictor"]["model"]["args"], "--backend=huggingface"])], POLICY) == []
    # an option vLLM does not declare is kept for later by parse_known_args
    assert found_by([_args(PROKUBE, ["--model_id=Qwen/Qwen2.5-1.5B-Instruct", "--no-such-option"])], POLICY) == []


def test_spellings_only_parse_args_rewrites_stay_silent():
    """The server calls parse_known_args, never FlexibleArgumentParser.parse_args, whose rewriting turns ``_`` into
    ``-`` and ``--x.y`` into JSON: argparse keeps these as unknown options and the server starts."""
    model = "--model_id=Qwen/Qwen2.5-1.5B-Instruct"
    for args in (
        [model, "--tool_call_parser", "--enforce-eager"],
        [model, "--enforce_eager=true"],
        [model, "--compilation-config.level", "--enforce-eager"],
    ):
        obj = _args(PROKUBE, args)
        obj["spec"]["predictor"]["model"]["runtimeVersion"] = "v0.20.0"
        assert found_by([obj], POLICY) == [], args


def test_runtime_not_known_stays_silent():
    """A predictor naming a runtime the files do not hold and KServe does not ship runs a program not known."""
    obj = _args(PROKUBE, ["--model_id=Qwen/Qwen2.5-1.5B-Instruct", "--max-model-len"])
    obj["spec"]["predictor"]["model"]["runtime"] = "my-hf-runtime"
    assert found_by([obj], POLICY) == []
    obj["spec"]["predictor"]["model"]["runtime"] = "kserve-huggingfaceserver"
    [(level, _)] = found_by([obj], POLICY)
    assert level == "advisory"


def test_table_rows_are_exact_pins():
    table = hf_vllm_releases()
    assert table["v0.20.0"] == "0.24.0"
    assert list(table) == sorted(table, key=lambda t: tuple(int(p) for p in t[1:].split(".")))


def test_a_release_candidate_is_not_its_release():
    """kserve v0.15.0-rc1's Dockerfile pins vLLM 0.7.3, v0.15.0's 0.8.1: a candidate is a release the table lacks."""
    obj = copy.deepcopy(PROKUBE)
    obj["spec"]["predictor"]["model"]["runtimeVersion"] = "v0.15.0-rc1"
    assert found_by([obj], POLICY) == []
    obj["spec"]["predictor"]["model"]["runtimeVersion"] = "v0.15.0-gpu"
    [(level, message)] = found_by([obj], POLICY)
    assert level == "mandatory" and "takes a value in vLLM 0.8.1 (image kserve/huggingfaceserver v0.15.0," in message
