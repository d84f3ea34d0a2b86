"""The serving back-end interface: what the rest of the stack asks of whatever runs a model's engine.

A back-end (KServe's InferenceService for one node, a KubeRay RayCluster for several) answers, for
one model: which pods and objects serve it (``serve``, and the cluster-wide ``controller`` it needs),
where requests go (``route_target``, ``service_url``), which pods Prometheus scrapes and which alerts
apply (``metrics_pods``, ``pod_matcher``, ``scale_target``), how its pods leave (``drain``: one drain
model for every back-end, builders/scheduling.py) and what guards them against disruption
(``disruption_budget``), what the autoscaler scales (``scale_target``, or None), which credentials
objects it needs (``needs_model_service_account``), its EFA interfaces (``efa_interfaces``), and
what the plan report says about it (``notes``). Every pod a back-end renders takes its pool, GPU
type, priority and spread from the one scheduling function (builders/scheduling.py).

Everything here is pure, like the builders, except ``controller`` and ``serve``, which register the
back-end's Pulumi components (its thin shells over its builders). The registry maps a model to its
back-end by :func:`backend_key`. The interface and the registry sit here, below the implementations: the
builders that ask a model's back-end (autoscaling, ingress, monitoring, notes, the adapter's rules) import
this module only, and the back-ends of components/backends/ import the builders they build with. The
built-in back-ends (components/backend_keys.py ``BUILT_IN``, one module of components/backends/ each) are
loaded by name on the first look-up, the way a plugin is found from its entry point.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from importlib import import_module
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple, Optional

from ..backend_keys import BUILT_IN, SINGLE_NODE_KEY, Listing, add_runtime_key, listing, remove_runtime_key
from ..capacity.plan import ServingPlan
from ..config import ModelConfig, StackConfig
from .scheduling import Drain, pod_drain

if TYPE_CHECKING:  # the Pulumi types of serve() and controller(); the pure methods never need them
    import pulumi


class RouteTarget(NamedTuple):
    """The Service that fronts a model's API, and its port (what an Ingress or VirtualService routes to)."""

    service: str
    port: int


@dataclass(frozen=True)
class ServeRequest:
    """What the platform hands a back-end to serve one model.

    ``namespace``, ``pool_name`` and the Secret names may be Pulumi Inputs (another stack's outputs);
    ``opts`` carries the cluster's provider and what the model's pods wait for.
    """

    name: str
    model: ModelConfig
    plan: ServingPlan
    namespace: Any
    pool_name: Any
    hf_token_secret: Any = None
    api_key_secret: Any = None
    opts: Optional["pulumi.ResourceOptions"] = None
    # The cluster's KServe fills no default CPU limit (the platform installs it with none: builders/addons.py).
    kserve_cpu_limit_cleared: bool = False
    # deploy.waitForModels: `pulumi up` waits until the model serves (components/builders/awaiting.py).
    wait_for_ready: bool = True

    def component_args(self) -> dict[str, Any]:
        """The fields every serving component's Args take (VllmServiceArgs, RayVllmServiceArgs), by name."""
        return {
            "model": self.model,
            "plan": self.plan,
            "namespace": self.namespace,
            "pool_name": self.pool_name,
            "hf_token_secret": self.hf_token_secret,
            "api_key_secret": self.api_key_secret,
            "wait_for_ready": self.wait_for_ready,
        }


@dataclass(frozen=True)
class Controller:
    """A back-end's cluster-wide controller (e.g. the KubeRay operator) and what its models' pods wait for."""

    component: "pulumi.Resource"
    waits: tuple["pulumi.Resource", ...] = field(default=())


class ServingBackend(ABC):
    """One way of running a model's vLLM engine on the cluster. Subclass it, set ``key``, ``multi_node`` and
    ``modules``, and list it in components/backend_keys.py (or ``register`` an instance); docs/design.md says how."""

    #: What :func:`backend_key` returns for the models this back-end serves.
    key: ClassVar[str]
    #: Its engine spans nodes: models pick it with ``distributed.backend: <key>``.
    multi_node: ClassVar[bool] = False
    #: The product modules that implement this back-end (besides its module here): they may branch on it.
    modules: ClassVar[tuple[str, ...]] = ()

    # -- routing ---------------------------------------------------------------------------------------------
    @abstractmethod
    def route_target(self, m: ModelConfig) -> RouteTarget:
        """The Service and port in front of the model's OpenAI-compatible API."""

    def service_url(self, m: ModelConfig, namespace: str) -> str:
        """In-cluster URL of the model's API (clients send ``model: <name>``)."""
        service, port = self.route_target(m)
        return f"http://{service}.{namespace}.svc.cluster.local:{port}"

    @abstractmethod
    def workload_name(self, m: ModelConfig) -> str:
        """The name of the object that runs the model's pods, for the platform's outputs."""

    # -- monitoring ------------------------------------------------------------------------------------------
    @abstractmethod
    def metrics_pods(self, m: ModelConfig) -> dict[str, str]:
        """Labels of the pods that serve the model's API and its /metrics (the PodMonitor's selector)."""

    @abstractmethod
    def pod_matcher(self, m: ModelConfig) -> str:
        """kube-state-metrics label matchers of every pod and vLLM container of the model (restart and OOM alerts)."""

    # -- scaling, drain, disruption ------------------------------------------------------------------------
    @abstractmethod
    def scale_target(self, m: ModelConfig) -> Optional[dict[str, str]]:
        """The autoscaling/v2 scaleTargetRef of the model's autoscaler, or None: nothing scales it (no HPA,
        no adapter rule, no alert on being pinned at maxReplicas)."""

    def drain(self, plan: ServingPlan) -> Drain:
        """How the model's pods leave: one drain model for every back-end (builders/scheduling.py)."""
        return pod_drain(plan)

    @abstractmethod
    def disruption_budget(self, m: ModelConfig, namespace: str) -> dict[str, Any]:
        """The PodDisruptionBudget that keeps a voluntary drain from taking the model down."""

    # -- credentials, network, report ------------------------------------------------------------------------
    def needs_model_service_account(self, m: ModelConfig) -> bool:
        """True when the model's pods run as a ServiceAccount the stack creates for them (builders/credentials.py)."""
        return False

    def efa_interfaces(self, m: ModelConfig, plan: ServingPlan) -> int:
        """EFA interfaces each of the model's pods requests (0: none; the pool then needs no EFA security group)."""
        return 0

    def notes(self, m: ModelConfig, plan: ServingPlan) -> list[dict[str, Any]]:
        """Rows {setting, value, reason} the plan report adds to the model's "derived" list."""
        return []

    # -- Pulumi components -----------------------------------------------------------------------------------
    def controller(self, name: str, cfg: StackConfig, opts: "pulumi.ResourceOptions") -> Optional[Controller]:
        """Register the back-end's cluster-wide controller, once per stack that has a model on it. Default: none."""
        return None

    @abstractmethod
    def serve(self, request: ServeRequest) -> "pulumi.ComponentResource":
        """Register the component that serves one model (its outputs include ``url`` and ``queue_budget``)."""


_REGISTRY: dict[str, ServingBackend] = {}
_BUILT_IN_LOADED = False


def _built_in(item: Listing) -> ServingBackend:
    """The back-end a line of ``BUILT_IN`` names: its class in its module, which must be a ServingBackend of its key."""
    package = __name__.rpartition(".")[0].rpartition(".")[0]  # components (llm_serving when installed)
    cls = getattr(import_module(f"{package}.backends.{item.module}"), item.backend, None)
    if not (isinstance(cls, type) and issubclass(cls, ServingBackend) and cls.key == item.key):
        raise TypeError(
            f"components/backend_keys.py lists {item.key!r} as components/backends/{item.module}.py {item.backend}, "
            f"which is no ServingBackend with key {item.key!r}"
        )
    return cls()


def load_built_ins() -> None:
    """Register the back-ends ``BUILT_IN`` lists, once (before any registered at run time, so they come first)."""
    global _BUILT_IN_LOADED
    if _BUILT_IN_LOADED:
        return
    _BUILT_IN_LOADED = True
    runtime = dict(_REGISTRY)
    _REGISTRY.clear()
    for item in BUILT_IN:
        register(_built_in(item))
    for key, backend in runtime.items():
        _REGISTRY.setdefault(key, backend)


def register(backend: ServingBackend) -> ServingBackend:
    """Make ``backend`` serve the models whose :func:`backend_key` is its key (a second one under a key replaces it).

    A key listed in components/backend_keys.py must be registered as its line says (multi-node or not); an
    unlisted multi-node key becomes a value ``distributed.backend`` accepts, until :func:`unregister`."""
    listed = listing(backend.key)
    if listed is not None and listed.multi_node != backend.multi_node:
        raise ValueError(
            f"back-end {backend.key!r}: multi_node is {backend.multi_node}, "
            f"but components/backend_keys.py lists it with multi_node={listed.multi_node}"
        )
    if listed is None and backend.multi_node:
        add_runtime_key(backend.key)
    _REGISTRY[backend.key] = backend
    return backend


def unregister(key: str) -> None:
    """Forget the back-end registered under ``key`` (tests that register a back-end of their own clean up with it);
    an unlisted key is no longer a ``distributed.backend``."""
    _REGISTRY.pop(key, None)
    remove_runtime_key(key)


def registered() -> tuple[ServingBackend, ...]:
    """Every registered back-end, in registration order (the built-in ones first)."""
    load_built_ins()
    return tuple(_REGISTRY.values())


def backend_key(m: ModelConfig) -> str:
    """The key of the back-end that serves ``m``: ``distributed.backend`` when the engine spans nodes, else KServe's."""
    return m.distributed.backend if m.distributed is not None else SINGLE_NODE_KEY


def serving_backend(m: ModelConfig) -> ServingBackend:
    """The back-end that serves ``m`` (the one dispatch on a model's back-end)."""
    key = backend_key(m)
    load_built_ins()
    try:
        return _REGISTRY[key]
    except KeyError:
        raise LookupError(
            f"model {m.name!r}: no serving back-end registered for {key!r} (registered: {', '.join(sorted(_REGISTRY)) or 'none'})"
        ) from None
