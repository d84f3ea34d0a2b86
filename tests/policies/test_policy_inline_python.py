"""G46 container-can-start: Python a container runs from text the files hold that CPython cannot compile
(policies/reading/inline_python.py)."""

from __future__ import annotations

import pytest
from policy_fixtures import found_by

POLICY = "container-can-start"


def _pod(init: dict, volumes: list | None = None) -> dict:
    spec: dict = {
        "initContainers": [init],
        "containers": [{"name": "server", "image": "vllm/vllm-openai:v0.10.1", "args": ["--model", "/models/m"]}],
    }
    if volumes:
        spec["volumes"] = volumes
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "vllm-server"},
        "spec": {
            "selector": {"matchLabels": {"app": "vllm"}},
            "template": {"metadata": {"labels": {"app": "vllm"}}, "spec": spec},
        },
    }


# Minimal form of Ting-YuChou/LLM-Infrastructure-mvp k8s/deployments/vllm-deployment.yaml@a4516497828cb8eec6bc09e93d171e58376d225b
# (spent set 38, labelled G46 blocking): init container model-downloader, image llm-base:latest, runs /bin/bash -c with a
# quoted heredoc fed to `python -`, whose if/else has an `else` with no colon.
_MISSING_COLON = (
    "import os\nname = os.environ['MODEL_NAME']\nif os.path.isabs(name):\n    print(name)\nelse\n    print('download', name)\n"
)


def _heredoc(code: str, end: str = "'PY'", image: str = "llm-base:latest", python: str = "python -") -> dict:
    word = end.strip("'\"")
    script = f"{python} <<{end}\n{code}{word}\n"
    return _pod({"name": "model-downloader", "image": image, "command": ["/bin/bash", "-c", script]})


def test_a_heredoc_that_does_not_compile_blocks():
    found = found_by([_heredoc(_MISSING_COLON)], POLICY)
    assert [level for level, _ in found] == ["mandatory"], found
    assert "heredoc <<PY does not compile" in found[0][1] and "'else'" in found[0][1]


@pytest.mark.parametrize(
    "container",
    [
        # python3 -c, double-quoted in a shell script (the quotes removed as the shell does).
        {"name": "dl", "image": "python:3.11-slim", "command": ["sh", "-c", f'python3 -c "{_MISSING_COLON}" && echo done']},
        # python3 -c in the exec form, no shell.
        {"name": "dl", "image": "python:3.11-slim", "command": ["python3", "-u", "-c", _MISSING_COLON]},
        # `cat > FILE.py <<EOF` then python FILE.py.
        {
            "name": "dl",
            "image": "python:3.11-slim",
            "args": ["cat > /tmp/dl.py <<'EOF'\n" + _MISSING_COLON + "EOF\npython3 /tmp/dl.py\n"],
            "command": ["/bin/sh", "-ec"],
        },
    ],
)
def test_every_inline_form_is_read(container):
    found = found_by([_pod(container)], POLICY)
    assert [level for level, _ in found] == ["mandatory"], found


def test_a_mounted_configmap_script_is_read():
    config_map = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "dl"}, "data": {"download.py": _MISSING_COLON}}
    init = {
        "name": "dl",
        "image": "python:3.11-slim",
        "command": ["python3", "/scripts/download.py"],
        "volumeMounts": [{"name": "scripts", "mountPath": "/scripts"}],
    }
    pod = _pod(init, volumes=[{"name": "scripts", "configMap": {"name": "dl"}}])
    found = found_by([config_map, pod], POLICY)
    assert [level for level, _ in found] == ["mandatory"], found
    assert "mounted script /scripts/download.py" in found[0][1]


def test_careful_third_party_forms_stay_silent():
    # rrumana/k8s-homelab-2 cluster/apps/ai/llama-backend/llama-static-a-deployment.yaml@8c3fcda882cbff72004119e67c83eae7abf46f15
    # (spent set 24): /bin/sh -ec, `python3 - <<'PY'` with if/else, an f-string with quotes and a multi-line call.
    code = (
        "import os\nrepo = os.environ['MODEL_REPO']\nquant = os.environ.get('MODEL_QUANT', '').strip()\n"
        "if quant:\n    files = [f for f in [repo] if quant in f.lower()]\nelse:\n    files = []\n"
        "if not files:\n    raise RuntimeError(\n        f\"No GGUF file found for repo '{repo}'\"\n    )\n"
    )
    assert found_by([_heredoc(code, python="python3 -", image="python:3.12-slim")], POLICY) == []
    # husseinalamutu/sovereign-k8s-llm k8s/05-initcontainer-download.yaml@594e96377385b19a1b4b7aeffa0ce7a167fa5fa1
    # (spent set 21): python3 -c "...; hf_hub_download(repo_id='...', ...)" inside sh -c.
    line = "python3 -c \"from huggingface_hub import hf_hub_download; hf_hub_download(repo_id='o/r', filename='m.gguf', local_dir='/models')\""
    init = {
        "name": "dl",
        "image": "python:3.11-slim",
        "command": ["/bin/sh", "-c"],
        "args": [f"pip install -q huggingface_hub\n{line}\nls -lh /models\n"],
    }
    assert found_by([_pod(init)], POLICY) == []


def test_substitutions_inside_strings_are_advice_and_outside_are_not_judged():
    # An unquoted heredoc: the shell fills $MODEL inside a string literal (judged, advice) ...
    inside = 'name = "$MODEL"\nif name\n    print(name)\n'
    found = found_by([_heredoc(inside, end="EOF")], POLICY)
    assert [level for level, _ in found] == ["advisory"], found
    # ... and in code position its value may be code: not judged.
    assert found_by([_heredoc("x = $VALUE\nif x\n    pass\n", end="EOF")], POLICY) == []
    # Quoted heredoc: no substitution, `$` outside a string is a real error, but Helm's {{ }} still is not judged.
    assert found_by([_heredoc("x = {{ .Values.code }}\n", end="'EOF'")], POLICY) == []


def test_python2_forms_are_advice_or_silent():
    # `print 'x'` under an unversioned python may be Python 2: advice; under python2: silent; under python3: blocks.
    code = "import os\nprint 'ready'\n"
    assert [lv for lv, _ in found_by([_heredoc(code)], POLICY)] == ["advisory"]
    assert found_by([_heredoc(code, python="python2 -")], POLICY) == []
    assert [lv for lv, _ in found_by([_heredoc(code, python="python3 -")], POLICY)] == ["mandatory"]
    # A missing colon is refused by Python 2 as well, but an image naming Python 2 makes it advice.
    assert [lv for lv, _ in found_by([_heredoc(_MISSING_COLON, image="python:2.7-slim")], POLICY)] == ["advisory"]


def test_a_heredoc_without_its_end_word_alone_is_not_read():
    # The end word indented (the shell would read to the end of the script): not judged.
    init = {"name": "dl", "image": "python:3.11", "command": ["bash", "-c", "python3 - <<'PY'\n" + _MISSING_COLON + "  PY\n"]}
    assert found_by([_pod(init)], POLICY) == []


@pytest.mark.parametrize(
    "code",
    [
        'import json\ncfg = json.load(open("/cfg.json"))\nprint(f"serving {cfg["model"]}")\n',  # PEP 701 quote reuse
        "models = ['a', 'b']\nprint(f\"models:\\n{'\\n'.join(models)}\")\n",  # PEP 701 backslash in an expression
        "type Pair = tuple[int, int]\nprint(Pair)\n",  # PEP 695 type alias
        "def first[T](xs: list[T]) -> T:\n    return xs[0]\nprint(first([1]))\n",  # PEP 695 generic function
    ],
)
def test_python_312_grammar_is_advice_on_an_older_pack_interpreter(code):
    """Review 44 #14: the pack compiles with its own interpreter; vLLM's and SGLang's images run Python 3.12, where
    these forms are valid. Where the pack's Python cannot parse them the finding is advice, never a block."""
    import sys

    found = found_by([_heredoc(code, image="vllm/vllm-openai:v0.10.1", python="python3 -")], POLICY)
    if sys.version_info >= (3, 12):
        assert found == []
    else:
        assert [level for level, _ in found] == ["advisory"], found


def test_a_heredoc_that_is_not_the_python_program_is_not_read():
    """Review 44 #15: `python3 script.py <<EOF` runs script.py and feeds the heredoc as its stdin, `python3 -m mod <<EOF`
    likewise, and in `cat > prompts.txt <<EOF && python3 ...` the heredoc is cat's: none is Python source."""
    prompts = "Tell me a joke.\nWrite a haiku about GPUs.\n"
    for script in (
        f"python3 /opt/tools/batch_prompts.py --out /tmp/x <<EOF\n{prompts}EOF\n",
        f"python3 -m tools.batch <<EOF\n{prompts}EOF\n",
        f"cat > /tmp/prompts.txt <<EOF && python3 -m tools.batch /tmp/prompts.txt\n{prompts}EOF\n",
    ):
        container = {"name": "dl", "image": "python:3.11-slim", "command": ["/bin/sh", "-c", script]}
        assert found_by([_pod(container)], POLICY) == [], script
    # The program itself on stdin still is read: python3 -u - <<EOF, python3 <<EOF.
    for python in ("python3 -u -", "python3"):
        assert [level for level, _ in found_by([_heredoc(_MISSING_COLON, python=python)], POLICY)] == ["mandatory"]
