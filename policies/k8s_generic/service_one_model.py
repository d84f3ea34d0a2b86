"""G56 service-one-model: a Service in front of model servers selects the pods of workloads serving different models.

kube-proxy spreads a Service's connections over all its ready endpoints with no regard for the request
(https://kubernetes.io/docs/reference/networking/virtual-ips/), so a selector that several model servers' pods carry
sends each request to any of the models: a vLLM that does not serve the model a request names answers 404 (the model
does not exist), an engine that ignores the name (TGI's Messages API) answers with another model. The pods' labels are
read as their controllers write them (policies/reading/controller_pod_labels.py), the models as the engine readers do
(vLLM's served model, the engine table's model setting, a Hub id in a generic server's flags or environment).

Judged only where the selector surely selects (every key carried with its value) two or more workloads of the
Service's namespace that each name exactly one model, and those models differ. Advice: a workload may be kept at zero
replicas and scaled up in place of another (spent set 113 googleforgames/GenAI-quickstart@46ee86d6
genai/language/huggingface_tgi/k8s.yaml: Service huggingface-tgi-api selects ``name: huggingface-tgi-api``, carried by
the Mistral-7B CPU Deployment and the two Mixtral-8x7B GPU Deployments).
"""

from __future__ import annotations

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
        for workload in resources:
            if workload is service or not isinstance(workload.props, dict) or namespace_of(workload, "default") != namespace:
                continue
            if not any(_surely(selector, g.labels) for g in pod_groups(workload)):
                continue
            models = models_of(workload)
            if len(models) == 1:
                served[f"{get(workload.props, 'kind')}/{get(workload.props, 'metadata', 'name')}"] = next(iter(models))
        if len({m.lower() for m in served.values()}) < 2:
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
