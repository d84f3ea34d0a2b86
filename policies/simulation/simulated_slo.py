"""Simulated SLO: under the traffic profile a model declares (slo.traffic), its simulated P95 TTFT, 504 and 503 rates stay within its SLO.

A stack policy over simulation results, which only the offline plan has: for each model whose
stack entry declares ``slo.traffic``, `python -m stacks plan` runs the discrete-event simulation of
the planned stack under that profile (components/simulate/, as `python -m stacks simulate` does,
derived settings only, seed 0) and hands this policy one ``llm-serving:simulate:Result``
resource per model. The Pulumi CLI's pack never sees such resources, so the policy is not
registered there (policies/registry.py) and does nothing under `pulumi preview`.
"""

from __future__ import annotations

from policies.framework import Policy, Resource

RESULT_TYPE = "llm-serving:simulate:Result"


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    findings = []
    for r in resources:
        if r.type != RESULT_TYPE:
            continue
        p = r.props
        requests = p.get("requests") or 0
        where = f"under {p.get('profile')} ({requests} requests simulated)"
        if p.get("ttftP95Seconds") is not None and p["ttftP95Seconds"] > p["ttftSloSeconds"]:
            findings.append(
                (
                    r.name,
                    f"{r.name}: simulated P95 TTFT {p['ttftP95Seconds']:.2f}s exceeds slo.timeToFirstTokenSeconds "
                    f"{p['ttftSloSeconds']:g}s {where}",
                )
            )
        for key, limit_key, what in (
            ("errors504", "max504Rate", "504s (timeouts)"),
            ("errors503", "max503Rate", "503s (refused)"),
        ):
            rate = (p.get(key) or 0) / requests if requests else 0.0
            if rate > config[limit_key]:
                findings.append(
                    (r.name, f"{r.name}: {p.get(key)} {what} = {rate:.2%} of requests, above {config[limit_key]:.2%} {where}")
                )
    return findings


POLICY = Policy(
    name="llm-simulated-slo",
    description="Under the traffic profile a model declares in slo.traffic, its simulated P95 TTFT, 504 and 503 rates must stay within its SLO.",
    rationale="The plan derives replicas, queue, HPA behavior, buffers and timeouts from a typical request; a declared traffic "
    "profile (spikes, long prompts) can still overwhelm them while nodes provision and pods load weights. The "
    "simulation (docs/simulate.md) shows it before deployment instead of as 504s in production.",
    # A companion of S8 (llm-hpa-behavior): whether the scaling behaviour holds the SLO under a declared load.
    catalog="S8",
    severity="medium",
    enforcement="advisory",
    remediation_steps="Run `python -m stacks simulate STACK --traffic PROFILE` to see when it happens (replicas, queue and TTFT "
    "over time), then raise replicas.min, add gpuPools[].buffer replicas for the model's pool, raise "
    "traffic.typicalRequestSeconds to what the profile's requests take, or relax the SLO.",
    config_schema={
        "max504Rate": {
            "type": "number",
            "minimum": 0,
            "maximum": 1,
            "default": 0.001,
            "description": "Largest share of requests that may time out (504). Default 0.001.",
        },
        "max503Rate": {
            "type": "number",
            "minimum": 0,
            "maximum": 1,
            "default": 0.01,
            "description": "Largest share of requests that may be refused (503 after the retry). Default 0.01.",
        },
    },
    check_stack=_check,
)
