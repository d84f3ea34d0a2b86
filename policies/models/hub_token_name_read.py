"""G95: a model server's Hugging Face token is passed under a variable name its Hub client reads.

huggingface_hub reads the token from ``HF_TOKEN``, else ``HUGGING_FACE_HUB_TOKEN`` (v1.28.0
src/huggingface_hub/utils/_auth.py:145-147 ``_get_token_from_environment``; the same two at v0.20.0 _login.py:360 and
v0.26.0 utils/_auth.py:118; v0.10.0 utils/_hf_folder.py:48 read ``HUGGING_FACE_HUB_TOKEN`` only). No release of it ever
read ``HUGGINGFACE_HUB_TOKEN`` (``git grep`` over every tag of huggingface/huggingface_hub up to v1.28.0 finds the
name nowhere in src/), nor LangChain's ``HUGGINGFACEHUB_API_TOKEN`` or ``HUGGINGFACE_TOKEN``. A model server whose
engine downloads through it (vLLM, SGLang, TGI's download step, ...: components/engine_env.toml ``[tokens]``, by
release; TEI before v1.6.1 reads only HF_API_TOKEN) and that is given the token only under such a name sends no token:
the Secret is mounted but never reaches the Hub, so a gated or private model fails with 401 at start.

Advice: the model may be public (then nothing fails) and a gated one is S37's blocking finding
(policies/models/gated_model_token.py, whose UNREAD_TOKEN_NAMES this rule shares). Silent where the container also
has a name its engine reads (HF_TOKEN beside the legacy spelling), where
the client may read a token file (HF_TOKEN_PATH, or a volume at HF_HOME/token: _token_file), where its command line passes the variable on
(``--hf-token $(HUGGINGFACE_HUB_TOKEN)``), where an ``envFrom`` Secret outside the files may hold HF_TOKEN, for a
program the engine table does not cover (a LangChain app reads HUGGINGFACEHUB_API_TOKEN itself), for Ollama (no Hub
token at all), and where the model is a local path. Spent set 75 homel-dev/memory-steward k8s/vllm-steward.yaml:
vLLM (vllm/vllm-openai:latest) with ``HUGGINGFACE_HUB_TOKEN`` from Secret hf-token (labelled NONE, advisory).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

from components.engine_env import tokens_read
from policies.framework import Policy, Resource, unproven
from policies.kube import as_dict, as_list, get, workload_types
from policies.models.gated_model_token import HUB_TOKEN_NAMES, UNREAD_TOKEN_NAMES
from policies.reading.container_env import env_values
from policies.reading.engines import hub_model, table_servers
from policies.reading.secrets import secret_values
from policies.reading.serving import container_argv, engine_row, namespace_of
from policies.reading.vllm_args import served_model, vllm_servers


def _names(container: Mapping, namespace: Optional[str]) -> Optional[dict[str, str]]:
    """The container's variable names with where each comes from (env, a ConfigMap or Secret of the files by
    ``envFrom``), or None when an ``envFrom`` Secret outside the files may add names the files do not show."""
    found: dict[str, str] = {}
    for source in (as_dict(s) for s in as_list(container.get("envFrom"))):
        secret = get(source, "secretRef", "name")
        if secret is None:
            continue
        values = secret_values(namespace, secret)
        if values is None:
            return None
        prefix = source.get("prefix") if isinstance(source.get("prefix"), str) else ""
        found.update({f"{prefix}{k}": f"Secret {secret} (envFrom)" for k in values})
    found.update({name: "a ConfigMap (envFrom)" for name in env_values(container) if name not in found})
    for item in (as_dict(e) for e in as_list(container.get("env"))):
        name = item.get("name")
        if isinstance(name, str):
            ref = as_dict(get(item, "valueFrom", "secretKeyRef"))
            found[name] = f"Secret {ref.get('name')}" if ref else "env"
    return found


def _token_file(container: Mapping, names: Mapping[str, str]) -> bool:
    """True when the Hub client may read the token from a file instead: HF_TOKEN_PATH is set, or a volume is mounted at
    the default token file (HF_HOME/token). huggingface_hub v1.28.0 src/huggingface_hub/utils/_auth.py:79-84 get_token
    (the environment, then the file), :150 _get_token_from_file; constants.py:247-254 HF_TOKEN_PATH."""
    if "HF_TOKEN_PATH" in names:
        return True
    return any(
        str(as_dict(m).get("mountPath", "")).rstrip("/").endswith("huggingface/token")
        for m in as_list(container.get("volumeMounts"))
    )


def _servers(resource: Resource) -> list[tuple[str, dict, Any, Optional[str]]]:
    """(label, container, engine row, model) of each model server of the resource the engine readers know."""
    found = [(s.label, s.container, engine_row("vllm"), served_model(s)) for s in vllm_servers(resource)]
    seen = {id(c) for _, c, _, _ in found}
    found += [(s.label, s.container, s.row, s.model) for s in table_servers(resource) if id(s.container) not in seen]
    return found


def _check(resource: Resource, config: dict) -> list[str]:
    messages: list[str] = []
    namespace = namespace_of(resource)
    for label, container, row, model in _servers(resource):
        if not any("TOKEN" in str(as_dict(e).get("name", "")).upper() for e in as_list(container.get("env"))) and not (
            as_list(container.get("envFrom"))
        ):
            continue  # no token-like variable written: nothing to read (the cheap test first)
        read = tokens_read(row, container.get("image"))
        if not read or hub_model(model) is None:
            continue  # an engine the table does not cover, one that reads no Hub token (Ollama), or a local model
        names = _names(container, namespace)
        if names is None or set(names) & read or _token_file(container, names):
            continue
        argv = " ".join(container_argv(container))
        unread = sorted(n for n in names if n.upper() in UNREAD_TOKEN_NAMES | (HUB_TOKEN_NAMES - read) and n not in argv)
        if not unread:
            continue
        name = unread[0]
        # The name to use: HF_TOKEN where the engine reads it, else the one it does (TEI before v1.6.1: HF_API_TOKEN).
        wanted = "HF_TOKEN" if "HF_TOKEN" in read else sorted(read)[0]
        messages.append(
            unproven(
                f"{label}: the Hugging Face token is passed as {name} (from {names[name]}), a name "
                f"{row.display if row is not None else 'the engine'} never reads at this release (it reads "
                f"{', '.join(sorted(read))}): no token reaches the Hub, so the download of {model} fails with 401 if "
                f"the repository is gated or private; name the variable {wanted}"
            )
        )
    return messages


POLICY = Policy(
    name="hub-token-name-read",
    description="A model server's Hugging Face token is passed under a variable its engine's Hub client reads "
    "(HF_TOKEN), not HUGGINGFACE_HUB_TOKEN, HUGGINGFACEHUB_API_TOKEN or another name no release reads.",
    catalog="G95",
    severity="medium",
    enforcement="advisory",
    remediation_steps="Rename the variable to HF_TOKEN (HF_API_TOKEN for TEI before v1.6.1), valueFrom.secretKeyRef of the "
    "same Secret key.",
    resource_types=workload_types(),
    check_resource=_check,
    rationale=(
        "huggingface_hub reads HF_TOKEN, else HUGGING_FACE_HUB_TOKEN (utils/_auth.py _get_token_from_environment); a "
        "token under any other name never reaches the Hub, so gated and private models answer 401 at start."
    ),
)
