"""What a pod's probes allow, read the one way the derivations (components/derive/kserve.py) and the policy pack
(policies/derived/progress_deadline.py) both need. Imports nothing, so the pack's start-up does not pay for the
derivations to read it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional


def startup_budget(container: Mapping[str, Any]) -> Optional[int]:
    """How long the kubelet lets the container start: the startup probe's initialDelaySeconds + periodSeconds x
    failureThreshold, with the API's defaults (0, 10, 3); None without a probe or when a field is not a number (a
    third-party pod's may hold anything: the pack reads them with it too)."""
    probe = container.get("startupProbe")
    if not isinstance(probe, Mapping) or not probe:
        return None
    try:
        return int(probe.get("initialDelaySeconds", 0)) + int(probe.get("periodSeconds", 10)) * int(
            probe.get("failureThreshold", 3)
        )
    except (TypeError, ValueError):
        return None
