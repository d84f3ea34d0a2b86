"""Which field of a pod or container each catalogue row judges: where a rendered chart's finding is fixed.

A finding on an object rendered from a chart's template (policies/reading/helm_chart.py) moves to the values.yaml
key that produced the field it judges (policies/value_paths.py): `resources: {}` for G8's missing requests,
`image.tag: latest` for G1, `livenessProbe.timeoutSeconds: 1` for G49, as reviewers and labellers file them (spent
set 124: castai/helm-charts@daa46281 charts/castai-hosted-model/child-charts/vllm/values.yaml, Lintasarta/vllm-helm
@1a4ef6c5 values.yaml). One row per catalogue id (policies/catalog.py); an id not here keeps the template's location:
G32 among them, which judges how a Service is published (TLS, auth) more than its `type` (both labellers of spent set
124 filed Lintasarta's `type: {{ .Values.service.type }}` LoadBalancer on templates/service.yaml).

Each field: where it sits (``container``, ``pod``: the pod spec, or ``object``: the object's spec), its key, a pattern the finding's message must
match for the field to be the one judged ("" for any), and the values keys preferred when several values paths
produced the field (an image written from ``image.repository`` and ``image.tag``: G1 judges the tag).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Judged:
    """One field a catalogue row judges."""

    scope: str  # "container" | "pod" | "object" (the object's own spec: a Service's, an HPA's)
    key: str
    hint: str = ""  # a regular expression the message must match (re.search), "" for any message
    prefer: tuple[str, ...] = ()
    # Keys of which the field must hold the one the message names first, when it names any: G28's `runAsUser: 0` is
    # the pod's securityContext's when the container's holds only capabilities (the setting is fixed where it is).
    holds: tuple[str, ...] = ()


_IMAGE_TAG = Judged("container", "image", "", ("tag", "version", "imageTag"))
_RESOURCES = (Judged("container", "resources"),)
_ARGS = (Judged("container", "args"), Judged("container", "command"))
_PROBES = (
    Judged("container", "livenessProbe", "(?i)liveness"),
    Judged("container", "readinessProbe", "(?i)readiness"),
    Judged("container", "startupProbe", "(?i)startup"),
)
_PLACEMENT = (
    Judged("pod", "tolerations", "(?i)tolerat"),
    Judged("pod", "nodeSelector", "(?i)nodeSelector|affinity|GPU type"),
    Judged("pod", "affinity", "(?i)nodeSelector|affinity|GPU type"),
)

_NODE_CHOICE = (Judged("pod", "nodeSelector"), Judged("pod", "affinity"))
_USER = ("runAsUser", "runAsNonRoot")
_SECURITY = (Judged("container", "securityContext", holds=_USER), Judged("pod", "securityContext", holds=_USER))

JUDGED: dict[str, tuple[Judged, ...]] = {
    "G1": (_IMAGE_TAG,),
    "G3": (Judged("container", "imagePullPolicy"),),
    "G4": (Judged("container", "readinessProbe"),),
    "G5": (Judged("container", "livenessProbe"),),
    "G8": _RESOURCES,
    "G9": _RESOURCES,
    "G10": _RESOURCES,
    "G11": _RESOURCES,
    "G12": _RESOURCES,
    "G13": _RESOURCES,
    "G49": _PROBES,
    "G15": (Judged("object", "minReplicas"),),
    "G28": _SECURITY,
    "G31": (Judged("pod", "volumes"),),
    "G36": (Judged("pod", "volumes"), *_RESOURCES),
    "G53": (Judged("container", "env"),),
    "G103": _NODE_CHOICE,
    "G76": _PROBES,
    "S1": _ARGS,
    "S2": _ARGS,
    "S15": _PLACEMENT,
    "S16": (Judged("container", "startupProbe"),),
    "S19": _RESOURCES,
    "S20": (Judged("object", "strategy"),),
    "S17": (*_ARGS, Judged("container", "env")),
    "S21": _ARGS,
    "S42": _NODE_CHOICE,
    "S22": _ARGS,
    "S23": _ARGS,
    "S24": _ARGS,
    "S25": _ARGS,
}
