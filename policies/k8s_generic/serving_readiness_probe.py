"""G4: a model server needs a readinessProbe.

Without one, the pod joins the Service as soon as the container starts, minutes before the
engine has loaded its weights, and it stays there after the engine dies: vLLM's `/health`
returns 503 once the engine is gone, but nothing asks it.
"""

from __future__ import annotations

from policies.framework import Policy, Resource
from policies.kube import WORKLOAD_TYPES
from policies.operator_defaults import supplied
from policies.reading.serving import engine_row, model_servers, takes_requests


def _check(resource: Resource, config: dict) -> list[str]:
    messages = []
    for server in model_servers(resource):
        if server.engine == "kserve":
            continue  # the ServingRuntime supplies the probes of a predictor `model`
        if not takes_requests(resource, server.path, server.container):
            continue  # a rank of an engine its group's leader fronts (LeaderWorkerSet worker, vLLM --headless)
        if supplied(resource, server.path, server.podspec, server.container, "readinessProbe"):
            continue  # the operator gives the pod one (KubeRay, Knative: policies/operator_defaults.py)
        if not isinstance(server.container.get("readinessProbe"), dict):
            # The engine's own readiness endpoint and port (components/serving_engines.toml readiness, port).
            row = engine_row(server.engine)
            probe = f"probe GET {row.readiness} (port {row.port} unless moved)" if row else "probe its health endpoint"
            messages.append(
                f"{server.label}: no readinessProbe on this {server.engine} server, so it receives "
                f"requests before the model is loaded and after the engine dies; {probe}"
            )
    return messages


POLICY = Policy(
    name="serving-readiness-probe",
    description="Every model-server container (vLLM, SGLang, TGI, Triton, NIM) must have a readinessProbe.",
    catalog="G4",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Add `readinessProbe: {httpGet: {path: /health, port: <server port>}, periodSeconds: 5, failureThreshold: 3}` "
        "to the model-server container (SGLang: /health_generate or /health; TGI: /health; Triton: /v2/health/ready)."
    ),
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    operator_fills="a readiness probe",
    rationale=(
        "Kubernetes sends a pod traffic once it is Ready; with no readinessProbe that is as soon as the container "
        "runs (https://kubernetes.io/docs/concepts/configuration/liveness-readiness-startup-probes/). An LLM server "
        "needs minutes to download and load its weights and answers nothing meanwhile, and after an engine failure "
        "vLLM's /health returns 503 while the process stays up (https://docs.vllm.ai/en/latest/serving/openai_compatible_server.html). "
        "Polaris, kube-linter, Checkov and Kyverno all have this check; here it applies to the serving container only."
    ),
)
