"""vLLM's start-up rules (components.capacity.startup) over the engines other people write.

Each rule is its own policy row (policies/vllm/startup_*.py); this module reads what the rules need from
every vLLM engine of a resource (policies.reading.serving.engine_configs: a vLLM container of a Deployment,
StatefulSet, LeaderWorkerSet, Pod, Job, RayCluster/RayService pod or KServe predictor, and each Ray Serve
LLM model's ``engine_kwargs``):

- the model, from the command line or ``model_loading_config`` (else the llm-serving.io/model annotation),
  in the catalogue or the lock file: its heads, context limit and checkpoint quantization;
- the settings, in the flags' own names; an unset one takes vLLM's default: ``--max-model-len`` the
  model's limit, ``--max-num-seqs``/``--max-num-batched-tokens`` the OpenAI server's defaults of the
  release the image tag names, for the GPU the pod pins (not judged where no GPU is pinned);
- the GPU (components' annotation, else the node selection) for the device rule, and the container's
  ``VLLM_ALLOW_LONG_MAX_MODEL_LEN``.

A model outside the catalogue is judged by the capacity plan the components stamp on the resource
(its ``startupRule``).

Every other engine of the engine table (components/serving_engines.toml) is held to the rules its row lists in
``startup_rules`` (the checks that engine makes itself before it serves, each cited in the row's ``startup``
source): SGLang refuses a --tp-size that does not shard the heads and a --context-length above the model's
(unless SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN), TGI a --num-shard that does not divide both head counts.
Its settings are read through the row's spellings (policies.reading.engines.table_servers), and messages name
the engine and its own flags. A new engine is a row: no code here names one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Optional

from components.capacity.accounting import batch_defaults_for
from components.capacity.architecture import Architecture, ArchitectureError
from components.capacity.model_catalog import MODELS
from components.capacity.models import CatalogModel, UnknownModel, find_model
from components.capacity.startup import BY_NAME, RULES, Settings, StartupRule, flag_names
from components.images import vllm_release
from components.serving_engines import Engine
from policies.framework import Policy, Resource, unproven
from policies.kube import WORKLOAD_TYPES, as_dict, as_int, containers, get, memoized, pod_specs
from policies.reading.endpoint_specs import endpoint_engines
from policies.reading.engines import EngineServer, env_values, table_servers
from policies.reading.kubeai_models import chart_image, kubeai_engine_configs
from policies.reading.serve_apps import serve_app_engines
from policies.reading.serving import EngineConfig, engine_configs
from policies.reading.vllm_args import parallel_size
from policies.reading.vllm_capacity import gpu_type, stamped_plan
from policies.vllm.flags_exist import engine_release

_TRUE = ("1", "true")
# What a finding on an engine a custom resource's spec describes says of itself (policies.reading.endpoint_specs).
_SPEC_NOTE = "advisory: read from this resource's own spec, whose rendering into a vLLM server is not in the files"
# Rules whose settings default to the OpenAI server's batch defaults, which depend on the GPU.
_BATCH_SETTINGS = ("max-num-batched-tokens", "max-num-seqs")


@dataclass(frozen=True)
class _Engine:
    """What the rules read of one engine: its model, its settings, and whether the batch sizes are known."""

    model_id: str
    arch: Architecture
    settings: Settings
    batch_known: bool
    # The model was matched by the name of a local path (/mnt/models/Qwen2.5-0.5B-Instruct), not by its id: the files
    # at the path are not shown, so a refusal is advice.
    by_path: bool = False

    def refusal(self, rule: StartupRule, names: Mapping[str, str]) -> Optional[str]:
        if rule.setting in _BATCH_SETTINGS and not self.batch_known:
            return None  # a batch default that depends on a GPU nobody pinned
        return rule.refusal(self.arch, self.settings, names)


def startup_findings(resource: Any, rule: StartupRule) -> list[str]:
    """The messages of one rule over every vLLM engine of the resource."""
    messages: list[str] = []
    for engine in engine_configs(resource) + endpoint_engines(resource) + kubeai_engine_configs(resource):
        read = _read(resource, engine)
        if read is not None and engine.extra.get("endpoint_spec"):
            refusal = read.refusal(rule, flag_names(True))
            if refusal:
                messages.append(unproven(f"{engine.label}: {read.model_id} does not start: {refusal} ({_SPEC_NOTE})"))
            continue
        if read is None:
            message = _stamped(resource, engine, rule)
            if message:
                messages.append(message)
            continue
        refusal = read.refusal(rule, flag_names(bool(engine.extra)))
        if refusal and read.by_path:
            messages.append(
                unproven(
                    f"{engine.label}: {engine.model} does not start if it holds {read.model_id} (the folder's name): {refusal}"
                )
            )
        elif refusal and chart_image(engine.server):
            messages.append(
                unproven(
                    f"{engine.label}: {read.model_id} does not start: {refusal} (the release is the one KubeAI v0.21.0's "
                    f"chart runs for the profile, {engine.image}; the cluster's Helm values may run another)"
                )
            )
        elif refusal:
            messages.append(f"{engine.label}: {read.model_id} does not start: {refusal}")
    messages += _app_findings(resource, rule)
    for server in table_servers(resource):
        if server.row is None or rule.name not in server.row.startup_rules:
            continue
        table = table_read(resource, server)
        refusal = table.refusal(rule, table_flag_names(server.row)) if table is not None else None
        if table is not None and refusal:
            messages.append(f"{server.label}: {table.model_id} does not start: {refusal}")
    return messages


def _app_findings(resource: Any, rule: StartupRule) -> list[str]:
    """The rule over each custom vLLM Serve application of a RayService (policies/reading/serve_apps.py), its settings
    named as the manifest writes them. VLLM_ALLOW_LONG_MAX_MODEL_LEN counts from the application's runtime_env or any
    Ray container's env (Ray's workers inherit the raylet's environment). Settings the app's own code reads from its
    variables are advice: the code is not in the manifest."""
    apps = serve_app_engines(resource)
    if not apps:
        return []
    pods_env: dict[str, str] = {}
    for _, podspec in pod_specs(resource):
        for container in containers(podspec):
            pods_env.update(env_values(container))
    messages: list[str] = []
    for app in apps:
        engine = EngineConfig(label=app.label, args=app.args, model=app.model, extra={"env": {**pods_env, **app.env}})
        read = _read(resource, engine)
        refusal = read.refusal(rule, {f: app.spell(f) for f in flag_names()}) if read is not None else None
        if refusal:
            message = f"{app.label}: {read.model_id if read else app.model} does not start: {refusal}"
            messages.append(message if app.proven else unproven(f"{message} (if the app's code hands these to vLLM)"))
    return messages


def table_flag_names(row: Engine) -> Mapping[str, str]:
    """How messages spell the settings of a table engine's rules: its own flag or variable (``--tp-size``,
    ``env NUM_SHARD``), vLLM's for a setting the row does not name."""
    return {**flag_names(), **{s: row.spelling(s) for s in ("tensor-parallel-size", "max-model-len") if s in row.shown}}


def table_read(resource: Any, server: EngineServer) -> Optional[_Engine]:
    """What the rules read of a table engine's server (its model in the catalogue or the lock file, its tensor
    parallel size and context length through the row's spellings), or None where the model is unknown or a size
    is not a positive integer."""
    return memoized(server, "startup_table_read", lambda s: _table_read(resource, s))


def _table_read(resource: Any, server: EngineServer) -> Optional[_Engine]:
    row = server.row
    if row is None:
        return None
    found = catalogue_model(resource, server.model)
    tp = parallel_size(server.args, "tensor-parallel-size")
    if found is None or tp is None:
        return None
    model_id, arch = found[0], found[1].arch
    env = env_values(server.container)
    override = row.context_override_env
    settings = Settings(
        tensor_parallel_size=tp,
        max_model_len=_positive(server.args, "max-model-len") or arch.max_position_embeddings,
        max_num_seqs=0,
        max_num_batched_tokens=0,
        allow_long_max_model_len=(bool(override) and env.get(override, "0").strip().lower() in _TRUE)
        or rope_overridden(server.args),
        engine=row.display,
        override_env=override or "no variable",
        kv_heads_replicated=row.kv_heads_replicated,
    )
    # The batch sizes are vLLM's: no table rule reads them (batch_known False keeps S21 silent if a row names it).
    return _Engine(model_id, arch, settings, batch_known=False)


def table_refused(resource: Any, server: EngineServer) -> bool:
    """True when a start-up rule the engine's row lists reports this server (so S2 does not)."""
    if server.row is None:
        return False
    read = table_read(resource, server)
    names = table_flag_names(server.row)
    return read is not None and any(read.refusal(BY_NAME[r], names) for r in server.row.startup_rules)


def startup_policy(rule_name: str, *, description: str, remediation: str, rationale: str) -> Policy:
    """The policy row of one start-up rule (components.capacity.startup): critical and mandatory, since vLLM does
    not start, and read on every workload form (startup_findings)."""
    rule = BY_NAME[rule_name]

    def check(resource: Resource, config: dict) -> list[str]:
        return startup_findings(resource, rule)

    return Policy(
        name=rule.name,
        description=description,
        catalog=rule.catalog,
        severity="critical",
        enforcement="mandatory",
        remediation_steps=remediation,
        config_schema={},
        resource_types=WORKLOAD_TYPES,
        check_resource=check,
        rationale=rationale,
    )


def refused(resource: Any, engine: EngineConfig) -> bool:
    """True when a start-up rule's own row reports this engine (so S2 does not)."""
    read = _read(resource, engine)
    return read is not None and any(read.refusal(rule, flag_names(bool(engine.extra))) for rule in RULES)


def _read(resource: Any, engine: EngineConfig) -> Optional[_Engine]:
    """What the rules read of an engine; None where the model is not in the catalogue or the lock file, or a
    parallel size is not a positive integer (vllm-tp-matches-gpu-limit reports that)."""
    return memoized(engine, "startup_read", lambda e: _read_engine(resource, e))


def _read_engine(resource: Any, engine: EngineConfig) -> Optional[_Engine]:
    found = _model(resource, engine)
    by_path = False
    if found is None and engine.server is not None:
        found, by_path = _model_by_path_name(engine.model), True
    if found is None or parallel_size(engine.args, "tensor-parallel-size") is None:
        return None
    model_id, arch = found
    a = engine.args
    gpu = gpu_type(resource, engine.server) if engine.server is not None else None
    max_model_len = _positive(a, "max-model-len") or arch.max_position_embeddings
    seqs, tokens = _positive(a, "max-num-seqs"), _positive(a, "max-num-batched-tokens")
    if gpu is not None:
        default_tokens, default_seqs = batch_defaults_for(gpu, vllm_release(engine.image))
        seqs = seqs or default_seqs
        # Without chunked prefill vLLM raises an unset max_num_batched_tokens to max_model_len (engine/arg_utils.py
        # _set_default_max_num_seqs_and_batched_tokens_args, 0.33.0 lines 3190-3198).
        tokens = tokens or (default_tokens if _chunked_prefill(a) else max(default_tokens, max_model_len))
    env = env_values(engine.server.container) if engine.server is not None else dict(engine.extra.get("env") or {})
    settings = Settings(
        tensor_parallel_size=parallel_size(a, "tensor-parallel-size") or 1,
        max_model_len=max_model_len,
        max_num_seqs=seqs or 0,
        max_num_batched_tokens=tokens or 0,
        quantization=a.get("quantization") or None,
        dtype=a.get("dtype") or "auto",
        gpu=gpu.name if gpu is not None else "",
        compute_capability=gpu.compute_capability if gpu is not None else None,
        chunked_prefill=_chunked_prefill(a),
        allow_long_max_model_len=env.get("VLLM_ALLOW_LONG_MAX_MODEL_LEN", "0").strip().lower() in _TRUE or rope_overridden(a),
        release=engine_release(engine),
    )
    return _Engine(model_id, arch, settings, batch_known=seqs is not None and tokens is not None, by_path=by_path)


def _model_by_path_name(model: Optional[str]) -> Optional[tuple[str, Architecture]]:
    """The catalogue model a local path's last folder names (``/mnt/models/Qwen2.5-0.5B-Instruct`` ->
    Qwen/Qwen2.5-0.5B-Instruct), when exactly one catalogue id has that repository name; None otherwise."""
    if not isinstance(model, str) or not model.startswith("/"):
        return None
    name = model.rstrip("/").rsplit("/", 1)[-1].lower()
    ids = {
        i
        for entry in MODELS.values()
        for i in (entry["hf_id"], *entry.get("aliases", ()))
        if i.rsplit("/", 1)[-1].lower() == name
    }
    if len(ids) != 1:
        return None
    found = catalogue_model(None, ids.pop(), annotated=False)
    return (found[0], found[1].arch) if found else None


def rope_overridden(args: Mapping) -> bool:
    """True when the command line changes the model's rope scaling: vLLM's --rope-scaling (before 0.10) or
    --hf-overrides (a JSON of config.json fields, or --hf-overrides.rope_scaling...), SGLang's
    --json-model-override-args. vLLM then derives the longest context from the overridden config (YaRN:
    original_max_position_embeddings x factor, others: the context x factor; vllm/config/model.py
    _get_and_verify_max_len, the lines cited in S23's rationale), as the Qwen2.5 model cards' "processing long texts"
    recipe uses to serve 131,072 tokens; the catalogue's maximum no longer applies."""
    for key, value in args.items():
        name = str(key).replace("_", "-").lower()
        if name.startswith(("rope-scaling", "hf-overrides", "json-model-override-args")) and "rope" in f"{name} {value}".lower():
            return True
    return False


def _chunked_prefill(args: dict) -> bool:
    """vLLM's V1 scheduler chunks prefills unless told not to (config/scheduler.py enable_chunked_prefill, line 134)."""
    if "no-enable-chunked-prefill" in args:
        return False
    value = args.get("enable-chunked-prefill")
    return not (isinstance(value, str) and value.strip().lower() in ("false", "0"))


def _positive(args: dict, flag: str) -> Optional[int]:
    value = as_int(args.get(flag)) if flag in args else None
    return value if value and value > 0 else None


def catalogue_model(resource: Any, model: Any, annotated: bool = True) -> Optional[tuple[str, CatalogModel]]:
    """A server's model in the catalogue or the lock file (its id as written): the model it names, else (when
    ``annotated``) the llm-serving.io/model annotation the components write; None when neither is known."""
    candidates = [model]
    if annotated:
        candidates.append(as_dict(get(resource.props, "metadata", "annotations")).get("llm-serving.io/model"))
    for candidate in candidates:
        if isinstance(candidate, str) and candidate:
            try:
                return candidate, find_model(candidate)
            except (UnknownModel, ArchitectureError):
                continue
    return None


def _model(resource: Any, engine: EngineConfig) -> Optional[tuple[str, Architecture]]:
    """The engine's model in the catalogue or the lock file (its id as written), or None."""
    found = catalogue_model(resource, engine.model, annotated=engine.server is not None)
    return (found[0], found[1].arch) if found else None


def _stamped(resource: Any, engine: EngineConfig, rule: StartupRule) -> Optional[str]:
    """The refusal the components stamped on the resource under this rule, for a model outside the catalogue."""
    if engine.server is None:
        return None
    stamped = stamped_plan(resource)
    if not stamped or stamped.get("startupRule") != rule.name:
        return None
    return (
        f"{engine.label}: {engine.model or 'the model'} does not start: {stamped.get('reason')} "
        f"[capacity plan stamped by llm-serving]"
    )
