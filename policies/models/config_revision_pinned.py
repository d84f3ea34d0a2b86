"""S17 on a ConfigMap: a model's revision variable that names a branch, not a commit.

A ConfigMap that names a Hugging Face model (MODEL_ID, MODEL_NAME, ... policies/reading/model_ids.py) beside its
revision (REVISION, MODEL_REVISION, HF_REVISION, ...) hands both to whatever serves the model (``envFrom``). A revision
that names a branch (``main``) moves with every push, so pods started on different days serve different weights: the
Hub resolves a branch to its newest commit at each download (huggingface_hub v1.28.0 constants.py:60
DEFAULT_REVISION = "main"; hf_hub_download's revision is "An optional Git revision id which can be a branch name, a tag, or a commit hash").
Only a 40-character commit SHA pins it. Spent set 34 shenoyabhijith/llama-k8s-deployment k8s/configmap.yaml@d710e32
(MODEL_NAME meta-llama/Llama-3.2-3B, MODEL_REVISION "main"; labelled S17 advisory).

Advice, like the rest of S17; the workload reads of the same revision (an engine's --revision flag or variable) are
model-source-pinned's.
"""

from __future__ import annotations

import re

from policies.framework import Policy, Resource, unproven
from policies.kube import WORKLOAD_TYPES, as_dict, container_label, get, name_of, split_type, viewed_resources
from policies.reading.container_env import env_values
from policies.reading.downloaders import HUB_FILE_URL
from policies.reading.engines import hub_model
from policies.reading.model_ids import HUB_CLIENT_ENV, MODEL_ENV, REVISION_ENV, ConfigMapReader, config_map_readers, offline
from policies.reading.serving import GPU_SERVER, container_argv, model_servers
from policies.reading.vllm_args import served_model, vllm_servers
from policies.reading.vllm_config_file import config_file_model, config_file_text

_COMMIT = re.compile(r"^[0-9a-f]{40}$")
# Keys a ConfigMap names its model under: the common spellings (model_ids.MODEL_ENV holds an application's own too).
_MODEL_KEYS = MODEL_ENV


def _config_file_reads(data: dict[str, str]) -> list[str]:
    """Advice for a key of the ConfigMap that a vLLM server of the files reads as its --config file (the same text
    mounted at the path its command line names: vllm_args.config_file_text) and that names a Hub model (``model:``)
    with no revision, the server's line giving none either and the container online. vLLM takes the file's keys as its
    options (vllm 0.33.0 vllm/utils/argparse_utils.py:606-671 load_config_file; a ``model`` key is the model when the
    line names none, :577-596). Spent set 75 leehosanganson/homelab kubernetes/apps/vllm/overlays/default/config.yaml
    (ConfigMap vllm-config, config.yaml ``model: unsloth/Qwen3-8B-unsloth-bnb-4bit``, read by ``vllm serve --config
    /etc/vllm/config.yaml``; labelled S17)."""
    texts = {k: v for k, v in data.items() if "model" in v and "\n" in v.strip()}
    if not texts:
        return []
    found: list[str] = []
    for r in viewed_resources() or ():
        if getattr(r, "type", None) not in WORKLOAD_TYPES or not isinstance(getattr(r, "props", None), dict):
            continue
        for server in vllm_servers(r):
            if "config" not in server.args or "revision" in server.args or offline(server.container):
                continue
            text = config_file_text(server.args["config"], server.podspec, server.container)
            key = next((k for k, v in texts.items() if v == text), None)
            model = hub_model(served_model(server)) if key else None
            # The file's model only: a model tag on the line is served instead (the Deployment's rows report it).
            if key and model and text is not None and hub_model(config_file_model(text)) == model:
                owner = name_of(as_dict(get(r.props, "metadata"))) or "?"
                found.append(
                    unproven(
                        f"data.{key} is the vLLM --config file of {split_type(r.type)[1]} {owner} ({server.label}) and "
                        f"names the Hugging Face model {model} with no revision: each pod downloads whatever the "
                        f"repository's main branch holds when it starts, so replicas started at different times serve "
                        f"different weights; add `revision: <40-character commit SHA>` to the file"
                    )
                )
                del texts[key]
    return found


def _file_url_reads(resource: Resource, data: dict[str, str]) -> list[str]:
    """Advice for a key holding a Hub file URL at a branch (``https://huggingface.co/ORG/REPO/resolve/main/FILE``: the
    Hub serves the file of that revision, huggingface_hub v1.28.0 constants.py HUGGINGFACE_CO_URL_TEMPLATE
    "{repo_id}/resolve/{revision}/{filename}") that a container of the files reads (envFrom, configMapKeyRef): each
    download takes whatever the branch holds then. Spent set 69 rajinikanthvadla-ai/llm-deploys-on-k8s
    k8s/llamacpp/configmap.yaml (MODEL_URL .../TinyLlama-1.1B-Chat-v1.0-GGUF/resolve/main/...gguf, fetched by curl in
    the Deployment's init container; labelled S17 on the ConfigMap)."""
    urls = {k: m for k, v in data.items() if "/resolve/" in v and (m := HUB_FILE_URL.match(v.strip()))}
    urls = {k: m for k, m in urls.items() if not _COMMIT.match(m.group(2))}
    name = name_of(as_dict(get(resource.props, "metadata")))
    if not urls or name is None:
        return []
    namespace = get(resource.props, "metadata", "namespace")
    readers = config_map_readers(namespace if isinstance(namespace, str) and namespace else None, name)
    found: list[str] = []
    for key, match in sorted(urls.items()):
        reader = next((r for r in readers if key in r.keys or "*" in r.keys), None)
        if reader is None:
            continue
        owner = name_of(as_dict(get(reader.resource.props, "metadata"))) or "?"
        found.append(
            unproven(
                f"data.{key} is a Hugging Face file URL at revision {match.group(2)!r} of {match.group(1)}, a branch or "
                f"tag, read by {split_type(reader.resource.type)[1]} {owner} "
                f"({container_label(reader.path, reader.container)}): each download takes whatever it points at then, so "
                f"pods started at different times load different files; write the file's URL at a 40-character commit "
                f"SHA (.../resolve/<sha>/FILE)"
            )
        )
    return found


def _check(resource: Resource, config: dict) -> list[str]:
    data = {str(k): v for k, v in as_dict(get(resource.props, "data")).items() if isinstance(v, str)}
    found_files = _config_file_reads(data) + _file_url_reads(resource, data)
    if found_files:
        return found_files
    key, model = next(((k, hub_model(data[k])) for k in _MODEL_KEYS if k in data and hub_model(data[k])), ("", None))
    if model is None:
        return []
    found: list[str] = []
    if not any(data.get(k, "").strip() for k in REVISION_ENV):
        found += _unpinned_reads(resource, key, model)
    for key in REVISION_ENV:
        revision = data.get(key, "").strip()
        if revision and not revision.startswith("$") and not _COMMIT.match(revision):
            found.append(
                unproven(
                    f"data.{key} {revision!r} names a branch or tag of {model}, not a commit: the Hub resolves it to "
                    f"whatever it points at when each pod downloads the model, so replicas started at different times "
                    f"serve different weights; set {key} to the model's 40-character commit SHA"
                )
            )
    return found


# A revision given on the command line (vLLM, SGLang, TGI --revision; KServe's --model_revision; transformers' own).
_REVISION_FLAG = re.compile(r"--(?:model[-_])?revision\b")


def _unpinned_reads(resource: Resource, key: str, model: str) -> list[str]:
    """Advice when a container of the files reads the ConfigMap's model key (``envFrom``, ``configMapKeyRef``) and
    downloads it from the Hub with no revision anywhere: the ConfigMap holds no revision key, the container's own env
    none (REVISION_ENV) and its command line no ``--revision``. It downloads when it is a model server whose command
    line passes the variable on (``vllm serve "$MODEL_ID"`` in a script: spent set 63 imrajdas/llm-deployment
    k8s/vllm.yaml) or a model server of no known engine, which may read it itself (policies.reading.model_ids); or
    when its environment sets the Hub client's cache or token (HUB_CLIENT_ENV: spent set 58 avi-2002/
    llm-serving-platform kubernetes/configmap.yaml, LLM_MODEL_ID beside HF_HOME). A container told to stay offline
    (HF_HUB_OFFLINE) is left out."""
    name = name_of(as_dict(get(resource.props, "metadata")))
    if name is None:
        return []
    namespace = get(resource.props, "metadata", "namespace")
    for reader in config_map_readers(namespace if isinstance(namespace, str) and namespace else None, name):
        variable = reader.keys.get(key) or (reader.keys["*"] + key if "*" in reader.keys else None)
        why = _downloads(reader, variable) if variable else None
        if why is None:
            continue
        kind = split_type(reader.resource.type)[1]
        owner = name_of(as_dict(get(reader.resource.props, "metadata"))) or "?"
        return [
            unproven(
                f"data.{key} names the Hugging Face model {model} with no revision beside it, and {kind} {owner} "
                f"({container_label(reader.path, reader.container)}) reads it as {variable} {why}, with no revision in "
                f"its env or command line: each pod downloads whatever the repository's main branch holds when it "
                f"starts, so replicas started at different times serve different weights; add the revision its server "
                f"takes (MODEL_REVISION, --revision) at a 40-character commit SHA, or bake or mount the weights"
            )
        ]
    return []


def _downloads(reader: ConfigMapReader, variable: str) -> str | None:
    """Why ``reader``'s container downloads the model ``variable`` names (see _unpinned_reads), or None."""
    container = reader.container
    if offline(container):
        return None
    env = env_values(container)
    argv = " ".join(container_argv(container))
    if any(str(env.get(k, "")).strip() for k in REVISION_ENV) or _REVISION_FLAG.search(argv):
        return None
    server = next((s for s in model_servers(reader.resource) if s.container is container), None)
    if server is not None:
        if server.engine == GPU_SERVER:
            return "in a GPU model server"
        if re.search(rf"\$(?:\{{{variable}\}}|\({variable}\)|{variable}\b)", argv):
            return f"and passes it to its {server.engine} server"
    names = set(env) | {name_of(e) for e in container.get("env") or () if isinstance(e, dict)}
    client = next((n for n in HUB_CLIENT_ENV if n in names), None)
    return f"beside {client}, the Hub client's setting" if client else None


POLICY = Policy(
    name="config-revision-pinned",
    description="A ConfigMap that names a Hugging Face model pins its revision variable to a commit SHA, not a branch.",
    catalog="S17",
    severity="medium",
    enforcement="advisory",
    remediation_steps=(
        "Set the revision variable (MODEL_REVISION, REVISION) to the model's commit SHA, from the Hub's 'Files and "
        "versions' history or `huggingface-cli` (hf) repo info."
    ),
    resource_types=("kubernetes:core/v1:ConfigMap",),
    check_resource=_check,
    rationale=(
        "A Hub revision is a branch name, a tag or a commit hash; branches and tags move, so only a commit pins the "
        "weights every replica loads (huggingface_hub constants.py DEFAULT_REVISION 'main')."
    ),
)
