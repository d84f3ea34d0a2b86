"""G46 container-can-start: a container that runs a program from a folder only another container of its pod mounts.

Spent set 95 soln-aixLOTA/PROJECT-lota@b6730ddc81ed9f7d08cbdd1a81eadde5238b39ad k8s/base/nim-deployment.yaml (trimmed):
init container model-downloader (ubuntu:22.04) runs `bash -c "... && /scripts/model-download.sh"`, while ConfigMap volume
`scripts` is mounted at /scripts only in the NIM container; volumes are mounted per container, so the init container
finds no file and the pod stays in Init (labelled G46 blocking)."""

from __future__ import annotations

import copy
import re

import pytest
from policy_fixtures import found_by

POLICY = "container-can-start"

NIM = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "nim-embedding-service", "namespace": "lotabots"},
    "spec": {
        "selector": {"matchLabels": {"app": "nim-embedding-service"}},
        "template": {
            "metadata": {"labels": {"app": "nim-embedding-service"}},
            "spec": {
                "initContainers": [
                    {
                        "name": "model-downloader",
                        "image": "ubuntu:22.04",
                        "command": ["/bin/bash"],
                        "args": ["-c", "apt-get update && apt-get install -y curl jq && /scripts/model-download.sh"],
                    }
                ],
                "containers": [
                    {
                        "name": "nim-embedding",
                        "image": "nvcr.io/nim/nvidia/nv-embedqa-e5-v5:1.0.0",
                        "volumeMounts": [
                            {"name": "models", "mountPath": "/models"},
                            {"name": "scripts", "mountPath": "/scripts"},
                        ],
                    }
                ],
                "volumes": [
                    {"name": "models", "persistentVolumeClaim": {"claimName": "nim-models-pvc"}},
                    {"name": "scripts", "configMap": {"name": "model-download-script", "defaultMode": 493}},
                ],
            },
        },
    },
}


def _messages(manifest: dict) -> list[tuple[str, str]]:
    return [(level, m) for level, m in found_by([manifest], POLICY) if "volumes are mounted per container" in m]


def test_the_init_container_runs_a_script_only_the_app_container_mounts():
    ((level, message),) = _messages(NIM)
    assert level == "mandatory"
    assert "container model-downloader: runs /scripts/model-download.sh" in message
    assert "mount scripts at /scripts in this container too" in message


def test_other_forms_read_and_an_image_of_the_repository_is_advice():
    for argv in (["/scripts/model-download.sh"], ["sh", "/scripts/model-download.sh"], ["python3", "/scripts/fetch.py"]):
        manifest = copy.deepcopy(NIM)
        init = manifest["spec"]["template"]["spec"]["initContainers"][0]
        init["command"], init["args"] = argv, []
        assert [level for level, _ in _messages(manifest)] == ["mandatory"], argv
    own = copy.deepcopy(NIM)
    own["spec"]["template"]["spec"]["initContainers"][0]["image"] = "registry.example.com/lota/downloader:1.2"
    assert [level for level, _ in _messages(own)] == ["advisory"]


def test_careful_forms_are_silent():
    mounted = copy.deepcopy(NIM)
    mounted["spec"]["template"]["spec"]["initContainers"][0]["volumeMounts"] = [{"name": "scripts", "mountPath": "/scripts"}]
    assert _messages(mounted) == []
    # a claim's folder (data, not files the cluster writes), a path outside every mount, a variable path: silent
    claim = copy.deepcopy(NIM)
    claim["spec"]["template"]["spec"]["initContainers"][0]["args"] = ["-c", "/models/bin/fetch.sh"]
    assert _messages(claim) == []
    for script in ("/opt/tools/fetch.sh", "$SCRIPTS/model-download.sh", "echo /scripts/model-download.sh"):
        other = copy.deepcopy(NIM)
        other["spec"]["template"]["spec"]["initContainers"][0]["args"] = ["-c", script]
        assert _messages(other) == [], script
    broken = copy.deepcopy(NIM)
    broken["spec"]["template"]["spec"]["volumes"] = "nope"
    broken["spec"]["template"]["spec"]["initContainers"][0]["command"] = 7
    assert _messages(broken) == []


def test_a_script_that_writes_the_folder_first_or_a_system_folder_is_not_blocked():
    """Review 51a: a script that names the folder before running from it may write the file there first (silent), and a
    mount over a system folder the base image fills (/usr/local/bin) only suggests (advice)."""
    written = copy.deepcopy(NIM)
    written["spec"]["template"]["spec"]["initContainers"][0]["args"] = [
        "-c",
        "mkdir -p /scripts && curl -fsSL -o /scripts/model-download.sh https://example.com/x.sh && /scripts/model-download.sh",
    ]
    assert _messages(written) == []
    system = copy.deepcopy(NIM)
    system["spec"]["template"]["spec"]["containers"][0]["volumeMounts"][1]["mountPath"] = "/usr/local/bin"
    init = system["spec"]["template"]["spec"]["initContainers"][0]
    init["command"], init["args"] = ["/usr/local/bin/fetch.sh"], []
    assert [level for level, _ in _messages(system)] == ["advisory"]


def _script(script: str, manifest: dict = NIM) -> dict:
    changed = copy.deepcopy(manifest)
    changed["spec"]["template"]["spec"]["initContainers"][0]["args"] = ["-c", script]
    return changed


def test_the_script_is_read_through_the_shared_shell_readers():
    """A script's commands are cut by policies/reading/shell_commands.py (script_commands, unwrapped, wrapped): the
    program after assignments (POSIX Shell Command Language 2.9.1 "Simple Commands"), after a wrapper (timeout 600,
    exec, env, nohup) and after a compound-command word (then, else, do, `{`, `!`, `(`, and if/while/until before a condition) is the
    command run."""
    for script in (
        "MODEL=e5 /scripts/model-download.sh",
        "apt-get update; timeout 600 /scripts/model-download.sh",
        "exec /scripts/model-download.sh",
        "env HF_HOME=/models /scripts/model-download.sh",
        "nohup bash /scripts/model-download.sh",
        "{ /scripts/model-download.sh; }",
        "! /scripts/model-download.sh || echo failed",
        "if [ -d /models ]; then echo ok; else /scripts/model-download.sh; fi",
        "for i in 1 2; do /scripts/model-download.sh; done",
        "if /scripts/model-download.sh; then echo ok; fi",
        "until /scripts/model-download.sh; do sleep 5; done",
        "( /scripts/model-download.sh )",
        "set -e\n/scripts/model-download.sh | tee /tmp/log",
    ):
        assert [level for level, _ in _messages(_script(script))] == ["mandatory"], script
    # a word that is an operand, not the command, stays silent: echo's argument, a test's operand, a redirection
    for script in ("echo /scripts/model-download.sh", "[ -x /scripts/model-download.sh ]", "cat < /scripts/x.sh"):
        assert _messages(_script(script)) == [], script


def test_a_mount_at_the_root_folder():
    """A mount at / in this container covers every path (silent); another container's mount at / names no folder this
    one lacks (every path is under /), so it proves nothing and stays silent too."""
    own = copy.deepcopy(NIM)
    own["spec"]["template"]["spec"]["initContainers"][0]["volumeMounts"] = [{"name": "models", "mountPath": "/"}]
    assert _messages(own) == []
    root = copy.deepcopy(NIM)
    root["spec"]["template"]["spec"]["containers"][0]["volumeMounts"][1]["mountPath"] = "/"
    assert _messages(root) == []
    dotted = copy.deepcopy(NIM)  # a mount path written with a trailing slash or a dot is the same folder
    dotted["spec"]["template"]["spec"]["containers"][0]["volumeMounts"][1]["mountPath"] = "/scripts/./"
    assert [level for level, _ in _messages(dotted)] == ["mandatory"]


def test_the_base_images_are_a_table_with_sources(tmp_path):
    """components/base_images.toml: the images that prove the finding (mandatory), matched as the hand regex did:
    at any tag or digest, docker.io/ in front, library/ only for a Docker Official Image; a bad row names its field."""
    from components.base_images import base_image, load

    rows = load()
    assert all(row.source for row in rows.values()) and {"ubuntu", "curlimages/curl", "bitnami/kubectl"} <= set(rows)
    for image in ("ubuntu:22.04", "docker.io/library/python@sha256:ab", "library/busybox", "docker.io/curlimages/curl:8"):
        assert base_image(image) is not None, image
    for image in ("library/curlimages/curl", "ubuntu-x:1", "ubuntu/x:1", "quay.io/ubuntu:1", "python3:1", "", None, 7):
        assert base_image(image) is None, image
    good = 'repository = "ubuntu"\nlibrary = true\nsource = "docker-library"\n'
    table = tmp_path / "base_images.toml"
    for body, named in (
        (good.replace("library = true", 'library = "yes"'), "#1 (ubuntu): library must be true or false"),
        (good.replace('source = "docker-library"', 'source = " "'), "#1 (ubuntu): source must be text"),
        (good + "tags = []\n", "unknown fields ['tags']"),
        (good.replace('repository = "ubuntu"\n', ""), "missing fields ['repository']"),
    ):
        table.write_text(f"[[image]]\n{body}", encoding="utf-8")
        with pytest.raises(ValueError, match=re.escape(named)):
            load(table)
