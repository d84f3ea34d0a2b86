"""What the plan report states about controllers' behaviour for one model: rows in its "derived" list.

* Envoy's circuit breakers (a DestinationRule's connectionPool) count per Envoy, so with several
  ingress-gateway replicas each gets the model's total divided among them (builders/ingress.py).
* A multi-node engine's NCCL transport: EFA when its pods request EFA interfaces (the
  aws-efa-k8s-device-plugin serves them), else TCP sockets on the pod interface.
"""

from __future__ import annotations

from typing import Any

from ..capacity.plan import ServingPlan
from ..config import ModelConfig, StackConfig
from .serving_backend import serving_backend


def controller_notes(m: ModelConfig, plan: ServingPlan, cfg: StackConfig) -> list[dict[str, Any]]:
    """Rows {setting, value, reason} for the model's report entry."""
    from .ingress import connection_limits

    rows: list[dict[str, Any]] = []
    if cfg.ingress is not None and cfg.ingress.routing == "istio":
        n = cfg.ingress.gateway_replica_count(cfg.environment)
        active, pending = connection_limits(m, plan, n)
        total, total_pending = connection_limits(m, plan, 1)
        rows.append(
            {
                "setting": "DestinationRule connectionPool http2MaxRequests / http1MaxPendingRequests (per gateway replica)",
                "value": f"{active} / {pending}",
                "reason": f"the model's {total} active / {total_pending} pending (batch + queue x maxReplicas) divided among "
                f"{n} ingress-gateway replica(s), rounded down: Envoy counts these limits per proxy, not for the gateway as a whole",
            }
        )
    # What the model's back-end adds (a multi-node engine's NCCL transport): components/backends/.
    rows.extend(serving_backend(m).notes(m, plan))
    return rows
