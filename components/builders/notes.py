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


def controller_notes(m: ModelConfig, plan: ServingPlan, cfg: StackConfig) -> list[dict[str, Any]]:
    """Rows {setting, value, reason} for the model's report entry."""
    from .ingress import connection_limits

    rows: list[dict[str, Any]] = []
    if cfg.ingress is not None and cfg.ingress.routing == "istio":
        n = cfg.ingress.gateway_replica_count(cfg.environment)
        active, pending = connection_limits(m, plan, n)
        total, total_pending = connection_limits(m, plan, 1)
        rows.append({
            "setting": "DestinationRule connectionPool http2MaxRequests / http1MaxPendingRequests (per gateway replica)",
            "value": f"{active} / {pending}",
            "reason": f"the model's {total} active / {total_pending} pending (batch + queue x maxReplicas) divided among "
                      f"{n} ingress-gateway replica(s), rounded down: Envoy counts these limits per proxy, not for the gateway as a whole",
        })
    if m.distributed is not None and plan.layout is not None:
        efa = plan.layout.efa_interfaces_per_node if m.distributed.efa else 0
        if efa:
            value = f"EFA ({efa} interfaces per node)"
            reason = ("workers request vpc.amazonaws.com/efa, served by the aws-efa-k8s-device-plugin release; NCCL uses EFA "
                      "through libfabric and the aws-ofi-nccl plugin in the image, and falls back to TCP sockets on "
                      f"{m.distributed.nccl_socket_ifname} where the image has no such plugin")
        else:
            value = f"TCP sockets on {m.distributed.nccl_socket_ifname}"
            reason = ("no EFA requested (distributed.efa false, or the pool's instance types have none): "
                      "NCCL_SOCKET_IFNAME carries the pipeline-parallel traffic")
        rows.append({"setting": "NCCL transport", "value": value, "reason": reason})
    return rows
