"""The KubeRay operator as a pinned Helm release (plain data for helm.v3.Release)."""

from __future__ import annotations

from typing import Any

from ..config import KubeRayConfig
from ..facts import KUBERAY_CHART_VERSION

# ray-project/kuberay v1.7.0, helm-chart/kuberay-operator: chart 1.7.0 (image quay.io/kuberay/operator:v1.7.0),
# installed from the project's Helm repository; the same tag as the ray.io CRDs we render against.
CHART = "kuberay-operator"
REPOSITORY = "https://ray-project.github.io/kuberay-helm/"
RELEASE_NAME = "kuberay-operator"


def operator_values() -> dict[str, Any]:
    """Values of the chart: its defaults, with room for the reconcile loop.

    The chart limits the operator to 100m CPU; every RayCluster's pods are reconciled by it, and a
    throttled operator delays a head restart. Its memory limit stays (the chart's comment: about
    500 MB for 500 Ray pods).
    """
    return {
        "replicas": 1,
        "leaderElectionEnabled": True,
        "resources": {"limits": {"cpu": "500m", "memory": "512Mi"}},
    }


def operator_release(cfg: KubeRayConfig) -> dict[str, Any]:
    """The release: chart, pinned version, repository, namespace and values."""
    return {
        "name": RELEASE_NAME,
        "chart": CHART,
        "version": KUBERAY_CHART_VERSION,
        "repository": REPOSITORY,
        "namespace": cfg.namespace,
        "values": operator_values(),
        # Its crds/ are Pulumi resources of their own (builders/chart_crds.py): Helm never upgrades crds/.
        "skipCrds": True,
    }
