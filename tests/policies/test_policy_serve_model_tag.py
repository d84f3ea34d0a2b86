"""`vllm serve TAG ... --model X`, by release (read in the PyPI wheels; policies/vllm/serve_model_tag_release.py _MOVES_MODEL):
refused before 0.11.1 (ValueError) except at 0.5.2-0.5.4 and --model= at 0.8.3-0.11.0 (the tag wins), "unrecognized arguments" from
0.11.1; checked by S38 engine-options-exist, the tag read by served_model."""

import pytest
from policy_fixtures import found_by

from policies.reading.vllm_args import serve_model_tag


def vllm_deployment(container: dict) -> dict:
    """A Deployment with one vLLM container on two GPUs."""
    container = {"name": "vllm", "image": "vllm/vllm-openai:v0.8.5", **container}
    container.setdefault("resources", {"limits": {"nvidia.com/gpu": 2}})
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "qwen25-coder-7b"},
        "spec": {
            "selector": {"matchLabels": {"app": "qwen"}},
            "template": {"metadata": {"labels": {"app": "qwen"}}, "spec": {"containers": [container]}},
        },
    }


def script(line: str) -> dict:
    return {"command": ["/bin/sh", "-c"], "args": [line]}


# Set 12: spangreen/K8s-Ollama-Setup manifests/qwen25-coder-7b.yaml at 0b5833e59cc1926caa3f993563bc005264ae353a.
MIXED = "vllm serve vllm.entrypoints.openai.api_server --model Qwen/Qwen2.5-Coder-7B --tensor-parallel-size 2\n"


def test_a_module_as_the_model_tag_blocks_once():
    # S38 reports it; G46 container-can-start leaves this case to S38, so it is reported once. At v0.8.5 a bare
    # --model with `vllm serve` is refused (0.8.5 vllm/utils.py:1339-1346 FlexibleArgumentParser.parse_args).
    objs = [vllm_deployment(script(MIXED))]
    found = found_by(objs, "engine-options-exist")
    assert [level for level, _ in found] == ["mandatory"]
    assert "vLLM 0.8.5 (image vllm/vllm-openai:v0.8.5) refuses --model with `vllm serve` (ValueError" in found[0][1]
    assert found_by(objs, "container-can-start") == []


def test_a_module_tag_on_an_unknown_release_blocks():
    # The real shape (spangreen, image :latest): the line fails at every release read.
    container = {"image": "vllm/vllm-openai:latest", **script(MIXED)}
    assert found_by([vllm_deployment(container)], "engine-options-exist") == [
        (
            "mandatory",
            "container vllm: vllm serve vllm.entrypoints.openai.api_server: the positional argument is vLLM's model tag "
            "(vllm/entrypoints/cli/serve.py: args.model = args.model_tag), and vllm.entrypoints.openai.api_server is a "
            "program to run, not a model, so vLLM looks up a model of that name and exits before serving (with --model "
            "Qwen/Qwen2.5-Coder-7B, vLLM 0.11.1 and later exit with 'unrecognized arguments: "
            "vllm.entrypoints.openai.api_server'); drop it and name the model once (`vllm serve MODEL` or --model)",
        )
    ]


@pytest.mark.parametrize(
    "args",
    [
        ["vllm.entrypoints.openai.api_server", "--model", "Qwen/Qwen2.5-Coder-7B"],
        ["Qwen/Qwen2.5-7B", "--model", "Qwen/Qwen2.5-Coder-7B"],
    ],
)
def test_args_alone_to_the_images_entrypoint_are_advice(args):
    # The image's ENTRYPOINT was python3 -m vllm.entrypoints.openai.api_server for years (vllm-project/vllm#22072,
    # #32292: a positional given to the image is ignored) and is `vllm serve` in recent images; which release changed it
    # was not read, so args alone (no `vllm serve` written) are advice whatever the release.
    objs = [vllm_deployment({"image": "vllm/vllm-openai:v0.33.0", "args": args})]
    found = found_by(objs, "engine-options-exist")
    assert [level for level, _ in found] == ["advisory"]
    assert "(where the image's entrypoint is `vllm serve`; an older image's python -m" in found[0][1]
    assert found_by(objs, "container-can-start") == []


# The reviewer's case (/tmp/review/s38/same.yaml, diff.yaml): from 0.11.1 FlexibleArgumentParser.parse_args moves
# --model's value to the front (0.11.1 vllm/utils/argparse_utils.py:196-228; 0.33.0 :324-353), so the tag is a second
# positional of model_tag (nargs="?") and argparse exits with "unrecognized arguments".
@pytest.mark.parametrize("model", ["Qwen/Qwen2.5-7B", "Qwen/Qwen2.5-Coder-7B"])
@pytest.mark.parametrize("image", ["vllm/vllm-openai:v0.11.2", "vllm/vllm-openai:v0.33.0"])
def test_a_tag_with_model_is_refused_from_0_11_1(model, image):
    container = {"image": image, **script(f"vllm serve Qwen/Qwen2.5-7B --model {model}")}
    found = found_by([vllm_deployment(container)], "engine-options-exist")
    assert [level for level, _ in found] == ["mandatory"]
    assert "so Qwen/Qwen2.5-7B becomes a second positional argument and argparse exits with 'unrecognized " in found[0][1]


@pytest.mark.parametrize("image", ["vllm/vllm-openai:v0.6.6", "vllm/vllm-openai:v0.10.2"])
def test_a_tag_with_a_bare_model_is_refused_before_0_11_1(image):
    # 0.6.6 vllm/scripts.py:33-37 (cmd: --model not the default) / 0.10.2 vllm/utils/__init__.py:1806-1814 (a bare
    # --model token): ValueError before serving.
    container = {"image": image, **script("vllm serve Qwen/Qwen2.5-7B --model Qwen/Qwen2.5-7B")}
    found = found_by([vllm_deployment(container)], "engine-options-exist")
    assert [level for level, _ in found] == ["mandatory"]
    assert "refuses --model with `vllm serve` (ValueError" in found[0][1]


def test_a_tag_with_model_equals_wins_from_0_8_5_to_0_11_0():
    # --model=M is no bare --model token: 0.8.5-0.11.0 let it pass and serve.py sets args.model = args.model_tag.
    container = {"image": "vllm/vllm-openai:v0.10.2", **script("vllm serve Qwen/Qwen2.5-7B --model=Qwen/Qwen2.5-Coder-7B")}
    assert found_by([vllm_deployment(container)], "engine-options-exist") == [
        (
            "advisory",
            "container vllm: vllm serve Qwen/Qwen2.5-7B ... --model=Qwen/Qwen2.5-Coder-7B: in vLLM 0.10.2 (image "
            "vllm/vllm-openai:v0.10.2) the positional model tag wins over --model= (vllm/entrypoints/cli/serve.py: "
            "args.model = args.model_tag), so the server loads Qwen/Qwen2.5-7B, not Qwen/Qwen2.5-Coder-7B; name the "
            "model once (`vllm serve MODEL`)",
        )
    ]
    assert "Qwen/Qwen2.5-7B" in " ".join(m for _, m in found_by([vllm_deployment(container)], "model-source-pinned"))
    container = {"image": "vllm/vllm-openai:v0.10.2", **script("vllm serve Qwen/Qwen2.5-7B --model=Qwen/Qwen2.5-7B")}
    assert found_by([vllm_deployment(container)], "engine-options-exist") == []


@pytest.mark.parametrize("image", ["vllm/vllm-openai:latest", "registry.example.com/vllm:1.0"])
def test_a_tag_with_model_on_an_unknown_release_is_advice(image):
    container = {"image": image, **script("vllm serve Qwen/Qwen2.5-7B --model Qwen/Qwen2.5-7B")}
    found = found_by([vllm_deployment(container)], "engine-options-exist")
    assert [level for level, _ in found] == ["advisory"]
    assert "names no vLLM release read; from 0.11.1" in found[0][1]


@pytest.mark.parametrize(
    "container",
    [
        script("vllm serve Qwen/Qwen2.5-Coder-7B --tensor-parallel-size 2"),
        script("vllm serve --model Qwen/Qwen2.5-Coder-7B --tensor-parallel-size 2"),
        {"command": ["python3", "-m", "vllm.entrypoints.openai.api_server"], "args": ["--model", "Qwen/Qwen2.5-Coder-7B"]},
        {"args": ["--model", "Qwen/Qwen2.5-Coder-7B", "--tensor-parallel-size", "2"]},
        {"args": ["Qwen/Qwen2.5-Coder-7B", "--tensor-parallel-size", "2"]},
    ],
)
def test_one_model_named_once_is_silent(container):
    container = {"image": "vllm/vllm-openai:v0.33.0", **container}
    assert found_by([vllm_deployment(container)], "engine-options-exist") == []


def test_the_tag_is_read_only_for_vllm_serve():
    assert serve_model_tag({"image": "vllm/vllm-openai:v0.8.5", "args": ["serve", "Qwen/Qwen2.5-7B"]}) == "Qwen/Qwen2.5-7B"
    module = {"command": ["python3", "-m", "vllm.entrypoints.openai.api_server", "Qwen/Qwen2.5-7B"], "image": "x"}
    assert serve_model_tag(module) is None
    assert serve_model_tag({"image": "vllm/vllm-openai:v0.8.5", "args": ["--port", "8000"]}) is None


# `vllm serve --model M` with no tag: up to 0.8.0 model_tag is a required positional (0.8.0 vllm/entrypoints/cli/
# serve.py:45-47); 0.8.5-0.11.0 parse_args raises ValueError on a bare --model (vllm-project/vllm#17944 shows the
# traceback); from 0.11.1 the value is moved to the front and accepted. Real form: vllm-project/aibrix
# samples/autoscaling/deploy.yaml@e3e10f9e4aebe9aac5e7d992fb87d2648e01628b (vllm/vllm-openai:v0.7.1, in the corpus).
@pytest.mark.parametrize("image", ["vllm/vllm-openai:v0.7.1", "vllm/vllm-openai:v0.10.2"])
def test_model_alone_written_with_vllm_serve_is_refused_before_0_11_1(image):
    container = {"image": image, "command": ["vllm", "serve", "--host", "0.0.0.0", "--model", "Qwen/Qwen2.5-7B"]}
    found = found_by([vllm_deployment(container)], "engine-options-exist")
    assert [level for level, _ in found] == ["mandatory"]
    assert "so the server never starts; write `vllm serve Qwen/Qwen2.5-7B`" in found[0][1]


@pytest.mark.parametrize(
    "container",
    [
        {"image": "vllm/vllm-openai:v0.10.2", "command": ["vllm", "serve", "--model=Qwen/Qwen2.5-7B"]},
        {"image": "vllm/vllm-openai:v0.11.2", "command": ["vllm", "serve", "--model", "Qwen/Qwen2.5-7B"]},
        {"image": "vllm/vllm-openai:latest", "command": ["vllm", "serve", "--model", "Qwen/Qwen2.5-7B"]},
        {"image": "vllm/vllm-openai:v0.8.5", "args": ["--model", "Qwen/Qwen2.5-7B"]},
    ],
)
def test_model_alone_where_it_is_accepted_or_not_shown_is_silent(container):
    assert found_by([vllm_deployment(container)], "engine-options-exist") == []


# Review 28 #6 (/tmp/review/s38/tag.yaml): 0.5.2-0.5.4 `serve()` has no check and sets args.model = args.model_tag
# (0.5.3 vllm/scripts.py:24-28), the ValueError first appears in 0.5.5 (vllm/scripts.py:27-32); ServeSubcommand.cmd
# refuses --model up to 0.8.2 (0.8.2 vllm/entrypoints/cli/serve.py:23-28) and parse_args a bare --model from 0.8.3
# (0.8.3 vllm/utils.py:1244-1252).
@pytest.mark.parametrize("image", ["vllm/vllm-openai:v0.5.3", "vllm/vllm-openai:v0.5.4"])
def test_tag_and_model_before_0_5_5_start_with_the_tag(image):
    same = {"image": image, "command": ["vllm", "serve", "Qwen/Qwen2-7B-Instruct", "--model", "Qwen/Qwen2-7B-Instruct"]}
    assert found_by([vllm_deployment(same)], "engine-options-exist") == []
    other = {"image": image, "command": ["vllm", "serve", "Qwen/Qwen2-7B-Instruct", "--model", "Qwen/Qwen2-1.5B"]}
    found = found_by([vllm_deployment(other)], "engine-options-exist")
    assert [level for level, _ in found] == ["advisory"] and "the positional model tag wins" in found[0][1]


@pytest.mark.parametrize(
    ("image", "model"),
    [("vllm/vllm-openai:v0.5.5", "--model"), ("vllm/vllm-openai:v0.8.2", "--model="), ("vllm/vllm-openai:v0.8.3", "--model")],
)
def test_tag_and_model_refused_from_0_5_5(image, model):
    flag = [f"{model}Qwen/Qwen2-1.5B"] if model.endswith("=") else [model, "Qwen/Qwen2-1.5B"]
    container = {"image": image, "command": ["vllm", "serve", "Qwen/Qwen2-7B-Instruct", *flag]}
    found = found_by([vllm_deployment(container)], "engine-options-exist")
    assert [level for level, _ in found] == ["mandatory"] and "refuses --model with `vllm serve`" in found[0][1]
    if image.endswith("v0.8.3"):
        container["command"] = ["vllm", "serve", "Qwen/Qwen2-7B-Instruct", "--model=Qwen/Qwen2-1.5B"]
        assert [level for level, _ in found_by([vllm_deployment(container)], "engine-options-exist")] == ["advisory"]
