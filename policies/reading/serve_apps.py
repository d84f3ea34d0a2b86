"""Custom Ray Serve applications that run vLLM, read in vLLM's own names.

Ray Serve LLM's ``llm_configs`` are read by policies.reading.serving (engine_configs). Applications that build the
engine in their own code hand it its settings in three forms a RayService's ``serveConfigV2`` shows:

- ``args`` keyed by vLLM's command-line flags, which the app passes to vLLM's parser: KubeRay's vLLM sample turns
  every key into ``--key value`` for vLLM's make_arg_parser and builds AsyncEngineArgs from it (ray-project/kuberay
  v1.3.0 ray-operator/config/samples/vllm/serve.py:103-108 and 112-124), and GKE's sample does the same
  (policies.reading.serving.ray_serve_app_vllm_args). Set 15: taigetco/ray-worker ray-vllm.yaml@bb82c60
  (``tensor-parallel-size: 2``);
- an ``engine_args`` (or ``engine_kwargs``) mapping of AsyncEngineArgs field names, in the app's ``args`` or in a
  deployment's ``user_config``. Set 14: datvodinh/serve-llm k8s/ray-service.yaml@c779392;
- ``runtime_env.env_vars`` that the app's code turns into engine settings: KubeRay's sample reads MODEL_ID,
  TENSOR_PARALLELISM and PIPELINE_PARALLELISM (serve.py:134-135 at v1.3.0), and apps derived from it add
  MAX_MODEL_LEN, GPU_MEMORY_UTILIZATION, MAX_NUM_SEQ(S), MAX_NUM_BATCHED_TOKENS (set 15: usman0491/vllm-demo
  simple_ray_vllm/vllm-ray-service.yaml@8d2a879). These names are the app's, not vLLM's, and the code that reads them
  is not in the manifest: what rests on them is ``proven`` False (a finding on it is advice).

Only applications that run vLLM (vLLM in the runtime_env pip list, or "vllm" in the app's name, import path or a
deployment's name) and that do not use Ray Serve LLM's llm_configs are read. Nothing here raises on odd input.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Optional

from policies.kube import as_dict, as_float, as_int, as_list, get, memoized, split_type
from policies.reading.serving import engine_kwargs_as_flags, runs_vllm, serve_config

# The environment variables apps derived from KubeRay's vLLM sample read, and the vLLM flag each one sets.
ENV_FLAGS: Mapping[str, str] = {
    "MODEL_ID": "model",
    "TENSOR_PARALLELISM": "tensor-parallel-size",
    "TENSOR_PARALLEL_SIZE": "tensor-parallel-size",
    "PIPELINE_PARALLELISM": "pipeline-parallel-size",
    "PIPELINE_PARALLEL_SIZE": "pipeline-parallel-size",
    "MAX_MODEL_LEN": "max-model-len",
    "GPU_MEMORY_UTILIZATION": "gpu-memory-utilization",
    "MAX_NUM_SEQ": "max-num-seqs",
    "MAX_NUM_SEQS": "max-num-seqs",
    "MAX_NUM_BATCHED_TOKENS": "max-num-batched-tokens",
}
_KWARGS_KEYS = ("engine_args", "engine_kwargs")
ENV_FORM = "runtime_env env_vars"


@dataclass(frozen=True)
class ServeAppEngine:
    """One custom Serve application's vLLM engine: its settings in vLLM's flag names, how the manifest spells each,
    the application's runtime_env variables, and its deployments (for the replicas and GPUs Ray gives them)."""

    label: str  # "serveConfigV2 application vllm_app"
    args: dict[str, Optional[str]]
    # Where the settings are written: "args" (flags), a kwargs mapping's path ("deployments[0].user_config.engine_args"),
    # "runtime_env env_vars", or "" (nowhere the manifest shows: the app's code holds them)
    form: str
    model: Optional[str]
    proven: bool  # False when the settings come from variables only the app's code reads
    env: dict[str, str] = field(default_factory=dict)
    deployments: tuple[dict, ...] = ()

    def spell(self, flag: str) -> str:
        """How the manifest writes (or would write) a vLLM setting: ``args tensor-parallel-size``,
        ``deployments[0].user_config.engine_args.max_model_len``, ``runtime_env env_vars MAX_MODEL_LEN``."""
        if not self.form:
            return f"vLLM's {flag.replace('-', '_')}"
        if self.form == "args":
            return f"args {flag}"
        if self.form == ENV_FORM:
            name = next((n for n, f in ENV_FLAGS.items() if f == flag and n in self.env), None)
            return f"{ENV_FORM} {name}" if name else f"vLLM's {flag.replace('-', '_')} (not set in {ENV_FORM})"
        return f"{self.form}.{flag.replace('-', '_')}"

    def gpus_per_replica(self) -> Optional[int]:
        """tensor x pipeline parallel size (1 each when unset), or None when one is not a positive integer or the app
        writes its engine settings nowhere the manifest shows (``form`` "")."""
        if not self.form:
            return None
        sizes = []
        for flag in ("tensor-parallel-size", "pipeline-parallel-size"):
            value = as_int(self.args[flag]) if flag in self.args else 1
            if value is None or value < 1:
                return None
            sizes.append(value)
        return sizes[0] * sizes[1]


def serve_app_engines(resource: Any) -> list[ServeAppEngine]:
    """Every custom vLLM Serve application of a RayService, in serveConfigV2 order (parsed once per resource)."""
    if split_type(resource.type) != ("ray.io", "RayService"):
        return []
    return list(memoized(resource, "serve_app_engines", _read_all))


def _read_all(resource: Any) -> list[ServeAppEngine]:
    found = []
    for app in as_list(as_dict(serve_config(resource)).get("applications")):
        app = as_dict(app)
        if "llm_configs" in as_dict(app.get("args")) or not runs_vllm(app):
            continue
        found.append(_engine(app))
    return found


def _strings(mapping: Any) -> dict[str, str]:
    return {str(k): str(v) for k, v in as_dict(mapping).items() if isinstance(v, (str, int, float)) and not isinstance(v, bool)}


def _engine(app: dict) -> ServeAppEngine:
    label = f"serveConfigV2 application {app.get('name', '?')}"
    env = _strings(get(app, "runtime_env", "env_vars"))
    deployments = tuple(as_dict(d) for d in as_list(app.get("deployments")))
    args = as_dict(app.get("args"))
    kwargs_at = [(f"args.{k}", as_dict(args.get(k))) for k in _KWARGS_KEYS if isinstance(args.get(k), dict)]
    for i, d in enumerate(deployments):
        kwargs_at += [
            (f"deployments[{i}].user_config.{k}", as_dict(get(d, "user_config", k)))
            for k in _KWARGS_KEYS
            if isinstance(get(d, "user_config", k), dict)
        ]
    if kwargs_at:
        where, kwargs = kwargs_at[0]
        model = kwargs.get("model")
        return ServeAppEngine(
            label, engine_kwargs_as_flags(kwargs), where, model if isinstance(model, str) else None, True, env, deployments
        )
    if isinstance(args.get("model"), str):
        flags: dict[str, Optional[str]] = {k.replace("_", "-"): v for k, v in _strings(args).items()}
        return ServeAppEngine(label, flags, "args", args["model"], True, env, deployments)
    named = {flag: env[name] for name, flag in ENV_FLAGS.items() if name in env}
    if not named:
        # No setting in any form: only its deployments' ray_actor_options say what a replica reserves.
        return ServeAppEngine(label, {}, "", None, True, env, deployments)
    settings: dict[str, Optional[str]] = {flag: value for flag, value in named.items() if flag != "model"}
    return ServeAppEngine(label, settings, ENV_FORM, named.get("model"), False, env, deployments)


def replica_floor(deployment: Mapping) -> int:
    """The fewest replicas a deployment runs once it serves: num_replicas, else autoscaling_config.min_replicas, and
    at least 1 (Ray Serve's default num_replicas; a deployment that scales from zero starts one at the first
    request)."""
    replicas = as_int(deployment.get("num_replicas"))
    if replicas is None:
        replicas = as_int(get(deployment, "autoscaling_config", "min_replicas"))
    return max(replicas or 1, 1)


def actor_gpus(deployment: Mapping) -> float:
    """GPUs one replica of a deployment reserves: ray_actor_options.num_gpus (0 when unset, Ray's default)."""
    value = as_float(get(deployment, "ray_actor_options", "num_gpus"))
    return value if value is not None and value > 0 else 0.0


# Ray Serve's DeploymentConfig.graceful_shutdown_timeout_s default.
RAY_SERVE_GRACEFUL_SHUTDOWN_DEFAULT = 20.0


@dataclass(frozen=True)
class RayServeApp:
    """A Ray Serve application of a RayService: its model, drain and the GPU worker groups that run it."""

    label: str
    model: Optional[str]
    load_format: Optional[str]
    graceful_shutdown: float
    graceful_shown: str


def ray_serve_apps(resource: Any) -> list[RayServeApp]:
    """The model-serving applications of a RayService's serveConfigV2 (Ray Serve LLM llm_configs, and
    custom apps that name their model in runtime_env MODEL_ID)."""
    if split_type(resource.type) != ("ray.io", "RayService"):
        return []
    config = serve_config(resource)
    found = []
    for app in as_list(as_dict(config).get("applications")):
        app = as_dict(app)
        name = app.get("name", "?")
        deployments = [as_dict(d) for d in as_list(app.get("deployments"))]
        llm_configs = [as_dict(c) for c in as_list(get(app, "args", "llm_configs"))]
        for i, llm in enumerate(llm_configs):
            source = get(llm, "model_loading_config", "model_source") or get(llm, "model_loading_config", "model_id")
            shutdown = get(llm, "deployment_config", "graceful_shutdown_timeout_s")
            found.append(
                _app(
                    f"serveConfigV2 application {name} llm_configs[{i}]",
                    source,
                    get(llm, "engine_kwargs", "load_format"),
                    shutdown,
                    f"llm_configs[{i}].deployment_config.graceful_shutdown_timeout_s",
                )
            )
        model = get(app, "runtime_env", "env_vars", "MODEL_ID")
        if not llm_configs and isinstance(model, str):
            shutdowns = [
                as_float(d.get("graceful_shutdown_timeout_s")) for d in deployments if "graceful_shutdown_timeout_s" in d
            ]
            shutdown = min((s for s in shutdowns if s is not None), default=None)
            found.append(
                _app(f"serveConfigV2 application {name}", model, None, shutdown, "deployments[].graceful_shutdown_timeout_s")
            )
    return found


def _app(label: str, model: Any, load_format: Any, shutdown: Any, shown: str) -> RayServeApp:
    seconds = as_float(shutdown)
    return RayServeApp(
        label,
        model if isinstance(model, str) else None,
        load_format if isinstance(load_format, str) else None,
        RAY_SERVE_GRACEFUL_SHUTDOWN_DEFAULT if seconds is None else seconds,
        f"{shown} = {seconds:g}s"
        if seconds is not None
        else f"{shown} unset (Ray Serve's {RAY_SERVE_GRACEFUL_SHUTDOWN_DEFAULT:g}s)",
    )
