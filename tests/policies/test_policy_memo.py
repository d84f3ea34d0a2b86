"""Facts several policies derive from one resource are derived once per evaluation, and only then."""

from __future__ import annotations

from policies.framework import Resource
from policies.kube import cluster_view, evaluation_memo, memoized, viewed_resources
from policies.reading.serving import SERVE_CONFIG, serve_config
from policies.registry import evaluate


def _resource(name: str = "r") -> Resource:
    return Resource(type="kubernetes:apps/v1:Deployment", name=name, props={"metadata": {"name": name}})


def test_memo_computes_once_per_resource_inside_an_evaluation_and_always_outside():
    calls = []

    def compute(r):
        calls.append(r.name)
        return [r.name]

    a, b = _resource("a"), _resource("b")
    memoized(a, "k", compute)
    memoized(a, "k", compute)
    assert calls == ["a", "a"]  # outside an evaluation nothing is kept
    calls.clear()
    with evaluation_memo():
        assert memoized(a, "k", compute) == ["a"]
        assert memoized(a, "k", compute) == ["a"]
        assert memoized(b, "k", compute) == ["b"]
        assert memoized(a, "other", compute) == ["a"]
    assert calls == ["a", "b", "a"]
    calls.clear()
    with evaluation_memo():  # a new evaluation starts empty
        memoized(a, "k", compute)
    assert calls == ["a"]


def test_an_evaluation_inside_another_goes_on_with_its_facts():
    # `policies check` reads the sizing gaps inside the evaluation's memo (policies/check.py).
    calls = []
    a = _resource("a")
    with evaluation_memo():
        memoized(a, "k", lambda r: calls.append(r.name))
        with evaluation_memo():
            memoized(a, "k", lambda r: calls.append(r.name))
        memoized(a, "k", lambda r: calls.append(r.name))
    with evaluation_memo():
        memoized(a, "k", lambda r: calls.append(r.name))
    assert calls == ["a", "a"]  # once in the outer evaluation (the inner one joined it), once in the next


def test_memo_never_answers_for_a_different_object_with_a_reused_id():
    with evaluation_memo():
        first = memoized(_resource("x"), "k", lambda r: r.name)
        # The first resource is gone; a new one may get its id, and must get its own answer.
        second = [memoized(_resource(f"y{i}"), "k", lambda r: r.name) for i in range(50)]
    assert first == "x" and second == [f"y{i}" for i in range(50)]


def test_a_fact_read_from_the_cluster_view_is_kept_for_that_view_only():
    # A folder's variants (policies.scopes) share every object but one definition: facts of an object alone serve
    # them all, a fact joined to other objects (an LLMInferenceService's baseRefs) only the view it was read in.
    calls = []

    def alone(r):
        calls.append(("alone", r.name))
        return r.name

    def joined(r):
        calls.append(("joined", r.name))
        return len(viewed_resources() or ())

    def outer(r):  # reads the view only through another fact: kept per view too
        calls.append(("outer", r.name))
        return memoized(r, "joined", joined) + 10

    a = _resource("a")
    first, second = (a,), (a, _resource("b"))
    with evaluation_memo():
        with cluster_view(first):
            assert [memoized(a, k, f) for k, f in (("alone", alone), ("outer", outer))] == ["a", 11]
        with cluster_view(second):
            assert [memoized(a, k, f) for k, f in (("alone", alone), ("outer", outer))] == ["a", 12]
            assert memoized(a, "outer", outer) == 12
        with cluster_view(first):
            assert memoized(a, "joined", joined) == 1
    assert calls == [("alone", "a"), ("outer", "a"), ("joined", "a"), ("outer", "a"), ("joined", "a"), ("joined", "a")]


def test_evaluate_gives_the_same_findings_twice():
    resources = [
        Resource(
            type="kubernetes:apps/v1:Deployment",
            name="vllm",
            props={
                "metadata": {"name": "vllm"},
                "spec": {
                    "template": {
                        "spec": {
                            "containers": [
                                {
                                    "name": "vllm",
                                    "image": "vllm/vllm-openai:latest",
                                    "args": ["--model", "m", "--gpu-memory-utilization", "0.99"],
                                    "resources": {"limits": {"nvidia.com/gpu": 1}},
                                }
                            ]
                        }
                    }
                },
            },
        )
    ]
    first = evaluate(resources)
    assert first and evaluate(resources) == first


def _ray_service(text: str) -> Resource:
    return Resource(type="kubernetes:ray.io/v1:RayService", name="rs", props={"spec": {"serveConfigV2": text}})


def test_serve_config_goes_through_the_bounded_loader():
    ok = _ray_service("applications:\n- name: llm\n  args: {llm_configs: [{model_loading_config: {model_id: m}}]}\n")
    assert serve_config(ok)["applications"][0]["name"] == "llm"
    # An alias bomb inside the string: refused by the node budget (read as no config), not expanded.
    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n" for p, c in zip("abcdefgh", "bcdefghi")
    )
    assert serve_config(_ray_service(bomb)) is None
    assert serve_config(_ray_service("x" * (SERVE_CONFIG.max_bytes + 1))) is None
    assert serve_config(_ray_service("applications: [")) is None
    assert serve_config(Resource(type="kubernetes:ray.io/v1:RayService", name="rs", props={"spec": {}})) is None
