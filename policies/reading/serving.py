"""What counts as LLM serving in someone else's manifests: model servers, serving apps, engines.

Policies over third-party manifests must tell a model server from a sidecar, a serving app from
a batch Job, and read engine settings wherever a project puts them:

- a *model-server container* runs an inference engine: vLLM (`vllm serve`, `vllm.entrypoints`,
  a vllm image), SGLang (`sglang.launch_server`, an sglang image), Hugging Face TGI
  (`text-generation-launcher`, a text-generation-inference image), Triton (`tritonserver`), or
  an NVIDIA NIM image; a KServe predictor `model` is one by definition, and so is a GPU container
  of a Ray cluster (engine "ray": Ray Serve places the engine replicas on the GPU workers);
- a *serving app* is a long-running controller whose pods hold a model server and answer
  requests: a Deployment, StatefulSet or LeaderWorkerSet with a model-server container, or a
  KServe InferenceService. Jobs, CronJobs, bare Pods and DaemonSets are not (they are batch or
  node agents), and neither are Ray resources, whose operator creates the Service and pods;
- an *engine config* is one vLLM engine's settings: the flags of a vLLM container, or the
  `engine_kwargs` of a Ray Serve LLM application (`ray.serve.llm:build_openai_app` in a
  RayService's `serveConfigV2`, https://docs.ray.io/en/latest/serve/llm/).
"""

from __future__ import annotations

import contextlib
import posixpath
import re
from collections.abc import Callable, Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, overload

from components.loading import Limits, LoadError, load_yaml
from components.serving_engines import ENGINES, Engine
from policies.kube import (
    as_dict,
    as_list,
    as_quantity,
    container_label,
    containers,
    get,
    gpu_count,
    is_ray,
    memoized,
    pod_specs,
    read_generically,
    split_type,
    viewed_resources,
)
from policies.reading.engine_flags import flag_set_engine, rebuilt_or_bound, runs_engine_image
from policies.reading.groups import pod_group
from policies.reading.kustomize import image_rewritten
from policies.reading.label_selectors import only_equalities, selector_equalities, selector_matches  # noqa: F401
from policies.reading.ray_serve_cli import starts_ray_serve
from policies.reading.serve_python import mounted_llm_configs
from policies.reading.vllm_args import (
    VllmServer,
    command_tokens,
    expand_env,
    is_shell_operator,
    parse_vllm_args,
    served_model,
    vllm_servers,
)

# Kinds whose pods serve requests for as long as they run.
SERVING_APP_KINDS = {
    ("apps", "Deployment"),
    ("apps", "StatefulSet"),
    ("leaderworkerset.x-k8s.io", "LeaderWorkerSet"),
    ("serving.kserve.io", "InferenceService"),
}

# The engine table in force (components/serving_engines.toml); tests swap it with use_engine_table.
_ENGINE_TABLE: ContextVar[tuple[Engine, ...]] = ContextVar("engine_table", default=ENGINES)


def engine_table() -> tuple[Engine, ...]:
    """The serving engines policies recognise (components/serving_engines.toml, or a table a test set)."""
    return _ENGINE_TABLE.get()


def engine_row(name: str) -> Engine | None:
    """The table row of an engine id ("sglang", "tgi", ...), or None (vLLM's KServe and Ray forms)."""
    return next((e for e in engine_table() if e.name == name), None)


@contextlib.contextmanager
def use_engine_table(engines: tuple[Engine, ...]) -> Iterator[None]:
    """Recognise and read the engines of ``engines`` instead of the product's table (a new row, in a test)."""
    token = _ENGINE_TABLE.set(tuple(engines))
    try:
        yield
    finally:
        _ENGINE_TABLE.reset(token)


def container_argv(container: Mapping) -> list[str]:
    """A container's command then args (string items only), with $(VAR) expanded from its literal env."""
    tokens = [t for key in ("command", "args") for t in as_list(container.get(key)) if isinstance(t, str)]
    return expand_env(tokens, container)


def _invocation(argv: list[str], engine: Engine) -> int | None:
    """Index just after the engine's command word(s) or `-m module` in argv, else None."""
    for i, token in enumerate(argv):
        base = posixpath.basename(token)
        for words in engine.commands:
            if base == words[0] and argv[i + 1 : i + len(words)] == list(words[1:]):
                return i + len(words)
        if any(token.startswith(module) for module in engine.modules):
            return i + 1
    return None


def engine_command_line(container: Mapping, engine: Engine, *, ray: bool = False) -> list[str] | None:
    """The tokens of the engine's command line (its options and positional model), or None when the container
    does not run the engine: neither its command line starts it (`text-generation-launcher ...`, `sglang serve`,
    `python -m sglang.launch_server`, in a shell script too) nor, outside KubeRay, its image is the engine's
    (then the image's own entrypoint or script runs it: the options are the args, or none)."""
    argv, script = command_tokens(container)
    start = _invocation(argv, engine)
    if start is None:
        # The engine's image (runs_engine_image: its markers, or its repository's own name where no command replaces
        # the entrypoint), or a container configured through the engine's own variables (LLAMA_ARG_*: a custom
        # image whose entrypoint runs the engine).
        if ray:
            return None
        if not (runs_engine_image(container, engine) or env_prefixed(container, engine) or rebuilt_or_bound(container, engine)):
            # Args alone to an image no row names: this engine when they carry one of its flag sets.
            args = expand_env([t for t in as_list(container.get("args")) if isinstance(t, str)], container)
            found = None if script else flag_set_engine(container, parse_vllm_args(args), engine_table())
            return args if found is not None and found.name == engine.name else None
        if container.get("command") or script:
            # The image's own script (a custom server.py) still serves the model, options unknown; a
            # `python -m` of another module (SGLang's router in the SGLang image) is something else.
            modules = [argv[i + 1] for i, t in enumerate(argv[:-1]) if t == "-m"]
            if modules:
                return None
            return []
        argv, start = [t for t in as_list(container.get("args")) if isinstance(t, str)], 0
        argv = expand_env(argv, container)
    line = []
    for token in argv[start:]:
        if script and is_shell_operator(token):
            break
        line.append(token)
    return line


def env_prefixed(container: Mapping, engine: Engine) -> dict[str, str]:
    """The container's literal env variables under one of the engine's own prefixes (LLAMA_ARG_CTX_SIZE), each as
    the flag its suffix names (``ctx-size``); {} when the row names no prefix or none is set."""
    found = {}
    for item in as_list(container.get("env")):
        name = as_dict(item).get("name")
        if not isinstance(name, str):
            continue
        for prefix in engine.env_prefixes:
            if name.startswith(prefix) and len(name) > len(prefix):
                value = as_dict(item).get("value")
                found[name[len(prefix) :].lower().replace("_", "-")] = value if isinstance(value, str) else ""
    return found


# Processes that ship in engine images but serve no model: NVIDIA Dynamo's HTTP frontend and planner
# (ai-dynamo/dynamo deploy/cloud/operator/internal/dynamo/component_frontend.go: `python3 -m dynamo.frontend`).
_ROUTER_ONLY = re.compile(r"(?:^|\s)-m\s+dynamo\.(?:frontend|planner)\b")


def model_server_engine(container: Mapping, *, ray: bool = False) -> str | None:
    """The engine a container runs (an id of the engine table: "vllm", "sglang", "tgi", ...), or None.

    vLLM is read by policies.reading.vllm_args (its command line, its image's `vllm serve` entrypoint); every other
    engine by its row of the table. Under KubeRay (`ray`) an image is no evidence: KubeRay replaces the
    command with `ray start`, so only a command line that starts the engine counts.
    """
    from policies.reading.vllm_args import is_vllm_container, vllm_command_line

    if _ROUTER_ONLY.search(" ".join(container_argv(container))):
        return None  # Dynamo's frontend or planner: an engine image, but a process that holds no model
    if vllm_command_line(container, image_entrypoint=not ray) is not None:
        return "vllm"
    # A command line that starts another engine wins over an image name that only mentions vllm (NVIDIA Dynamo's
    # vllm-runtime image running `python3 -m dynamo.sglang`).
    argv = command_tokens(container)[0]
    started = next((e.name for e in engine_table() if e.name != "vllm" and _invocation(argv, e) is not None), None)
    if started is not None:
        return started
    if not ray and is_vllm_container(container):
        return "vllm"
    for engine in engine_table():
        if engine.name != "vllm" and engine_command_line(container, engine, ray=ray) is not None:
            return engine.name
    return None


@dataclass(frozen=True)
class ModelServer:
    """One model-server container: where it is, its pod spec, and which engine it runs."""

    path: str
    podspec: dict
    container: dict
    engine: str

    @property
    def label(self) -> str:
        """How messages name this container."""
        return container_label(self.path, self.container)


def model_servers(resource: Any) -> list[ModelServer]:
    """Every model-server container of a workload, in document order (a KServe predictor's
    `model` counts, named as KServe names it)."""
    return list(memoized(resource, "model_servers", _model_servers))


# The engine of a model server recognised only by the GPUs it holds in a serving app (no engine row names it).
GPU_SERVER = "GPU model"


# Placeholders that hold GPUs without serving (capacity buffers: a pause image, or a command that only sleeps).
_PLACEHOLDER = re.compile(r"(^|/)pause(:|@|$)")
_SLEEP_ONLY = re.compile(r"^(?:(?:/usr)?/bin/)?(?:sleep\s+\S+|tail -f /dev/null)$")


def _requests_gpus(container: Mapping) -> bool:
    """A container holding an accelerator (policies/reading/accelerators.py ACCELERATOR_RESOURCES: NVIDIA and AMD GPUs,
    Intel GPUs and Gaudi, AWS Neuron, TPUs) that is not a placeholder (a pause image or a command that only sleeps):
    spent set 54 explicitworkload/llamacpp-oai ran its ServingRuntime's server on amd.com/gpu."""
    image = container.get("image")
    if isinstance(image, str) and _PLACEHOLDER.search(image.split("@", 1)[0].rsplit(":", 1)[0] + ":"):
        return False
    if _SLEEP_ONLY.match(" ".join(container_argv(container)).strip()):
        return False
    from policies.reading.accelerators import ACCELERATOR_RESOURCES

    return any(
        (as_quantity(get(container, "resources", s, name)) or 0) > 0
        for s in ("limits", "requests")
        for name in ACCELERATOR_RESOURCES
    )


# Operator kinds that run batch or interactive work (training and tuning jobs: Kubeflow PyTorchJob, JobSet, TrainJob,
# Katib Experiment/Trial; Argo Workflow, Tekton PipelineRun/TaskRun; Kubeflow Notebook), whose GPU containers are no
# model servers.
_BATCH_KIND = re.compile(
    r"Job|Train|Tun(e|ing)|Batch|Benchmark|Eval|Experiment|Trial|Sweep|Workflow|Pipeline|TaskRun|Notebook", re.IGNORECASE
)


# KServe's runtimes: their containers are the model servers of every InferenceService that names them (kserve-container).
_RUNTIME_KINDS = frozenset({("serving.kserve.io", "ServingRuntime"), ("serving.kserve.io", "ClusterServingRuntime")})


def _runs_servers(resource: Any) -> bool:
    """Whether a GPU container no engine row names counts as a model server in this resource: in a serving app kind
    (Deployment, StatefulSet, LeaderWorkerSet, InferenceService) or a KServe ServingRuntime/ClusterServingRuntime (its
    containers serve every InferenceService naming it), a bare Pod that restarts whatever ends its
    container (restartPolicy Always, the default: a server, not a run to completion), or a custom resource read
    generically whose kind names no batch work."""
    group, kind = split_type(resource.type)
    if (group, kind) in SERVING_APP_KINDS or (group, kind) in _RUNTIME_KINDS:
        return True
    if (group, kind) == ("", "Pod"):
        return get(resource.props, "spec", "restartPolicy") in (None, "Always")
    return not _BATCH_KIND.search(kind) and bool(read_generically(resource))


def _model_servers(resource: Any) -> list[ModelServer]:
    ray = is_ray(resource.type)
    found = []
    serving_kind = _runs_servers(resource)
    for path, podspec in pod_specs(resource):
        listed = containers(podspec)
        engines = [model_server_engine(c, ray=ray) for c in listed]
        runs_on = podspec.get("restartPolicy") in (None, "Always")  # Never / OnFailure: a run to completion
        for container, engine in zip(listed, engines):
            if engine is None and ray and (gpu_count(container) or 0) > 0:
                engine = "ray"  # a Ray GPU worker: Ray Serve places the engine replicas there
            elif engine is None and serving_kind and not any(engines) and runs_on and _requests_gpus(container):
                # A long-running GPU container no engine row names: a model server its image starts through its own
                # script (TensorRT-LLM behind a custom server.py, an in-house server, llama.cpp configured by env in a
                # bare Pod), still held to the pod rules.
                engine = GPU_SERVER
            elif (
                engine is None
                and not ray
                and serving_kind
                and not any(engines)
                and runs_on
                and starts_ray_serve(container, podspec)
            ):
                engine = "ray"  # Ray Serve run in the pod itself (`serve run`): its HTTP proxy serves the models
            if engine is not None:
                found.append(ModelServer(path, podspec, container, engine))
        model = podspec.get("model")
        if isinstance(model, dict):
            from policies.kube import model_container

            fmt = get(model, "modelFormat", "name")
            engine = "vllm" if isinstance(fmt, str) and fmt.lower() == "vllm" else "kserve"
            found.append(ModelServer(f"{path}.model", podspec, model_container(model), engine))
    return found


# Pods of a multi-pod serving group that hold ranks of an engine another pod of the group fronts: no request reaches
# them, so the rules of a request-serving pod (readiness, startup budget, drain before SIGTERM) do not apply to them.
# (kind, pod spec path) -> the pod spec path of the group's front pod, which must exist for the path to be rank-only.
_RANK_ONLY_PODS = {
    # LeaderWorkerSet: the leader is the group's address (lws docs/examples route Services to the leader, worker index
    # 0); the workers join its engine.
    ("LeaderWorkerSet", "spec.leaderWorkerTemplate.workerTemplate.spec"): "spec.leaderWorkerTemplate.leaderTemplate.spec",
    # KServe LLMInferenceService (v0.20.0 pkg/controller/v1alpha2/llmisvc/workload_multi_node.go:137-146,172-200,233):
    # spec.worker becomes the LeaderWorkerSet's worker template, spec.template its leader; only with no leader template
    # do the workers join the InferencePool selector (:141-145).
    ("LLMInferenceService", "spec.worker"): "spec.template",
    ("LLMInferenceService", "spec.prefill.worker"): "spec.prefill.template",
    # KServe InferenceService multi-node: the head (predictor) serves, workerSpec pods run Ray workers.
    ("InferenceService", "spec.predictor.workerSpec"): "spec.predictor",
}


def takes_requests(resource: Any, path: str, container: Mapping) -> bool:
    """Whether a model-server container takes requests itself (False for a rank of an engine fronted by another pod:
    a LeaderWorkerSet worker, an LLMInferenceService or InferenceService worker beside its leader, the worker of a
    leader/worker group in a custom resource read generically (policies.reading.groups), a vLLM started
    with ``--headless``: vllm-project/vllm vllm/entrypoints/cli/serve.py at 00a5fdd2, ServeSubcommand.cmd sets
    api_server_count 0 under --headless and run_headless starts the engine ranks with no API server)."""
    from policies.reading.vllm_args import vllm_args

    front = _RANK_ONLY_PODS.get((split_type(resource.type)[1], path))
    if front is not None and any(p == front for p, _ in pod_specs(resource)):
        return False
    group = pod_group(resource, path)  # the same structure in a custom resource read generically
    if group is not None and group.role == "worker":
        return False
    return "headless" not in vllm_args(container, image_entrypoint=not is_ray(resource.type))


def is_serving_app(resource: Any) -> bool:
    """True for a long-running workload whose pods serve a model (see the module docstring)."""
    group, kind = split_type(resource.type)
    if (group, kind) not in SERVING_APP_KINDS:
        return False
    if kind == "InferenceService":
        return True
    return bool(model_servers(resource))


@overload
def namespace_of(resource: Any) -> str | None: ...
@overload
def namespace_of(resource: Any, default: str) -> str: ...
def namespace_of(resource: Any, default: str | None = None) -> str | None:
    """`metadata.namespace`, or `default` (None: the client's default, unknown here) when the object leaves it out."""
    value = get(resource.props, "metadata", "namespace")
    return value if isinstance(value, str) and value else default


def pod_labels(resource: Any) -> list[dict]:
    """The label sets the workload's pods carry (one per pod template), including the labels
    the controller adds: LeaderWorkerSet's `leaderworkerset.sigs.k8s.io/name`, KServe's
    `serving.kserve.io/inferenceservice` and `component`."""
    group, kind = split_type(resource.type)
    name = get(resource.props, "metadata", "name")
    spec = as_dict(get(resource.props, "spec"))
    if kind == "InferenceService":
        labels = dict(as_dict(get(resource.props, "metadata", "labels")))
        labels.update({"serving.kserve.io/inferenceservice": name, "component": "predictor", "app": f"isvc.{name}-predictor"})
        return [labels]
    if kind == "LeaderWorkerSet":
        return [labels for role in ("leaderTemplate", "workerTemplate") for labels in _lws_labels(resource, role)]
    if (group, kind) == ("", "Pod"):
        # A bare Pod is its own pod: its labels are its metadata's (it has no template).
        return [dict(as_dict(get(resource.props, "metadata", "labels")))]
    return [dict(as_dict(get(spec, "template", "metadata", "labels")))]


_LWS_WORKERS_SPELLED = 32  # worker-index values spelled out; a selector naming a higher index is not read


def _lws_labels(resource: Any, role: str) -> list[dict]:
    """The label sets of the pods a LeaderWorkerSet makes from one of its templates, with what the controller adds:
    ``leaderworkerset.sigs.k8s.io/name`` on every pod and ``leaderworkerset.sigs.k8s.io/worker-index`` "0" on the
    leader, the pod's ordinal 1..size-1 on a worker (kubernetes-sigs/lws v0.10.0
    pkg/controllers/leaderworkerset_controller.go:777-791 leader labels, the worker template standing in for a missing
    leader template; pod_controller.go:441-444 size-1 workers from ordinal 1; pkg/webhooks/pod_webhook.go:136-141 the
    worker index from the ordinal). One set per worker index."""
    name = get(resource.props, "metadata", "name")
    lwt = as_dict(get(resource.props, "spec", "leaderWorkerTemplate"))
    template = lwt.get(role)
    if not isinstance(template, dict):
        return []
    base = dict(as_dict(get(template, "metadata", "labels")))
    base["leaderworkerset.sigs.k8s.io/name"] = name
    size = lwt.get("size", 1)
    known = isinstance(size, int) and not isinstance(size, bool)
    workers = range(1, min(size, _LWS_WORKERS_SPELLED + 1)) if known else range(1, 2)
    indexes = [] if role == "leaderTemplate" else [str(i) for i in workers]
    if role == "leaderTemplate" or not isinstance(lwt.get("leaderTemplate"), dict):
        indexes.insert(0, "0")
    return [base | {"leaderworkerset.sigs.k8s.io/worker-index": i} for i in indexes]


def template_labels(resource: Any, path: str) -> list[dict]:
    """The label sets of the pods made from the pod spec at ``path`` (pod_specs' path): a LeaderWorkerSet's leader
    and worker templates make different pods; any other workload's templates share its label sets (pod_labels)."""
    if split_type(resource.type)[1] == "LeaderWorkerSet":
        for role in ("leaderTemplate", "workerTemplate"):
            if path == f"spec.leaderWorkerTemplate.{role}.spec":
                return _lws_labels(resource, role)
    return pod_labels(resource)


def unselected_serving_apps(
    resources: list, cover_kinds: tuple[str, ...], selects: Callable[[Any, dict], bool], *, skip_kinds: tuple[str, ...] = ()
) -> list:
    """The serving apps (is_serving_app) that no object of ``cover_kinds`` in their namespace selects.

    ``selects(cover, labels)`` says whether one such object (a PDB, a Service, ...) selects a pod
    label set; an app counts as selected when any of its pod templates is. The covering objects
    are grouped by namespace once, so a fleet of apps is read in one pass, not one per app.
    """
    covers: dict[str | None, list] = {}
    for r in resources:
        if split_type(r.type)[1] in cover_kinds:
            covers.setdefault(namespace_of(r), []).append(r)
    found = []
    for app in resources:
        if not is_serving_app(app) or split_type(app.type)[1] in skip_kinds:
            continue
        label_sets = pod_labels(app)
        if not any(selects(cover, labels) for cover in covers.get(namespace_of(app), ()) for labels in label_sets):
            found.append(app)
    return found


@dataclass(frozen=True)
class EngineConfig:
    """One vLLM engine's settings, wherever they were written.

    `args` uses vLLM's long flag names (`gpu-memory-utilization`), as
    `policies.reading.vllm_args.parse_vllm_args` returns them; a boolean flag that is on maps to None, and one
    that is off to its `no-` form (`no-enable-prefix-caching`: None), wherever it was written.
    `image` names the vLLM release where known. `server` is the container, when there is one.
    """

    label: str
    args: dict[str, str | None]
    model: str | None
    image: str = ""
    server: VllmServer | None = None
    extra: dict = field(default_factory=dict)
    # A kustomization of the run rewrites the image (policies/reading/kustomize.py): its tag is not the release run.
    retagged: bool = False


# A RayService's serveConfigV2 is YAML inside a string of a manifest someone else wrote: it goes
# through the same bounded loader as the manifest (aliases charged at their expanded size), with
# limits of its own, so a string cannot carry what the file's limits refused.
SERVE_CONFIG = Limits("an embedded serveConfigV2", max_bytes=1 << 20, max_depth=64, max_nodes=200_000, max_documents=1)


@lru_cache(maxsize=64)
def _parse_serve_config(text: str) -> Any:
    try:
        return load_yaml("serveConfigV2", SERVE_CONFIG, text=text)
    except LoadError:
        return None


def serve_config(resource: Any) -> Any:
    """A RayService's parsed serveConfigV2 (None when absent or unreadable), parsed once per text.

    Several policies read it; the parse is cached by the text, and callers only read the result.
    """
    text = get(resource.props, "spec", "serveConfigV2")
    return _parse_serve_config(text) if isinstance(text, str) else None


def _ray_serve_llm_configs(resource: Any) -> list[tuple[str, dict]]:
    """(label, llm_config) of every Ray Serve LLM model in a RayService's serveConfigV2."""
    config = serve_config(resource)
    if config is None:
        return []
    found = []
    for app in as_list(as_dict(config).get("applications")):
        app = as_dict(app)
        llm_configs = as_list(get(app, "args", "llm_configs"))
        for i, llm in enumerate(llm_configs):
            if isinstance(llm, dict):
                found.append((f"serveConfigV2 application {app.get('name', '?')} llm_configs[{i}]", llm))
    return found


def runs_vllm(app: dict) -> bool:
    """A custom Serve application that runs vLLM: vLLM in its runtime_env pip list, or the application's name, a
    deployment's name or the import path naming it (set 15: taigetco/ray-worker's ``vllm_app``)."""
    pip = [str(p).lower() for p in as_list(get(app, "runtime_env", "pip"))]
    names = [str(as_dict(d).get("name", "")).lower() for d in as_list(app.get("deployments"))]
    return (
        any(re.match(r"vllm\b", p) for p in pip)
        or any("vllm" in n for n in names)
        or "vllm" in str(app.get("import_path", "")).lower()
        or "vllm" in str(app.get("name", "")).lower()
    )


def ray_serve_app_vllm_args(resource: Any) -> list[tuple[str, dict[str, str]]]:
    """(label, flags) of each custom vLLM Serve application of a RayService that passes its ``args`` to vLLM's CLI
    parser: GKE's Ray Serve LLM sample turns every key into ``--key value`` and parses it with vLLM's
    make_arg_parser (GoogleCloudPlatform/kubernetes-engine-samples ai-ml/gke-ray/rayserve/llm/serve_chat_completion.py:102-127
    at 2b5036514162a489145c5e5570bc320efbcb37bf), and derived apps keep that form (set 11: elotl/skyray
    luna-llm-serve/ray-service.llm.Phi-3-mini-4k-instruct.autoscale.yaml, ``gpu-memory-utilization: "0.7"``).
    Read only where the args name the model and the app runs vLLM (``runs_vllm``); Ray Serve LLM's llm_configs are
    read by engine_configs."""
    if split_type(resource.type) != ("ray.io", "RayService"):
        return []
    found = []
    for app in as_list(as_dict(serve_config(resource)).get("applications")):
        app = as_dict(app)
        args = as_dict(app.get("args"))
        if "llm_configs" in args or not isinstance(args.get("model"), str) or not runs_vllm(app):
            continue
        flags = {str(k): str(v) for k, v in args.items() if isinstance(v, (str, int, float)) and not isinstance(v, bool)}
        found.append((f"serveConfigV2 application {app.get('name', '?')} args", flags))
    return found


def engine_kwargs_as_flags(kwargs: Mapping) -> dict[str, str | None]:
    """Ray Serve LLM `engine_kwargs` in the form `parse_vllm_args` gives a container's flags.

    Ray Serve LLM passes the kwargs to vLLM's AsyncEngineArgs, whose boolean fields the CLI
    exposes as argparse.BooleanOptionalAction (vllm 0.33.0 engine/arg_utils.py:384-386,
    "Creates --no-<name> and --<name> flags"). So `enable_prefix_caching: true` reads as
    `--enable-prefix-caching` ({"enable-prefix-caching": None}) and `false` as
    `--no-enable-prefix-caching` ({"no-enable-prefix-caching": None}): a policy that reads a
    boolean flag sees an explicit "off" as it does in a container, never as the flag absent.
    vLLM's own --config file reader maps YAML booleans the same way (utils/argparse_utils.py:654-658).
    A null kwarg is the field's default (`max_model_len: null` leaves vLLM to derive it), so it
    reads as the flag absent, not as a bare flag.
    """
    args: dict[str, str | None] = {}
    for key, value in kwargs.items():
        flag = str(key).replace("_", "-")
        if value is None:
            continue
        if value is False:
            args[f"no-{flag}"] = None
        else:
            args[flag] = None if value is True else str(value)
    return args


def engine_configs(resource: Any) -> list[EngineConfig]:
    """Every vLLM engine of a resource: its vLLM containers, then its Ray Serve LLM models."""
    return list(memoized(resource, "engine_configs", _engine_configs))


def _engine_configs(resource: Any) -> list[EngineConfig]:
    rewritten = getattr(resource, "retagged", ())
    found = [
        EngineConfig(
            label=s.label,
            args=s.args,
            model=served_model(s),
            image=str(s.container.get("image") or ""),
            server=s,
            retagged=image_rewritten(rewritten, s.container.get("image")),
        )
        for s in vllm_servers(resource)
    ]
    if split_type(resource.type) == ("ray.io", "RayService"):
        images = [c.get("image") for _, pod in pod_specs(resource) for c in containers(pod)]
        image = next((i for i in images if isinstance(i, str)), "")
        # LLMConfig(...) code a mounted ConfigMap holds (policies/reading/serve_python.py): read where the run is in view.
        code = mounted_llm_configs(resource, view, serve_config(resource)) if (view := viewed_resources()) else []
        for label, llm in _ray_serve_llm_configs(resource) + code:
            kwargs = as_dict(llm.get("engine_kwargs"))
            args = engine_kwargs_as_flags(kwargs)
            source = get(llm, "model_loading_config", "model_source")
            model = source if isinstance(source, str) else get(llm, "model_loading_config", "model_id")
            found.append(
                EngineConfig(
                    label=label,
                    args=args,
                    model=model if isinstance(model, str) else None,
                    image=image,
                    extra={"ray_serve_llm": True},
                    retagged=image_rewritten(rewritten, image),
                )
            )
    return found
