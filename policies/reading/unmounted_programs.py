"""A program a container runs from a folder that only another container of its pod mounts (G46).

A pod's volumes are mounted per container (core/v1 Container.volumeMounts: "Pod volumes to mount into the container's
filesystem"); a ConfigMap or Secret volume mounted at /scripts in the app container is not in the init container's
filesystem. When a container runs a program by its absolute path under such a folder (``/scripts/model-download.sh``
as its command, after a shell's ``-c``, or as ``sh|bash|python FILE``) and mounts nothing there itself, the runtime (or
the shell) finds no file and the container exits at once (127, "No such file or directory"); an init container that
fails so keeps the pod in Init forever. Spent set 95 soln-aixLOTA/PROJECT-lota
k8s/base/nim-deployment.yaml: init container model-downloader on ubuntu:22.04 runs /scripts/model-download.sh, while
ConfigMap volume ``scripts`` is mounted at /scripts only in the NIM container (labelled G46 blocking, twice).

Mandatory where the folder is the mount of a ConfigMap or Secret volume of the pod (files the cluster puts there, not
the image) and the container's image is a public base image that ships no such folder (components/base_images.toml, each
row with its source: Docker Official Images such as ubuntu, debian, alpine, busybox, python, and the usual tool images
such as curlimages/curl, bitnami/kubectl); advice
where the image may be a build of the repository's own.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from typing import Any

from components.base_images import base_image
from policies.kube import as_dict, as_list
from policies.reading.hidden_folders import under
from policies.reading.shell_commands import RUN_OPENERS, script_commands, unwrapped, wrapped
from policies.reading.shell_words import SHELLS, shell_script, split_shell

# Interpreters whose first operand is the program file.
_RUNNERS = SHELLS | frozenset({"python", "python3", "node", "perl", "ruby", "env"})
_SYSTEM = frozenset({"bin", "sbin", "usr", "lib", "lib64", "lib32", "etc"})


def _program(command: list[str]) -> str:
    """The absolute path a simple command runs (``/scripts/x.sh``, ``bash /scripts/x.sh``, after the assignments,
    wrappers and compound-command words before it: policies/reading/shell_commands.py), "" when none."""
    words = wrapped(unwrapped(command, RUN_OPENERS))
    if not words:
        return ""
    if posixpath.basename(words[0]) in _RUNNERS:
        path = words[1] if len(words) > 1 else ""
    else:
        path = words[0]
    return path if path.startswith("/") and "$" not in path else ""


def _program_paths(container: Mapping[str, Any]) -> list[str]:
    argv = [str(t) for t in as_list(container.get("command")) + as_list(container.get("args")) if isinstance(t, (str, int))]
    if not argv:
        return []
    script = shell_script(argv)
    if script is None:
        return [path] if (path := _program(argv)) else []
    found: list[str] = []
    earlier: list[str] = []
    for command, _ in script_commands(split_shell(script)):
        path = _program(command)
        if path:
            # a script that names the folder before running from it may write the file there first
            # (mkdir -p /scripts; curl -o /scripts/run.sh ...; /scripts/run.sh): not judged (review51a)
            folder = posixpath.dirname(path)
            before = earlier + command[: command.index(path)]
            if not any(folder in word for word in before):
                found.append(path)
        earlier.extend(command)
    return found


def unmounted_programs(podspec: Mapping[str, Any], container: Mapping[str, Any]) -> list[tuple[str, str, str, bool]]:
    """(program path, folder, volume name, proven) for each program the container runs from a folder another container
    of the pod mounts from a ConfigMap or Secret volume while this one mounts nothing over that path."""
    volumes = {str(v.get("name")): v for v in as_list(podspec.get("volumes")) if isinstance(v, dict)}
    own = [str(m.get("mountPath", "")) for m in as_list(container.get("volumeMounts")) if isinstance(m, dict)]
    others: list[tuple[str, str]] = []
    for other in as_list(podspec.get("containers")) + as_list(podspec.get("initContainers")):
        if not isinstance(other, dict) or other is container:
            continue
        for mount in as_list(other.get("volumeMounts")):
            at = mount.get("mountPath") if isinstance(mount, dict) else None
            # a mount at / names no folder this container lacks (every path is under it): it proves nothing
            if isinstance(at, str) and at.startswith("/") and posixpath.normpath(at) != "/" and not mount.get("subPath"):
                others.append((at, str(mount.get("name"))))
    if not others:
        return []
    image = container.get("image")
    found = []
    for path in dict.fromkeys(_program_paths(container)):
        if any(under(path, m) for m in own if m.startswith("/")):
            continue
        for folder, volume in others:
            source = as_dict(volumes.get(volume))
            if not under(path, folder) or not (source.get("configMap") or source.get("secret") or source.get("projected")):
                continue
            # a base image ships the system folders (/usr/local/bin/python): a mount there only suggests (review51a)
            system = path.lstrip("/").split("/", 1)[0] in _SYSTEM
            found.append((path, folder, volume, base_image(image) is not None and not system))
            break
    return found
