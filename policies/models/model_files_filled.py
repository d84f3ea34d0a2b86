"""S40 (second policy): a model server's local model path lies on a volume something fills.

A server started on a local path (vLLM's model or ``--lora-modules`` adapter, Triton's ``--model-repository``, TGI's
``--model-id``, llama.cpp's ``-m``: the engine table's ``model`` setting) loads the files there at start. When that path
lies on a volume that starts empty and nothing writes it, the server finds nothing:

* an ``emptyDir`` (or generic ephemeral volume) that no other container of the pod mounts writable, with no download
  in the server's own command line (no shell script, no postStart hook) is empty at every start: vLLM takes the
  missing path for a Hub id and exits, and loads static LoRA adapters at start, raising on one that fails to load
  (vllm-project/vllm vllm/entrypoints/openai/serving_models.py@075e9ba8:85-96, init_static_loras "Raises if any
  fail to load", ``raise ValueError(load_result.message)``); Triton
  starts with no model and answers every request with an unknown model (spent set 34
  notandruu/gpu-inference-platform k8s/triton-deployment.yaml: ``--model-repository=/models`` on ``emptyDir: {}``
  mounted read-only). Blocking where the files prove the volume empty and show what runs (an explicit command, or
  the engine publisher's image with its own entrypoint); advice under a rebuilt image whose entrypoint may fill it.
* a PersistentVolumeClaim the same files create (no dataSource, no volumeName or selector tying it to a volume that
  may hold data) that no pod template of the run writes (no Job, init container or other container mounting it
  writable): it is provisioned empty (spent set 45 justinsb/training deploy/vllm.yaml: ``--lora-modules
  sql-lora=/adapters/sql-lora`` on the ``vllm-adapters`` claim created beside it; its README copies the adapter in
  with ``kubectl cp`` into the running pod, which crash-loops first). Advice: someone may fill the claim out of band
  before the server starts.

Silent for paths on the image's own layer, a hostPath, a ConfigMap or Secret, a claim the files do not create, a pod
where a loader or any other container writes the volume (S40 judges a loader's folder), a server run from a shell
script, a path another volume is mounted inside (spent set 21 puniomp/nvidia-k8s-llm-inference: Triton's /models
emptyDir holding a ConfigMap's config.pbtxt and model.py by subPath), and a llama.cpp server also given a download
source (-hf, --model-url), which writes its -m path itself.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any, Optional

from policies.framework import Policy, Resource, unproven
from policies.kube import (
    WORKLOAD_TYPES,
    as_dict,
    as_list,
    containers,
    get,
    memoized,
    name_of,
    pod_specs,
    split_type,
    viewed_resources,
)
from policies.reading.engines import path_under, table_servers, volume_at
from policies.reading.run_objects import by_namespace
from policies.reading.serving import engine_row, namespace_of
from policies.reading.shell_words import sole_command
from policies.reading.vllm_args import command_tokens, served_model, vllm_command_line, vllm_servers

_FRESH = ("emptyDir", "ephemeral")
# Settings with which llama.cpp downloads a model to its -m path itself (common/arg.cpp: -m is then the destination).
_SELF_DOWNLOAD = ("--hf-repo", "-hf", "-hfr", "--hf-file", "-hff", "--model-url", "-mu", "--docker-repo", "-dr")
_SELF_DOWNLOAD_ENV = ("LLAMA_ARG_HF_REPO", "LLAMA_ARG_MODEL_URL")


def _lora_paths(line: list[str]) -> list[str]:
    """The adapter paths of vLLM's ``--lora-modules`` (name=path, or the JSON form {"name":..., "path":...}), every
    value up to the next option (the flag takes several)."""
    values: list[str] = []
    i = 0
    while i < len(line):
        token = line[i]
        i += 1
        if token.startswith("--lora-modules=") or token.startswith("--lora_modules="):
            values.append(token.split("=", 1)[1])
        elif token not in ("--lora-modules", "--lora_modules"):
            continue
        while i < len(line) and not line[i].startswith("-"):
            values.append(line[i])
            i += 1
    paths = []
    for value in values:
        path: object = value.split("=", 1)[1] if "=" in value and not value.lstrip().startswith("{") else None
        if value.lstrip().startswith("{"):
            try:
                path = as_dict(json.loads(value)).get("path")
            except ValueError:
                path = None
        if isinstance(path, str) and path.startswith("/"):
            paths.append(path)
    return paths


def _read_paths(resource: Resource) -> Iterator[tuple[str, dict, dict, str, str, str]]:
    """(label, podspec, container, what, local path, engine) of every local path a server loads at start."""
    for server in vllm_servers(resource):
        if server.runtime_merged:
            continue
        model = served_model(server)
        if isinstance(model, str) and model.startswith("/"):
            yield server.label, server.podspec, server.container, "the model", model, "vllm"
        for path in _lora_paths(vllm_command_line(server.container) or []):
            yield server.label, server.podspec, server.container, "the LoRA adapter", path, "vllm"
    for engine in table_servers(resource):
        if isinstance(engine.model, str) and engine.model.startswith("/"):
            yield engine.label, engine.podspec, engine.container, "the model", engine.model, engine.engine


def _downloads_itself(container: Mapping) -> bool:
    """True when the server's own container may fill the path: a shell script that runs more than one command, a
    postStart hook, or a llama.cpp download source beside -m."""
    tokens, script = command_tokens(container)
    argv = [str(t) for t in as_list(container.get("command")) + as_list(container.get("args"))]
    if (script and sole_command(argv) is None) or get(container, "lifecycle", "postStart"):
        return True  # (a script that runs one simple command, `sh -c "exec tritonserver ..."`, fills nothing first)
    envs = {name_of(e) for e in as_list(container.get("env"))}  # text names only (S26 refuses any other)
    return any(t.split("=", 1)[0] in _SELF_DOWNLOAD for t in tokens) or any(n in envs for n in _SELF_DOWNLOAD_ENV)


def _entrypoint_known(container: Mapping, engine: str) -> bool:
    """True when what runs is known: an explicit command, or the engine publisher's image, whose entrypoint starts the
    server (the engine table's ``entrypoint_images``). A rebuilt image's own entrypoint may fill the volume first."""
    if container.get("command"):
        return True
    row = engine_row(engine)
    image = str(container.get("image") or "").lower()
    return row is not None and any(image.startswith(i) for i in row.entrypoint_images)


def _writes(container: Mapping, volume: str) -> bool:
    return any(
        as_dict(m).get("name") == volume and not as_dict(m).get("readOnly") for m in as_list(container.get("volumeMounts"))
    )


def _claim_writers(view: Any) -> dict[tuple[str, str], int]:
    """(namespace, claim) -> how many containers of the run's pod templates mount the claim writable."""
    counts: dict[tuple[str, str], int] = {}
    for r in view:
        for _, podspec in pod_specs(r):
            for volume in (as_dict(v) for v in as_list(podspec.get("volumes"))):
                claim = get(volume, "persistentVolumeClaim", "claimName")
                if not isinstance(claim, str):
                    continue
                key = (namespace_of(r, "default"), claim)
                writers = sum(1 for c in containers(podspec, init=True) if _writes(c, str(volume.get("name"))))
                counts[key] = counts.get(key, 0) + writers
    return counts


def _fresh_claim(resource: Resource, claim: str) -> bool:
    """True when the run creates the claim with nothing that could bring data (dataSource, volumeName, selector)."""
    view = viewed_resources()
    if not view:
        return False
    made = by_namespace(list(view), "", "PersistentVolumeClaim").get(namespace_of(resource, "default"), {}).get(claim, [])
    if len(made) != 1 or split_type(made[0].type) != ("", "PersistentVolumeClaim"):
        return False
    spec = as_dict(as_dict(made[0].props).get("spec"))
    return not any(spec.get(key) for key in ("dataSource", "dataSourceRef", "volumeName", "selector"))


def _restored(volume: Mapping) -> bool:
    """True for a generic ephemeral volume whose claim template brings data: a ``dataSource``/``dataSourceRef``
    (a VolumeSnapshot restored or a PVC cloned before the pod starts), a ``selector`` or a pre-bound ``volumeName``
    (https://kubernetes.io/docs/concepts/storage/ephemeral-volumes/#generic-ephemeral-volumes)."""
    spec = as_dict(get(volume, "ephemeral", "volumeClaimTemplate", "spec"))
    return any(spec.get(key) for key in ("dataSource", "dataSourceRef", "volumeName", "selector"))


def _finding(resource: Resource, label: str, podspec: dict, container: dict, what: str, path: str, engine: str) -> Optional[str]:
    volume = volume_at(podspec, container, path)
    if volume is None or _downloads_itself(container):
        return None
    name = str(volume.get("name"))
    if any(
        as_dict(m).get("name") != name and isinstance(as_dict(m).get("mountPath"), str) and path_under(str(m["mountPath"]), path)
        for m in as_list(container.get("volumeMounts"))
    ):
        return None  # another volume mounted inside the path brings files (a ConfigMap's config.pbtxt and model.py)
    others = [c for c in containers(podspec, init=True) if c is not container and _writes(c, name)]
    if others:
        return None
    if any(kind in volume for kind in _FRESH) and not _restored(volume):
        message = (
            f"{label}: loads {what} from {path}, on the {'emptyDir' if 'emptyDir' in volume else 'ephemeral volume'} "
            f"{name}, which starts empty at every pod start and which nothing in the pod writes (no init container, "
            f"sidecar or download in the server's command): the server finds no files there and fails at start or "
            f"serves no model; fill the volume in an init container, or mount the volume that holds the files"
        )
        return message if _entrypoint_known(container, engine) else unproven(message)
    claim = get(volume, "persistentVolumeClaim", "claimName")
    if not isinstance(claim, str) or not _fresh_claim(resource, claim):
        return None
    view = viewed_resources() or ()
    writers = memoized(view, "claim_writers", _claim_writers).get((namespace_of(resource, "default"), claim), 0)
    if writers > (1 if _writes(container, name) else 0):
        return None
    return unproven(
        f"{label}: loads {what} from {path}, on PersistentVolumeClaim {claim}, which these files create empty (no "
        f"dataSource or pre-bound volume) and which no Job, init container or other container of them writes: unless "
        f"the files are copied in out of band before the server starts, it finds nothing there and fails at start "
        f"(vLLM raises on a static LoRA adapter it cannot load); fill the claim in an init container or a Job, or bake "
        f"the files into the image"
    )


_MODEL_ID = re.compile(r"^--model[_-]id(=|$)")


def _runtime_names_model(name: str) -> bool:
    """True when a ServingRuntime of the files named ``name`` passes --model_id itself."""
    for r in viewed_resources() or ():
        if split_type(r.type)[1] in ("ServingRuntime", "ClusterServingRuntime") and get(r.props, "metadata", "name") == name:
            for c in as_list(get(r.props, "spec", "containers")):
                if any(_MODEL_ID.match(str(a)) for key in ("command", "args") for a in as_list(as_dict(c).get(key))):
                    return True
    return False


def _kserve_huggingface(resource: Resource) -> list[str]:
    """Advice on an InferenceService whose Hugging Face runtime gets neither a storageUri nor --model_id: KServe's
    huggingfaceserver then loads --model_dir (default /mnt/models), which nothing fills (kserve/kserve v0.20.0
    python/huggingfaceserver/huggingfaceserver/__main__.py:53-57 get_model_id_or_path)."""
    if split_type(resource.type) != ("serving.kserve.io", "InferenceService"):
        return []
    model = as_dict(get(resource.props, "spec", "predictor", "model"))
    if str(get(model, "modelFormat", "name") or "").lower() != "huggingface":
        return []
    if model.get("storageUri") or model.get("storage") or get(resource.props, "spec", "predictor", "storageUri"):
        return []
    args = [str(a) for key in ("command", "args") for a in as_list(model.get(key))]
    runtime = model.get("runtime")
    if any(_MODEL_ID.match(a) or a.startswith("--model_dir") or a.startswith("--model-dir") for a in args):
        return []
    if isinstance(runtime, str) and ("huggingface" not in runtime or _runtime_names_model(runtime)):
        return []
    named = next((a.split("=", 1)[1] for a in args if a.startswith("--model_name=")), None)
    return [
        unproven(
            "spec.predictor.model: the huggingface runtime gets no storageUri and no --model_id"
            + (f" (--model_name={named} only names what it serves)" if named else "")
            + ", so KServe's huggingfaceserver loads its --model_dir /mnt/models, which nothing fills, and exits at start "
            "(Failed to start model server); give --model_id=ORG/NAME or a storageUri"
        )
    ]


def _check(resource: Resource, config: dict) -> list[str]:
    messages = _kserve_huggingface(resource)
    for label, podspec, container, what, path, engine in _read_paths(resource):
        message = _finding(resource, label, podspec, container, what, path, engine)
        if message is not None and message not in messages:
            messages.append(message)
    return messages


POLICY = Policy(
    name="model-files-filled",
    description=(
        "A model server's local model or adapter path lies on a volume something fills: not an emptyDir nothing in "
        "the pod writes (blocking), nor a claim the same files create empty and nothing of them writes (advice)."
    ),
    rationale=(
        "An emptyDir holds only what the pod writes, and a newly provisioned claim holds nothing: a server that loads "
        "its model or LoRA adapter from such a path at start finds no files (vllm-project/vllm "
        "vllm/entrypoints/openai/serving_models.py@075e9ba8:85-96 raises on a static LoRA adapter that fails to load)."
    ),
    catalog="S40",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Fill the volume before the server starts (an init container or a Job that downloads or copies the files), or "
        "mount the volume that already holds them, or bake them into the image."
    ),
    config_schema={},
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
)
