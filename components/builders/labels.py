"""Kubernetes recommended labels (app.kubernetes.io/*) shared by every object the library renders."""

from __future__ import annotations

import re
from typing import Optional

PART_OF = "llm-serving"

# Names the policy pack reads back from rendered objects. They live here, in a module that imports
# nothing heavy, so that `python -m policies check` does not load the config models and pydantic.
# The capacity plan's verdict, stamped on each InferenceService (builders/vllm_service.py).
CAPACITY_ANNOTATION = "llm-serving.io/capacity-plan"
# The catalogue GPU the plan sized (exact where Karpenter's GPU-name label names a family).
GPU_ANNOTATION = "llm-serving.io/gpu"
# Karpenter's well-known node label of the GPU model (builders/karpenter.py selects on it).
GPU_NAME_LABEL = "karpenter.k8s.aws/instance-gpu-name"
# pulumi-kubernetes skips its readiness await for an object that carries this annotation with the
# value "true" (provider/pkg/metadata/annotations.go:33 AnnotationSkipAwait; overrides.go:39-41
# SkipAwaitLogic; await.go:1100 newLegacyReadyCondition returns at once; v4.32.0, commit a03ff6b).
# The kinds it would otherwise wait on are those with an awaiter (provider/pkg/await/awaiters.go:184, `awaiters`):
# Deployment, StatefulSet, DaemonSet, Job, Pod, Service, Ingress, PersistentVolume(Claim) (up to
# 10 minutes for a Deployment or DaemonSet to be ready). Put on workloads whose pods wait for
# capacity that may never come (the GPU buffer's placeholders, the image pre-pull DaemonSet).
SKIP_AWAIT = {"pulumi.com/skipAwait": "true"}
# Kubernetes label values: at most 63 characters, alphanumerics with '-', '_' or '.' inside.
_LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")


def recommended_labels(name: str, component: str, version: Optional[str] = None) -> dict[str, str]:
    """The app.kubernetes.io/* labels for an object of ``component`` belonging to ``name``."""
    labels = {
        "app.kubernetes.io/name": name,
        "app.kubernetes.io/instance": name,
        "app.kubernetes.io/component": component,
        "app.kubernetes.io/part-of": PART_OF,
        "app.kubernetes.io/managed-by": "pulumi",
    }
    if version and len(version) <= 63 and _LABEL_VALUE.match(version):
        labels["app.kubernetes.io/version"] = version
    return labels
