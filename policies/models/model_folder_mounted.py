"""S40 (third policy): a model volume is mounted where the server reads its models.

Some servers read their models from one folder the image fixes, not from a path the command line names: LocalAI's
``--models-path`` defaults to ``${basepath}/models``, the working directory's ``models`` (mudler/LocalAI v4.9.0
core/cli/run.go L44, cmd/local-ai/main.go L62), and the images' WORKDIR moved from /build to / at v3.1.0 (v3.0.0
Dockerfile L372 WORKDIR /build, L396 VOLUME /build/models; v3.1.0 L360 WORKDIR /, L377 VOLUME /models); Ollama keeps
them in ``$HOME/.ollama/models`` (ollama/ollama v0.32.15 envconfig/config.go L111-124). The engine table holds that
folder per release (components/serving_engines.toml ``model_dirs``, ``model_dir_in_workdir``) and what moves it (the
``download-dir`` setting, the ``downloads`` env: LOCALAI_MODELS_PATH, MODELS_PATH, OLLAMA_MODELS).

A persistent volume (a claim, a StatefulSet's claim template, hostPath, NFS, CSI, a generic ephemeral volume) mounted
in such a server's container at a model-named path (the mount's folder, the volume's or the claim's name says
``model``) that neither holds nor lies inside the folder the server reads, and that nothing in the container names
(no argument, variable or script word under it), is a volume the server never reads: the models put there are not
found, and what the server installs or pulls lands in its own folder on the container's layer, gone at the next
start (a LocalAI v3 image given the v2 images' /build/models). Advice: the files cannot show what the volume holds.

Silent for an image that is not the publisher's (a rebuild may move its WORKDIR), a tag that names no release and
is not one of the publisher's moving tags, a folder moved by something the files do not show (valueFrom, an envFrom
source outside them), a server running as another user than root under a home-relative folder, and a volume mounted
at the folder, above it, or inside it.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from typing import Optional

from components.engine_env import image_release, release_key
from components.images import names_image
from components.serving_engines import Engine
from policies.framework import Policy, Resource, unproven
from policies.kube import WORKLOAD_TYPES, as_dict, as_int, as_list, get, name_of, split_type
from policies.reading.engines import cache_dirs, path_under, table_servers

# Volume sources whose files outlive the pod: what a user mounts to keep models.
_LASTING = ("persistentVolumeClaim", "hostPath", "nfs", "csi", "ephemeral", "iscsi", "cephfs", "glusterfs", "azureFile")


def _release_folder(row: Engine, image: str) -> Optional[tuple[str, str]]:
    """(folder, release shown) the publisher's image reads its models from, or None when the image is not the
    publisher's or its tag names no release and is not a moving tag (a moving tag follows the newest release)."""
    if not names_image(image, row.images):
        return None
    release = image_release(image, row)
    if release is None:
        name = image.split("@", 1)[0]
        tag = name.rsplit(":", 1)[1].lower() if ":" in name.rsplit("/", 1)[-1] else "latest"
        # Exactly a moving tag: LocalAI's old flavour tags (master-cublas-cuda12) stopped moving when v3.1.0 renamed
        # them (docs/content/docs/features/GPU-acceleration.md L75, v3.0.0 against v3.1.0), still on WORKDIR /build.
        if tag not in row.moving_tags and tag not in ("latest", "master"):
            return None
        return row.model_dirs[-1][1], f"{tag} (the newest release)"
    chosen = [folder for first, folder in row.model_dirs if release_key(first) <= release_key(release)]
    return (chosen[-1], release) if chosen else None


def _run_as(podspec: Mapping, container: Mapping) -> Optional[int]:
    own = get(container, "securityContext", "runAsUser")
    return as_int(own if own is not None else get(podspec, "securityContext", "runAsUser"))


def _claim_templates(resource: Resource) -> set[str]:
    if split_type(resource.type)[1] != "StatefulSet":
        return set()
    return {n for t in as_list(get(resource.props, "spec", "volumeClaimTemplates")) if (n := get(t, "metadata", "name"))}


def _words(container: Mapping) -> list[str]:
    """Every word of the container's command line and every literal env value."""
    words = [str(w) for key in ("command", "args") for w in as_list(container.get(key))]
    words += [str(e["value"]) for e in (as_dict(e) for e in as_list(container.get("env"))) if "value" in e]
    return words


def _named(words: list[str], at: str) -> bool:
    """True when a word names ``at`` or a path inside it (``--config-file=/build/models/a.yaml``)."""
    for word in words:
        start = word.find(at)
        while start != -1:
            end = start + len(at)
            if (start == 0 or not word[start - 1].isalnum()) and (end == len(word) or word[end] in "/\"' :;,="):
                return True
            start = word.find(at, end)
    return False


def _check(resource: Resource, config: dict) -> list[str]:
    messages: list[str] = []
    for server in table_servers(resource):
        row = server.row
        image = server.container.get("image")
        if row is None or not row.model_dirs or row.downloads is None or not isinstance(image, str):
            continue
        found = _release_folder(row, image)
        if found is None:
            continue
        folder, release = found
        moved = cache_dirs(server.container, server.args, row)
        if not moved:
            continue  # a variable that moves it comes from somewhere the files do not show
        workdir = server.container.get("workingDir")
        if moved != row.downloads.dirs:
            folder, why = moved[0], "where its settings move it"
        elif row.model_dir_in_workdir and isinstance(workdir, str) and workdir.startswith("/"):
            folder = posixpath.join(workdir, row.model_dir_in_workdir)
            why = f"its working directory {workdir} joined with {row.model_dir_in_workdir}"
        else:
            why = f"the folder its image reads at release {release} when nothing moves it"
        if not folder.startswith("/"):
            continue
        user = _run_as(server.podspec, server.container)
        if folder.startswith("/root/") and user not in (None, 0):
            continue  # a home-relative folder of another user
        volumes = {name_of(v): as_dict(v) for v in as_list(server.podspec.get("volumes")) if name_of(v)}
        templates = _claim_templates(resource)
        words = _words(server.container)
        for mount in (as_dict(m) for m in as_list(server.container.get("volumeMounts"))):
            name, at = name_of(mount), mount.get("mountPath")
            if not isinstance(name, str) or not isinstance(at, str) or not at.startswith("/") or mount.get("subPath"):
                continue
            at = posixpath.normpath(at)
            volume = volumes.get(name)
            kind = next((k for k in _LASTING if volume is not None and k in volume), None)
            if kind is None and (volume is not None or name not in templates):
                continue
            claim = get(volume, "persistentVolumeClaim", "claimName") if volume is not None else name
            named = " ".join(str(x) for x in (posixpath.basename(at), name, claim) if x).lower()
            if "model" not in named and not at.endswith("/.ollama"):
                continue
            if path_under(folder, at) or path_under(at, folder) or _named(words, at):
                continue
            movers = [f"--{f}" for f in row.flags.get("download-dir", ())] + list(row.env.get("download-dir", ()))
            movers += [n for n, _ in row.downloads.env if n not in movers]
            source = (f"claim {claim}" if volume is not None else f"claim template {claim}") if claim else kind
            messages.append(
                unproven(
                    f"{server.label}: mounts volume {name} ({source}) at {at}, but {row.display} {image.rsplit('/', 1)[-1]} "
                    f"reads its models from {folder} ({why}) and nothing in the container points it at {at} (no "
                    f"{', '.join(movers)}): the models kept in that volume are not found, and what the server installs "
                    f"or pulls lands in {folder} on the container's own layer, gone at the next start; mount the volume "
                    f"at {folder}, or set {movers[0]} to {at}"
                )
            )
    return messages


POLICY = Policy(
    name="model-folder-mounted",
    description="A model volume is mounted where the server reads its models (the engine table's model folder).",
    rationale=(
        "LocalAI reads ${basepath}/models (its working directory's models: /build/models before v3.1.0, /models from "
        "then on, mudler/LocalAI Dockerfile v3.0.0 L372 and v3.1.0 L360, core/cli/run.go --models-path) and Ollama "
        "$HOME/.ollama/models (ollama/ollama envconfig/config.go Models()) unless a setting moves them; a volume "
        "mounted elsewhere is never read."
    ),
    catalog="S40",
    severity="medium",
    # Advisory: the files cannot show what the volume holds, or that nothing else reads it.
    enforcement="advisory",
    remediation_steps=(
        "Mount the model volume at the folder the server reads (the image's release decides it: LocalAI /models from "
        "v3.1.0, /build/models before; Ollama /root/.ollama/models), or point the server at the mount (LocalAI "
        "--models-path or MODELS_PATH, Ollama OLLAMA_MODELS)."
    ),
    config_schema={},
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
)
