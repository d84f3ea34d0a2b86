"""S16 llm-startup-probe-budget: one compliant fixture, one mutation per case."""

from policy_fixtures import isvc, isvc_props, messages, vllm_container

from policies.registry import evaluate
from policies.vllm.startup_probe_budget import POLICY

LABEL = "container kserve-container"


def without(*probes):
    props = isvc_props()
    for probe in probes:
        vllm_container(props).pop(probe)
    return props


def test_compliant_inference_service_passes():
    assert messages(POLICY, isvc()) == []


def test_no_startup_probe_and_no_liveness_probe():
    assert messages(POLICY, isvc(without("startupProbe", "livenessProbe"))) == [
        f"{LABEL}: no startupProbe; vLLM serves nothing until the model is downloaded, loaded and compiled, "
        f"so add a startupProbe on GET /health with a budget of at least 600s"
    ]


def test_liveness_without_startup_probe():
    assert messages(POLICY, isvc(without("startupProbe"))) == [
        f"{LABEL}: livenessProbe without a startupProbe restarts the pod while vLLM is still loading the "
        f"model; add a startupProbe on GET /health with a budget of at least 600s"
    ]


def test_short_budget():
    props = isvc_props()
    vllm_container(props)["startupProbe"]["failureThreshold"] = 30.0
    assert messages(POLICY, isvc(props)) == [
        f"{LABEL}: startupProbe budget is 300s (initialDelaySeconds 0 + failureThreshold 30 × periodSeconds "
        f"10), below the minimum 600s for model download, weight load and compile (a start this fast is possible)"
    ]
    # Above the fastest load any server makes of the model (LOAD_FLOOR_SECONDS plus its checkpoint at the fastest
    # measured load, ../shared/reference/cold_start.md 4.7), whether it fits depends on storage: advice.
    assert [v.enforcement for v in evaluate([isvc(props)], None, policies=[POLICY])] == ["advisory"]


def test_kubernetes_defaults_fill_unset_probe_fields():
    props = isvc_props()
    vllm_container(props)["startupProbe"] = {"httpGet": {"path": "/health", "port": 8080.0}}
    assert messages(POLICY, isvc(props)) == [
        f"{LABEL}: startupProbe budget is 30s (initialDelaySeconds 0 + failureThreshold 3 × periodSeconds "
        f"10), below the minimum 600s for model download, weight load and compile"
    ]
    # Below any model server's load and compile (LOAD_FLOOR_SECONDS): proven, it blocks.
    assert [v.enforcement for v in evaluate([isvc(props)], None, policies=[POLICY])] == ["mandatory"]


def test_initial_delay_counts_towards_the_budget():
    props = isvc_props()
    probe = vllm_container(props)["startupProbe"]
    probe["failureThreshold"] = 30.0
    probe["initialDelaySeconds"] = 300.0
    assert messages(POLICY, isvc(props)) == []


def test_readiness_is_left_to_serving_readiness_probe():
    assert messages(POLICY, isvc(without("readinessProbe"))) == []


def test_config_raises_the_minimum_budget():
    assert messages(POLICY, isvc(), config={"minBudgetSeconds": 1200}) == [
        f"{LABEL}: startupProbe budget is 900s (initialDelaySeconds 0 + failureThreshold 90 × periodSeconds "
        f"10), below the minimum 1200s for model download, weight load and compile (a start this fast is possible)"
    ]


def test_serving_runtime_model_spec_is_left_to_the_runtime():
    props = isvc_props()
    predictor = props["spec"]["predictor"]
    predictor["containers"] = []
    predictor["model"] = {"modelFormat": {"name": "vLLM"}, "args": ["--max-model-len=8192"]}
    assert messages(POLICY, isvc(props)) == []


def test_a_headless_rank_needs_no_probe_but_a_liveness_probe_still_needs_a_startup_probe():
    """`vllm serve --headless` starts engine ranks and no API server (vllm vllm/entrypoints/cli/serve.py at 00a5fdd2):
    with no probe at all nothing restarts it mid-load, so S16 and G4 stay silent; a livenessProbe alone still kills it."""
    from policy_fixtures import deployment_props, resource

    from policies.k8s_generic.serving_readiness_probe import POLICY as READINESS

    props = deployment_props()
    container = props["spec"]["template"]["spec"]["containers"][0]
    for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
        container.pop(probe, None)
    container["args"] = [*container.get("args", []), "--headless"]
    headless = resource("kubernetes:apps/v1:Deployment", props)
    assert messages(POLICY, headless) == [] and messages(READINESS, headless) == []
    container["livenessProbe"] = {"httpGet": {"path": "/health", "port": 8000}}
    assert [m.split(";")[0] for m in messages(POLICY, headless)] == [
        "container kserve-container: livenessProbe without a startupProbe restarts the pod while vLLM is still loading the model"
    ]
    container["args"].remove("--headless")
    del container["livenessProbe"]
    assert len(messages(READINESS, headless)) == 1 and len(messages(POLICY, headless)) == 1


def test_a_liveness_window_blocks_only_where_no_load_fits_it():
    """Session 24 review F6: an 8B model from a local volume under a 330 s liveness window may well load in time; the
    600 s minimum is an assumption about this model, so that is advice. Kubernetes' default window (30 s) and anything
    under LOAD_FLOOR_SECONDS kill every model server's start: that blocks."""
    from policies.registry import evaluate
    from policies.vllm.startup_probe_budget import LOAD_FLOOR_SECONDS

    def levels(liveness: dict) -> list[str]:
        props = without("startupProbe")
        vllm_container(props)["livenessProbe"] = {"httpGet": {"path": "/health", "port": 8000}, **liveness}
        return [v.enforcement for v in evaluate([isvc(props)], policies=[POLICY])]

    assert LOAD_FLOOR_SECONDS == 60
    assert levels({}) == ["mandatory"]  # 0 + 3 x 10 s
    assert levels({"initialDelaySeconds": 300, "periodSeconds": 10, "failureThreshold": 3}) == ["advisory"]
    assert levels({"initialDelaySeconds": 30, "periodSeconds": 10, "failureThreshold": 2}) == ["mandatory"]  # 50 s
