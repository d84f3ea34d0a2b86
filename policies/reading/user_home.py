"""Where an engine's HOME-derived folders land when the pod runs as another user than the image's root.

The download folders of the engine table under ``/root/`` (Ollama's /root/.ollama/models, huggingface_hub's
/root/.cache/huggingface/hub, llama.cpp's /root/.cache/llama.cpp) are root's HOME joined with a fixed path: the engine
asks for $HOME (Go's os.UserHomeDir, Python's ``~``). A pod that sets ``runAsUser`` runs with the HOME its image's
/etc/passwd gives that uid, so the folders move with it: components/engine_env.toml ``[homes.ENGINE]`` names that HOME
for the publisher's images where it is known (uid 1000 is /home/ubuntu in ollama/ollama, built FROM ubuntu:24.04).
A volume mounted at the root path is then never written (spent set 43, haroonsyed/homelab apps/ollama/deployment.yaml:
runAsUser 1000, the PVC at /root/.ollama).
"""

from __future__ import annotations

import posixpath
from typing import Any, Mapping, Optional

from components.engine_env import home_of
from policies.kube import as_dict

ROOT_HOME = "/root"


def run_as_user(podspec: Mapping, container: Mapping) -> Optional[int]:
    """The uid the container runs as by its securityContext, the container's winning over the pod's; None when
    neither sets runAsUser."""
    for context in (as_dict(container.get("securityContext")), as_dict(podspec.get("securityContext"))):
        user = context.get("runAsUser")
        if isinstance(user, int) and not isinstance(user, bool):
            return user
    return None


def moved_home(row: Any, podspec: Mapping, container: Mapping, dirs: tuple[str, ...]) -> Optional[tuple[tuple[str, ...], str]]:
    """(the folders under the user's HOME, why) when the pod runs as a non-root uid whose HOME the [homes] table knows
    for the container's image and ``dirs`` (the row's default folders) lie under /root; None otherwise."""
    uid = run_as_user(podspec, container)
    if not uid or not dirs or not all(d == ROOT_HOME or d.startswith(ROOT_HOME + "/") for d in dirs):
        return None
    home = home_of(row, container.get("image"), uid)
    if home is None:
        return None
    moved = tuple(posixpath.join(home, posixpath.relpath(d, ROOT_HOME)) for d in dirs)
    why = (
        f"runAsUser {uid} has HOME {home} in {container.get('image')}, so {row.display} keeps its files in "
        f"{moved[0]}, not under /root"
    )
    return moved, why


__all__ = ["ROOT_HOME", "moved_home", "run_as_user"]
