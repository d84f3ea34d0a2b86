"""Hypothesis strategies over YAML *structure*: flow collections nested at random, anchors and
aliases (defined, undefined, recursive), merge keys, keys of every type (ints, bools, null,
lists, repeated ones), tags, multiple documents, alias bombs and deep nesting -- with hostile
scalars (trailing newlines, NaN, 1e400, 400-digit integers, tokens) at the leaves."""

from __future__ import annotations

import json

from hypothesis import strategies as st

from tests.hostile.cases import billion_laughs, deep
from tests.hostile.sandbox import TOKENS

HOSTILE_SCALARS = [
    "a",
    "chat-8b",
    '"chat-8b\\n"',
    "1",
    "-1",
    "0",
    "0x1F",
    "1.5",
    ".nan",
    ".inf",
    "-.inf",
    "1.0e+400",
    '"1e400"',
    "yes",
    "no",
    "null",
    "~",
    "2024-01-01",
    '"<<"',
    '""',
    "'single'",
    "9" * 400,
    '"8Gi"',
    '"500m"',
    "{}",
    "[]",
    "!!str 5",
    "!!binary aGk=",
    "!custom x",
    '"\\u2028"',
    '"\\x00"',
    '"' + "x" * 2000 + '"',
    "g6e.2xlarge",
    "vllm/vllm-openai:v0.33.0",
    "meta-llama/Llama-3.1-8B-Instruct",
    '"--max-model-len=8192"',
    "$(HF_TOKEN)",
    *[json.dumps(t) for t in TOKENS],
    *[json.dumps(f"--hf-token={t}") for t in TOKENS[:2]],
]
KEYS = [
    "a",
    "b",
    "name",
    "kind",
    "apiVersion",
    "items",
    "spec",
    "env",
    "value",
    "args",
    "1",
    "true",
    "null",
    "<<",
    "? [a]",
    "? {k: v}",
    '"x\\ny"',
    "engine",
    "maxModelLen",
    "gpuLimit",
    "extraArgs",
    "nvidia.com/gpu",
]
ANCHORS = ["a", "b", "c"]

scalars = st.one_of(
    st.sampled_from(HOSTILE_SCALARS),
    st.integers(min_value=-(10**30), max_value=10**30).map(str),
    st.floats(allow_nan=True, allow_infinity=True)
    .map(repr)
    .map(lambda r: {"nan": ".nan", "inf": ".inf", "-inf": "-.inf"}.get(r, r)),
    st.text(max_size=30).map(json.dumps),
)
aliases = st.sampled_from(ANCHORS).map(lambda a: f"*{a}")
bombs = st.builds(billion_laughs, st.integers(2, 9), st.integers(2, 9))
deep_nests = st.integers(20, 3000).map(deep)


def _anchored(node: st.SearchStrategy) -> st.SearchStrategy:
    """Sometimes put an anchor on a node."""
    return st.tuples(st.one_of(st.none(), st.sampled_from(ANCHORS)), node).map(lambda t: f"&{t[0]} {t[1]}" if t[0] else t[1])


def _flow_map(children: st.SearchStrategy) -> st.SearchStrategy:
    pair = st.tuples(st.sampled_from(KEYS), children).map(
        lambda kv: f"{kv[0]}: {kv[1]}" if not kv[0].startswith("?") else f"{kv[0]} : {kv[1]}"
    )
    return st.lists(pair, max_size=5).map(lambda pairs: "{" + ", ".join(pairs) + "}")


def _flow_seq(children: st.SearchStrategy) -> st.SearchStrategy:
    return st.lists(children, max_size=5).map(lambda items: "[" + ", ".join(items) + "]")


leaves = st.one_of(scalars, aliases, st.just("null"))
nodes = st.recursive(
    leaves,
    lambda children: _anchored(st.one_of(_flow_map(children), _flow_seq(children))),
    max_leaves=25,
)
# Mostly ordinary structure, sometimes an expansion bomb or a deep nest.
hostile_nodes = st.one_of(nodes, nodes, nodes, nodes, bombs, deep_nests)

WORKLOAD_KINDS = ["Deployment", "Pod", "StatefulSet", "Job", "LeaderWorkerSet", "InferenceService", "RayService", "ConfigMap"]


@st.composite
def kubernetes_documents(draw) -> str:
    """One YAML document shaped like a Kubernetes object (or a List of them) with hostile parts."""
    kind = draw(st.sampled_from(WORKLOAD_KINDS + ["List", "DeploymentList", "PodList"]))
    api = {
        "Deployment": "apps/v1",
        "StatefulSet": "apps/v1",
        "Job": "batch/v1",
        "LeaderWorkerSet": "leaderworkerset.x-k8s.io/v1",
        "InferenceService": "serving.kserve.io/v1beta1",
        "RayService": "ray.io/v1",
        "DeploymentList": "apps/v1",
    }.get(kind, "v1")
    n = hostile_nodes
    container = (
        f"{{name: vllm, image: {draw(n)}, command: {draw(n)}, args: {draw(n)}, env: {draw(n)}, "
        f"resources: {{limits: {{nvidia.com/gpu: {draw(n)}}}, requests: {draw(n)}}}}}"
    )
    pod_spec = f"{{containers: [{container}], volumes: {draw(n)}}}"
    if kind in ("List", "DeploymentList", "PodList"):
        item = draw(
            st.one_of(
                st.just(
                    f"{{apiVersion: apps/v1, kind: Deployment, metadata: {{name: x}}, spec: {{template: {{spec: {pod_spec}}}}}}}"
                ),
                n,
            )
        )
        body = f"items: [{item}, {draw(n)}]"
    elif kind == "ConfigMap":
        body = f"data: {draw(n)}"
    elif kind == "Pod":
        body = f"spec: {draw(st.one_of(st.just(pod_spec), n))}"
    else:
        body = f"spec: {{template: {{spec: {draw(st.one_of(st.just(pod_spec), n))}}}, replicas: {draw(n)}}}"
    return f"apiVersion: {api}\nkind: {kind}\nmetadata: {{name: {draw(n)}, annotations: {draw(n)}}}\n{body}\n"


manifest_files = st.lists(st.one_of(kubernetes_documents(), hostile_nodes.map(lambda t: t + "\n")), min_size=1, max_size=3).map(
    lambda docs: "---\n".join(docs)
)
