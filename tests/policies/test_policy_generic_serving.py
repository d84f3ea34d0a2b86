"""Generic rows on model-server containers (G3 G4 G8 G10 G11 G13): compliant fixture, one mutation per case."""

from policy_fixtures import DEPLOYMENT_TYPE, deployment_props, isvc, isvc_props, messages, resource, vllm_container

from policies.k8s_generic import (
    gpu_image_pull_policy,
    gpu_memory_request_equals_limit,
    gpu_request_equals_limit,
    serving_memory_limit,
    serving_readiness_probe,
    serving_resource_requests,
)
from policies.registry import evaluate

LABEL = "container kserve-container"
POLICIES = (
    gpu_image_pull_policy,
    gpu_memory_request_equals_limit,
    gpu_request_equals_limit,
    serving_memory_limit,
    serving_readiness_probe,
    serving_resource_requests,
)


def test_compliant_fixture_passes_each():
    for module in POLICIES:
        assert messages(module.POLICY, isvc()) == [], module.POLICY.name
        assert messages(module.POLICY, resource(DEPLOYMENT_TYPE, deployment_props())) == [], module.POLICY.name


def mutated(mutate):
    props = isvc_props()
    mutate(vllm_container(props))
    return isvc(props)


def test_readiness_missing():
    props = deployment_props()
    props["spec"]["template"]["spec"]["containers"][0].pop("readinessProbe")
    # The fixture's startupProbe and livenessProbe leave only the liveness window (advice, tests/policies/
    # test_policy_precision_forms.py); without them the server takes traffic before its model loads.
    (found,) = messages(serving_readiness_probe.POLICY, resource(DEPLOYMENT_TYPE, props))
    assert found.endswith(
        ": no readinessProbe on this vllm server: its startupProbe holds traffic until it answers, but "
        "after the engine fails it keeps receiving requests until the livenessProbe restarts it; "
        "probe GET /health (port 8000 unless moved)"
    )
    for probe in ("startupProbe", "livenessProbe"):
        props["spec"]["template"]["spec"]["containers"][0].pop(probe)
    (found,) = messages(serving_readiness_probe.POLICY, resource(DEPLOYMENT_TYPE, props))
    assert found.endswith(
        ": no readinessProbe on this vllm server, so it receives requests before the model is loaded and "
        "after the engine dies; probe GET /health (port 8000 unless moved)"
    )
    # KServe gives an InferenceService's kserve-container a TCP readinessProbe itself (policies/operator_defaults.py).
    assert messages(serving_readiness_probe.POLICY, mutated(lambda c: c.pop("readinessProbe"))) == []


def test_readiness_of_an_sglang_server_and_a_sidecar():
    props = deployment_props()
    spec = props["spec"]["template"]["spec"]
    spec["containers"] = [
        {"name": "sgl", "image": "lmsysorg/sglang:v0.4.6", "command": ["python3", "-m", "sglang.launch_server"]},
        {"name": "proxy", "image": "envoyproxy/envoy:v1.31.0"},
    ]
    assert messages(serving_readiness_probe.POLICY, resource(DEPLOYMENT_TYPE, props)) == [
        "container sgl: no readinessProbe on this sglang server, so it receives requests before the model is loaded "
        "and after the engine dies; probe GET /health_generate (port 30000 unless moved)"
    ]


def test_memory_limit_missing():
    # KServe's defaulter fills the predictor container's missing memory limit with 2Gi (brief engines48 item 4:
    # kserve v0.20.0 predictor_custom.go:65-73, charts/kserve-resources/values.yaml:88-95): the advice names it.
    (message,) = messages(serving_memory_limit.POLICY, mutated(lambda c: c["resources"]["limits"].pop("memory")))
    assert message.startswith(f"{LABEL}: no resources.limits.memory of its own, so this vllm server on a GPU gets ")
    assert "limits.memory 2Gi (with the memory KServe's defaulter fills in" in message
    deployment = resource(DEPLOYMENT_TYPE, deployment_props())
    deployment.props["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"].pop("memory")
    assert messages(serving_memory_limit.POLICY, deployment) == [
        f"{LABEL}: no resources.limits.memory on this vllm server; host memory for weight loading, /dev/shm and "
        "swap space is then unbounded and the node's other pods pay for it; set a memory limit"
    ]


def test_requests_missing():
    def drop(c):
        c["resources"]["requests"].pop("memory")
        c["resources"]["limits"].pop("memory")

    # On the InferenceService KServe's defaulter fills the memory request (2Gi): only a plain workload lacks one.
    assert messages(serving_resource_requests.POLICY, mutated(drop)) == []
    deployment = resource(DEPLOYMENT_TYPE, deployment_props())
    drop(deployment.props["spec"]["template"]["spec"]["containers"][0])
    found = messages(serving_resource_requests.POLICY, deployment)
    assert found == [
        f"{LABEL}: no memory request on this vllm server, so Karpenter sizes the node and the scheduler packs it "
        "as if it needed none; request what the engine uses besides the GPU"
    ]
    assert [v.enforcement for v in evaluate([deployment], policies=[serving_resource_requests.POLICY])] == ["advisory"]


def test_a_missing_cpu_request_beside_a_memory_request_is_advice():
    # Set 12: raphideb/llm-k8s setup-llama-k8s/manifests/models/gemma-2-9b-it-q4-k-m-deployment.yaml (llama.cpp,
    # memory 8Gi requested, no cpu) was a wrong blocking finding: CPU is compressible, the server is throttled.
    def drop(c):
        c["resources"]["requests"].pop("cpu")

    found = messages(serving_resource_requests.POLICY, mutated(drop))
    assert found == [
        f"{LABEL}: no cpu request on this vllm server, so Karpenter sizes the node and the scheduler packs it as if it "
        f"needed none; request what the engine uses besides the GPU (advisory: memory is requested, and a server short "
        f"of CPU is throttled, not killed)"
    ]
    assert [v.enforcement for v in evaluate([mutated(drop)], policies=[serving_resource_requests.POLICY])] == ["advisory"]


def test_a_limit_counts_as_the_request():
    def limit_only(c):
        c["resources"]["requests"].pop("cpu")
        c["resources"]["limits"]["cpu"] = "8"

    assert messages(serving_resource_requests.POLICY, mutated(limit_only)) == []


def test_burstable_memory_in_a_gpu_pod():
    assert messages(
        gpu_memory_request_equals_limit.POLICY, mutated(lambda c: c["resources"]["requests"].update(memory="32Gi"))
    ) == [
        f"{LABEL}: memory request 32Gi differs from its limit 48Gi in a GPU pod, which makes it Burstable and an early "
        f"eviction candidate under node memory pressure; its Memory-medium emptyDir dshm (sizeLimit 8Gi) at /dev/shm "
        f"is charged to the same memory, so shared tensors lift its usage further above the request; request what "
        f"you limit"
    ]


def test_burstable_memory_without_gpu_is_fine():
    def cpu_only(c):
        c["resources"]["requests"].update(memory="32Gi")
        c["resources"]["requests"].pop("nvidia.com/gpu")
        c["resources"]["limits"].pop("nvidia.com/gpu")

    assert messages(gpu_memory_request_equals_limit.POLICY, mutated(cpu_only)) == []


def test_gpu_request_differs_from_limit():
    assert messages(
        gpu_request_equals_limit.POLICY, mutated(lambda c: c["resources"]["requests"].update({"nvidia.com/gpu": "2"}))
    ) == [
        f"{LABEL}: resources.requests nvidia.com/gpu is 2 but the limit is 1; GPUs cannot be overcommitted, so the API "
        f"server rejects the pod"
    ]


def test_gpu_request_without_limit():
    assert messages(gpu_request_equals_limit.POLICY, mutated(lambda c: c["resources"]["limits"].pop("nvidia.com/gpu"))) == [
        f"{LABEL}: resources.requests nvidia.com/gpu is set without a limit; the API server rejects extended resources "
        f"that are requested but not limited"
    ]


def test_pull_always_on_a_gpu_server():
    assert messages(gpu_image_pull_policy.POLICY, mutated(lambda c: c.update(imagePullPolicy="Always"))) == [
        f"{LABEL}: imagePullPolicy Always re-resolves the multi-GB serving image at every start, so cold starts wait on "
        f"the registry; pin the tag or digest and use IfNotPresent"
    ]
