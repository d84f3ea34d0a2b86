"""A `pip install` run as a non-root user on the python official image, where it has nowhere to install (G46).

The python official images (components/image_contents.toml ``python`` row) build CPython as root with no USER
(docker-library/python Dockerfile-linux.template @90e9ca41), so site-packages under /usr/local is root's, and their
/etc/passwd (Debian's or Alpine's base) has no entry for a uid such as 1000. A pod that runs the container with such a
``runAsUser`` and no HOME gets HOME=/ from runc (v1.2.9 libcontainer/init_linux.go:468-471 defaultExecUser Home "/",
:552-554; vendor/github.com/moby/sys/user/user.go:300-305,344-350 a numeric uid with no entry keeps the default).
pip then finds site-packages not writable and falls back to a user install (pypa/pip 26.2.1
src/pip/_internal/commands/install.py:818-837 decide_user_install: "Defaulting to user installation because normal
site-packages is not writeable"), under $HOME/.local = /.local, which the user cannot create in the root-owned /: the
install fails with "Could not install packages due to an OSError: [Errno 13] Permission denied". Spent set 69
sicknosn/Proyecto2_LLM_Autoscalable_Kubernetes k8s/deployment-vllm.yaml: the model-downloader init container on
python:3.11-slim under the pod's runAsUser 1000 runs ``pip install -q huggingface_hub && python -c ...`` (label filed
NONE, blocking).

Mandatory where the image is a release the row read and the failed install decides the script (the last statement, or
joined by ``&&`` to the end, or under ``set -e``); advice otherwise. Silent where the pod runs as root or sets no user,
sets HOME, PYTHONUSERBASE, PIP_TARGET or PIP_PREFIX, passes ``--target``/``--prefix``/``--root``, makes a virtual
environment, mounts a volume over /usr/local, /.local or / , or installs only conditionally (``if``, ``||``).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping
from typing import Optional

from components.image_contents import contents
from policies.framework import unproven
from policies.kube import as_dict, as_list, get
from policies.reading.shell_words import shell_script, split_shell

_PIPS = frozenset({"pip", "pip3"})
_PIP_VERSIONED = re.compile(r"^pip3\.\d+$")
_PYTHON = re.compile(r"^python(?:3(?:\.\d+)?)?$")
_ELSEWHERE_FLAGS = ("--target", "-t", "--prefix", "--root", "--user-base")
_ENV_MOVES = frozenset({"HOME", "PYTHONUSERBASE", "PIP_TARGET", "PIP_PREFIX", "VIRTUAL_ENV", "PIP_ROOT"})
_VENV_WORDS = frozenset({"venv", "virtualenv", "uv", "conda", "mamba", "poetry", "pipx"})
_CONDITIONAL = frozenset({"if", "||", "elif", "while", "until", "case"})
_JOINERS = frozenset({"&&", "||", "|"})


def _run_as(podspec: Mapping, container: Mapping) -> Optional[int]:
    for context in (get(container, "securityContext"), get(podspec, "securityContext")):
        uid = as_dict(context).get("runAsUser")
        if isinstance(uid, bool):
            return None
        if isinstance(uid, int):
            return uid
        if isinstance(uid, float) and uid.is_integer():
            return int(uid)
    return None


def _pip_install_at(words: list[str]) -> Optional[int]:
    """The index of the first `pip install` (pip, pip3, pip3.11, python -m pip) of the words, or None."""
    for i, word in enumerate(words):
        name = posixpath.basename(word)
        if (name in _PIPS or _PIP_VERSIONED.match(name)) and words[i + 1 : i + 2] == ["install"]:
            return i
        if _PYTHON.match(name) and words[i + 1 : i + 4] == ["-m", "pip", "install"]:
            return i
    return None


def _decides(words: list[str], at: int, strict: bool) -> bool:
    """True when the statement holding words[at] decides the script's exit: it is the last statement (a ``;`` after
    ``&&``, ``||`` or ``|`` is a line break inside the list), or the shell stops at a failure (``set -e``)."""
    if strict:
        return True
    for i in range(at, len(words)):
        if words[i] == ";" and words[i - 1] not in _JOINERS and any(w != ";" for w in words[i + 1 :]):
            return False
    return True


def user_pip_install(label: str, podspec: Mapping, container: Mapping) -> list[str]:
    """The finding for a container of the python official image whose script pip-installs as a non-root uid with no
    HOME (see the module docstring), or []."""
    command = container.get("command")
    if not isinstance(command, list) or not command:
        return []
    argv = [str(t) for t in command] + [str(t) for t in as_list(container.get("args"))]
    script = shell_script(argv)
    if script is None or "install" not in script or "pip" not in script:
        return []
    match = contents(container.get("image"))
    if match is None or match.row.family != "python" or match.lookalike():
        return []
    uid = _run_as(podspec, container)
    if not uid:
        return []
    if any(isinstance(e, dict) and e.get("name") in _ENV_MOVES for e in as_list(container.get("env"))):
        return []
    if as_list(container.get("envFrom")):
        return []  # HOME or PYTHONUSERBASE may come from a source the files do not show
    for mount in as_list(container.get("volumeMounts")):
        path = as_dict(mount).get("mountPath")
        if isinstance(path, str) and posixpath.normpath(path) in ("/", "/usr", "/usr/local", "/.local", "/usr/local/lib"):
            return []
    words = split_shell(script)
    at = _pip_install_at(words)
    if at is None or _CONDITIONAL.intersection(words[:at]) or _VENV_WORDS.intersection(words[:at]):
        return []
    end = next((i for i in range(at, len(words)) if words[i] in (";", "&&", "||", "|")), len(words))
    if any(w.split("=", 1)[0] in _ELSEWHERE_FLAGS for w in words[at:end]):
        return []
    if words[end : end + 1] == ["||"]:
        return []  # a fallback decides what happens
    strict = any(
        w == "set" and words[i + 1 : i + 2] and words[i + 1].startswith("-") and "e" in words[i + 1]
        for i, w in enumerate(words[:at])
    )
    strict = strict or any(t.startswith("-") and not t.startswith("--") and "e" in t[1:] for t in argv[1:3])
    text = (
        f"{label}: the script runs `{' '.join(words[at:end])}` as runAsUser {uid} with no HOME on the python image "
        f"{container.get('image')}, which has no passwd entry for that uid and a root-owned site-packages "
        f"(components/image_contents.toml python row): runc sets HOME=/, pip falls back to a user install under "
        f"/.local (pip install.py decide_user_install: site-packages not writeable) and cannot create it in the "
        f"root-owned /, so the install fails with Permission denied and the container exits; set HOME (or "
        f"PYTHONUSERBASE) to a writable volume, install with --target into one, or use an image with the packages"
    )
    if match.proven and _decides(words, at, strict):
        return [text]
    return [unproven(text + (f" ({match.why_not})" if match.why_not else ""))]
