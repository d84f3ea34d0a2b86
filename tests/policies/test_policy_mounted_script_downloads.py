"""S17 model-source-pinned reads the download in a ConfigMap script the container runs (`command: [bash,
/scripts/start.sh]` with the ConfigMap mounted at /scripts): `huggingface-cli download` / `hf download` there is the
pod's download as much as an inline `sh -c` one, and so is a Python file calling snapshot_download(...). Minimal
hand-written shapes of the forms the brief's held-out misses describe (no third-party manifest of the form found in the
code index with its repository); careful forms stay silent."""

from __future__ import annotations

from policy_fixtures import RAISED
from policy_fixtures import found_by as _pack_found_by


def found_by(objs: list[dict], policy: str, config: dict | None = None) -> list[tuple[str, str]]:
    """The pack's findings with the advisory hygiene rows raised (policy_fixtures.RAISED), so this file's
    proven-blocks / unproven-advises pairs stay told apart."""
    return _pack_found_by(objs, policy, RAISED if config is None else config)


SHA = "0123456789abcdef0123456789abcdef01234567"


def _pod(script_name: str, script: str, command: list[str], init: bool = False) -> list[dict]:
    mounts = [{"name": "scripts", "mountPath": "/scripts"}, {"name": "models", "mountPath": "/models"}]
    runner = {"name": "dl" if init else "vllm", "image": "python:3.11-slim" if init else "vllm/vllm-openai:v0.8.5"}
    runner |= {"command": command, "volumeMounts": mounts}
    server = {
        "name": "vllm",
        "image": "vllm/vllm-openai:v0.8.5",
        "args": ["--model", "/models/qwen"],
        "volumeMounts": [mounts[1]],
        "resources": {"limits": {"nvidia.com/gpu": "1"}},
    }
    if not init:
        runner["resources"] = server["resources"]
    spec: dict = {
        "containers": [server] if init else [runner],
        "volumes": [{"name": "scripts", "configMap": {"name": "start"}}, {"name": "models", "emptyDir": {}}],
    }
    if init:
        spec["initContainers"] = [runner]
    return [
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "start", "namespace": "llm"},
            "data": {script_name: script},
        },
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "qwen", "namespace": "llm"},
            "spec": {
                "selector": {"matchLabels": {"app": "qwen"}},
                "template": {"metadata": {"labels": {"app": "qwen"}}, "spec": spec},
            },
        },
    ]


START = "#!/bin/bash\nset -e  # stop on error\nhuggingface-cli download Qwen/Qwen2.5-7B-Instruct{rev} --local-dir /models/qwen\nexec vllm serve /models/qwen\n"
PY = 'from huggingface_hub import snapshot_download\nsnapshot_download(repo_id="Qwen/Qwen2.5-7B-Instruct", local_dir="/models/qwen"{rev})\n'


def _pinned(objs: list[dict]) -> list[tuple[str, str]]:
    return found_by(objs, "model-source-pinned")


def test_a_cli_download_in_a_mounted_script_blocks():
    ((level, message),) = _pinned(_pod("start.sh", START.format(rev=""), ["/bin/bash", "/scripts/start.sh"]))
    assert level == "mandatory"
    assert message.startswith("container vllm: model Qwen/Qwen2.5-7B-Instruct comes from the Hugging Face Hub with no revision")


def test_a_python_download_in_a_mounted_file_is_advice():
    ((level, message),) = _pinned(_pod("download.py", PY.format(rev=""), ["python", "/scripts/download.py"], init=True))
    assert level == "advisory"
    assert "snapshot_download(Qwen/Qwen2.5-7B-Instruct) with no revision" in message


def test_careful_scripts_stay_silent():
    assert _pinned(_pod("start.sh", START.format(rev=f" --revision {SHA}"), ["/bin/bash", "/scripts/start.sh"])) == []
    assert _pinned(_pod("download.py", PY.format(rev=f', revision="{SHA}"'), ["python", "/scripts/download.py"], init=True)) == []
    # A mounted script the container does not run is not its start.
    assert _pinned(_pod("start.sh", START.format(rev=""), ["vllm", "serve", "/models/qwen"])) == []


SERVE = "#!/bin/bash\nexec vllm serve /models/qwen --served-model-name qwen\n"


def _two_scripts(command: list[str], volume: dict | None = None, mount: dict | None = None) -> list[dict]:
    """The reviewer's shape (cold review finding 7): a ConfigMap with the server's start script and a manual download
    helper no workload runs."""
    objs = _pod("serve.sh", SERVE, command)
    objs[0]["data"]["fetch-latest.sh"] = START.format(rev="")
    spec = objs[1]["spec"]["template"]["spec"]
    spec["volumes"][0]["configMap"] |= volume or {}
    spec["containers"][0]["volumeMounts"][0] |= mount or {}
    return objs


def test_only_the_script_the_command_names_is_read():
    assert _pinned(_two_scripts(["/bin/bash", "/scripts/serve.sh"])) == []
    assert _pinned(_two_scripts(["/bin/bash", "-c", "cd /scripts && ./serve.sh"])) == []
    # The helper named, directly or relative to the folder the line names, is the container's start again.
    for command in (["/bin/bash", "/scripts/fetch-latest.sh"], ["sh", "-c", "cd /scripts/ && ./fetch-latest.sh"]):
        assert [e for e, _ in _pinned(_two_scripts(command))] == ["mandatory"]


def test_items_and_sub_path_decide_which_key_a_path_holds():
    # items: the key fetch-latest.sh is projected as serve.sh (and serve.sh, unlisted, is absent).
    renamed = {"items": [{"key": "fetch-latest.sh", "path": "serve.sh"}]}
    assert [e for e, _ in _pinned(_two_scripts(["/bin/bash", "/scripts/serve.sh"], renamed))] == ["mandatory"]
    listed = {"items": [{"key": "serve.sh", "path": "serve.sh"}]}
    assert _pinned(_two_scripts(["/bin/bash", "/scripts/fetch-latest.sh"], listed)) == []
    # subPath: the one file at that path of the volume, at the mount path.
    one_file = {"mountPath": "/app/start.sh", "subPath": "fetch-latest.sh"}
    assert [e for e, _ in _pinned(_two_scripts(["/bin/bash", "/app/start.sh"], mount=one_file))] == ["mandatory"]
    serve_only = {"mountPath": "/app/start.sh", "subPath": "serve.sh"}
    assert _pinned(_two_scripts(["/bin/bash", "/app/start.sh"], mount=serve_only)) == []


def test_a_mount_path_inside_another_path_is_not_named():
    # /s is a prefix of /scripts/..., not a path the command names.
    objs = _two_scripts(["/bin/bash", "/scripts/serve.sh"], mount={"mountPath": "/s"})
    assert _pinned(objs) == []
