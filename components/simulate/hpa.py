"""The HorizontalPodAutoscaler's arithmetic: the recommendation from a metric, then the behavior's window and policies.

Follows kube-controller-manager's replica calculator and ``normalizeDesiredReplicasWithBehaviors``
(k8s.io/kubernetes pkg/controller/podautoscaler): no change within the tolerance of the target; a
scale-down takes the highest recommendation of its stabilization window; each direction is bounded
by its Pods/Percent policies over their periods, combined by ``selectPolicy``.
"""

from __future__ import annotations

import math
from collections import deque
from typing import Sequence

from .settings import Rules, Scaling


def recommend(values: Sequence[float], current: int, sc: Scaling) -> int:
    """Desired replicas from the ready pods' metric values (before the behavior), within min/max."""
    total = sum(values)
    # Pods without a metric yet count as 0 when the ratio says scale up (the HPA's missing-pods rule).
    counted = max(len(values), current)
    ratio = total / (sc.target * counted)
    desired = current if abs(ratio - 1) <= sc.tolerance else math.ceil(total / sc.target - 1e-9)
    return max(sc.min_replicas, min(sc.max_replicas, desired))


def stabilized_down(recommendations: deque[tuple[float, int]], now: float, sc: Scaling, current: int) -> int:
    """The highest recommendation within the scale-down window (older ones are dropped), at most ``current``."""
    window = sc.down.stabilization_seconds
    while recommendations and recommendations[0][0] < now - max(window, sc.up.stabilization_seconds):
        recommendations.popleft()
    return min(current, max(v for t, v in recommendations if t >= now - window))


def _changed(changes: Sequence[tuple[float, int]], period: int, now: float, up: bool) -> int:
    """Replicas added (up) or removed (down, negative) within the last ``period`` seconds."""
    return sum(d for t, d in changes if t > now - period and (d > 0) == up)


def limit_up(current: int, desired: int, rules: Rules, changes: Sequence[tuple[float, int]], now: float) -> int:
    """``desired`` bounded by the scale-up policies."""
    if rules.select == "Disabled":
        return current
    if not rules.policies:
        return desired
    limits = []
    for p in rules.policies:
        start = current - _changed(changes, p.period_seconds, now, True)
        limits.append(start + p.value if p.type == "Pods" else math.ceil(start * (1 + p.value / 100)))
    limit = max(limits) if rules.select == "Max" else min(limits)
    return min(desired, limit)


def limit_down(current: int, desired: int, rules: Rules, changes: Sequence[tuple[float, int]], now: float) -> int:
    """``desired`` bounded by the scale-down policies."""
    if rules.select == "Disabled":
        return current
    limits = []
    for p in rules.policies:
        start = current - _changed(changes, p.period_seconds, now, False)
        limits.append(start - p.value if p.type == "Pods" else int(start * (1 - p.value / 100)))
    limit = min(limits) if rules.select == "Max" else max(limits)
    return max(desired, limit)
