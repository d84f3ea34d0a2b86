"""The serving back-end interface (components/backends/) is the design it claims to be.

* A third back-end, written here as a LeaderWorkerSet back-end and registered with one ``register`` call
  (no product file changed), serves a model of the prod stack: ``distributed: {backend: lws}`` in the stack's
  config loads while it is registered (and is refused, naming the values allowed, once it is not), and the
  model's pods, route, monitor, alerts and outputs come from it; nothing of KubeRay is rendered any more.
* The shipped back-ends are the lines of components/backend_keys.py: each registers, and the config
  accepts exactly their multi-node keys.
* Outside the back-ends' own modules, at most 3 places branch on the back-end (an AST walk of the
  product), and the placement question (``spans_nodes``) is asked only where the test lists it.
"""

from __future__ import annotations

import ast
import gc
import importlib
import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any, Optional

import pulumi
import pulumi_kubernetes as k8s
import pytest

from components import ConfigError, LlmPlatform, LlmPlatformArgs, load_stack_config, plan_stack
from components.backend_keys import BUILT_IN, multi_node_keys
from components.backends import (
    KServeBackend,
    KubeRayBackend,
    RouteTarget,
    ServeRequest,
    ServingBackend,
    backend_key,
    register,
    registered,
    serving_backend,
    unregister,
)
from components.builders import serving_backend as serving_backend_module
from components.builders.buffer import SERVING_PRIORITY_CLASS
from components.builders.labels import recommended_labels
from components.builders.scheduling import karpenter_gpu_name, serving_pod_scheduling
from components.capacity.plan import ServingPlan
from components.config import ModelConfig, StackConfig
from stacks.offline import load_stack_file, run_program
from tests.conftest import ROOT, parse_python, stack_config

LWS_API = "leaderworkerset.x-k8s.io/v1"
LWS_NAME_LABEL = "leaderworkerset.sigs.k8s.io/name"
LWS_WORKER_INDEX_LABEL = "leaderworkerset.sigs.k8s.io/worker-index"
PORT = 8000


class LwsService(pulumi.ComponentResource):
    """The toy back-end's Pulumi shell: a LeaderWorkerSet (leader + workers per group) and the leader's Service."""

    def __init__(self, request: ServeRequest, backend: "LeaderWorkerSetBackend"):
        super().__init__("test:lws:LwsService", request.name, None, request.opts)
        m, plan = request.model, request.plan
        assert plan.layout is not None
        drain = backend.drain(plan)
        child = pulumi.ResourceOptions(parent=self)

        def pod(role: str, pool: str) -> dict[str, Any]:
            return {
                "metadata": {"labels": recommended_labels(m.name, component=role)},
                "spec": {
                    **serving_pod_scheduling(pool, karpenter_gpu_name(plan)),
                    "terminationGracePeriodSeconds": drain.grace_seconds,
                    "containers": [
                        {
                            "name": "vllm",
                            "image": m.image,
                            "lifecycle": {
                                "preStop": {
                                    "sleep": {
                                        "seconds": drain.pre_stop_seconds if role == "leader" else drain.rank_pre_stop_seconds
                                    }
                                }
                            },
                        }
                    ],
                },
            }

        spec = pulumi.Output.from_input(request.pool_name).apply(
            lambda pool: {
                "replicas": 1,
                "leaderWorkerTemplate": {
                    "size": plan.layout.nodes,
                    "leaderTemplate": pod("leader", pool),
                    "workerTemplate": pod("worker", pool),
                },
            }
        )
        self.workload = k8s.apiextensions.CustomResource(
            f"{request.name}-lws",
            api_version=LWS_API,
            kind="LeaderWorkerSet",
            metadata={"name": m.name, "namespace": request.namespace},
            spec=spec,
            opts=child,
        )
        service, port = backend.route_target(m)
        k8s.core.v1.Service(
            f"{request.name}-service",
            metadata={"name": service, "namespace": request.namespace},
            spec={"selector": backend.metrics_pods(m), "ports": [{"port": port}]},
            opts=child,
        )
        self.url = pulumi.Output.from_input(request.namespace).apply(lambda ns: backend.service_url(m, ns))
        self.queue_budget = pulumi.Output.from_input(plan.max_num_queued_reqs)
        self.register_outputs({"url": self.url})


class LeaderWorkerSetBackend(ServingBackend):
    """A third back-end, as a user would add one: a multi-node engine as a LeaderWorkerSet (not autoscaled here)."""

    key = "lws"
    multi_node = True

    def route_target(self, m: ModelConfig) -> RouteTarget:
        return RouteTarget(f"{m.name}-leader", PORT)

    def workload_name(self, m: ModelConfig) -> str:
        return m.name

    def metrics_pods(self, m: ModelConfig) -> dict[str, str]:
        return {LWS_NAME_LABEL: m.name, LWS_WORKER_INDEX_LABEL: "0"}

    def pod_matcher(self, m: ModelConfig) -> str:
        return f'pod=~"{m.name}-.+",container="vllm"'

    def scale_target(self, m: ModelConfig) -> Optional[dict[str, str]]:
        return None

    def disruption_budget(self, m: ModelConfig, namespace: str) -> dict[str, Any]:
        return {
            "apiVersion": "policy/v1",
            "kind": "PodDisruptionBudget",
            "metadata": {"name": m.name, "namespace": namespace},
            "spec": {"maxUnavailable": 1, "selector": {"matchLabels": {LWS_NAME_LABEL: m.name}}},
        }

    def serve(self, request: ServeRequest) -> pulumi.ComponentResource:
        return LwsService(request, self)


@pytest.fixture(autouse=True)
def _collect_garbage():
    """Collect after each test, where nothing is being parsed. CPython 3.11.7's ast.parse fails ("AST constructor
    recursion depth mismatch", as pytest rewrites a module imported later) when a collection it triggers runs
    finalizers: the pending asyncio tasks earlier in-process Pulumi runs leave log from __del__."""
    yield
    gc.collect()


@pytest.fixture
def lws():
    backend = register(LeaderWorkerSetBackend())
    try:
        yield backend
    finally:
        unregister(backend.key)


def _prod_on_lws() -> dict[str, Any]:
    """The prod stack's config with its multi-node model moved to the "lws" back-end, as a stack file says it."""
    raw = stack_config("prod")
    (big,) = [m for m in raw["llm-serving:models"] if m.get("distributed", {}).get("backend") == KubeRayBackend.key]
    big["distributed"]["backend"] = LeaderWorkerSetBackend.key
    return raw


def _on_lws() -> tuple[StackConfig, ModelConfig]:
    """The prod stack on the "lws" back-end, loaded as any stack is (the back-end must be registered), and its model there."""
    cfg = load_stack_config(_prod_on_lws())
    (moved,) = [m for m in cfg.models if backend_key(m) == LeaderWorkerSetBackend.key]
    return cfg, moved


def test_the_built_in_back_ends_are_registered():
    assert [b.key for b in registered()] == [item.key for item in BUILT_IN] == ["kserve", "ray"]
    assert [type(b).__name__ for b in registered()] == [item.backend for item in BUILT_IN]
    assert multi_node_keys() == ("ray",) and [b.key for b in registered() if b.multi_node] == ["ray"]
    cfg = load_stack_config(stack_config("prod"))
    by_key = {serving_backend(m).key for m in cfg.models}
    assert by_key == {"kserve", "ray"}
    assert all(isinstance(serving_backend(m), (KServeBackend, KubeRayBackend)) for m in cfg.models)


def test_a_model_of_an_unregistered_back_end_is_named(lws):
    cfg, moved = _on_lws()
    unregister("lws")
    with pytest.raises(LookupError, match=r"model '.+': no serving back-end registered for 'lws' \(registered: kserve, ray\)"):
        serving_backend(moved)


def test_the_config_accepts_a_multi_node_key_while_its_back_end_is_registered():
    (big,) = [i for i, m in enumerate(stack_config("prod")["llm-serving:models"]) if "distributed" in m]
    refused = f"models[{big}].distributed.backend = 'lws': input should be 'ray'"
    with pytest.raises(ConfigError) as before:
        load_stack_config(_prod_on_lws())
    assert str(before.value).splitlines()[1:] == [f"  {refused}"]
    backend = register(LeaderWorkerSetBackend())
    try:
        assert multi_node_keys() == ("ray", "lws")
        cfg, moved = _on_lws()
        assert moved.name == stack_config("prod")["llm-serving:models"][big]["name"] and serving_backend(moved) is backend
        bad = _prod_on_lws()
        bad["llm-serving:models"][big]["distributed"]["backend"] = "slurm"
        with pytest.raises(
            ConfigError, match=rf"models\[{big}\]\.distributed\.backend = 'slurm': input should be 'ray' or 'lws'"
        ):
            load_stack_config(bad)
    finally:
        unregister(backend.key)
    assert multi_node_keys() == ("ray",)
    with pytest.raises(ConfigError) as after:
        load_stack_config(_prod_on_lws())
    assert str(after.value).splitlines()[1:] == [f"  {refused}"]


def test_every_back_end_the_product_defines_is_listed_once():
    """A back-end module whose line is missing would never serve a model: every ServingBackend class defined in
    components/backends/ is a line of BUILT_IN, and each line names one (a wrong line is refused, naming it)."""
    defined = set()
    for path in sorted(p for p in (ROOT / "components" / "backends").glob("*.py") if p.stem != "__init__"):
        module = importlib.import_module(f"components.backends.{path.stem}")
        defined |= {
            (path.stem, name)
            for name, obj in vars(module).items()
            if isinstance(obj, type) and issubclass(obj, ServingBackend) and obj.__module__ == module.__name__
        }
    assert defined == {(item.module, item.backend) for item in BUILT_IN}
    assert len({item.key for item in BUILT_IN}) == len(BUILT_IN)
    wrong = BUILT_IN[1]._replace(backend="KServeBackend")
    with pytest.raises(
        TypeError, match=r"lists 'ray' as components/backends/kuberay.py KServeBackend, which is no ServingBackend"
    ):
        serving_backend_module._built_in(wrong)


def test_a_listed_key_registers_as_its_line_says():
    class NotMultiNode(LeaderWorkerSetBackend):
        key = KubeRayBackend.key
        multi_node = False

    with pytest.raises(ValueError, match=r"back-end 'ray': multi_node is False, but components/backend_keys.py lists it"):
        register(NotMultiNode())
    assert [type(b) for b in registered()] == [KServeBackend, KubeRayBackend] and multi_node_keys() == ("ray",)


def record_on_lws() -> dict[str, Any]:
    """The prod stack planned with its multi-node model on the toy back-end: {"resources", "outputs"} as JSON data."""
    backend = register(LeaderWorkerSetBackend())
    try:
        cfg, _ = _on_lws()

        def program() -> None:
            platform = LlmPlatform("prod", LlmPlatformArgs(config=cfg))
            pulumi.export("serviceUrls", platform.service_urls)
            pulumi.export("hpaTargets", platform.hpa_targets)

        rec = run_program(load_stack_file("prod"), program)  # the prod stack file's settings (aws:region), this config
    finally:
        unregister(backend.key)
    return {"resources": [{"type": r.type, "name": r.name, "inputs": r.inputs} for r in rec.resources], "outputs": rec.outputs}


def test_a_third_back_end_plans_as_the_one_it_replaces(lws):
    prod = load_stack_config(stack_config("prod"))
    cfg, moved = _on_lws()
    # The capacity plan does not depend on the back-end: the plan on KubeRay, but for the layout's back-end name.
    plan: ServingPlan = plan_stack(cfg)[moved.name]
    assert plan.layout is not None and plan.layout.backend == "lws"
    assert replace(plan, layout=replace(plan.layout, backend="ray")) == plan_stack(prod)[moved.name]


def test_a_third_back_end_serves_a_model_with_one_registration(lws):
    # In a fresh interpreter, as tests/recording.py runs whole programs (the mock engine is one run per process).
    script = (
        "import json; from tests.components.test_serving_backends import record_on_lws; "
        "print(json.dumps(record_on_lws(), sort_keys=True, default=str))"
    )
    proc = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    rec = json.loads(proc.stdout)
    resources, outputs = rec["resources"], rec["outputs"]
    cfg, moved = _on_lws()
    plan = plan_stack(cfg)[moved.name]
    types = {r["type"] for r in resources}
    # Its own pods and Service, from the toy back-end; nothing of KubeRay (no model uses it any more).
    (lws_cr,) = [r for r in resources if r["type"] == f"kubernetes:{LWS_API}:LeaderWorkerSet"]
    assert "kubernetes:ray.io/v1:RayCluster" not in types and "llm-serving:ray:KubeRay" not in types
    leader = lws_cr["inputs"]["spec"]["leaderWorkerTemplate"]["leaderTemplate"]["spec"]
    # The one scheduling function and drain model: its pool and GPU type, the serving priority.
    assert leader["nodeSelector"]["karpenter.sh/nodepool"] == moved.pool
    assert leader["priorityClassName"] == SERVING_PRIORITY_CLASS
    assert leader["terminationGracePeriodSeconds"] == plan.timeouts.termination_grace_seconds
    # The ingress routes to the service the back-end names; the monitor scrapes the pods it names.
    ingress_like = [r for r in resources if r["type"].endswith(("Ingress", "VirtualService"))]
    assert any(f"{moved.name}-leader" in json.dumps(r["inputs"]) for r in ingress_like)
    (monitor,) = [
        r for r in resources if r["type"].endswith(":PodMonitor") and r["inputs"]["metadata"]["name"] == f"{moved.name}-vllm"
    ]
    assert monitor["inputs"]["spec"]["selector"]["matchLabels"] == {LWS_NAME_LABEL: moved.name, LWS_WORKER_INDEX_LABEL: "0"}
    (rule,) = [
        r
        for r in resources
        if r["type"].endswith(":PrometheusRule") and r["inputs"]["metadata"]["name"] == f"{moved.name}-alerts"
    ]
    alerts = [a["alert"] for a in rule["inputs"]["spec"]["groups"][0]["rules"]]
    assert "LlmPodRestarting" in alerts and "LlmAutoscalerAtMaxReplicas" not in alerts
    # Not autoscaled: no HPA, no target; its URL among the platform's outputs.
    assert not [
        r for r in resources if r["type"].endswith("HorizontalPodAutoscaler") and r["inputs"]["metadata"]["name"] == moved.name
    ]
    assert moved.name not in outputs["hpaTargets"]
    assert outputs["serviceUrls"][moved.name] == f"http://{moved.name}-leader.{cfg.namespace}.svc.cluster.local:{PORT}"
    # Every other model is served as before.
    assert (
        sum(1 for r in resources if r["type"] == "kubernetes:serving.kserve.io/v1beta1:InferenceService") == len(cfg.models) - 1
    )


# --- Branches on the back-end outside the back-ends' own modules -------------------------------------------

PRODUCT = ("components", "stacks", "policies")
BACKEND_CLASSES = {"VllmService", "RayVllmService", "KServeBackend", "KubeRayBackend", "ServingBackend"}
MAX_BRANCHES = 3
# Where the product asks whether a model's replica spans nodes (config.placement.spans_nodes): a placement
# question every multi-node back-end shares, not which back-end serves the model. New askers are listed here.
PLACEMENT_QUESTIONS = {
    "components/capacity/plan.py": 1,  # pod GPUs, layout, head and startup budget of a multi-node replica
    "components/capacity/pools.py": 1,  # the pool's multi-node models (its disruption settings)
    "components/config/cross_checks.py": 2,  # a multi-node layout fills whole nodes; its pool never expires nodes and
    # hosts no single-node model
    "stacks/simulate.py": 1,  # the seeds' defaults re-plan single-node models only
}


def _mentions_distributed(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Attribute) and n.attr == "distributed" for n in ast.walk(node))


def back_end_branches(source: str) -> list[int]:
    """Lines that branch on a model's back-end: a comparison of ``.distributed`` (with None), an if / conditional
    expression / comprehension filter / boolean operand testing it, or an ``isinstance`` on a back-end class.
    ``assert`` narrowing is no branch."""
    tree = parse_python(source)
    asserted = {id(n) for a in ast.walk(tree) if isinstance(a, ast.Assert) for n in ast.walk(a)}
    lines: list[int] = []
    for node in ast.walk(tree):
        if id(node) in asserted:
            continue
        tests: list[ast.AST] = []
        if isinstance(node, ast.Compare):
            tests.append(node)
        elif isinstance(node, (ast.If, ast.IfExp, ast.While)):
            tests.append(node.test)
        elif isinstance(node, ast.comprehension):
            tests.extend(node.ifs)
        elif isinstance(node, ast.BoolOp):
            tests.extend(node.values)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "isinstance"
            and len(node.args) == 2
        ):
            names = {n.id for n in ast.walk(node.args[1]) if isinstance(n, ast.Name)}
            names |= {n.attr for n in ast.walk(node.args[1]) if isinstance(n, ast.Attribute)}
            if names & BACKEND_CLASSES:
                lines.append(node.lineno)
        lines.extend(t.lineno for t in tests if _mentions_distributed(t))
    return sorted(set(lines))


def placement_questions(source: str) -> int:
    tree = parse_python(source)
    return sum(
        1 for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "spans_nodes"
    )


def _product_files() -> list[Path]:
    return sorted(p for top in PRODUCT for p in (ROOT / top).rglob("*.py"))


def _back_end_modules() -> set[str]:
    """The modules each registered back-end says implement it (scan_product skips components/backends/ and the
    interface, components/builders/serving_backend.py)."""
    return {m for b in registered() for m in b.modules}


def scan_product() -> dict[str, dict[str, Any]]:
    """{"branches": {file: lines}, "placement": {file: count}} over the product, outside the back-ends' modules."""
    owned = _back_end_modules()
    branches: dict[str, list[int]] = {}
    placement: dict[str, int] = {}
    for path in _product_files():
        rel = path.relative_to(ROOT).as_posix()
        # The back-ends and their interface and registry (whose backend_key is the one dispatch on a model's back-end).
        if rel.startswith("components/backends/") or rel == "components/builders/serving_backend.py":
            continue
        source = path.read_text()
        if rel not in owned and (lines := back_end_branches(source)):
            branches[rel] = lines
        if n := placement_questions(source):
            placement[rel] = n
    return {"branches": branches, "placement": placement}


@pytest.fixture(scope="module")
def product() -> dict[str, dict[str, Any]]:
    # In a fresh interpreter: CPython 3.11's ast.parse can fail with "AST constructor recursion depth mismatch"
    # after the Pulumi mock engine ran in this process (cpython gh-106905).
    script = "import json; from tests.components.test_serving_backends import scan_product; print(json.dumps(scan_product()))"
    proc = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_the_counter_finds_each_form_of_branch():
    source = (
        "a = 1 if m.distributed is not None else 2\n"
        "if m.distributed:\n    pass\n"
        "xs = [m for m in ms if m.distributed is None]\n"
        "ok = x and m.distributed.efa\n"
        "isinstance(s, VllmService)\n"
        "isinstance(s, (int, backends.KubeRayBackend))\n"
        "assert m.distributed is not None\n"
        "d = m.distributed\n"
        "return m.distributed is not None\n"
    )
    assert back_end_branches(source) == [1, 2, 4, 5, 6, 7, 10]
    assert placement_questions("if spans_nodes(m):\n    pass\nx = [spans_nodes(m) for m in ms]\n") == 2


def test_at_most_three_places_outside_the_back_ends_branch_on_the_back_end(product):
    assert _back_end_modules() >= {"components/builders/ray_cluster.py", "components/vllm_service.py"}
    found = product["branches"]
    count = sum(len(v) for v in found.values())
    assert count <= MAX_BRANCHES, f"{count} branches on the back-end outside components/backends/: {found}"
    # Today: the one placement question's definition (config/placement.py spans_nodes), and the capacity plan asking
    # the back-end's listing whether it runs vLLM's Ray executor (components/backend_keys.py ray_executor), to refuse a
    # Ray model on a vLLM release whose Ray facts are not established (capacity/ray_image.py; the facts are the
    # image's, components/image_facts.py, and capacity sits below the back-ends in the library-layers contract).
    assert sorted(found) == ["components/capacity/ray_image.py", "components/config/placement.py"]
    assert all(len(lines) == 1 for lines in found.values()), found


def test_the_placement_question_is_asked_only_where_listed(product):
    assert product["placement"] == PLACEMENT_QUESTIONS
