"""G56 service-one-model: a Service in front of model servers selects the pods of workloads serving different models.

kube-proxy spreads a Service's connections over all its ready endpoints with no regard for the request
(https://kubernetes.io/docs/reference/networking/virtual-ips/), so a selector that several model servers' pods carry
sends each request to any of the models: a vLLM that does not serve the model a request names answers 404 (the model
does not exist), an engine that ignores the name (TGI's Messages API) answers with another model. The pods' labels are
read as their controllers write them (policies/reading/controller_pod_labels.py), the models as the engine readers do
(vLLM's served model, the engine table's model setting, a Hub id in a generic server's flags or environment).

Judged only where the selector surely selects (every key carried with its value) two or more workloads of the
Service's namespace that each name exactly one model, and two of them share no name a client may send: not a served
name (vLLM's or SGLang's --served-model-name, llama.cpp's --alias) and not the model once its owner, case and a
quantised copy's suffix are set aside (meta-llama/Llama-3.1-8B-Instruct and RedHatAI/Meta-Llama-3.1-8B-Instruct-FP8
or bartowski/Meta-Llama-3.1-8B-Instruct-GGUF are one model's replicas). Advice: a workload may be kept at zero
replicas and scaled up in place of another (spent set 113 googleforgames/GenAI-quickstart@46ee86d6
genai/language/huggingface_tgi/k8s.yaml: Service huggingface-tgi-api selects ``name: huggingface-tgi-api``, carried by
the Mistral-7B CPU Deployment and the two Mixtral-8x7B GPU Deployments).
"""

from __future__ import annotations

import re
from typing import Any

from policies.framework import Policy, Resource
from policies.kube import containers, get, pod_specs, split_type
from policies.reading.controller_pod_labels import ANY, Generated, pod_groups
from policies.reading.engines import table_servers
from policies.reading.model_ids import model_id
from policies.reading.run_objects import unrendered
from policies.reading.serving import namespace_of
from policies.reading.vllm_args import served_model, vllm_servers


def models_of(resource: Any) -> set[str]:
    """The models a workload's servers name (literal values only)."""
    found = {served_model(s) for s in vllm_servers(resource)}
    found |= {s.model for s in table_servers(resource)}
    if not any(found):
        for _, podspec in pod_specs(resource):
            for container in containers(podspec):
                named = model_id(container)
                found.add(getattr(named, "model", None) if named is not None else None)
    return {m for m in found if isinstance(m, str) and m and not unrendered(m) and "$" not in m}


# Suffixes a quantised or converted copy of a model adds to its repository name (RedHatAI/...-FP8, bartowski/...-GGUF):
# the same model served from other weights.
_VARIANT = re.compile(
    r"(?:[-_.](?:gguf|fp8|fp8-dynamic|dynamic|awq|gptq|int4|int8|w4a16|w8a8|w8a16|bnb-4bit|4bit|8bit|mlx|hf|exl2|"
    r"quantized(?:\.[a-z0-9-]+)?))+$"
)


def _family(name: str) -> str:
    """A model name without its owner, case, a quantised copy's suffix or Meta's prefix: the model a client means."""
    base = name.strip().rstrip("/").rsplit("/", 1)[-1].lower()
    base = _VARIANT.sub("", base)
    return base.removeprefix("meta-")


def answers_to(resource: Any) -> set[str]:
    """The model names a workload's servers answer or load, as families (_family): vLLM's model and its first served
    name (--served-model-name), a table engine's model and its own served name or alias (SGLang --served-model-name,
    llama.cpp --alias)."""
    names: set[str] = set()
    for server in vllm_servers(resource):
        names |= {served_model(server) or "", str(server.args.get("served-model-name") or "")}
    for one in table_servers(resource):
        names |= {one.model or "", *(str(one.args.get(k) or "") for k in ("served-model-name", "alias", "a"))}
    return {_family(n) for n in names if n and not unrendered(n) and "$" not in n}


def _surely(selector: dict, labels: Any) -> bool:
    return all(
        k in labels and labels[k] is not ANY and not isinstance(labels[k], Generated) and str(labels[k]) == str(v)
        for k, v in selector.items()
    )


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    services = [
        r
        for r in resources
        if split_type(r.type) == ("", "Service") and isinstance(r.props, dict) and not (r.template or r.patch)
    ]
    findings = []
    for service in services:
        selector = get(service.props, "spec", "selector")
        if not isinstance(selector, dict) or not selector or any(unrendered(k) or unrendered(v) for k, v in selector.items()):
            continue
        namespace = namespace_of(service, "default")
        served: dict[str, str] = {}
        names: list[set[str]] = []
        for workload in resources:
            if workload is service or not isinstance(workload.props, dict) or namespace_of(workload, "default") != namespace:
                continue
            if not any(_surely(selector, g.labels) for g in pod_groups(workload)):
                continue
            models = models_of(workload)
            if len(models) == 1:
                served[f"{get(workload.props, 'kind')}/{get(workload.props, 'metadata', 'name')}"] = next(iter(models))
                names.append(answers_to(workload) | {_family(next(iter(models)))})
        # Workloads of one model (a served name they share, or one model's quantised copies) are one model's replicas.
        if len({m.lower() for m in served.values()}) < 2 or not any(a.isdisjoint(b) for a in names for b in names):
            continue
        shown = ", ".join(f"{w} ({m})" for w, m in served.items())
        wanted = ", ".join(f"{k}={v}" for k, v in selector.items())
        findings.append(
            (
                service.name,
                f"spec.selector {wanted} selects the pods of {shown}, which serve different models: the Service spreads "
                f"requests over all of them, so a request reaches any model (404 where the engine checks the model "
                f"name, another model's answer where it does not); give each model its own Service or a label only "
                f"its pods carry",
            )
        )
    return findings


POLICY = Policy(
    name="service-one-model",
    description="A Service's selector does not select the pods of workloads serving different models (advice: one "
    "may be kept at zero replicas).",
    catalog="G56",
    severity="medium",
    enforcement="advisory",
    remediation_steps="Give each model's workload a label of its own (model: mistral-7b) and its own Service, or put a "
    "router that picks the backend by model name in front of them.",
    config_schema={},
    check_stack=_check,
    rationale=(
        "kube-proxy balances a Service's connections over every ready endpoint it selects "
        "(https://kubernetes.io/docs/reference/networking/virtual-ips/), whatever the request names."
    ),
)
