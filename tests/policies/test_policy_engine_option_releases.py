"""S38 engine-options-exist at every vLLM release from 0.4.0 (the table read back over 0.4.x and 0.5.x), argparse's
abbreviations as each release's parser takes them, and moving tags judged at the newest release read. Each cause with
the third-party form that fires (cut down from the cited file) and careful forms that stay silent."""

from __future__ import annotations

import pytest
from policy_fixtures import found_by

from components.engine_options import moving_release

FLAGS = "engine-options-exist"

# obaida7/gke-vllm-serving k8s/vllm-inferenceservice.yaml@2dcde4b83f393174aac3873a9bca0b28e97081fc (spent set 13):
# vLLM v0.4.3's OpenAI server on a T4, with an OpenTelemetry endpoint that release's parser does not have.
OBAIDA_ARGS = [
    "--model=/mnt/models/Qwen2.5-0.5B-Instruct",
    "--port=8080",
    "--gpu-memory-utilization=0.90",
    "--max-model-len=4096",
    "--enable-prefix-caching",
    "--otlp-traces-endpoint=http://jaeger-collector.monitoring.svc.cluster.local:4317",
]


def inference_service(image: str, args: list[str]) -> dict:
    return {
        "apiVersion": "serving.kserve.io/v1beta1",
        "kind": "InferenceService",
        "metadata": {
            "name": "qwen-vllm",
            "namespace": "kserve-test",
            "annotations": {"serving.kserve.io/deploymentMode": "RawDeployment"},
        },
        "spec": {
            "predictor": {
                "containers": [
                    {
                        "name": "kserve-container",
                        "image": image,
                        "command": ["python3", "-m", "vllm.entrypoints.openai.api_server"],
                        "args": args,
                        "ports": [{"containerPort": 8080, "protocol": "TCP"}],
                        "resources": {"limits": {"nvidia.com/gpu": "1"}, "requests": {"nvidia.com/gpu": "1"}},
                    }
                ]
            }
        },
    }


# marcin119a/bielik_vllm k8s/vllm-deployment.yaml@3ab69d3b89dc5bdbecf13afd6e244275810a138a (spent set 13): args alone
# to the vllm/vllm-openai:latest image, with the --device option vLLM dropped.
BIELIK_ARGS = [
    "--model",
    "speakleash/Bielik-4.5B-v3.0-Instruct",
    "--device",
    "cpu",
    "--dtype",
    "bfloat16",
    "--max-model-len",
    "2048",
    "--enforce-eager",
]


def deployment(image: str, args: list[str]) -> dict:
    container = {"name": "vllm-server", "image": image, "args": args, "ports": [{"containerPort": 8000}]}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "vllm-server", "namespace": "ai-agent"},
        "spec": {
            "selector": {"matchLabels": {"app": "vllm-server"}},
            "template": {"metadata": {"labels": {"app": "vllm-server"}}, "spec": {"containers": [container]}},
        },
    }


def test_an_option_a_0_4_release_lacks_blocks():
    # 0.4.3's parser is a plain argparse.ArgumentParser (vllm/entrypoints/openai/cli_args.py:25 plus EngineArgs) parsed
    # strictly (api_server.py:63-65); --otlp-traces-endpoint arrived in 0.5.1.
    ((level, message),) = found_by([inference_service("vllm/vllm-openai:v0.4.3", OBAIDA_ARGS)], FLAGS)
    assert level == "mandatory"
    assert message == (
        "container kserve-container: --otlp-traces-endpoint is not an option of vLLM 0.4.3, the release "
        "of image vllm/vllm-openai:v0.4.3 (vLLM has it in 0.5.1 to 0.34.0); vLLM's argument parser exits on an "
        "unrecognized argument, so the server never starts; remove it or use the spelling of the image's release"
    )


def test_careful_forms_of_old_releases_stay_silent():
    without = OBAIDA_ARGS[:-1]
    forms = [
        # every other option of the file exists at 0.4.3
        inference_service("vllm/vllm-openai:v0.4.3", without),
        # the option at the release that added it, and at a post release after it
        inference_service("vllm/vllm-openai:v0.5.1", OBAIDA_ARGS),
        inference_service("vllm/vllm-openai:v0.5.3.post1", OBAIDA_ARGS),
        # unique prefixes, which 0.4.3's argparse (allow_abbrev kept) takes for --max-num-seqs and --gpu-memory-utilization
        inference_service("vllm/vllm-openai:v0.4.3", [*without, "--max-num-seq", "8", "--gpu-memory-util=0.9"]),
    ]
    for form in forms:
        assert found_by([form], FLAGS) == [], form


def test_a_dropped_option_on_latest_is_advice_at_the_newest_release():
    # vLLM 0.34.0 (today's :latest) declares --device-ids (vllm/engine/arg_utils.py:1210) and
    # --device-memory-utilization (:1405) and no --device: argparse exits with "ambiguous option".
    ((level, message),) = found_by([deployment("vllm/vllm-openai:latest", BIELIK_ARGS)], FLAGS)
    assert level == "advisory"
    assert message.startswith(
        "container vllm-server: --device is not an option of vLLM 0.34.0, the newest release read, which image "
        "vllm/vllm-openai:latest runs today (the tag moves) (vLLM has it in 0.4.0 to 0.9.2), only a prefix of "
        "--device-ids and --device-memory-utilization; where its parser has both, argparse exits with 'ambiguous option'"
    )
    # No tag at all moves the same way.
    assert [level for level, _ in found_by([deployment("vllm/vllm-openai", BIELIK_ARGS)], FLAGS)] == ["advisory"]
    # A release tag from 0.10 on: only DeviceConfig.device has the name there, and the parser dropped the option (the
    # 0.10.1 wheel's vllm/engine/arg_utils.py has no DeviceConfig group; cold review 18): it blocks at a named release.
    ((level, message),) = found_by([deployment("vllm/vllm-openai:v0.11.2", BIELIK_ARGS)], FLAGS)
    assert level == "mandatory"
    assert "--device is not an option of vLLM 0.11.2" in message and "the parser dropped it in 0.10.0" in message
    assert "vLLM declares it in 0.4.0 to 0.9.2" in message


def test_careful_forms_on_moving_tags_stay_silent():
    forms = [
        # the release that still declares --device
        deployment("vllm/vllm-openai:v0.9.2", BIELIK_ARGS),
        # options 0.34.0 has, an exact name that is also a prefix (--model, --model-impl ...), and a unique prefix
        deployment("vllm/vllm-openai:latest", [*BIELIK_ARGS[:2], *BIELIK_ARGS[4:], "--device-ids", "0", "--max-num-seq", "8"]),
        # a digest pins a build whose release is not named: an option some release has stays silent
        deployment("vllm/vllm-openai@sha256:" + "0" * 64, BIELIK_ARGS),
        # a rebuild under another name: its release is not known
        deployment("registry.example.com/ml/vllm-openai:latest", BIELIK_ARGS),
    ]
    for form in forms:
        assert found_by([form], FLAGS) == [], form


@pytest.mark.parametrize(
    "image,moving",
    [
        ("vllm/vllm-openai:latest", True),
        ("docker.io/vllm/vllm-openai", True),
        ("vllm/vllm-openai:LATEST", True),
        ("vllm/vllm-openai:v0.34.0", False),
        ("vllm/vllm-openai@sha256:" + "0" * 64, False),
        ("vllm/vllm-openai:latest@sha256:" + "0" * 64, True),
        ("ghcr.io/example/vllm-openai:latest", False),
    ],
)
def test_moving_release(image, moving):
    assert moving_release(image, ("vllm/vllm-openai",), ("latest",)) is moving


def sglang(image: str, extra: list[str]) -> dict:
    line = ["python3", "-m", "sglang.launch_server", "--model-path", "meta-llama/Llama-3.1-8B-Instruct", "--port", "30000"]
    manifest = deployment(image, [])
    manifest["spec"]["template"]["spec"]["containers"] = [{"name": "sglang", "image": image, "command": [*line, *extra]}]
    return manifest


def test_sglang_0_3_releases_are_read():
    # The SGLang table reaches back to 0.2.0: lmsysorg/sglang:v0.3.x images (v0.3.4.post2-cu121 in Prism's install
    # guide, v0.3.6-cu121 in other deployers) run launch_server's strict parse_args (sglang/srt/server_args.py
    # prepare_server_args). --enable-metrics arrived in 0.3.5.post1.
    ((level, message),) = found_by([sglang("lmsysorg/sglang:v0.3.4.post2-cu121", ["--enable-metrics"])], FLAGS)
    assert level == "mandatory"
    assert "--enable-metrics is not an option of SGLang 0.3.4.post2" in message
    assert "SGLang has it in 0.3.5.post1 to 0.5.23" in message
    # careful forms: the release that added it, an option 0.3.4.post2 has, and a unique prefix of one
    assert found_by([sglang("lmsysorg/sglang:v0.3.5.post1-cu121", ["--enable-metrics"])], FLAGS) == []
    assert found_by([sglang("lmsysorg/sglang:v0.3.4.post2-cu121", ["--mem-fraction-static", "0.8"])], FLAGS) == []
    assert found_by([sglang("lmsysorg/sglang:v0.3.4.post2-cu121", ["--schedule-conservative", "0.3"])], FLAGS) == []


# gorkacrespo/WorkaTrack k8s/vllm.yaml (spent set 27): an embedding server given --task on a moving tag.
WORKATRACK_ARGS = ["--host", "0.0.0.0", "--port", "8000", "--model", "BAAI/bge-small-en-v1.5", "--task", "embed"]


def test_task_is_no_option_of_0_34_though_a_hint_quotes_it():
    # vLLM 0.34.0 vllm/utils/argparse_utils.py:182-194: "Hint: --task is not a vllm serve option"; the option table
    # counts that literal, so the name looked accepted on :latest (set 27's miss).
    ((level, message),) = found_by([deployment("vllm/vllm-openai:latest", WORKATRACK_ARGS)], FLAGS)
    assert level == "advisory"
    assert "--task is not an option of vLLM 0.34.0" in message and "--runner pooling" in message
    # The same line pinned to the release read blocks; --task=embed is the same option.
    pinned = [*WORKATRACK_ARGS[:6], "--task=embed"]
    ((level, message),) = found_by([deployment("vllm/vllm-openai:v0.34.0", pinned)], FLAGS)
    assert level == "mandatory" and "unrecognized arguments" in message


def test_careful_task_forms_stay_silent():
    forms = [
        # a release that declares --task (0.8.5 vllm/engine/arg_utils.py): left to the table
        deployment("vllm/vllm-openai:v0.8.5", WORKATRACK_ARGS),
        # the replacement on today's image
        deployment("vllm/vllm-openai:latest", [*WORKATRACK_ARGS[:6], "--runner", "pooling"]),
        # a rebuild under another name: its release is not known
        deployment("registry.example.com/ml/vllm-openai:latest", WORKATRACK_ARGS),
    ]
    for form in forms:
        assert found_by([form], FLAGS) == [], form


# sebassem/vllm-aks infra/manifests/vllm-deployment.yml (spent set 28): a stray "auto" after --model's value.
AKS_ARGS = ["--model", "Qwen/Qwen3-0.6B", "auto", "--port", "8000", "--host", "0.0.0.0", "--enable-prefix-caching"]


def _serve(image: str, line: str) -> dict:
    obj = deployment(image, [])
    container = obj["spec"]["template"]["spec"]["containers"][0]
    container.pop("args", None)
    container["command"] = ["/bin/sh", "-c", line]
    return obj


def test_a_stray_word_after_the_model_is_refused():
    ((level, message),) = found_by([deployment("vllm/vllm-openai:latest", AKS_ARGS)], FLAGS)
    assert level == "advisory"
    assert "auto is a stray positional argument" in message and "unrecognized arguments: auto" in message
    # `vllm serve` written out on a release read from 0.11.1 on: argparse exits (0.34.0 argparse_utils.py:336-353).
    line = "vllm serve --model=Qwen/Qwen3-0.6B auto --port 8000"
    ((level, message),) = found_by([_serve("vllm/vllm-openai:v0.34.0", line)], FLAGS)
    assert level == "mandatory" and "(vLLM 0.34.0)" in message


def test_careful_model_lines_stay_silent():
    forms = [
        deployment("vllm/vllm-openai:latest", [AKS_ARGS[0], AKS_ARGS[1], *AKS_ARGS[3:]]),
        # a variable after the model is expanded by the shell at run time: not a word here
        _serve("vllm/vllm-openai:v0.34.0", "vllm serve --model Qwen/Qwen3-0.6B $EXTRA_ARGS --port 8000"),
        # the model last on the line, then another command
        _serve("vllm/vllm-openai:v0.34.0", "vllm serve --port 8000 --model Qwen/Qwen3-0.6B && echo done"),
    ]
    for form in forms:
        assert found_by([form], FLAGS) == [], form
