"""S28: a Hugging Face token is never an empty literal.

``env: [{name: HF_TOKEN, value: ""}]`` is a placeholder someone meant to fill: the Hub client then sends no
token (huggingface_hub treats an empty HF_TOKEN as none), so a gated model (Llama, Gemma, Mistral's) fails
with 401 minutes into the start, after the GPU node was bought, and the empty literal also shadows a token
the image or a mounted file would have supplied. no-literal-secret-env (G35) passes it: there is no value to
leak. The careful form takes the token from a Secret (``valueFrom.secretKeyRef``) or leaves the variable out.

Which names count is the engine's: components/engine_env.toml ``[tokens.ENGINE]`` lists, per release, the variables
each engine reads its token from (vLLM, SGLang through huggingface_hub: HF_TOKEN, HUGGING_FACE_HUB_TOKEN; TEI before
v1.7.0 HF_API_TOKEN only; TGI all three; llama.cpp HF_TOKEN; Ollama none). A variable the container's engine never
reads at its image's release is inert and not reported (spent set 43, qstonkr/axiomedge k8s/tei/deployment.yaml:
TEI 1.5 with an empty HUGGING_FACE_HUB_TOKEN). An empty literal blocks only where the engine reads the variable and
the model it downloads is gated (components/hub_gated.toml); elsewhere (a public model, a private one the files cannot
show, a program the table does not cover) it is advice.

A token taken from a Secret that the same files commit with an empty value (``HF_TOKEN: ""`` under ``data`` or
``stringData``; policies/reading/secrets.py joins it by name and namespace), by ``secretKeyRef`` or ``envFrom``, is the
same empty token once the files are applied as they stand. Advice on the workload: such a file is often a reference the
README says to replace with ``kubectl create secret`` (spent set 23, aubree-lianto/Orchard k8s/secrets.yaml at
376d28461652927a4da42fba6580a3e88bf61b0f: "DO NOT fill in real values here"). On the Secret itself it blocks where a
reader's engine reads the variable, downloads a gated model and has no other token source (applied as it stands, it
also overwrites a token created out of band): spent set 69 nohdol97/Nexus k8s/overlays/gpu/model-worker-secret.yaml
(stringData HF_TOKEN "", read by the overlay's vLLM for meta-llama/Meta-Llama-3-8B-Instruct). Advice instead where a
kustomization of the run rewrites that Secret (a patch of it, or a ``secretGenerator`` with ``behavior: replace`` or
``merge``: policies/reading/kustomize.py), since the base is applied only through the overlay (review 49b #1), and
wherever the server downloads nothing through the Hub: a local model path, or HF_HUB_OFFLINE / TRANSFORMERS_OFFLINE true
on the container (review 49b #2; the empty variable stays advice, as it fails once the server goes online).

A token that is a fill-in (``your-huggingface-token-here``, ``REPLACE_WITH_REAL_TOKEN``, ``<your-hf-token>``,
``hf_xxx``; policies/reading/placeholders.py's recogniser, plus the Hub's ``hf_`` prefix followed by x's or dots) is
worse than none: the Hub answers an invalid token with 401 even for a public repository, so the download fails and the
server exits. Reported (advice: the README may say to replace it) on the workload that takes it, by a literal ``value``,
``secretKeyRef`` or ``envFrom``, and on the committed Secret itself (``hf-token-secret-not-placeholder``) for a token
key (HF_TOKEN, HUGGING_FACE_HUB_TOKEN, or ``token``/``hf_token`` in a Secret whose name says Hugging Face). Sets 15
and 16: AyeniOluwatosinOlawale/vllm-k8s-stack vllm/deployment.yaml (``HF_TOKEN: "REPLACE_WITH_REAL_TOKEN"``) and
egdcrypto/microk8s-gpu-stack applications/gpu-llm-inference.yaml (``token: "your-huggingface-token-here"``).

An engine's own token setting (the engine table's ``hub-token``: TEI's --hf-api-token / --hf-token) given the name of a
Secret its pod reads, literally, is that name sent as the token: the Hub answers 401 and a Hub model's download fails
(blocking; spent set 28 brayanpena530/multiLLM-EKS-Deploy, label NONE).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from typing import Any, Optional

from components.engine_env import tokens_read
from components.hub_access import gated
from policies.framework import Policy, Resource, unproven
from policies.kube import (
    WORKLOAD_TYPES,
    as_dict,
    as_list,
    container_label,
    containers,
    get,
    name_of,
    pod_specs,
    split_type,
    viewed_resources,
    workload_types,
)
from policies.reading.config_map_data import config_maps, names_config_maps
from policies.reading.container_env import env_config_map
from policies.reading.flux_substitution import flux_substituted
from policies.reading.hf_tokens import TOKEN_VARIABLES, config_map_fill_ins, own_name, token_placeholder
from policies.reading.model_ids import offline
from policies.reading.placeholders import placeholder_in, terraform_filled
from policies.reading.secrets import decoded, secret_values, variables_of_key
from policies.reading.serving import namespace_of

SECRET_TYPE = "kubernetes:core/v1:Secret"
CONFIG_MAP_TYPE = "kubernetes:core/v1:ConfigMap"
# Keys a Secret named for Hugging Face commonly holds the token under (besides the variable names themselves).
_TOKEN_KEYS = frozenset({"token", "hf_token", "hf-token", "hftoken", "api_token", "api-token", "access_token"})
_HF_NAME = re.compile(r"(?i)\bhf\b|hf[-_]|hugging")
# Keys that name a credential of any service by their own name (NGC_API_KEY, API_KEY, api-key, OPENAI_API_KEY, a
# *_TOKEN, token): a fill-in under one is a credential a pod will send as it stands (spent set 33
# funtastic1234/SkyGuardian k8s/nim.yaml Secret ngc-secret api-key "REPLACE_WITH_NGC_API_KEY", labelled S27; set 34
# shenoyabhijith/llama-k8s-deployment k8s/secret.yaml API_KEY "your_api_key", labelled S28).
_CREDENTIAL_KEY = re.compile(r"(?i)(?:^|[_.-])(?:api[_-]?key|apikey|token)$")
# A whole value that is one variable for a rendering step (envsubst, a CI template): ${HF_TOKEN}, $HF_TOKEN. In a
# Secret nothing expands it (the kubelet expands $(VAR) only in a container's command, args and env values:
# https://kubernetes.io/docs/tasks/inject-data-application/define-interdependent-environment-variables/), so a Secret
# applied as written holds the text itself (spent set 53 felipemoz/vllm-on-azure k8s/hf-secret.yaml stringData token
# "${HF_TOKEN}").
_RENDER_VARIABLE = re.compile(
    r"^\$(?:\{[A-Za-z_][A-Za-z0-9_]*(?::?[-=?+][^}]*)?\}|\([A-Za-z_][A-Za-z0-9_]*\)|[A-Za-z_][A-Za-z0-9_]*)$"
)


def _unrendered(value: object) -> Optional[str]:
    """The value when it is one rendering variable (``${HF_TOKEN}``), else None."""
    text = value.strip() if isinstance(value, str) else ""
    return text if _RENDER_VARIABLE.match(text) else None


def _secret_token(namespace: Optional[str], secret: Any, key: Any) -> Optional[tuple[str]]:
    """``("",)`` when the Secret of the files holds an empty value under the key, ``(placeholder,)`` when it holds a
    fill-in, else None (no such Secret read, or a value that may be real)."""
    values = secret_values(namespace, secret)
    value = values.get(str(key)) if values is not None else None
    if isinstance(value, str) and not value.strip():
        return ("",)
    found = token_placeholder(value)
    return (found,) if found else None


def _from_empty_secrets(namespace: Optional[str], label: str, container: dict, servers: dict) -> list[str]:
    """Advice for each token variable the container takes from a Secret of the files whose committed value is empty
    (a variable its engine never reads is inert: skipped)."""
    found: list[tuple[str, str, tuple[str]]] = []
    for item in (as_dict(i) for i in as_list(container.get("env"))):
        ref = as_dict(get(item, "valueFrom", "secretKeyRef"))
        if name_of(item) in TOKEN_VARIABLES and (what := _secret_token(namespace, ref.get("name"), ref.get("key"))):
            found.append((str(item["name"]), f"key {ref.get('key')} of Secret {ref.get('name')}", what))
    for source in (as_dict(s) for s in as_list(container.get("envFrom"))):
        secret = get(source, "secretRef", "name")
        prefix = source.get("prefix") if isinstance(source.get("prefix"), str) else ""
        for key in TOKEN_VARIABLES:
            if prefix == "" and (what := _secret_token(namespace, secret, key)):
                found.append((key, f"Secret {secret} (envFrom)", what))
    return [
        unproven(
            f"{label}: env {name} comes from {where}, whose committed value is empty: applied as these files stand, "
            f"the token is an empty string, the Hub client sends none and a gated model fails with 401 at start; "
            f"create the Secret out of band (and leave it out of the applied files) or fill it from a secret store"
            if not what[0]
            else f"{label}: env {name} comes from {where}, whose committed value is the fill-in {what[0]!r}: applied "
            f"as these files stand, the Hub client sends it as the token and the Hub answers 401 (an invalid token "
            f"fails even for a public model), so the download fails at start; put the real token in the Secret out "
            f"of band, or drop the variable for a public model"
        )
        for name, where, what in found
        if _reading(servers, container, name)[0]
    ]


def _secret_names(podspec: dict) -> set[str]:
    """The Secrets a pod spec names: its containers' secretKeyRef and envFrom secretRef, its secret volumes."""
    names = [get(v, "secret", "secretName") for v in as_list(podspec.get("volumes"))]
    for container in containers(podspec, init=True):
        names += [get(e, "valueFrom", "secretKeyRef", "name") for e in as_list(container.get("env"))]
        names += [get(e, "secretRef", "name") for e in as_list(container.get("envFrom"))]
    return {n for n in names if isinstance(n, str) and n}  # a name that is no text (a list, a map) names no Secret


def _token_spelling(container: dict, row: Any) -> str:
    """How the container writes the engine's token setting: the flag on its command line, else the variable."""
    from policies.reading.serving import container_argv

    words = [w.split("=", 1)[0].replace("_", "-") for w in container_argv(container)]
    flag = next((f"--{f}" for f in row.flags.get("hub-token", ()) if f"--{f}" in words), None)
    return flag or next((f"env {v}" for v in row.env.get("hub-token", ())), row.spelling("hub-token"))


def _token_is_a_secret_name(resource: Resource) -> list[str]:
    """A table engine's Hub token setting (the row's hub-token: TEI's --hf-api-token, --hf-token) given, literally,
    the name of a Secret its pod reads: the server sends the name as the bearer token (TEI v1.5.0 router/src/lib.rs L78
    ApiBuilder.with_token), the Hub answers 401 and a Hub model's download fails at start. Spent set 28
    brayanpena530/multiLLM-EKS-Deploy services/jina_embeddings.yml: --hf-api-token=huggingface-token beside env HF_TOKEN
    from Secret huggingface-token."""
    from policies.reading.engines import hub_model, table_servers

    found = []
    for server in table_servers(resource):
        value = server.args.get("hub-token")
        row = server.row
        if row is None or not isinstance(value, str) or value.strip() not in _secret_names(server.podspec):
            continue
        if hub_model(server.model) is None:
            continue  # a local model: no Hub request carries the token
        written = _token_spelling(server.container, row)
        found.append(
            f"{server.label}: {written} is {value.strip()!r}, the name of a Secret this pod reads, "
            f"not a token: {row.display} sends it to the Hub as the bearer token, the Hub answers 401 (an invalid token "
            f"fails even for a public model), and the download of {server.model} fails at start; drop the flag and let "
            f"the server read the token from env HF_TOKEN (valueFrom.secretKeyRef)"
        )
    return found


def _servers(resource: Resource) -> dict[int, tuple[Any, Optional[str]]]:
    """The model servers of a workload by container (``id``): the engine's row and the model it serves."""
    from policies.reading.engines import table_servers
    from policies.reading.serving import engine_row
    from policies.reading.vllm_args import served_model, vllm_servers

    found: dict[int, tuple[Any, Optional[str]]] = {}
    vllm = engine_row("vllm")
    for server in vllm_servers(resource):
        found[id(server.container)] = (vllm, served_model(server))
    for table in table_servers(resource):
        found[id(table.container)] = (table.row, table.model)
    return found


def _reading(servers: dict, container: dict, name: str) -> tuple[bool, str]:
    """(whether the container's engine reads the token variable ``name``, as far as the engine env table says; the
    gated model it downloads, "" when none is known). An engine the table does not cover reads every Hub name. A
    local model path downloads nothing (hub_model None), nor does a container whose environment sets the Hub client
    offline (huggingface_hub constants.py is_offline_mode: HF_HUB_OFFLINE, else TRANSFORMERS_OFFLINE, true for 1, ON,
    YES, TRUE; policies/reading/engines.py _HF_OFFLINE cites it): the empty token is then never sent, and where it is,
    only if the files change is a matter for advice, not a block (review 49b #2)."""
    from policies.reading.engines import hub_model

    row, model = servers.get(id(container), (None, None))
    names = tokens_read(row, container.get("image"))
    if names is not None and name not in names:
        return False, ""
    if offline(container):
        return True, ""  # HF_HUB_OFFLINE / TRANSFORMERS_OFFLINE on: the Hub client sends no request, so no 401
    repository = hub_model(model)
    return True, repository if names is not None and repository and gated(repository) else ""


def _other_token_source(podspec: dict, container: dict, name: str) -> bool:
    """Whether the container may get a token elsewhere than the empty ``name``: huggingface_hub reads an empty variable
    as unset and goes on to the next (``HF_TOKEN or HUGGING_FACE_HUB_TOKEN``, then the token file: huggingface_hub
    utils/_auth.py _get_token_from_environment / _get_token_from_file), and vLLM's own reading returns None for a blank
    HF_TOKEN. Another token variable given a value or a Secret, HF_TOKEN_PATH, any envFrom, a Secret volume mounted in
    the container (a token file) or a --hf-token flag may supply it: the files then do not prove a 401 (review 44 #3)."""
    for item in as_list(container.get("env")):
        item = as_dict(item)
        other = item.get("name")
        if other == name or not isinstance(other, str):
            continue
        given = "valueFrom" in item or (isinstance(item.get("value"), str) and item["value"].strip())
        if given and (other in TOKEN_VARIABLES or other == "HF_TOKEN_PATH"):
            return True
    if as_list(container.get("envFrom")):
        return True
    secrets = {name_of(v) for v in as_list(podspec.get("volumes")) if "secret" in as_dict(v)} - {None}
    if any(name_of(m) in secrets for m in as_list(container.get("volumeMounts"))):
        return True
    words = [w for w in (*as_list(container.get("command")), *as_list(container.get("args"))) if isinstance(w, str)]
    return any("--hf-token" in w or "--hf-api-token" in w for w in words)


def _empty_literal(label: str, name: str, gated_model: str) -> str:
    """S28's message for an empty token literal: blocking when the engine reads the variable and downloads a gated
    model, else advice (a public model needs no token; the files do not show whether a private one is meant)."""
    if gated_model:
        return (
            f"{label}: env {name} is an empty literal, so the Hub client sends no token and the download of the gated "
            f"{gated_model} fails with 401 at start; take it from valueFrom.secretKeyRef"
        )
    return unproven(
        f"{label}: env {name} is an empty literal, so the Hub client sends no token and a gated or private model fails "
        f"with 401 at start; take it from valueFrom.secretKeyRef, or drop the variable for a public model"
    )


def _empty_token_readers(namespace: Optional[str], secret: str, key: str) -> list[tuple[str, str]]:
    """(workload and container, the gated model it downloads or "") for each container of the run that reads ``key`` of
    Secret ``secret`` as a token variable its engine reads; the model only where no other token source is in sight
    (``_other_token_source``). Asked only of a Secret holding an empty token, so the run's scan is rare."""
    found: list[tuple[str, str]] = []
    space = namespace if namespace != "default" else None
    for r in viewed_resources() or ():
        if getattr(r, "type", None) not in WORKLOAD_TYPES or not isinstance(getattr(r, "props", None), Mapping):
            continue
        pod_space = namespace_of(r)
        if space is not None and pod_space not in (None, "default", space):
            continue
        servers: Optional[dict] = None
        for path, podspec in pod_specs(r):
            for container in containers(podspec, init=True):
                variables = [
                    name_of(item)
                    for item in (as_dict(i) for i in as_list(container.get("env")))
                    if get(item, "valueFrom", "secretKeyRef", "name") == secret
                    and get(item, "valueFrom", "secretKeyRef", "key") == key
                ]
                for source in (as_dict(s) for s in as_list(container.get("envFrom"))):
                    if get(source, "secretRef", "name") == secret and not source.get("prefix"):
                        variables.append(key)  # envFrom gives each key under its own name
                for variable in variables:
                    if variable not in TOKEN_VARIABLES:
                        continue
                    servers = _servers(r) if servers is None else servers
                    reads, model = _reading(servers, container, str(variable))
                    if reads:
                        other = _other_token_source(podspec, container, str(variable))
                        label = f"{split_type(r.type)[1]}/{name_of(as_dict(r.props.get('metadata')))}"
                        found.append((f"{label} {container_label(path, container)}", "" if other else model))
    return found


def _check_empty_secret(resource: Resource) -> list[str]:
    """An HF token key of a committed Secret that is empty while a model server of the files reads it as its token:
    blocking when that server downloads a gated model (components/hub_gated.toml) and has no other token source."""
    name = get(resource.props, "metadata", "name")
    if not isinstance(name, str):
        return []
    namespace = get(resource.props, "metadata", "namespace")
    namespace = namespace if isinstance(namespace, str) and namespace else None
    # A Kustomize patch, or a base a patch or a generator (secretGenerator behavior: replace|merge) of the run rewrites
    # (policies/reading/kustomize.py): the empty value is an absence the overlay fills, not a value the applied Secret
    # states, so hf-token-not-empty's place among the framework's STATED_VALUE_POLICIES does not hold here (review 49b
    # #1: a base's empty hf-secret that the prod overlay's secretGenerator replaces).
    rewritten = (
        "this Secret is a Kustomize patch merged onto a base"
        if resource.patch
        else "a patch or a generator (behavior: replace or merge) of the files rewrites this Kustomize base"
        if resource.base
        else ""
    )
    messages: list[str] = []
    for key, value in sorted(_secret_values(resource).items()):
        if not isinstance(value, str) or value.strip():
            continue
        readers = _empty_token_readers(namespace, name, key)
        gated_models = sorted({(who, model) for who, model in readers if model})
        if gated_models and rewritten:
            who, model = gated_models[0]
            messages.append(
                unproven(
                    f"key {key} is empty while {who} reads it as its Hugging Face token to download the gated {model}: "
                    f"applied as this file stands the download gets 401, but {rewritten}, so the Secret applied may "
                    f"hold the token; make sure every overlay that is applied fills it"
                )
            )
        elif gated_models:
            who, model = gated_models[0]
            messages.append(
                f"key {key} is empty while {who} reads it as its Hugging Face token to download the gated {model}: "
                f"applied as these files stand, the Hub client sends no token, the download gets 401 and the server "
                f"exits at start; create the Secret out of band with the token (and leave this file out of the applied "
                f"ones) or fill it from a secret store"
            )
        elif readers:
            messages.append(
                unproven(
                    f"key {key} is empty while {readers[0][0]} reads it as its Hugging Face token: the Hub client sends "
                    f"none, so a gated or private model fails with 401 at start; fill it out of band, or drop the "
                    f"variable for a public model"
                )
            )
    return messages


def _check(resource: Resource, config: dict) -> list[str]:
    if resource.type == SECRET_TYPE:
        return _check_empty_secret(resource)
    if resource.type == CONFIG_MAP_TYPE:
        return config_map_fill_ins(resource)
    messages = _token_is_a_secret_name(resource)
    namespace = namespace_of(resource)
    # A fill-in (<hf_token>) is an unrendered placeholder, which the props hold as UNKNOWN for the other rules; this
    # rule judges the value as written (spent set 73 ratishjain12/eks-vllm-multinode lws.yaml, labelled S28).
    resource = dataclasses.replace(resource, props=resource.written) if resource.written is not None else resource
    servers = _servers(resource)
    for path, podspec in pod_specs(resource):
        for container in containers(podspec, init=True):
            label = container_label(path, container)
            messages += _from_empty_secrets(namespace, label, container, servers)
            for item in as_list(container.get("env")):
                item = as_dict(item)
                name = item.get("name")
                if name not in TOKEN_VARIABLES or "valueFrom" in item or "value" not in item:
                    continue
                reads, gated_model = _reading(servers, container, str(name))
                if not reads:
                    continue  # the engine never reads this name (TEI 1.5 and HUGGING_FACE_HUB_TOKEN): inert
                value = item.get("value")
                if filler := token_placeholder(value):
                    messages.append(
                        unproven(
                            f"{label}: env {name} is the fill-in {filler!r}: the Hub client "
                            "sends it as the token and the Hub answers 401 (an invalid token fails even for a public "
                            "model); take it from valueFrom.secretKeyRef, or drop the variable for a public model"
                        )
                    )
                if value is None or (isinstance(value, str) and not value.strip()):
                    other = _other_token_source(podspec, container, str(name))
                    messages.append(_empty_literal(label, str(name), "" if other else gated_model))
            messages += _from_config_maps(label, container, servers)
    return messages


def _from_config_maps(label: str, container: dict, servers: dict) -> list[str]:
    """Advice for each token variable the kubelet fills from a ConfigMap of the files (``envFrom: configMapRef`` or
    ``valueFrom.configMapKeyRef``: policies/reading/container_env.py) with a fill-in or an empty value, where the
    container's engine reads that variable. Spent set 76 opea-project/GenAIExamples@d311b85f
    CodeTrans/kubernetes/intel/cpu/xeon/manifest/codetrans.yaml: ConfigMap codetrans-tgi-config ``HF_TOKEN:
    "insert-your-huggingface-token-here"``, read by the TGI Deployment through envFrom for the gated
    mistralai/Mistral-7B-Instruct-v0.3 (labelled S28). Advice, as for a literal fill-in: the README may say to edit it."""
    if not names_config_maps(container):
        return []  # (no view read: the fact stays shared by every scope)
    found: list[str] = []
    for name in TOKEN_VARIABLES:
        where = env_config_map(container, name)
        if where is None:
            continue
        value = config_maps(container).get(where[0], {}).get(where[1])
        filler = token_placeholder(value)
        if not filler and (not isinstance(value, str) or value.strip()):
            continue
        if not _reading(servers, container, name)[0]:
            continue  # the engine never reads this name: inert
        source = f"key {where[1]} of ConfigMap {where[0]}"
        found.append(
            unproven(
                f"{label}: env {name} comes from {source}, which holds the fill-in {filler!r}: the Hub client sends it "
                f"as the token and the Hub answers 401 (an invalid token fails even for a public model), so the "
                f"download fails at start; take the token from a Secret (valueFrom.secretKeyRef), not a ConfigMap"
                if filler
                else f"{label}: env {name} comes from {source}, which is empty: the Hub client sends no token and a "
                f"gated or private model fails with 401 at start; take the token from a Secret (valueFrom.secretKeyRef)"
            )
        )
    return found


POLICY = Policy(
    name="hf-token-not-empty",
    description="A Hugging Face token variable the engine reads (HF_TOKEN, HUGGING_FACE_HUB_TOKEN, ...: "
    "components/engine_env.toml) is never an empty literal; blocking for a gated model.",
    catalog="S28",
    severity="medium",
    enforcement="mandatory",
    remediation_steps=(
        "Set `valueFrom: {secretKeyRef: {name: hf-token, key: token}}` on the variable (a Secret created out of band), "
        "or remove the variable when the model is public."
    ),
    resource_types=workload_types(SECRET_TYPE, CONFIG_MAP_TYPE),
    check_resource=_check,
    rationale=(
        "An empty HF_TOKEN is read as no token (https://huggingface.co/docs/huggingface_hub/package_reference/"
        "environment_variables#hftoken), so gated repositories answer 401 and the server exits after the node, the "
        "image pull and the queue wait; the placeholder passes review because it holds no secret to flag."
    ),
)


def _secret_values(resource: Resource) -> dict[str, object]:
    values = {str(k): v for k, v in as_dict(get(resource.props, "stringData")).items()}
    values.update({str(k): decoded(v) for k, v in as_dict(get(resource.props, "data")).items() if k not in values})
    return values


# A key whose own name says Hugging Face token, whatever the Secret is called (hf_token, hf-token, huggingface-token,
# hugging_face_hub_token, hf-api-token): spent set 57 rakanbakir/vllm-gpu-cluster kubernetes/vllm-secret.yaml (Secret
# vllm-secrets, stringData.hf_token) and set 54 grandiv/fragrance-palette-scalable k8s/secrets.yaml (Secret app-secret,
# data.hf-token in base64), both labelled S28.
_HF_TOKEN_KEY = re.compile(r"(?i)^(?:hf|hugging[-_]?face(?:[-_]hub)?)[-_]?(?:api[-_]?|access[-_]?)?token$")


def _hf_key(secret_name: str, key: str, read_as: Mapping[str, frozenset[str]] | None = None) -> bool:
    """True for a key that holds a Hugging Face token: a token variable's name, a key whose own name says so, a key a
    container of the files reads as a token variable (``read_as``: secrets.variables_of_key), or token/hf_token in an
    HF Secret."""
    if key in TOKEN_VARIABLES or _HF_TOKEN_KEY.match(key) or set((read_as or {}).get(key, ())) & set(TOKEN_VARIABLES):
        return True
    return key.lower() in _TOKEN_KEYS and _HF_NAME.search(secret_name) is not None


def _read_as(resource: Resource) -> dict[str, frozenset[str]]:
    namespace = get(resource.props, "metadata", "namespace")
    return variables_of_key(
        namespace if isinstance(namespace, str) and namespace else None, get(resource.props, "metadata", "name")
    )


def _rendering_variable(key: str, variable: str, refusal: str) -> str:
    """Advice on a Secret key whose value is one rendering variable (``${NGC_API_KEY}``), the service's answer named."""
    return unproven(
        f"key {key} holds {variable!r}, a variable for a rendering step (envsubst): nothing in Kubernetes expands it in "
        f"a Secret, so applied as written the Secret holds that text and a pod that reads it sends it as the credential, "
        f"which {refusal}; render the file before applying it (envsubst < file | kubectl apply -f -) or create the "
        "Secret out of band (kubectl create secret generic ... --from-literal)"
    )


def _check_secret(resource: Resource, config: dict) -> list[str]:
    """S28: a committed Secret's Hugging Face token is a fill-in (the keys of other credentials are S27's)."""
    name = str(get(resource.props, "metadata", "name") or "")
    messages: list[str] = []
    read_as = _read_as(resource)
    raw = as_dict(get(resource.props, "data"))
    for key, value in sorted(_secret_values(resource).items()):
        if not _hf_key(name, key, read_as):
            continue
        # A data value that is not base64 is read as the author typed it for its own name only (``HF_TOKEN: hf_token``).
        filler = token_placeholder(value) or own_name(key, raw.get(key) if value is None else value)
        variable = None if filler else _unrendered(value)
        if variable and (flux_substituted(resource) or terraform_filled(resource, variable)):
            variable = None  # a Flux Kustomization's postBuild or the Terraform plan fills it in (flux_substitution.py)
        if variable:
            messages.append(_rendering_variable(key, variable, "the Hub answers with 401 (even for a public model)"))
        if filler:
            messages.append(
                unproven(
                    f"key {key} holds the fill-in {filler!r}, not a Hugging Face token: applying this Secret with "
                    "the files overwrites a real token, and a pod that reads it sends the fill-in, which the Hub "
                    "answers with 401 (even for a public model); create the Secret out of band (kubectl create "
                    "secret generic ... --from-literal) and leave it out of the applied files"
                )
            )
    return messages


def _whole_fill_in(value: object) -> Optional[str]:
    """The value when all of it is a fill-in (REPLACE-ME, your-api-key-here, <your-key>): one word, no config text."""
    text = value.strip() if isinstance(value, str) else ""
    if not text or any(c.isspace() for c in text) or text.startswith("$"):
        return None
    # The docs' fill-ins only (placeholders.py), not token_placeholder's credential-in-capitals reading, which holds
    # only under a credential's key (MODE: API_KEY_FROM_ENV is a setting).
    filler = placeholder_in(text, ("stringData", "value"))
    return filler if filler == text else None


def _check_secret_fill_in(resource: Resource, config: dict) -> list[str]:
    """S27: a committed Secret holds a fill-in or a rendering variable where a credential goes (any key but an HF
    token's, which S28 reads)."""
    name = str(get(resource.props, "metadata", "name") or "")
    messages: list[str] = []
    read_as = _read_as(resource)
    for key, value in sorted(_secret_values(resource).items()):
        if _hf_key(name, key, read_as):
            continue
        credential = _CREDENTIAL_KEY.search(key) is not None
        filler = token_placeholder(value) if credential else _whole_fill_in(value)
        variable = None if filler or not credential else _unrendered(value)
        if variable and (flux_substituted(resource) or terraform_filled(resource, variable)):
            variable = None  # a Flux Kustomization's postBuild or the Terraform plan fills it in (flux_substitution.py)
        if variable:
            messages.append(_rendering_variable(key, variable, "the service refuses"))
        if filler:
            messages.append(
                unproven(
                    f"key {key} holds the fill-in {filler!r}, not a credential: applying this Secret with the files "
                    "overwrites a real one, and a pod that reads it sends the fill-in, which the service (NGC, an API, "
                    "a login) refuses or, for a key the app issues itself, accepts from anyone who reads the "
                    "repository; create the Secret out of band (kubectl create secret generic ... --from-literal) and "
                    "leave it out of the applied files"
                )
            )
    return messages


SECRET_POLICY = Policy(
    name="hf-token-secret-not-placeholder",
    description="A committed Secret does not hold a fill-in (your-...-here, REPLACE_WITH_...) or a rendering variable "
    "as its Hugging Face token (other credentials: secret-value-not-placeholder, S27).",
    catalog="S28",
    severity="medium",
    enforcement="advisory",
    remediation_steps=(
        "Create the token Secret out of band (kubectl create secret generic hf-token --from-literal=token=...) or from "
        "a secret store, and leave the placeholder Secret out of the applied files."
    ),
    resource_types=(SECRET_TYPE,),
    check_resource=_check_secret,
    rationale=(
        "The Hub rejects an invalid token with 401 even for public repositories, so a fill-in committed as the token "
        "fails the download at start, and applying the file overwrites a real token created before. Advice: the "
        "README may say to replace it."
    ),
)


FILL_IN_POLICY = Policy(
    name="secret-value-not-placeholder",
    description="A committed Secret does not hold a fill-in (REPLACE-ME, your-...-here, <your-key>) as a value, or a "
    "rendering variable (${NGC_API_KEY}) under a credential's key (NGC_API_KEY, *_API_KEY, api-key, *_TOKEN).",
    catalog="S27",
    severity="medium",
    enforcement="advisory",
    remediation_steps=(
        "Create the Secret out of band (kubectl create secret generic NAME --from-literal=KEY=...) or from a secret "
        "store, and leave the placeholder Secret out of the applied files (or render it before applying)."
    ),
    resource_types=(SECRET_TYPE,),
    check_resource=_check_secret_fill_in,
    rationale=(
        "A Secret's values are data: nothing in Kubernetes renders ${VAR} or replaces a fill-in there, so the file "
        "applied as written overwrites a real credential with the fill-in, and the service refuses it (or, for a key "
        "the app issues, anyone who reads the repository knows it). Spent-set labellers file these under S27 (set 33 "
        "ngc-secret api-key REPLACE_WITH_NGC_API_KEY; set 60 a guest key REPLACE-ME and an API key "
        "your-mistral-api-key-here). Advice: the README may say to replace it. Hugging Face tokens are S28's."
    ),
)
