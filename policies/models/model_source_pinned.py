"""S17: a served model must be pinned to a revision, and remote code must be allow-listed.

A Hugging Face model id without a revision resolves to whatever its main branch holds when the
pod starts: two replicas can serve different weights, a rollback cannot return to what ran, and
a compromised or reworked repository changes production silently. `--trust-remote-code` goes
further: it imports Python from the model repository into the server process. This is the
weights' analogue of the `:latest` image tag (catalogue S17).

Read from every engine's own form: vLLM (`--revision`, `--trust-remote-code`), SGLang
(`--model-path`, `--revision`), Hugging Face TGI (`--model-id` / MODEL_ID, `--revision` /
REVISION, TRUST_REMOTE_CODE), KServe's Hugging Face server (`storageUri: hf://...`,
`--model_revision`, `--trust_remote_code`), and Ray Serve LLM (`model_loading_config.model_source`,
`engine_kwargs.revision`, `engine_kwargs.trust_remote_code`; a `runtime_env.env_vars` MODEL_ID /
TRUST_REMOTE_CODE pair as TGI names them), KServe's LLMInferenceService (`spec.model.uri: hf://org/model[:revision]`),
and every other engine of the engine table through its row's spellings, flags or environment (NIM's
NIM_TRUST_CUSTOM_CODE, llama.cpp's `-hf`), and a download done for the server by an init container or sidecar of a
GPU pod (kthena's downloader, `hf download`: policies/reading/downloaders.py). Local paths and object-store URIs are not Hub ids: only
the remote-code rule applies to them, as advice (what the volume holds is not in the manifest). An engine that downloads Hub models but has no revision setting (llama.cpp's
``-hf``, which follows the repository's main branch) is reported without blocking: the fix is a file URL at a commit
or a volume, not a flag. A script of a GPU pod's container that calls huggingface_hub's ``snapshot_download(...)`` or
``hf_hub_download(...)`` with no ``revision`` downloads the main branch as it stands (huggingface_hub v1.28.0
src/huggingface_hub/_snapshot_download.py:229-230, file_download.py:962-963: ``revision = DEFAULT_REVISION``,
constants.py:60 "main"); read from script text, that is advice. A local model path laid out as
``<org>/<repo>/main`` (or ``master``) is a copy of a moving branch: advice too (the files that fill it are elsewhere).
An Ollama model pulled by its tag at start (``ollama pull``/``ollama run`` in a command, postStart hook, init container
or mounted script: policies/reading/ollama_pulls.py) is advice. An unpinned Hub id whose weights vLLM loads with
``--load-format tensorizer`` from a ``tensorizer_uri`` is advice: only config and tokenizer come from the Hub.
A KServe model from an OCI image (``oci://``, a modelcar) by tag rather than digest is advice
(policies/models/oci_model_tags.py).
"""

from __future__ import annotations

import re

from components.serving_engines import Engine
from policies.framework import Policy, Resource, unproven
from policies.kube import (
    WORKLOAD_TYPES,
    as_dict,
    as_list,
    get,
    is_ray,
    requests_gpu,
    split_type,
)
from policies.models.claim_downloads import claim_fed_downloads
from policies.models.hub_url_scripts import branch_url_fetches
from policies.models.oci_model_tags import oci_tag_models
from policies.operators import operator_server, vllm_runtime_pod
from policies.reading.downloaders import fetches
from policies.reading.engines import env_values, hub_model, serves_model, table_args, table_servers
from policies.reading.model_ids import ModelId, model_id, patch_model_ids
from policies.reading.ollama_pulls import ollama_tag_pulls
from policies.reading.operator_models import CONFIG_MAP_TYPE, engine_args_files, field_models, template_models
from policies.reading.serve_apps import serve_app_engines
from policies.reading.serving import (
    GPU_SERVER,
    container_argv,
    engine_configs,
    engine_row,
    model_server_engine,
    model_servers,
    serve_config,
)
from policies.reading.vllm_args import parse_vllm_args

_COMMIT = re.compile(r"^[0-9a-f]{40}$")
_WHOLE_REF = re.compile(r"^\$\(([A-Za-z_][A-Za-z0-9_]*)\)$")


def _through_env(value: object, container: object) -> object:
    """A setting written as one ``$(VAR)`` whose variable the container's env takes from a ConfigMap of the checked
    files (``valueFrom.configMapKeyRef``, ``envFrom``): the kubelet expands it there (core/v1 Container.args), so the
    ConfigMap's value is the model served. Set 18: apnex/k8s-vllm k8s/deployment.yaml@80e7f6b ``--model=$(VLLM_MODEL)``
    with VLLM_MODEL from k8s/configmap.yaml@937533a (cyankiwi/Qwen3-Coder-30B-A3B-Instruct-AWQ-4bit). Anything else is
    returned as written."""
    found = _WHOLE_REF.match(value) if isinstance(value, str) else None
    if found is None or not isinstance(container, dict):
        return value
    return env_values(container).get(found.group(1), value)


def _python_hub_downloads(resource: Resource) -> list[str]:
    """Advice for each library download call without a revision (huggingface_hub's ``snapshot_download``,
    ``hf_hub_download``: policies.reading.downloaders.CALL_ROWS) in the scripts of a pod that requests a GPU or runs a
    model server (inline, or a mounted ConfigMap script the command runs)."""
    found: list[str] = []
    for fetch in fetches(resource):
        if not fetch.from_text or fetch.revision is not None or not _feeds_server(resource, fetch.podspec):
            continue
        found.append(
            unproven(
                f"{fetch.label}: calls {fetch.tool}({fetch.source}) with no revision, so every start downloads whatever "
                f"the repository's main branch holds then; pass {fetch.revision_flag}"
            )
        )
    return found


def _feeds_server(resource: Resource, podspec: dict) -> bool:
    return requests_gpu(podspec) or serves_model(resource, podspec)


_TRUE = {"1", "true", "yes", "on"}


def _sources(resource: Resource) -> list[dict]:
    """Each served model as {label, model, revision, revision_flag, trust, trust_flag}."""
    found = []
    for config in engine_configs(resource):
        if (
            config.server is not None
            and config.server.runtime_merged
            and str(get(config.server.container, "modelFormat", "name")).lower() == "huggingface"
        ):
            continue  # KServe's Hugging Face server (any backend) is read below, with its own flags
        container = config.server.container if config.server is not None else None
        found.append(
            dict(
                label=config.label,
                model=_through_env(config.model, container),
                revision=_through_env(config.args.get("revision"), container),
                has_revision="revision" in config.args,
                revision_flag="engine_kwargs.revision" if config.extra else "--revision",
                trust="trust-remote-code" in config.args,
                trust_flag="engine_kwargs.trust_remote_code" if config.extra else "--trust-remote-code",
                weights_elsewhere=_tensorized(config.args),
            )
        )
    ray = is_ray(resource.type)
    # Every engine of the engine table other than vLLM (read above): its model, revision and trust-remote-code
    # settings as its row spells them (components/serving_engines.toml), flags or environment.
    for table in table_servers(resource):
        if table.row is None:
            continue
        # An engine with no revision setting (NIM's model names, Triton's repository) cannot pin one: only the
        # remote-code rule applies to it.
        pinnable = "revision" in table.row.flags or "revision" in table.row.env
        revision = table.args.get("revision")
        if table.model is None and not table.row.model_positional and "model" in table.row.shown:
            # No model named: the image serves its own (a NIM's profile from NGC, pinned with the image tag), so
            # there is no repository whose code a trust setting would import.
            continue
        found.append(
            dict(
                label=table.label,
                model=table.model if pinnable else None,
                shown_model=table.model,
                revision=revision,
                has_revision="revision" in table.args,
                revision_flag=table.row.spelling("revision"),
                trust="trust-remote-code" in table.args,
                trust_flag=table.row.spelling("trust-remote-code"),
                unpinnable=None if pinnable else _hub_without_revision(table.row, table.model, table.hub_spelling),
                engine=table.row.display,
            )
        )
    for server in model_servers(resource):
        container, engine = server.container, server.engine
        args = parse_vllm_args(container_argv(container))
        if engine == "kserve":
            model = args.get("model-id") or container.get("storageUri")
            uri = container.get("storageUri")
            revision = args.get("model-revision")
            if revision is None and isinstance(uri, str) and uri.startswith("hf://") and ":" in uri[5:]:
                revision = uri[5:].split(":", 1)[1]
            found.append(
                dict(
                    label=server.label,
                    model=model,
                    revision=revision,
                    has_revision=revision is not None,
                    revision_flag="--model_revision",
                    trust="trust-remote-code" in args,
                    trust_flag="--trust_remote_code",
                )
            )
    found.extend(_generic_sources(resource))
    if ray:
        found.extend(_ray_env_sources(resource))
    found.extend(_llmisvc_sources(resource))
    found.extend(_operator_sources(resource))
    found.extend(_downloader_sources(resource))
    found.extend(_operator_field_sources(resource))
    found.extend(_engine_args_file_sources(resource))
    return found


def _engine_args_file_sources(resource: Resource) -> list[dict]:
    """vLLM's own arguments in an engine-arguments file a ConfigMap ships (Triton's vLLM backend model.json:
    policies/reading/operator_models.engine_args_files): ``model``, ``revision``, ``trust_remote_code``."""
    return [
        dict(
            label=f"data.{key}",
            model=args["model"],
            revision=args.get("revision") if isinstance(args.get("revision"), str) else None,
            has_revision=bool(args.get("revision")),
            revision_flag=f'"revision" in {key}',
            trust=args.get("trust_remote_code") is True or str(args.get("trust_remote_code")).lower() in _TRUE,
            trust_flag=f'"trust_remote_code" in {key}',
        )
        for key, args in engine_args_files(resource)
    ]


def _operator_field_sources(resource: Resource) -> list[dict]:
    """A Hub model an operator's resource names in its own fields, with the revision field beside it, and the
    containers of a pod template it runs that name a model by a common flag (policies/reading/operator_models.py):
    advice, since what the operator does with the value is not in the files."""
    found: list[dict] = [
        dict(
            label=field.path,
            model=field.repo,
            revision=field.revision,
            has_revision=field.revision is not None,
            revision_flag=field.revision_path,
            trust=False,
            trust_flag="",
            generic=field.path,
            operator=True,
        )
        for field in field_models(resource)
    ]
    found += [_named_source(label, named) for label, named in template_models(resource)]
    return found


def _generic_sources(resource: Resource) -> list[dict]:
    """The model a GPU model server of no known engine names by a common flag or variable (policies.reading.model_ids:
    TGI's ``--model-id`` in a team's own image, ``MODEL_ID`` for an entrypoint script): advice, since what the image
    does with the value is not in the files."""
    found = []
    for server in model_servers(resource):
        named = model_id(server.container) if server.engine == GPU_SERVER else None
        if named is None:
            continue
        found.append(_named_source(server.label, named))
    return found + _patch_sources(resource)


def _patch_sources(resource: Resource) -> list[dict]:
    """The Hub model a container of a Kustomize patch names with no image of its own (model_ids.patch_model_ids):
    advice, since the server the patch is merged onto is not in the patch."""
    return [{**_named_source(label, named), "in_patch": True} for label, named in patch_model_ids(resource)]


def _named_source(label: str, named: ModelId) -> dict:
    """The source entry of a model named by a common flag, variable or operator field (policies.reading.model_ids):
    its revision beside it if any, and trust_remote_code as advice, since what reads the value is not in the files."""
    return dict(
        label=label,
        model=named.model,
        revision=named.revision,
        has_revision=named.revision is not None,
        revision_flag=named.revision_field or _REVISION_SPELLING.get(named.field, "a revision (--revision)"),
        trust=named.trust is not None,
        trust_flag=named.trust or "",
        trust_unproven=True,
        generic=named.field,
        generic_unpinnable=not named.pinnable,
    )


# The revision each model spelling is usually paired with (transformers' from_pretrained(revision=), TGI's --revision
# and REVISION).
_REVISION_SPELLING = {"env MODEL_ID": "env REVISION", "--model-id": "--revision"}


def _downloader_sources(resource: Resource) -> list[dict]:
    """A model an init container or sidecar of a GPU pod downloads for the server (kthena's downloader,
    ``hf download``: policies.reading.downloaders), with the revision the tool is given."""
    return [
        dict(
            label=fetch.label,
            model=fetch.source,
            revision=fetch.revision,
            has_revision=fetch.revision is not None,
            revision_flag=f"the {fetch.tool}'s {fetch.revision_flag}",
            trust=False,
            trust_flag="",
        )
        for fetch in fetches(resource)
        if not fetch.from_text and _feeds_server(resource, fetch.podspec)
    ]


def _operator_sources(resource: Resource) -> list[dict]:
    """An operator-run server (NIMService, VLLMRuntime: policies.operators) whose image is an engine of the table
    other than vLLM: its ``spec.env`` read through the row's spellings (NIM's NIM_TRUST_CUSTOM_CODE)."""
    if (pod := vllm_runtime_pod(resource)) is not None:
        # The controller runs `vllm serve modelURL ... extraArgs` (policies.operators.vllm_runtime_pod): the CRD has no
        # revision field, so only a --revision in spec.vllmConfig.extraArgs pins the model.
        args = parse_vllm_args([str(a) for a in pod[1]["args"]])
        return [
            dict(
                label="spec.model.modelURL",
                model=pod[1]["args"][0],
                revision=args.get("revision"),
                has_revision="revision" in args,
                revision_flag="--revision in spec.vllmConfig.extraArgs",
                trust="trust-remote-code" in args,
                trust_flag="--trust-remote-code in spec.vllmConfig.extraArgs",
            )
        ]
    server = operator_server(resource)
    if server is None or not isinstance(server.image, str):
        return []
    container = {"image": server.image, "env": get(resource.props, "spec", "env")}
    row = engine_row(model_server_engine(container) or "")
    if row is None or row.name == "vllm":
        return []
    args = table_args(container, row, [])
    model = args.get("model")
    if not isinstance(model, str) or not model:
        # The image's own model (a NIM's profile from NGC, pinned with the image tag): no revision to pin, but a trust
        # setting still runs the model's own code with no allow-list. The code is pinned with the image, so that rests
        # on the allow-list the stack keeps, not on a moving source: reported unproven (advice).
        if "trust-remote-code" not in args:
            return []
        return [
            dict(
                label="spec.env",
                model=None,
                shown_model=server.image.split("@", 1)[0].rsplit(":", 1)[0].split("/", 2)[-1],
                revision=None,
                has_revision=True,
                revision_flag=row.spelling("revision"),
                trust=True,
                trust_flag=row.spelling("trust-remote-code"),
                trust_unproven=True,
            )
        ]
    return [
        dict(
            label="spec.env",
            model=None,
            shown_model=model,
            revision=None,
            has_revision=False,
            revision_flag=row.spelling("revision"),
            trust="trust-remote-code" in args,
            trust_flag=row.spelling("trust-remote-code"),
        )
    ]


def _llmisvc_sources(resource: Resource) -> list[dict]:
    """A KServe LLMInferenceService's ``spec.model.uri``: the controller's storage initializer downloads an
    ``hf://<org>/<model>[:<revision>]`` URI into the pod (kserve v0.20.0 python/storage/kserve_storage/
    kserve_storage.py Storage._download_hf, L614-657: the part after ':' is the revision, none = the main branch),
    and the presets' vLLM serves the local copy, so the revision can only be pinned in the URI."""
    if split_type(resource.type) != ("serving.kserve.io", "LLMInferenceService"):
        return []
    uri = get(resource.props, "spec", "model", "uri")
    if not isinstance(uri, str) or not uri.startswith("hf://"):
        return []
    model, _, revision = uri[len("hf://") :].partition(":")
    return [
        dict(
            label="spec.model.uri",
            model=model,
            revision=revision or None,
            has_revision=bool(revision),
            revision_flag="the revision in spec.model.uri (hf://<org>/<model>:<revision>)",
            trust=False,
            trust_flag="",
        )
    ]


def _ray_env_sources(resource: Resource) -> list[dict]:
    """Ray Serve applications configured through runtime_env env vars (MODEL_ID, REVISION,
    TRUST_REMOTE_CODE), as the TGI convention names them."""
    config = serve_config(resource)
    found = []
    for app in as_list(as_dict(config).get("applications")):
        env = as_dict(get(app, "runtime_env", "env_vars"))
        model = env.get("MODEL_ID")
        if not isinstance(model, str):
            continue
        revision = env.get("REVISION") if isinstance(env.get("REVISION"), str) else None
        found.append(
            dict(
                label=f"serveConfigV2 application {as_dict(app).get('name', '?')}",
                model=model,
                revision=revision,
                has_revision=revision is not None,
                revision_flag="env REVISION",
                trust=str(env.get("TRUST_REMOTE_CODE", "")).lower() in _TRUE,
                trust_flag="env TRUST_REMOTE_CODE",
            )
        )
    # Custom vLLM apps that hand vLLM its settings in its own names (``args`` for its parser, an ``engine_args``
    # mapping: policies/reading/serve_apps.py); the variables form is read above.
    for engine in serve_app_engines(resource):
        if engine.proven and isinstance(engine.model, str):
            found.append(
                dict(
                    label=engine.label,
                    model=engine.model,
                    revision=engine.args.get("revision"),
                    has_revision="revision" in engine.args,
                    revision_flag=engine.spell("revision"),
                    trust="trust-remote-code" in engine.args,
                    trust_flag=engine.spell("trust-remote-code"),
                )
            )
    return found


def _hub_without_revision(row: Engine, model: str | None, spelling: str | None = None) -> str | None:
    """The Hub repository a server of an engine with no revision setting downloads (llama.cpp's ``-hf org/repo:quant``:
    ggml-org/llama.cpp 03eb25f3 common/hf-cache.cpp get_repo_commit() resolves the repository's refs and takes the
    ``main`` branch's commit, with no option to name another), or None. A value the files leave unexpanded
    (``--hf-repo $(HF_REPO)`` from a ConfigMap not among them) behind a spelling that always names a Hub repository
    (the row's ``downloads.hub``) is named as written."""
    if row.downloads is None or "hub" not in row.downloads.models or not isinstance(model, str) or "://" in model:
        return None
    if spelling is not None and "$" in model:
        return f"{model.strip()} (the repository {spelling} names)"
    return hub_model(model.split(":", 1)[0])


# Branch names a cache laid out as <org>/<repo>/<revision> may be filled from (the Hub's default branch is main,
# huggingface_hub v1.28.0 constants.py:60 DEFAULT_REVISION; older repositories use master).
_BRANCHES = ("main", "master")


def _branch_folder(model: object) -> tuple[str, str] | None:
    """(org/repo, branch) when a local model path ends in <org>/<repo>/<branch>, a folder named after a moving branch."""
    if not isinstance(model, str) or not model.startswith("/"):
        return None
    parts = [p for p in model.rstrip("/").split("/") if p]
    if len(parts) < 3 or parts[-1] not in _BRANCHES:
        return None
    repo = hub_model(f"{parts[-3]}/{parts[-2]}")
    return (repo, parts[-1]) if repo is not None else None


def _tensorized(args: dict) -> str | None:
    """The tensorizer URI when vLLM loads the weights with ``--load-format tensorizer`` from one: the tensorizer
    loader deserializes them from ``tensorizer_uri`` (vllm 0.33.0 wheel model_executor/model_loader/
    tensorizer_loader.py:91-95 opens that stream instead of downloading, :105-115 deserializes from it), so the Hub id
    only supplies config and tokenizer files (set 11: coreweave/kubernetes-cloud online-inference/vllm/
    02-inference-service.yaml at 0a16e3b7dfb93fa5bc17c66ac715ebadc3327af9, tensorizer_uri s3://...)."""
    if str(args.get("load-format")) != "tensorizer":
        return None
    extra = str(args.get("model-loader-extra-config") or "")
    found = re.search(r"""tensorizer_uri["']?\s*[:=]\s*["']?([^"',}\s]+)""", extra)
    uri = found.group(1) if found else args.get("tensorizer-uri")
    return uri if isinstance(uri, str) and uri else None


def _unpinned(source: dict, repo: str) -> str:
    """The no-revision message: blocking, or advice when the weights load from elsewhere (``_tensorized``)."""
    label, uri = source["label"], source.get("weights_elsewhere")
    if source.get("operator"):
        return unproven(
            f"{label}: names the Hugging Face model {repo} with no revision beside it ({source['revision_flag']}), so "
            f"the operator downloads whatever the repository's main branch holds whenever it fetches the model, and "
            f"pods started at different times can serve different snapshots; set {source['revision_flag']} to a "
            f"commit SHA (if the operator takes none, serve the weights from a volume filled at a commit)"
        )
    if source.get("generic_unpinnable"):
        # OPEA's native server loads LLM_MODEL_ID at revision "main", hardcoded (GenAIComps@e17e6bd5
        # comps/llms/src/text-generation/integrations/native.py:33 and :82): no revision setting reaches it.
        return unproven(
            f"{label}: {source['generic']} names the Hugging Face model {repo}, and the server that reads it loads "
            f"the main branch whatever the files set (it takes no revision: a MODEL_REVISION beside it is not read), "
            f"so each pod serves whatever the repository holds when it starts; bake the weights into the image or "
            f"mount a snapshot downloaded at a commit SHA and point {source['generic'][4:]} at its local path"
        )
    if source.get("in_patch"):
        return unproven(
            f"{label}: {source['generic']} names the Hugging Face model {repo} with no revision beside it; the server "
            f"this patch is merged onto downloads it at each start where no volume holds it, so pods started at "
            f"different times serve whatever the repository's main branch holds then; pin {source['revision_flag']} "
            f"to a commit SHA, or bake or mount the weights"
        )
    if source.get("generic"):
        return unproven(
            f"{label}: {source['generic']} names the Hugging Face model {repo} with no revision beside it; if the "
            f"image downloads it (the engine is not one the pack knows), each pod serves whatever the repository holds "
            f"when it starts; pin {source['revision_flag']} to a commit SHA, or bake or mount the weights"
        )
    if uri:
        return unproven(
            f"{label}: model {repo} has no revision; the weights load from {uri} (--load-format tensorizer), but "
            f"config, tokenizer and chat template still come from the Hub's main branch as it stands at each start; "
            f"pin {source['revision_flag']} to a commit SHA"
        )
    return (
        f"{label}: model {repo} comes from the Hugging Face Hub with no revision, so each "
        f"pod serves whatever the repository holds when it starts; pin {source['revision_flag']} "
        f"to a commit SHA"
    )


def _check(resource: Resource, config: dict) -> list[str]:
    allowed = {str(m) for m in config["trustRemoteCodeModels"]}
    require_sha = bool(config["requireCommitSha"])
    messages = []
    seen = set()
    for source in _sources(resource):
        key = (repr(source["label"]), repr(source["model"]))  # (repr: a mutated manifest's model may be a list)
        if key in seen:
            continue
        seen.add(key)
        label, model = source["label"], source["model"]
        repo = hub_model(model)
        if repo is not None:
            revision = source["revision"]
            if not source["has_revision"] or not revision:
                messages.append(_unpinned(source, repo))
            elif require_sha and not _COMMIT.match(str(revision)):
                messages.append(
                    f"{label}: {source['revision_flag']}={revision} names a branch or tag of {repo}, "
                    f"which can move; pin the 40-character commit SHA"
                )
        branch = _branch_folder(model) if repo is None else None
        if branch is not None:
            messages.append(
                unproven(
                    f"{label}: model path {model} is a folder named after the branch {branch[1]} of {branch[0]}: "
                    f"whatever fills it downloads that branch as it stands then, so copies filled at different times "
                    f"serve different snapshots; fill it at a commit SHA (a folder named after the SHA)"
                )
            )
        if source.get("unpinnable"):
            # The engine cannot be pinned by a setting: reported, not blocked (the fix is another way to load it).
            messages.append(
                unproven(
                    f"{label}: model {source['unpinnable']} comes from the Hugging Face Hub and {source['engine']} takes "
                    f"no revision for it: each pod serves whatever the repository's main branch holds when it starts; "
                    f"download the file at a commit (https://huggingface.co/<org>/<repo>/resolve/<sha>/<file>) or serve "
                    f"it from a volume"
                )
            )
        model = source.get("shown_model", model)
        named = repo or hub_model(model) or (model if isinstance(model, str) else "")  # a storageUri map: no name
        if source["trust"] and named not in allowed:
            shown = named or "the model"
            message = (
                f"{label}: {source['trust_flag']} imports Python from the repository of {shown} into the "
                f"server, and {shown} is not in trustRemoteCodeModels; drop the flag (architectures the "
                f"engine supports natively need none) or allow-list the model with a pinned revision"
            )
            # Blocked only for a Hub repository, whose code moves with its branch. A local path (a volume, an
            # object-store copy) holds whatever was put there: the manifest does not show that it carries remote
            # code at all, nor where it came from, so that is advice.
            local = hub_model(named) is None
            messages.append(unproven(message) if source.get("trust_unproven") or local else message)
    messages += oci_tag_models(resource)
    messages += _python_hub_downloads(resource) + ollama_tag_pulls(resource) + branch_url_fetches(resource)
    return messages + claim_fed_downloads(resource)


POLICY = Policy(
    name="model-source-pinned",
    description=(
        "A served Hugging Face model must be pinned to a commit revision, and "
        "trust-remote-code is allowed only for allow-listed models."
    ),
    catalog="S17",
    severity="high",
    # Advisory: a moving revision is a risk, not a failure the files prove (docs/policies.md "Enforcement levels").
    enforcement="advisory",
    remediation_steps=(
        "Pass the model's commit SHA: `--revision <sha>` (vLLM, SGLang, TGI), `--model_revision <sha>` (KServe's "
        "Hugging Face server) or `engine_kwargs: {revision: <sha>}` (Ray Serve LLM); find it with `git ls-remote "
        "https://huggingface.co/<org>/<model> main`. Remove --trust-remote-code unless the architecture needs it; "
        "when it does, add the model id to the policy's trustRemoteCodeModels and keep its revision pinned."
    ),
    config_schema={
        "trustRemoteCodeModels": {
            "type": "array",
            "items": {"type": "string"},
            "default": [],
            "description": (
                "Model ids (org/name, or the path given to the engine) allowed to run remote code (default [], none)."
            ),
        },
        "requireCommitSha": {
            "type": "boolean",
            "default": True,
            "description": ("Require the revision to be a 40-character commit SHA rather than a branch or tag (default true)."),
        },
    },
    resource_types=WORKLOAD_TYPES + (CONFIG_MAP_TYPE,),
    check_resource=_check,
    rationale=(
        "A model id without a revision is the weights' `:latest`: the Hub repository's main branch can change "
        "between two pod starts (new weights, a new tokenizer or chat template), so replicas disagree and a rollback "
        "cannot restore what ran. `trust_remote_code` executes the repository's Python inside the server process "
        "with its credentials (https://huggingface.co/docs/transformers/models#custom-models); an unpinned revision "
        "lets anyone with write access to that repository change the code that runs. vLLM documents `--revision`, "
        "`--code-revision` and `--tokenizer-revision` for pinning (https://docs.vllm.ai/en/latest/cli/serve.html)."
    ),
)
