"""S10 judged against an assumed longest request is advice; against the manifest's own, it blocks.

The longest request a pod must drain is the manifest's where it states one (a KServe spec.predictor.timeout, vLLM's
--shutdown-timeout); otherwise it is the maxRequestSeconds setting (300 s). The labelling method of the held-out sets
(a careful reviewer's) calls a missing drain advisory unless the file makes it worse, and the manifests-v2 and set-3
findings on third-party pods that state nothing (GKE's Gemma Deployments, Ollama's example) were all of this kind.
"""

from __future__ import annotations

from policy_fixtures import DEPLOYMENT_TYPE, deployment_props, resource, set_arg

from policies.registry import evaluate
from policies.timeouts import termination_drains_streams as s10


def _levels(props: dict) -> set[str]:
    found = evaluate([resource(DEPLOYMENT_TYPE, props)], policies=[s10.POLICY])
    return {v.enforcement for v in found}


def _bare(props: dict) -> dict:
    """The compliant Deployment with its drain taken away: no preStop, no --shutdown-timeout, the 30 s default grace."""
    pod = props["spec"]["template"]["spec"]
    pod.pop("terminationGracePeriodSeconds", None)
    container = pod["containers"][0]
    container.pop("lifecycle", None)
    set_arg(container, "shutdown-timeout", None)
    return props


def test_the_compliant_deployment_drains():
    assert _levels(deployment_props()) == set()


def test_a_pod_that_states_no_drain_gets_advice():
    props = _bare(deployment_props())
    found = evaluate([resource(DEPLOYMENT_TYPE, props)], policies=[s10.POLICY])
    assert found and {v.enforcement for v in found} == {"advisory"}
    assert any("no preStop hook" in v.message for v in found)


def test_a_stated_longest_request_makes_the_same_findings_block():
    props = _bare(deployment_props())
    set_arg(props["spec"]["template"]["spec"]["containers"][0], "shutdown-timeout", "600")
    found = evaluate([resource(DEPLOYMENT_TYPE, props)], policies=[s10.POLICY])
    assert {v.enforcement for v in found} == {"mandatory"}
    assert any("no preStop hook" in v.message for v in found)
    assert any("terminationGracePeriodSeconds 30 < preStop 0s + longest request 600s" in v.message for v in found)
