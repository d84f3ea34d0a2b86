"""G29: a vLLM server on a read-only root filesystem still has somewhere to write.

``securityContext.readOnlyRootFilesystem: true`` mounts the container's root read-only; only volumes mounted into it
(and the runtime's own /dev/shm) stay writable. vLLM cannot start without a writable temporary directory: its API
server and engine core talk over ZMQ IPC sockets created under ``VLLM_RPC_BASE_PATH``, which defaults to
``tempfile.gettempdir()`` (vllm-project/vllm vllm/envs.py ``VLLM_RPC_BASE_PATH``; vllm/utils/network_utils.py
``get_open_zmq_ipc_path``, the code index's stored versions), and Python's ``tempfile.gettempdir()`` tries only
``$TMPDIR``, ``$TEMP``, ``$TMP``, /tmp, /var/tmp, /usr/tmp and the working directory, raising "No usable temporary
directory found" when none is writable (CPython Lib/tempfile.py ``_candidate_tempdir_list``, ``_get_default_tempdir``).
vLLM's image works in /vllm-workspace (docker/Dockerfile WORKDIR), part of the root filesystem.

So a vLLM container with a read-only root and no volume at any of those paths never serves: blocking where the image
is vLLM's own (its working directory is known) or the container names its working directory; advice on another image
that mounts some volume (its WORKDIR, which the files do not show, may be one). Where a temporary directory is
writable but the model is a Hub id and no volume holds the Hugging Face cache (``HF_HOME``/``HF_HUB_CACHE``, the
``--download-dir`` flag, else ``$HOME/.cache/huggingface``), the download fails: advice (the image's home directory
is not in the files; with a non-root ``runAsUser`` and no HOME it is never /root: runc sets HOME=/ for a uid with no
passwd entry, runc v1.2.9 libcontainer/init_linux.go:468-471,552-554). Fresh set 47: SecureCloudOps/llm-rag-infra-platform k8s/vllm/deployment.yaml (labelled G29
blocking: readOnlyRootFilesystem, runAsUser 1000, no volume).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping

from policies.framework import Policy, Resource, unproven
from policies.kube import WORKLOAD_TYPES, as_dict, as_list, get
from policies.reading.config_map_data import config_maps
from policies.reading.engines import env_values, hub_model
from policies.reading.vllm_args import VllmServer, command_tokens, served_model, vllm_servers

# CPython's tempfile candidates beyond the environment (Lib/tempfile.py _candidate_tempdir_list, POSIX).
_TEMP_DIRS = ("/tmp", "/var/tmp", "/usr/tmp")
_TEMP_ENV = ("TMPDIR", "TEMP", "TMP", "VLLM_RPC_BASE_PATH")
_CACHE_ENV = ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "HF_HOME", "TRANSFORMERS_CACHE")
_ASSIGN = re.compile(r"^(" + "|".join(_TEMP_ENV + _CACHE_ENV) + r")=(.*)$")
# vLLM's published images and their WORKDIR (vllm-project/vllm docker/Dockerfile stage vllm-base: /vllm-workspace).
_VLLM_IMAGES = ("vllm/vllm-openai", "vllm/vllm-openai-cpu")
_VLLM_WORKDIR = "/vllm-workspace"


def _read_only(podspec: Mapping, container: Mapping) -> bool:
    return get(container, "securityContext", "readOnlyRootFilesystem") is True


def _mounts(container: Mapping) -> list[str]:
    """The container's mount paths that take writes (readOnly mounts left out)."""
    found = []
    for mount in as_list(container.get("volumeMounts")):
        mount = as_dict(mount)
        path = mount.get("mountPath")
        if isinstance(path, str) and path.startswith("/") and mount.get("readOnly") is not True:
            found.append(posixpath.normpath(path))
    return found


def _under(path: str, mounts: list[str]) -> bool:
    path = posixpath.normpath(path)
    return any(path == m or path.startswith(m.rstrip("/") + "/") for m in mounts)


def _temp_dir_ok(path: str, mounts: list[str]) -> bool:
    """True for a temporary directory that takes writes: on a mounted volume, or under /dev/shm, the tmpfs every
    container runtime mounts writable whatever the root (https://kubernetes.io/docs/concepts/storage/volumes/#emptydir
    names it for the memory-backed form; Docker and containerd mount it by default)."""
    return _under(path, mounts) or _under(path, ["/dev/shm"])


def _outside_env(container: Mapping) -> bool:
    """Whether a variable of the container may come from what the files do not show: an ``envFrom`` Secret or a
    ConfigMap not among the objects checked, or a temporary-directory variable given by ``valueFrom`` other than a
    ConfigMap key env_values resolved (engines.env_values leaves those unknown, so absent is not proven)."""
    maps = config_maps(container)
    for source in as_list(container.get("envFrom")):
        source = as_dict(source)
        name = get(source, "configMapRef", "name")
        if "secretRef" in source or not isinstance(name, str) or name not in maps:
            return True
    resolved = env_values(container)
    return any(
        isinstance(e, dict) and e.get("name") in _TEMP_ENV and "valueFrom" in e and e["name"] not in resolved
        for e in as_list(container.get("env"))
    )


def _script_temp(container: Mapping) -> tuple[dict[str, str], bool]:
    """Temporary-directory and cache variables the container's own command line assigns (``export TMPDIR=/x`` in an
    ``sh -c`` script, ``env TMPDIR=/x vllm ...``): the literal absolute paths, and whether a temporary-directory
    variable is given some other value."""
    found: dict[str, str] = {}
    unknown = False
    for token in command_tokens(container)[0]:
        match = _ASSIGN.match(token)
        if match:
            value = match.group(2)
            if value.startswith("/") and "$" not in value:
                found[match.group(1)] = value
            elif match.group(1) in _TEMP_ENV:
                unknown = True
    return found, unknown


def _script_dirs(container: Mapping) -> list[str]:
    """The absolute directories a start script ``cd``s into before the server: the working directory tempfile then
    tries (CPython Lib/tempfile.py _candidate_tempdir_list ends with os.getcwd())."""
    tokens = command_tokens(container)[0]
    return [b for a, b in zip(tokens, tokens[1:]) if a == "cd" and b.startswith("/") and "$" not in b]


def _compile_cache(server: VllmServer, env: dict[str, str], mounts: list[str], shown: str) -> list[str]:
    """Advice where V1's torch.compile cache has nowhere to go: vLLM makes VLLM_CACHE_ROOT/torch_compile_cache at the
    first compile (vllm/compilation/backends.py VllmBackend.__call__: os.makedirs(cache_dir)), VLLM_CACHE_ROOT
    defaulting to $XDG_CACHE_HOME/vllm, else ~/.cache/vllm (vllm/envs.py); --enforce-eager compiles nothing. Advice:
    the compile level and the image's home are not all in the files (review 45 #16)."""
    from components.capacity.accounting import parse_release
    from components.images import vllm_release

    image = server.container.get("image")
    release = parse_release(vllm_release(image)) if isinstance(image, str) else None
    if "enforce-eager" in server.args or "compilation-config" in server.args or "O" in server.args:
        return []
    if (release is not None and release < (0, 8)) or env.get("VLLM_USE_V1", "").strip() == "0":
        return []
    if env.get("VLLM_CACHE_ROOT", "").startswith("/"):
        roots = [env["VLLM_CACHE_ROOT"]]
    elif env.get("XDG_CACHE_HOME", "").startswith("/"):
        roots = [posixpath.join(env["XDG_CACHE_HOME"], "vllm")]
    elif env.get("HOME", "").startswith("/"):
        roots = [posixpath.join(env["HOME"], ".cache", "vllm")]
    else:
        roots = ["/root/.cache/vllm", "/.cache/vllm"]
    if any(_temp_dir_ok(r, mounts) for r in roots) or any(m.startswith("/home/") or m.endswith("/.cache") for m in mounts):
        return []
    return [
        unproven(
            f"{server.label}: readOnlyRootFilesystem is true and no volume holds vLLM's compile cache ({roots[0]}: "
            f"VLLM_CACHE_ROOT, else $XDG_CACHE_HOME/vllm or ~/.cache/vllm; mounts: {shown}); vLLM V1 creates "
            f"torch_compile_cache there when it compiles the model at start and fails on the read-only root; mount an "
            f"emptyDir and point VLLM_CACHE_ROOT at it, or pass --enforce-eager"
        )
    ]


def _own_image(image: object) -> bool:
    if not isinstance(image, str):
        return False
    from components.images import image_repository

    return image_repository(image).lower().removeprefix("docker.io/") in _VLLM_IMAGES


def _temp_writable(container: Mapping, env: dict[str, str], mounts: list[str]) -> bool | None:
    """True when some tempfile candidate is on a writable mount, False when none is, None when the working directory
    (a candidate) is the image's and the image is not vLLM's own, so not known."""
    candidates = [env[k] for k in _TEMP_ENV if env.get(k, "").startswith("/")] + list(_TEMP_DIRS)
    workdir = container.get("workingDir")
    moved = _script_dirs(container)
    if moved:
        candidates.extend(moved)
    elif isinstance(workdir, str) and workdir.startswith("/"):
        candidates.append(workdir)
    elif _own_image(container.get("image")):
        candidates.append(_VLLM_WORKDIR)
    elif mounts:
        return True if any(_temp_dir_ok(c, mounts) for c in candidates) else None
    return any(_temp_dir_ok(c, mounts) for c in candidates)


def _run_as_user(server: VllmServer) -> int | None:
    """The uid the pod runs the container as (its securityContext.runAsUser, else the pod's), or None when unset."""
    for context in (get(server.container, "securityContext"), get(server.podspec, "securityContext")):
        uid = as_dict(context).get("runAsUser")
        if isinstance(uid, int) and not isinstance(uid, bool):
            return uid
        if isinstance(uid, float) and uid.is_integer():
            return int(uid)
    return None


def _cache_writable(server: VllmServer, env: dict[str, str], mounts: list[str]) -> bool:
    """True when the Hugging Face download has a writable place the files name, or a volume it may be. With no HOME
    and a non-root runAsUser, the home is never /root: runc sets HOME from the image's passwd entry for the uid, and
    to / when the uid has none (runc v1.2.9 libcontainer/init_linux.go:468-471 defaultExecUser Home "/", :552-554;
    vendor/github.com/moby/sys/user/user.go:300-305,344-350: a numeric uid with no entry keeps the default), so a
    volume at /root/.cache/huggingface is not where huggingface_hub writes (spent set 80 theepicsaxguy/homelab
    k8s/applications/ai/vllm-embed/deployment.yaml: runAsUser 1000, the claim at /root/.cache/huggingface)."""
    named = [env[k] for k in _CACHE_ENV if env.get(k, "").startswith("/")]
    download = server.args.get("download-dir")
    if isinstance(download, str) and download.startswith("/"):
        named.append(download)
    if named:
        return any(_under(p, mounts) for p in named)
    home = env.get("HOME")
    uid = _run_as_user(server)
    if isinstance(home, str) and home.startswith("/"):
        homes = [home]
    elif uid is not None and uid != 0:
        homes = ["/", "/home"]
    else:
        homes = ["/root", "/", "/home"]
    return any(_under(posixpath.join(h, ".cache", "huggingface"), mounts) or _under(h, mounts) for h in homes) or any(
        m.startswith("/home/") or m.endswith("/.cache") for m in mounts
    )


def _judge(server: VllmServer) -> list[str]:
    container = server.container
    if not _read_only(server.podspec, container):
        return []
    env, mounts = env_values(container), _mounts(container)
    scripted, unknown = _script_temp(container)
    env = {**env, **scripted}
    temp = _temp_writable(container, env, mounts)
    shown = ", ".join(mounts) or "none"
    if temp is False and (unknown or _outside_env(container)):
        return [
            unproven(
                f"{server.label}: readOnlyRootFilesystem is true and no writable volume is mounted at /tmp, /var/tmp or "
                f"the working directory (mounts: {shown}); $TMPDIR comes from what the files do not show (an envFrom "
                f"source outside them, a Secret, or the start script), so vLLM finds a temporary directory for its ZMQ "
                f"IPC sockets only if that names a writable volume or /dev/shm; mount an emptyDir at /tmp"
            )
        ]
    if temp is False:
        return [
            f"{server.label}: readOnlyRootFilesystem is true and no writable volume is mounted at /tmp, /var/tmp, "
            f"$TMPDIR or the working directory (mounts: {shown}), so Python finds no temporary directory and vLLM "
            f"cannot create the ZMQ IPC sockets its API server and engine talk over (VLLM_RPC_BASE_PATH defaults to "
            f"tempfile.gettempdir()): it exits at start; mount an emptyDir at /tmp (and one for the model cache)"
        ]
    model = served_model(server)
    if isinstance(model, str) and hub_model(model) and not _cache_writable(server, env, mounts):
        note = "" if temp else " (and a temporary directory only if the image's working directory is a volume)"
        uid = _run_as_user(server)
        if uid and "HOME" not in env:
            note += (
                f"; with runAsUser {uid} and no HOME, $HOME is / (the uid has no passwd entry in the image: runc sets "
                f"HOME=/) or the home its passwd entry names, never /root, so the cache goes to /.cache/huggingface or that home"
            )
        return [
            unproven(
                f"{server.label}: readOnlyRootFilesystem is true and no volume holds the Hugging Face cache "
                f"(HF_HOME, --download-dir or $HOME/.cache/huggingface; mounts: {shown}){note}, so downloading "
                f"{model} fails on the read-only root; mount an emptyDir or a volume there and point HF_HOME at it"
            )
        ]
    if temp is None:
        return [
            unproven(
                f"{server.label}: readOnlyRootFilesystem is true and no writable volume is mounted at /tmp, /var/tmp or "
                f"$TMPDIR (mounts: {shown}); vLLM needs a temporary directory for its ZMQ IPC sockets, found only if the "
                f"image's working directory is one of those volumes; mount an emptyDir at /tmp"
            )
        ]
    return _compile_cache(server, env, mounts, shown)


def _check(resource: Resource, config: dict) -> list[str]:
    return [m for server in vllm_servers(resource) if not server.runtime_merged for m in _judge(server)]


POLICY = Policy(
    name="read-only-root-has-writable-paths",
    description=(
        "A vLLM container with readOnlyRootFilesystem must mount a writable volume where it writes: a temporary "
        "directory (/tmp, $TMPDIR or its working directory: its ZMQ IPC sockets) and, for a Hub model, the Hugging "
        "Face cache."
    ),
    catalog="G29",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Keep readOnlyRootFilesystem and mount an emptyDir at /tmp, a volume (emptyDir or a PVC) for the model "
        "cache with HF_HOME pointing at it, and one for vLLM's compile cache with VLLM_CACHE_ROOT pointing at it (or "
        "pass --enforce-eager); or drop readOnlyRootFilesystem for the server container."
    ),
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    rationale=(
        "vLLM creates its API-server/engine IPC sockets under VLLM_RPC_BASE_PATH = tempfile.gettempdir() "
        "(vllm/envs.py, vllm/utils/network_utils.py get_open_zmq_ipc_path); tempfile raises when no candidate "
        "directory is writable (CPython Lib/tempfile.py _get_default_tempdir); a read-only root leaves only mounted "
        "volumes writable (https://kubernetes.io/docs/tasks/configure-pod-container/security-context/). Catalogue "
        "row 29 (Polaris readOnlyRootFilesystem, Checkov CKV_K8S_22) asks for the read-only root; this row asks that "
        "the server can still start under it."
    ),
)
