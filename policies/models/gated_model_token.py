"""S37: a server that downloads a gated Hugging Face model has a way to a token.

A gated repository (components/hub_gated.toml: every ``meta-llama/`` repository, the ``google/gemma`` family; each
row cites the Hub page that states the gate, and tests pin them against recorded Hub answers) answers 401 to a
download without a token. The Hub client finds a token only in ``HF_OIDC_RESOURCE`` (an OIDC exchange), the ``HF_TOKEN``
env, then ``HUGGING_FACE_HUB_TOKEN``, then the file at ``HF_TOKEN_PATH`` (default ``$HF_HOME/token``)
(huggingface_hub v1.28.0 src/huggingface_hub/utils/_auth.py:58-84, 145-152; constants.py:151). A pod with none of
these starts the server on a bought GPU node, which then exits at start with 401, and restarts in a loop.

Blocking only where the files prove there is no token: a Deployment, StatefulSet, DaemonSet, Pod or LeaderWorkerSet
(no operator between the manifest and the pod) whose containers name no variable with TOKEN in it, take nothing by
``envFrom`` except ConfigMaps of the files read that hold no such key, mount no Secret, projected or CSI volume
(a token file), carry no secret-injection annotation, and whose server downloads into the node's disk (a claim at the
cache may hold the model already) with the Hub client online (``HF_HUB_OFFLINE``). Advice where something outside the
files could supply a token: an ``envFrom`` Secret or a ConfigMap not among the files, a Secret volume, an injector
annotation, a persistent cache, a download from elsewhere (``HF_ENDPOINT`` to a mirror, ModelScope), or an operator's resource (KServe's storage initializer reads the token from the
storage Secret or the ServiceAccount, kserve v0.20.0 pkg/credentials/service_account_credentials.go:248-266: that is
kserve-hf-token-on-service-account's rule, not this one's).

A RayService's Serve applications are read for the models they name (Ray Serve LLM's ``llm_configs``, a custom
application's ``args.model`` or MODEL_ID variable), on the cluster's GPU workers, where the replicas run: a token
variable in the application's ``runtime_env`` (or an llm config's ``engine_kwargs.hf_token``) counts, as one in the
workers' env does. KubeRay runs those pods, so this is advice. A KubeAI Model (``spec.url: hf://...``) is read the same
way: KubeAI adds only an optional HF_TOKEN from its chart's Secret, which the files do not show (advice).
"""

from __future__ import annotations

import re
from typing import Any, Mapping, Optional
from urllib.parse import urlsplit

from components.hub_access import gated
from components.images import names_image
from policies.framework import Policy, Resource, unproven
from policies.kube import (
    WORKLOAD_TYPES,
    as_dict,
    as_list,
    containers,
    get,
    name_of,
    requests_gpu,
    split_type,
)
from policies.reading.downloaders import LLMAZ_TOOL, fetches
from policies.reading.engines import (
    DEFAULT_HF_CACHES,
    cache_dirs,
    config_maps,
    env_values,
    hub_model,
    hub_offline,
    table_servers,
    volume_at,
)
from policies.reading.model_ids import model_id
from policies.reading.ray_cluster import ray_gpu_workers
from policies.reading.secrets import secret_values
from policies.reading.serving import GPU_SERVER, container_argv, engine_row, model_servers, namespace_of, serve_config
from policies.reading.vllm_args import served_model, vllm_servers

# Kinds whose pods are the manifest's own: nothing between the file and the pod can add a token.
_PLAIN_KINDS = {
    ("apps", "Deployment"),
    ("apps", "StatefulSet"),
    ("apps", "DaemonSet"),
    ("", "Pod"),
    ("leaderworkerset.x-k8s.io", "LeaderWorkerSet"),
}
# A variable that names a token (HF_TOKEN, HUGGING_FACE_HUB_TOKEN, HF_TOKEN_PATH, an engine's API_TOKEN), not a token
# count (TGI's MAX_INPUT_TOKENS).
_TOKEN_NAME = re.compile(r"(^|_)TOKEN(_|$)")
_SECRET_VOLUMES = ("secret", "projected", "csi")
_INJECTORS = ("vault.hashicorp.com/agent-inject", "secrets-store", "inject-secret", "doppler", "infisical")


# The words of a command line, a flag's dashes read as underscores (--hf-token is HF_TOKEN).
_ARGV_WORD = re.compile(r"[A-Za-z0-9_-]+")


def _argv_names_token(text: str) -> bool:
    """True when a command line names a token as a word (--hf-token, --token, $HF_TOKEN, token=..., a `login`), not as
    part of a count (set 29: QuanHNguyen232/ML-pipeline kubernetes/vllm-deployment.yaml@c556e27
    --max_num_batched_tokens, which said "token" to the old substring test and hid a gated model without a token)."""
    words = [w.upper().replace("-", "_") for w in _ARGV_WORD.findall(text)]
    return any(_TOKEN_NAME.search(w) or w == "LOGIN" for w in words)


# Token variables under names no Hub client reads: huggingface_hub reads HF_TOKEN and HUGGING_FACE_HUB_TOKEN only
# (v1.28.0 utils/_auth.py:58-84); TGI's launcher the same two (text-generation-inference v3.3.4 launcher/src/main.rs
# HF_TOKEN, HUGGING_FACE_HUB_TOKEN); TEI HF_TOKEN and HF_API_TOKEN (text-embeddings-inference v1.8.0 router/src/main.rs
# hf_token env = "HF_TOKEN", alias HF_API_TOKEN); llama.cpp HF_TOKEN (common/arg.cpp). These spellings are LangChain's or
# nobody's (set 37: MissawB/Animetix deploy/k8s/secrets.yaml@b61f2b4 passes HUGGINGFACE_TOKEN to vLLM by envFrom).
UNREAD_TOKEN_NAMES = frozenset(
    {
        "HUGGINGFACE_TOKEN",
        "HUGGINGFACEHUB_API_TOKEN",
        "HUGGINGFACE_HUB_TOKEN",
        "HF_HUB_TOKEN",
        "HUGGINGFACE_API_TOKEN",
        "HF_ACCESS_TOKEN",
        # set 38: rick-c-goog/gke-gpu-autoscale triton-deployment.yaml@969d3b6, Triton's vLLM flavour (its backend hands
        # model.json to vLLM, which downloads through huggingface_hub)
        "HUGGING_FACE_TOKEN",
    }
)


def _env_names(container: Mapping, namespace: Optional[str]) -> tuple[list[str], bool]:
    """The variable names the container gets (env, envFrom Secrets of the files read with their prefix), and whether an
    envFrom Secret outside the files (keys unknown) adds more."""
    names = [n for n in (as_dict(e).get("name") for e in as_list(container.get("env"))) if isinstance(n, str)]
    names += [n for n in env_values(container) if isinstance(n, str)]
    unknown = False
    for source in (as_dict(s) for s in as_list(container.get("envFrom"))):
        ref = as_dict(source.get("secretRef"))
        values = secret_values(namespace, ref.get("name"))
        keys = frozenset(values) if values is not None else None
        if ref and not keys:
            unknown = True  # a Secret's keys become variables: the careful way to pass HF_TOKEN with others
        elif keys:
            prefix = source.get("prefix") if isinstance(source.get("prefix"), str) else ""
            names += [f"{prefix}{k}" for k in keys]
    return names, unknown


# The Hub token names engines read in some release (components/engine_env.toml [tokens]): one its engine never reads at
# the image's release is no token for it (TEI 1.5 reads HF_API_TOKEN only, router/src/main.rs L109-112 at v1.5.0).
HUB_TOKEN_NAMES = frozenset({"HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "HF_API_TOKEN"})


def engine_unread(container: Mapping) -> frozenset[str]:
    """The Hub token names the container's engine does not read at its image's release (the engine env table's
    [tokens]); empty when the table does not cover the engine."""
    from components.engine_env import tokens_read
    from policies.reading.serving import engine_row, model_server_engine

    engine = model_server_engine(container)
    read = tokens_read(engine_row(engine) if engine else None, container.get("image"))
    return HUB_TOKEN_NAMES - read if read is not None else frozenset()


def _token_named(
    podspec: Mapping, own_image: bool = False, namespace: Optional[str] = None, unread: frozenset[str] = frozenset()
) -> bool:
    """True when a container of the pod names a token: an env variable with a TOKEN word in its name (HF_TOKEN from a
    Secret, HF_TOKEN_PATH, an engine's own) other than, in the engine's own image (``own_image``: no script of
    somebody else's to read it), a name no Hub client reads that the command line does not pass on, HF_OIDC_RESOURCE, a command line that mentions one (--hf-token, `hf auth login`, $HF_TOKEN), or an envFrom
    Secret whose keys the files do not show."""
    for container in containers(podspec, init=True):
        names, unknown = _env_names(container, namespace)
        argv = " ".join(container_argv(container))
        read = [n for n in names if not own_image or n.upper() not in UNREAD_TOKEN_NAMES | unread or n in argv]
        if unknown or any(_TOKEN_NAME.search(n.upper()) or n == "HF_OIDC_RESOURCE" for n in read):
            return True
        if _argv_names_token(argv):
            return True
    return False


def _unread_tokens(podspec: Mapping, namespace: Optional[str], unread: frozenset[str] = frozenset()) -> list[str]:
    """The token variables of the pod under names no Hub client reads (or its engine does not read: ``unread``)."""
    names = {n for c in containers(podspec, init=True) for n in _env_names(c, namespace)[0]}
    return sorted(n for n in names if n.upper() in UNREAD_TOKEN_NAMES | unread)


def _optional_token(podspec: Mapping) -> Optional[str]:
    """The Secret references that carry the pod's token when every one of them is ``optional: true`` and nothing else
    names a token (a literal, a token file, a command-line token, a required Secret); None otherwise. An optional
    reference to a missing Secret or key leaves the variable unset and the container starts anyway
    (https://kubernetes.io/docs/concepts/configuration/secret/#restriction-secret-must-exist: "optional: true")."""
    optional: list[str] = []
    for container in containers(podspec, init=True):
        if "token" in " ".join(container_argv(container)).lower():
            return None
        for e in as_list(container.get("env")):
            name = as_dict(e).get("name")
            if not (isinstance(name, str) and (_TOKEN_NAME.search(name.upper()) or name == "HF_OIDC_RESOURCE")):
                continue
            ref = as_dict(get(e, "valueFrom", "secretKeyRef"))
            if ref.get("optional") is not True:
                return None
            optional.append(f"{name} from Secret {ref.get('name')} key {ref.get('key')}")
        for source in as_list(container.get("envFrom")):
            ref = as_dict(as_dict(source).get("secretRef"))
            if ref and ref.get("optional") is not True:
                return None
            if ref:
                optional.append(f"envFrom Secret {ref.get('name')}")
    return ", ".join(optional) or None


def _outside(resource: Resource, podspec: Mapping) -> Optional[str]:
    """What outside the files read could hand the pod a token, or None."""
    for container in containers(podspec, init=True):
        for source in as_list(container.get("envFrom")):
            source = as_dict(source)
            name = get(source, "configMapRef", "name")
            if name is not None and not _config_map_read(name):
                return f"envFrom takes ConfigMap {name}, not among the files read"
    for volume in as_list(podspec.get("volumes")):
        kind = next((k for k in _SECRET_VOLUMES if k in as_dict(volume)), None)
        if kind is not None:
            return f"the {kind} volume {as_dict(volume).get('name')} may hold a token file"
    annotations = as_dict(get(resource.props, "spec", "template", "metadata", "annotations"))
    if any(marker in key for key in annotations for marker in _INJECTORS):
        return "an annotation asks an injector for secrets"
    if split_type(resource.type) not in _PLAIN_KINDS:
        return f"the operator that runs {split_type(resource.type)[1]} pods may inject one"
    return None


# Engines' switches from the Hub to ModelScope: vLLM reads VLLM_USE_MODELSCOPE ("true"), SGLang SGLANG_USE_MODELSCOPE
# (a true-ish value); the model is then fetched from ModelScope, whose access rule is not the Hub's.
_MODELSCOPE = ("VLLM_USE_MODELSCOPE", "SGLANG_USE_MODELSCOPE")
_HUB_HOSTS = ("huggingface.co", "hf.co")


def _other_endpoint(container: Mapping) -> Optional[str]:
    """Where the container downloads from instead of the Hugging Face Hub, or None: ``HF_ENDPOINT`` set to another
    host (a mirror or proxy such as an Artifactory remote; huggingface_hub v1.28.0 constants.py:69 reads it for every
    call), set from outside the files, or named in a downloader's config (kthena's ``hf_endpoint``); or ModelScope."""
    values = env_values(container)
    names = {name_of(e) for e in as_list(container.get("env"))} | set(values)
    if "HF_ENDPOINT" in names:
        endpoint = values.get("HF_ENDPOINT")
        host = (urlsplit(endpoint.strip()).hostname or "") if endpoint else ""
        if not any(host == h or host.endswith(f".{h}") for h in _HUB_HOSTS):
            return f"HF_ENDPOINT {endpoint or '(set outside the files)'} sends the download to another endpoint"
    if "hf_endpoint" in " ".join(container_argv(container)).lower():
        return "the downloader's config names another hf_endpoint"
    for name in _MODELSCOPE:
        if values.get(name, "").strip().lower() in ("true", "1"):
            return f"{name} fetches the model from ModelScope, not the Hugging Face Hub"
    return None


def _config_map_read(name: Any) -> bool:
    return isinstance(name, str) and name in config_maps()


def _cache_may_hold_it(podspec: Mapping, container: Mapping, dirs: tuple[str, ...], layer_empty: bool) -> Optional[str]:
    """Why the model may be there already, or None: when the cache folder is unknown, or a volume that outlives the pod (a claim, a host path, a network or
    CSI volume) holds it: it may have been filled before. An emptyDir and a generic ephemeral volume (a new claim per
    pod) start empty; so does the container's layer where ``layer_empty`` (the engine's official image). A custom
    image may carry the model in its cache, and huggingface_hub serves the cached snapshot when the Hub answers 401
    (v1.28.0 _snapshot_download.py:282-331; it re-raises only when nothing is cached, :365-369)."""
    volume_may = "a volume at the model cache may hold the model already"
    if not dirs:
        return volume_may
    for directory in dirs:
        volume = volume_at(podspec, container, directory)
        if volume is None and not layer_empty:
            return f"image {container.get('image')} is not the engine's own image, and its cache may hold the model"
        if volume is not None and not any(k in volume for k in ("emptyDir", "ephemeral")):
            return volume_may
    return None


def _official(container: Mapping, row: Any) -> bool:
    """True when the container runs one of the engine row's own images (vllm/vllm-openai, lmsysorg/sglang, ...),
    whose layer holds no model."""
    image = container.get("image")
    return row is not None and names_image(image, row.images)


def hub_servers(resource: Resource) -> list[tuple[str, Any, dict, dict, tuple[str, ...], bool, bool]]:
    """(label, model, podspec, container, cache folders, offline, layer empty) of every server whose engine fetches from the Hugging
    Face Hub, and of every downloader container that fetches for one (policies.reading.downloaders; not llmaz's
    loader, which takes HF_TOKEN from its modelhub-secret: InftyAI/llmaz v0.1.4 modelsource.go:43-45)."""
    found: list[tuple[str, Any, dict, dict, tuple[str, ...], bool, bool]] = []
    vllm = engine_row("vllm")
    for server in vllm_servers(resource):
        if not server.runtime_merged and vllm is not None:
            dirs = cache_dirs(server.container, server.args, vllm)
            offline = hub_offline(vllm, server.container)
            layer_empty = _official(server.container, vllm)
            found.append((server.label, served_model(server), server.podspec, server.container, dirs, offline, layer_empty))
    for engine in table_servers(resource):
        spec = engine.row.downloads if engine.row is not None else None
        if engine.row is not None and spec is not None and "hub" in spec.models:
            dirs = cache_dirs(engine.container, engine.args, engine.row)
            offline = hub_offline(engine.row, engine.container)
            layer_empty = _official(engine.container, engine.row)
            found.append((engine.label, engine.model, engine.podspec, engine.container, dirs, offline, layer_empty))
    for fetch in fetches(resource):
        if fetch.tool != LLMAZ_TOOL and requests_gpu(fetch.podspec):
            dirs = (fetch.into,) if fetch.into else cache_dirs(fetch.container, {})
            # A downloader writes where it is told; its tool image (python, a CLI) carries no model.
            found.append((fetch.label, fetch.source, fetch.podspec, fetch.container, dirs, False, True))
    return found + _ray_app_servers(resource) + _generic_servers(resource) + _triton_vllm_servers(resource)


# Triton's vLLM flavour: the backend reads the model folder's model.json and hands it to vLLM as AsyncEngineArgs
# (triton-inference-server/vllm_backend r24.03 src/model.py:40, 112-124), so vLLM downloads its "model" from the Hub
# through huggingface_hub. model.json sits in the model repository (often a bucket), so the Hub id a variable of the
# container names (MODEL_NAME, or model_ids' spellings) is what the files suggest, not what they prove; and a model.py
# in that repository may read any variable (set 16 trap: llm-on-gke/triton-vllm-gke@0d1338a, whose repository's
# model.py calls huggingface_hub.login(token=os.environ["HUGGING_FACE_TOKEN"])). So these findings are advice.
_TRITON_VLLM_FLAVOUR = "-vllm-python-py3"
_TRITON_PUBLISHER = "nvcr.io/nvidia/tritonserver"
TRITON_MODEL_UNSEEN = (
    "the model repository, not in the files, holds the model.json that names the model the vLLM backend downloads, and "
    "may hold a Python backend model.py that logs in with the variable itself"
)


def _triton_vllm_servers(resource: Resource) -> list[tuple[str, Any, dict, dict, tuple[str, ...], bool, bool]]:
    """The hub_servers entries of Triton servers in the publisher's vLLM image whose container names a Hub id in a
    model variable (its layer holds no model)."""
    found: list[tuple[str, Any, dict, dict, tuple[str, ...], bool, bool]] = []
    for server in table_servers(resource, "triton"):
        image = str(server.container.get("image") or "").lower()
        if not (names_image(image, (_TRITON_PUBLISHER,)) and _TRITON_VLLM_FLAVOUR in image):
            continue
        env = env_values(server.container)
        named = model_id(server.container)
        model = named.model if named is not None else next((v for k, v in env.items() if k.upper() == "MODEL_NAME"), None)
        if hub_model(model) is not None and not any(str(env.get(n, "")).strip().lower() in ("1", "true") for n in _HF_OFFLINE):
            found.append((server.label, model, server.podspec, server.container, cache_dirs(server.container, {}), False, True))
    return found


def _generic_servers(resource: Resource) -> list[tuple[str, Any, dict, dict, tuple[str, ...], bool, bool]]:
    """The hub_servers entries of GPU model servers of no known engine that name a Hub model by a common flag or
    variable (policies.reading.model_ids; offline ones are not read): the Hub client's cache folders."""
    found: list[tuple[str, Any, dict, dict, tuple[str, ...], bool, bool]] = []
    for server in model_servers(resource):
        named = model_id(server.container) if server.engine == GPU_SERVER else None
        if named is not None and hub_model(named.model) is not None:
            dirs = cache_dirs(server.container, {})
            found.append((server.label, named.model, server.podspec, server.container, dirs, False, False))
    return found


def _app_models(app: Mapping) -> list[tuple[str, Any, dict]]:
    """(where, model, runtime_env variables) of each model a Ray Serve application names: Ray Serve LLM's
    ``llm_configs[].model_loading_config`` (model_source, else model_id, with the config's own runtime_env), the
    ``runtime_env.env_vars`` MODEL_ID, and ``args.model`` or a kwargs mapping's ``model`` (what the app's code hands its
    engine, whatever the app is). The variables also carry an llm config's engine_kwargs keys (hf_token)."""
    env = as_dict(get(app, "runtime_env", "env_vars"))
    found: list[tuple[str, Any, dict]] = []
    for i, llm in enumerate(as_dict(c) for c in as_list(get(app, "args", "llm_configs"))):
        loading = as_dict(llm.get("model_loading_config"))
        # engine_kwargs hf_token hands vLLM the token directly (anyscale/examples 03_deploy_llama_3_8b at 5743a83d):
        # counted with the variables, as a name that says TOKEN.
        merged = {**env, **as_dict(get(llm, "runtime_env", "env_vars")), **as_dict(llm.get("engine_kwargs"))}
        found.append((f"llm_configs[{i}]", loading.get("model_source") or loading.get("model_id"), merged))
    args = as_dict(app.get("args"))
    for where, value in [("runtime_env.env_vars.MODEL_ID", env.get("MODEL_ID")), ("args.model", args.get("model"))]:
        found.append((where, value, env))
    for key, value in args.items():
        if isinstance(value, dict) and "model" in value:
            found.append((f"args.{key}.model", value.get("model"), env))
    return found


def _ray_app_servers(resource: Resource) -> list[tuple[str, Any, dict, dict, tuple[str, ...], bool, bool]]:
    """The hub_servers entries of a RayService's Serve applications: each model an application names, on the first GPU
    worker of the cluster (the replicas' pods), unless the application's runtime_env names a token variable (Ray passes
    it to the replicas) or sets the Hub client offline."""
    if split_type(resource.type) != ("ray.io", "RayService"):
        return []
    workers = ray_gpu_workers(resource)
    if not workers:
        return []
    path, podspec, container = workers[0]
    found = []
    for app in (as_dict(a) for a in as_list(as_dict(serve_config(resource)).get("applications"))):
        for where, model, env in _app_models(app):
            if hub_model(model) is None or any(_TOKEN_NAME.search(str(name).upper()) for name in env):
                continue
            offline = any(str(env.get(name, "")).strip().lower() in ("1", "true", "yes", "on") for name in _HF_OFFLINE)
            dirs = cache_dirs(container, {})
            dirs = DEFAULT_HF_CACHES if dirs == cache_dirs({}, {}) else dirs
            label = f"serveConfigV2 application {app.get('name', '?')} {where} (replicas on {path})"
            found.append((label, model, podspec, container, dirs, offline, False))
    return found


_HF_OFFLINE = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")


# KubeAI (substratusai/kubeai v0.21.0): for a Model whose url is hf://ORG/NAME the controller adds to the server
# container only env HF_TOKEN from its chart's Hugging Face Secret, key "token", optional: true
# (internal/modelcontroller/model_source.go:36, 113-128), and the chart creates that Secret only when
# secrets.huggingface.token is set (charts/kubeai/values.yaml:29-35 default "", templates/huggingface-secret.yaml:3);
# a Model's own spec.env / spec.envFrom reach the container too (model_source.go modelEnvFrom).
KUBEAI_MODEL = ("kubeai.org", "Model")


def _kubeai_advice(resource: Resource) -> list[str]:
    """Advice for a KubeAI Model serving a gated Hub model with no token of its own (the chart's optional Secret is
    the only other way, and whether the install sets it is not in the files)."""
    if split_type(resource.type) != KUBEAI_MODEL:
        return []
    spec = as_dict(get(resource.props, "spec"))
    url = spec.get("url")
    if not isinstance(url, str) or not url.startswith("hf://"):
        return []
    repository = hub_model(url[len("hf://") :])
    entry = gated(repository)
    env = spec.get("env")  # a map of name to value in kubeai.org/v1 (ModelSpec.Env map[string]string)
    names = list(env) if isinstance(env, dict) else [as_dict(e).get("name") for e in as_list(env)]
    if entry is None or spec.get("envFrom") or any(isinstance(n, str) and _TOKEN_NAME.search(n.upper()) for n in names):
        return []
    return [
        unproven(
            f"spec.url: downloads {repository}, a gated Hugging Face repository ({entry.prefix}* asks each user to accept "
            f"its licence on the Hub), and the Model names no token (spec.env, spec.envFrom): KubeAI adds only HF_TOKEN "
            f"from its chart's Hugging Face Secret, optional, which the chart creates only when "
            f"secrets.huggingface.token is set, so without it the download answers 401 and the server exits at start; "
            f"set the chart's token or give the Model spec.envFrom a Secret with HF_TOKEN"
        )
    ]


def _optional_advice(label: str, repository: Optional[str], prefix: str, refs: str) -> str:
    return unproven(
        f"{label}: downloads {repository}, a gated Hugging Face repository ({prefix}* asks each user to accept its "
        f"licence on the Hub), and its token comes only from {refs}, marked optional: true: where that Secret or key is "
        f"missing the pod starts without a token, the download answers 401 and the server exits at start on the GPU "
        f"node; drop optional so that the pod waits for the Secret"
    )


def _check(resource: Resource, config: dict) -> list[str]:
    # KServe's storage initializer takes the token its own way (kserve-hf-token-on-service-account): on its kinds only
    # a server that downloads the model itself with an optional token reference is advised on.
    kserve = split_type(resource.type)[0] == "serving.kserve.io"
    messages = []
    namespace = namespace_of(resource)
    for label, model, podspec, container, dirs, offline, layer_empty in hub_servers(resource):
        repository = hub_model(model)
        entry = gated(repository)
        if entry is None or offline:
            continue
        if _token_named(podspec, own_image=layer_empty, namespace=namespace, unread=engine_unread(container)):
            if (refs := _optional_token(podspec)) is not None:
                messages.append(_optional_advice(label, repository, entry.prefix, refs))
            continue
        if kserve:
            continue
        unread = _unread_tokens(podspec, namespace, engine_unread(container)) if layer_empty else []
        named = f"; its token variable {', '.join(unread)} is a name no Hub client reads" if unread else ""
        message = (
            f"{label}: downloads {repository}, a gated Hugging Face repository ({entry.prefix}* asks each user to "
            f"accept its licence on the Hub), and the pod gives the Hub client no token (no HF_TOKEN or "
            f"HUGGING_FACE_HUB_TOKEN, no token file, no OIDC{named}), so the download answers 401 and the pod fails at "
            f"start on the GPU node; take HF_TOKEN from a Secret (env valueFrom.secretKeyRef), or serve the model from "
            f"a volume that holds it with HF_HUB_OFFLINE=1"
        )
        why = _other_endpoint(container) or _outside(resource, podspec)
        if why is None:
            why = _cache_may_hold_it(podspec, container, dirs, layer_empty)
        if why is None and any(container is c for *_, c, _, _, _ in _triton_vllm_servers(resource)):
            why = TRITON_MODEL_UNSEEN
        if why is None and any(container is c for *_, c, _, _, _ in _generic_servers(resource)):
            why = "the engine is not one the pack knows: that its image downloads the model, rather than carry it, is not in the files"
        messages.append(unproven(f"{message} ({why})") if why else message)
    return messages + _kubeai_advice(resource)


POLICY = Policy(
    name="gated-model-has-token",
    description=(
        "A server that downloads a gated Hugging Face model (meta-llama/*, google/gemma*, three mistralai/Mistral-7B repositories: components/hub_gated.toml) "
        "has a way to a token: HF_TOKEN or HUGGING_FACE_HUB_TOKEN from a Secret, a token file, or a volume that "
        "already holds the model."
    ),
    rationale=(
        "Gated repositories answer 401 to an anonymous download (the Hub pages each row of components/hub_gated.toml "
        "cites); huggingface_hub looks for a token only in HF_OIDC_RESOURCE, HF_TOKEN, HUGGING_FACE_HUB_TOKEN and the "
        "file at HF_TOKEN_PATH (huggingface_hub v1.28.0 utils/_auth.py:58-84, 145-152), so a pod with none of them "
        "buys a GPU node, pulls the image and exits at start, in a restart loop."
    ),
    catalog="S37",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Create a Secret with the token (kubectl create secret generic hf-token --from-literal=token=...) and set "
        "env HF_TOKEN with valueFrom.secretKeyRef on the server container; or pre-load the model into a "
        "PersistentVolumeClaim, mount it at the cache and set HF_HUB_OFFLINE=1."
    ),
    config_schema={},
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    operator_fills="a Hugging Face token",
)
