"""KServe LLMInferenceService pods as the controller renders them: the well-known presets merged in.

An LLMInferenceService (serving.kserve.io v1alpha1 and v1alpha2, KServe v0.20.0) rarely spells out its
model server: the controller picks well-known LLMInferenceServiceConfig presets by the shape of the spec,
merges them first and the LLMInferenceService last, by strategic merge patch
(pkg/controller/v1alpha2/llmisvc/config_merge.go:178-300 combineBaseRefsConfig, :760-827 MergeSpecs /
mergeSpecs, StrategicMergePatch at :816). Which presets (config_merge.go:228-264):

- no ``prefill``, no ``worker``: ``kserve-config-llm-template`` (the pod at ``spec.template``);
- no ``prefill``, a ``worker`` with data parallelism: ``kserve-config-llm-worker-data-parallel``
  (``spec.template`` and ``spec.worker``);
- with ``prefill``: ``kserve-config-llm-prefill-template`` (``spec.prefill.template``; its worker
  variant ``...-prefill-worker-data-parallel``) and ``kserve-config-llm-decode-template`` for the decode
  pods (``spec.template``; ``...-decode-worker-data-parallel`` with a worker);
- pipeline-parallel workers name ``...-worker-pipeline-parallel`` presets that v0.20.0 does not ship
  (config/llmisvcconfig/ has none), so nothing is assumed there.

The facts below are what the policies need of those presets, read from kserve/kserve v0.20.0
config/llmisvcconfig/*.yaml (the kserve-runtime-configs chart installs the same files from
charts/kserve-runtime-configs/files/llmisvcconfigs/resources.yaml). They are facts, not the presets'
text: the container ``main`` runs ``exec vllm serve /mnt/models --port 8000`` (plus
``--tensor-parallel-size`` from ``spec.parallelism.tensor`` and the user's args) from a bash script
(config-llm-template.yaml:166-178), kept here as the command line it starts; probes, preStop, grace
period, /dev/shm and the main container's securityContext are as the files set them. The script's eval line passes
``${VLLM_ADDITIONAL_ARGS}`` and then ``$@`` (:176-177): the preset's ``--`` is the last word of its command (:179,
bash's $0), so a user's ``args`` are appended to the script's flags, never replacing them; a user's ``command``
replaces the whole script (a list with no merge key). Nothing here reads the reference folder at run time.
"""

from __future__ import annotations

import copy
import json
import shlex
from typing import Any

KSERVE_TAG = "v0.20.0"
IMAGE = "ghcr.io/llm-d/llm-d-cuda:v0.8.0"  # config-llm-template.yaml:10 (every preset's main container)
# The start of the command line every preset's main container runs (config-llm-template.yaml:166).
PRESET_COMMAND = ["vllm", "serve", "/mnt/models"]


def _security_context(data_parallel: bool) -> dict:
    """The main container's securityContext (config-llm-template.yaml:187-196, the same in the decode and prefill
    presets): no privilege escalation, ``runAsNonRoot: true`` with no ``runAsUser`` (the kubelet then needs an image
    that runs as a non-root user), ALL capabilities dropped, RuntimeDefault seccomp. The data-parallel presets add
    IPC_LOCK, SYS_RAWIO and NET_RAW for RDMA (config-llm-worker-data-parallel.yaml:218-231 and :500-513;
    config-llm-prefill-worker-data-parallel.yaml:219-232, :501-514; config-llm-decode-worker-data-parallel.yaml:279+).
    A user's ``securityContext`` merges over it field by field (a map), its ``capabilities.add`` list replacing."""
    capabilities: dict[str, list[str]] = {"drop": ["ALL"]}
    if data_parallel:
        capabilities = {"add": ["IPC_LOCK", "SYS_RAWIO", "NET_RAW"], **capabilities}
    return {
        "allowPrivilegeEscalation": False,
        "readOnlyRootFilesystem": False,
        "runAsNonRoot": True,
        "capabilities": capabilities,
        "seccompProfile": {"type": "RuntimeDefault"},
    }


def _main(port: int, worker: bool = False, data_parallel: bool = False) -> dict:
    """The ``main`` container every preset defines (config-llm-template.yaml:9-240; decode: port 8001). The
    data-parallel presets' worker pods have no probes and run ``vllm serve ... --headless``, an engine with no API
    server (config-llm-worker-data-parallel.yaml:290-533, ``--headless`` at :481; the prefill worker
    config-llm-prefill-worker-data-parallel.yaml:291-549, :482; the decode worker
    config-llm-decode-worker-data-parallel.yaml:351-611, :542)."""
    health = {"httpGet": {"path": "/health", "port": port}}
    probe_fields = {
        "livenessProbe": {**health, "periodSeconds": 10, "timeoutSeconds": 1, "failureThreshold": 10},  # :205-212
        "readinessProbe": {**health, "periodSeconds": 1, "timeoutSeconds": 1, "failureThreshold": 2},  # :213-220
        "startupProbe": {**health, "failureThreshold": 60, "periodSeconds": 10},  # :221-227
    }
    return {
        "name": "main",
        "image": IMAGE,
        "imagePullPolicy": "IfNotPresent",  # :11
        # :166-178, the script's exec line
        "command": [*PRESET_COMMAND, "--port", str(port), *(["--headless"] if worker else [])],
        "ports": [{"containerPort": port, "protocol": "TCP"}],  # :13-15
        "env": [
            {"name": "HOME", "value": "/home"},  # :181-186
            {"name": "VLLM_LOGGING_LEVEL", "value": "INFO"},
            {"name": "HF_HUB_CACHE", "value": "/models"},
        ],
        "securityContext": _security_context(data_parallel),  # :187-196
        "lifecycle": {"preStop": {"exec": {"command": ["/bin/sleep", "15"]}}},  # :197-202
        **({} if worker else probe_fields),
        "volumeMounts": [
            {"mountPath": "/home", "name": "home"},  # :228-239
            {"mountPath": "/tmp", "name": "tmp-dir"},
            {"mountPath": "/dev/shm", "name": "dshm"},
            {"mountPath": "/models", "name": "model-cache"},
        ],
    }


def _pod(port: int, shm: str, worker: bool = False) -> dict:
    """A preset pod: the main container, grace period 60 s (:240) and its volumes (:241-253; dshm 1Gi, 8Gi in the
    data-parallel presets, config-llm-worker-data-parallel.yaml:280-283)."""
    return {
        "containers": [_main(port, worker, data_parallel=shm == "8Gi")],  # the data-parallel presets: 8Gi
        "terminationGracePeriodSeconds": 60,
        "volumes": [
            {"name": "home", "emptyDir": {}},
            {"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": shm}},
            {"name": "model-cache", "emptyDir": {}},
            {"name": "tmp-dir", "emptyDir": {}},
        ],
    }


# Preset name -> {path in the LLMInferenceService spec: the pod spec the preset puts there}.
PRESETS: dict[str, dict[str, dict]] = {
    "kserve-config-llm-template": {"template": _pod(8000, "1Gi")},
    "kserve-config-llm-worker-data-parallel": {"template": _pod(8000, "8Gi"), "worker": _pod(8000, "8Gi", worker=True)},
    # The decode pod's main container listens on 8001 behind the routing sidecar (config-llm-decode-template.yaml:205-227).
    "kserve-config-llm-decode-template": {"template": _pod(8001, "1Gi")},
    "kserve-config-llm-decode-worker-data-parallel": {
        "template": _pod(8001, "8Gi"),
        "worker": _pod(8001, "8Gi", worker=True),
    },
    "kserve-config-llm-prefill-template": {"prefill.template": _pod(8000, "1Gi")},
    "kserve-config-llm-prefill-worker-data-parallel": {
        "prefill.template": _pod(8000, "8Gi"),
        "prefill.worker": _pod(8000, "8Gi", worker=True),
    },
}


def _data_parallel(parallelism: Any) -> bool:
    """IsDataParallel (pkg/apis/serving/v1alpha2): a data or dataLocal size is set."""
    return isinstance(parallelism, dict) and any(parallelism.get(k) is not None for k in ("data", "dataLocal"))


def presets_for(spec: dict) -> list[str]:
    """The well-known presets the controller merges under this spec, in merge order (config_merge.go:228-264)."""
    found = []
    prefill = spec.get("prefill")
    if isinstance(prefill, dict):
        if prefill.get("worker") is None:
            found.append("kserve-config-llm-prefill-template")
        elif _data_parallel(prefill.get("parallelism")):
            found.append("kserve-config-llm-prefill-worker-data-parallel")
        if spec.get("worker") is None:
            found.append("kserve-config-llm-decode-template")
        elif _data_parallel(spec.get("parallelism")):
            found.append("kserve-config-llm-decode-worker-data-parallel")
    elif spec.get("worker") is None:
        found.append("kserve-config-llm-template")
    elif _data_parallel(spec.get("parallelism")):
        found.append("kserve-config-llm-worker-data-parallel")
    return found


# Strategic-merge keys of core/v1 PodSpec lists (k8s.io/api core/v1 types.go patchMergeKey tags): lists with a key
# merge item by item, others are replaced by the patch.
_MERGE_KEYS = {
    "containers": "name",
    "initContainers": "name",
    "volumes": "name",
    "env": "name",
    "volumeMounts": "mountPath",
    "ports": "containerPort",
    "imagePullSecrets": "name",
}


def _key(value: Any) -> Any:
    """A merge key's value, hashable (a mutated manifest's ``name: {}`` reads as its repr)."""
    return value if isinstance(value, (str, int, float, bool, type(None))) else repr(value)


def strategic_merge(base: Any, patch: Any, key: str = "") -> Any:
    """``patch`` merged over ``base`` as a strategic merge patch of a PodSpec does it (maps key by key, keyed lists
    item by item, other lists and scalars replaced). Neither argument is changed."""
    if isinstance(base, dict) and isinstance(patch, dict):
        # Base's keys in base's order (a key both hold, merged), then patch's own: what deepcopy(base) updated key by
        # key gives, without copying the merged keys' base values first.
        out = {k: strategic_merge(v, patch[k], k) if k in patch else copy.deepcopy(v) for k, v in base.items()}
        out.update((k, copy.deepcopy(v)) for k, v in patch.items() if k not in base)
        return out
    merge_key = _MERGE_KEYS.get(key)
    if merge_key and isinstance(base, list) and isinstance(patch, list):
        out_list = [copy.deepcopy(b) for b in base]
        index = {_key(b.get(merge_key)): i for i, b in enumerate(out_list) if isinstance(b, dict)}
        for item in patch:
            at = index.get(_key(item.get(merge_key))) if isinstance(item, dict) else None
            if at is None:
                out_list.append(copy.deepcopy(item))
            else:
                out_list[at] = strategic_merge(out_list[at], item)
        return out_list
    return copy.deepcopy(patch)


def shutdown_timeout(pod: dict) -> int:
    """The --shutdown-timeout the preset script passes: max(0, grace - 15 - min(5, grace)), grace defaulting to 60
    (config-llm-template.yaml:155 ``shutdownTimeout .Spec.Template 15``; config_merge.go:684-706). The script passes
    it to vLLM 0.18.0 and later only (:152-156, ``shutdown_passed``)."""
    grace = pod.get("terminationGracePeriodSeconds")
    seconds = int(grace) if isinstance(grace, (int, float)) and not isinstance(grace, bool) else 60
    return max(0, seconds - 15 - min(5, seconds))


def own_shutdown_timeout(resource: Any) -> bool:
    """Whether a --shutdown-timeout read from the resource's servers is the manifest's own statement: always, except on
    an LLMInferenceService whose spec never writes the flag, where the preset's script passes one computed from the
    grace period (``shutdown_timeout``): a drain window the preset derives, not the longest request the service
    serves, so rules that take it for the longest request (S9, S10) do not block on it."""
    if not str(getattr(resource, "type", "")).endswith(":LLMInferenceService"):
        return True
    spec = json.dumps((getattr(resource, "props", None) or {}).get("spec"), default=str)
    return "shutdown-timeout" in spec or "shutdown_timeout" in spec


def shutdown_passed(container: dict) -> bool:
    """Whether the preset script passes --shutdown-timeout to this main container's vLLM: it asks ``vllm --version``
    and passes it from 0.18.0 on (config-llm-template.yaml:145, :152-156). An image whose tag names an older release
    (a user's vllm/vllm-openai:v0.8.4 in spec.template) gets none; one that names no release (the presets' llm-d
    image) is taken to carry such a vLLM."""
    from components.images import vllm_release

    release = vllm_release(str(container.get("image") or ""))
    if release is None:
        return True
    return tuple(int(part) for part in release.split(".")[:2]) >= (0, 18)


# The command lines the presets' main containers run (their scripts, as _main keeps them).
_SCRIPTS = frozenset(
    tuple(c["command"]) for pods in PRESETS.values() for pod in pods.values() for c in pod["containers"] if c["name"] == "main"
)


def _script(command: Any) -> bool:
    """Whether a merged main container's command is still a preset's script (no one replaced it)."""
    return isinstance(command, list) and tuple(command) in _SCRIPTS


def _has_worker(spec: dict, path: str) -> bool:
    """Whether the pod at ``path`` belongs to a data-parallel preset (its owner has a worker)."""
    owner = spec.get("prefill") if path.startswith("prefill.") else spec
    return isinstance(owner, dict) and owner.get("worker") is not None and _data_parallel(owner.get("parallelism"))


def _at(spec: Any, path: str) -> Any:
    value: Any = spec
    for step in path.split("."):
        value = value.get(step) if isinstance(value, dict) else None
    return value


def _evaluated(args: Any) -> Any:
    """The user's args as the preset's script hands them to vLLM: it runs ``eval "exec vllm serve ... $@"``
    (config-llm-template.yaml:166-177, the args after ``--`` at :179 being ``$@``), so the shell splits them into words
    again (a one-string script of flags becomes its flags). Args that are not all strings are left as written."""
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        return args
    try:
        return shlex.split(" ".join(args).replace("\\\n", " "))
    except ValueError:  # unbalanced quotes: the shell would refuse the line too; keep what was written
        return args


def additional_args(container: dict) -> list[str]:
    """The words of the main container's VLLM_ADDITIONAL_ARGS as the preset's script passes them to vLLM: the script
    runs ``eval "exec vllm serve ... ${VLLM_ADDITIONAL_ARGS} $@"`` (config-llm-template.yaml:166-177, the variable at
    :176, after the preset's own flags and before the user's args), so the shell splits the value into words, its
    quotes grouping (a quoted ``--kv-transfer-config '{...}'`` is one flag and its JSON). Only a literal ``value``
    is read: a ``valueFrom`` is not known from the files; an unbalanced quote gives nothing (the shell refuses the
    line too)."""
    env = container.get("env")
    for entry in env if isinstance(env, list) else []:
        if isinstance(entry, dict) and entry.get("name") == "VLLM_ADDITIONAL_ARGS":
            value = entry.get("value")
            if not isinstance(value, str):
                return []
            try:
                return shlex.split(value.replace("\\\n", " "))
            except ValueError:
                return []
    return []


def llmisvc_pod_specs(spec: dict, base_specs: list[dict] | None = None) -> list[tuple[str, dict]]:
    """The pod specs of an LLMInferenceService's spec with the well-known presets merged under them, as
    (path, podspec) at ``spec.template``, ``spec.worker``, ``spec.prefill.template``, ``spec.prefill.worker``.

    ``base_specs`` are the specs of the LLMInferenceServiceConfigs ``spec.baseRefs`` names, in order. A pod
    appears when the spec, a preset or a base defines it; the preset's main container gets the flags its script
    passes: ``--shutdown-timeout`` (shutdown_timeout) and ``spec.parallelism.tensor`` as ``--tensor-parallel-size``
    (config-llm-template.yaml:171).
    """
    bases = [b for b in base_specs or [] if isinstance(b, dict)]
    # The presets are chosen from the spec with its baseRefs merged (config_merge.go:188-202), then the presets,
    # the baseRefs' configs and the spec itself are merged in that order (:266-292).
    resolved: Any = spec
    for base in bases:
        resolved = strategic_merge(resolved, base)
    merged: dict[str, dict] = {}
    for name in presets_for(resolved):
        for path, pod in PRESETS[name].items():
            merged[path] = strategic_merge(merged.get(path, {}), pod)
    for base in bases:
        for path in ("template", "worker", "prefill.template", "prefill.worker"):
            if isinstance(pod := _at(base, path), dict):
                merged[path] = strategic_merge(merged.get(path, {}), pod)
    found = []
    for path in ("template", "worker", "prefill.template", "prefill.worker"):
        own = _at(spec, path)
        pod = strategic_merge(merged[path], own) if path in merged and isinstance(own, dict) else merged.get(path, own)
        if not isinstance(pod, dict):
            continue
        owner = spec.get("prefill") if path.startswith("prefill.") else spec
        tensor = _at(owner, "parallelism.tensor") if isinstance(owner, dict) else None
        if isinstance(tensor, float) and tensor.is_integer():
            tensor = int(tensor)  # the Pulumi engine hands numbers over as floats
        if path in merged:
            pod = copy.deepcopy(pod)
            extra = ["--shutdown-timeout", str(shutdown_timeout(pod))]  # main containers of older vLLM: dropped below
            if isinstance(tensor, int) and not isinstance(tensor, bool):
                extra += ["--tensor-parallel-size", str(tensor)]
            if _has_worker(spec, path):
                # The data-parallel presets pass the data-parallel sizes, 1 when unset
                # (config-llm-worker-data-parallel.yaml:195-196).
                parallelism = _at(owner, "parallelism") if isinstance(owner, dict) else None
                for flag, key in (("--data-parallel-size", "data"), ("--data-parallel-size-local", "dataLocal")):
                    value = _at(parallelism, key) if isinstance(parallelism, dict) else None
                    extra += [flag, str(int(value)) if isinstance(value, (int, float)) and not isinstance(value, bool) else "1"]
            for container in pod["containers"] if isinstance(pod.get("containers"), list) else []:
                if isinstance(container, dict) and container.get("name") == "main" and _script(container.get("command")):
                    # The preset's script still runs: it passes its flags, VLLM_ADDITIONAL_ARGS and the user's args.
                    # A command of the user's or a base's replaces the script (a plain list, no merge key), flags and
                    # all: the container runs what it says.
                    container["args"] = _evaluated(container.get("args"))
                    passed = extra if shutdown_passed(container) else extra[2:]
                    container["command"] = [*container["command"], *passed, *additional_args(container)]
        found.append((f"spec.{path}", pod))
    return found


__all__ = ["IMAGE", "additional_args", "KSERVE_TAG", "PRESETS", "llmisvc_pod_specs", "presets_for", "strategic_merge"]
