"""Replica floors and scale-down windows of serving operators' own autoscalers (issue 32 readers).

Each reader says, for one kind, what the serving-safety autoscaling rules need: the fewest replicas the
controller keeps (S5: no scale to zero) and, where the kind has one, the scale-down window (S8). Facts
read at the pinned tags:

- **KubeAI Model** (``kubeai.org/v1``; substratusai/kubeai v0.21.0 api/k8s/v1/model_types.go): ``minReplicas``
  is an optional int32 with minimum 0 whose zero value applies when it is left out (L97-101, "Note: 0 is a valid
  value"), so a Model without it scales to zero when idle; ``autoscalingDisabled: true`` hands ``replicas`` to
  the user instead (L92-95, L108-110). ``scaleDownDelaySeconds`` defaults to 30 (L118-121).
- **KEDA HTTPScaledObject** (``http.keda.sh/v1alpha1``; kedacore/http-add-on v0.15.0
  operator/apis/http/v1alpha1/httpscaledobject_types.go): ``spec.replicas.min`` "Default 0" (L85-89), so an
  HTTPScaledObject without it scales its target to zero.
- **AIBrix PodAutoscaler** (``autoscaling.aibrix.ai/v1alpha1``; vllm-project/aibrix v0.7.0): ``minReplicas``
  optional, 1 when unset (pkg/controller/podautoscaler/podautoscaler_controller.go:990-993); the scale-down
  window is the annotation ``autoscaling.aibrix.ai/scale-down-cooldown-window`` (pkg/controller/podautoscaler/
  types/annotations.go:49-51, default 300 s at context/context.go:113), in releases before 0.5
  ``kpa.autoscaling.aibrix.ai/scale-down-delay`` (v0.4.0 pkg/controller/podautoscaler/scaler/kpa.go:64-70, default
  30 min at :113); ``autoscaling.aibrix.ai/scale-to-zero: "true"`` lets it scale to zero (annotations.go:53-55).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Optional

from policies.kube import annotations_of, as_dict, as_int, get, split_type

KUBEAI_MODEL = ("kubeai.org", "Model")
HTTP_SCALED_OBJECT = ("http.keda.sh", "HTTPScaledObject")
AIBRIX_AUTOSCALER = ("autoscaling.aibrix.ai", "PodAutoscaler")
NIM_SERVICE = ("apps.nvidia.com", "NIMService")
SCALER_TYPES: tuple[str, ...] = (
    "kubernetes:kubeai.org/v1:Model",
    "kubernetes:http.keda.sh/v1alpha1:HTTPScaledObject",
    "kubernetes:autoscaling.aibrix.ai/v1alpha1:PodAutoscaler",
)
AIBRIX_COOLDOWN = "autoscaling.aibrix.ai/scale-down-cooldown-window"
AIBRIX_KPA_DELAY = "kpa.autoscaling.aibrix.ai/scale-down-delay"
AIBRIX_SCALE_TO_ZERO = "autoscaling.aibrix.ai/scale-to-zero"


@dataclass(frozen=True)
class Floor:
    """The fewest replicas a kind's controller keeps, the field that says so, and whether it was left to the default."""

    kind: str
    minimum: Optional[int]
    field: str
    defaulted: bool


def replica_floor(resource: Any) -> Optional[Floor]:
    """The replica floor of a KubeAI Model, KEDA HTTPScaledObject or AIBrix PodAutoscaler; None for other kinds."""
    group_kind = split_type(resource.type)
    spec = as_dict(get(resource.props, "spec"))
    if group_kind == KUBEAI_MODEL:
        if spec.get("autoscalingDisabled") is True:
            return Floor("Model", as_int(spec.get("replicas")), "spec.replicas", "replicas" not in spec)
        return Floor("Model", as_int(spec.get("minReplicas", 0)), "spec.minReplicas", "minReplicas" not in spec)
    if group_kind == HTTP_SCALED_OBJECT:
        replicas = as_dict(spec.get("replicas"))
        return Floor("HTTPScaledObject", as_int(replicas.get("min", 0)), "spec.replicas.min", "min" not in replicas)
    if group_kind == AIBRIX_AUTOSCALER:
        if str(annotations_of(resource.props).get(AIBRIX_SCALE_TO_ZERO, "")).lower() == "true":
            return Floor("PodAutoscaler", 0, f"metadata.annotations {AIBRIX_SCALE_TO_ZERO}", False)
        return Floor("PodAutoscaler", as_int(spec.get("minReplicas", 1)), "spec.minReplicas", "minReplicas" not in spec)
    return None


def scale_down_window(resource: Any) -> Optional[tuple[str, Any, Optional[float]]]:
    """(field, raw value, seconds) of an AIBrix PodAutoscaler's or KubeAI Model's explicit scale-down window; None
    when the object sets none (its controller's default applies) or is another kind."""
    from policies.reading.route_path import duration_seconds

    group_kind = split_type(resource.type)
    if group_kind == AIBRIX_AUTOSCALER:
        annotations = annotations_of(resource.props)
        for key in (AIBRIX_COOLDOWN, AIBRIX_KPA_DELAY):
            if key in annotations:
                raw = annotations[key]
                return f"metadata.annotations {key}", raw, duration_seconds(raw) if isinstance(raw, str) else None
    # A NIMService's spec.scale.hpa is read as the HPA the NIM operator renders from it (policies/autoscaling/scalers.py
    # embedded_scalers), its behavior with every other HPA's.
    if group_kind == KUBEAI_MODEL:
        raw = get(resource.props, "spec", "scaleDownDelaySeconds")
        if raw is not None:
            seconds = as_int(raw)
            return "spec.scaleDownDelaySeconds", raw, None if seconds is None else float(seconds)
    return None


# KubeAI's scaleDownDelaySeconds when a Model leaves it out (v0.21.0 api/k8s/v1/model_types.go:118-121,
# +kubebuilder:default=30).
KUBEAI_SCALE_DOWN_DEFAULT = 30.0


def kubeai_default_window(resource: Any) -> bool:
    """True for a KubeAI Model on a GPU resource profile that KubeAI autoscales (autoscalingDisabled not true, and
    maxReplicas, unlimited when unset, above minReplicas, 0 when unset: model_types.go:92-110) and that leaves
    scaleDownDelaySeconds to its default of 30 s (fresh set 47: cbtham/kubeai-huaweicloud optimized-models/*.yaml,
    labelled S8 advisory). A CPU profile (``cpu:N``) is left alone: its replica returns in seconds, not minutes."""
    if split_type(resource.type) != KUBEAI_MODEL:
        return False
    spec = as_dict(get(resource.props, "spec"))
    if "scaleDownDelaySeconds" in spec or spec.get("autoscalingDisabled") is True:
        return False
    profile = spec.get("resourceProfile")
    if not isinstance(profile, str) or not profile.strip() or profile.strip().lower().startswith("cpu"):
        return False
    floor, ceiling = as_int(spec.get("minReplicas", 0)), spec.get("maxReplicas")
    if ceiling is None:
        return True
    top = as_int(ceiling)
    return top is not None and floor is not None and top > floor


RAY_SERVICE = ("ray.io", "RayService")
# Ray Serve's AutoscalingConfig: downscale_delay_s defaults to 600.0 s (ray.serve.config.AutoscalingConfig, docs.ray.io
# "ray.serve.config.AutoscalingConfig": "downscale_delay_s: NonNegativeFloat = 600.0"): how long load must stay low
# before Serve removes replicas.
RAY_DOWNSCALE_DELAY = "downscale_delay_s"


def ray_serve_windows(resource: Any) -> list[tuple[str, Any, Optional[float]]]:
    """(field, raw value, seconds) of every explicit downscale_delay_s in a RayService's serveConfigV2 whose deployment
    holds GPUs (ray_actor_options.num_gpus above 0, or a Ray Serve LLM model's deployment_config); [] for other kinds."""
    from policies.kube import as_float, as_list
    from policies.reading.serving import serve_config

    if split_type(resource.type) != RAY_SERVICE:
        return []
    found = []
    for app in as_list(as_dict(serve_config(resource)).get("applications")):
        app = as_dict(app)
        places = [
            (
                f"deployment {as_dict(d).get('name', '?')}",
                as_dict(d),
                (as_float(get(d, "ray_actor_options", "num_gpus")) or 0) > 0,
            )
            for d in as_list(app.get("deployments"))
        ]
        places += [
            (f"llm_configs[{i}].deployment_config", as_dict(get(llm, "deployment_config")), True)
            for i, llm in enumerate(as_list(get(app, "args", "llm_configs")))
        ]
        for label, deployment, on_gpu in places:
            raw = get(deployment, "autoscaling_config", RAY_DOWNSCALE_DELAY)
            if on_gpu and raw is not None:
                field = f"serveConfigV2 application {app.get('name', '?')} {label} autoscaling_config.{RAY_DOWNSCALE_DELAY}"
                found.append((field, raw, as_float(raw)))
    return found


def _model_deployment(app: Mapping, deployment: Mapping) -> bool:
    """A Serve deployment that holds a model: GPUs or other custom resources (Neuron cores, TPUs) in its
    ray_actor_options, or a deployment of an application that runs vLLM."""
    from policies.kube import as_float
    from policies.reading.serving import runs_vllm

    options = as_dict(deployment.get("ray_actor_options"))
    gpus = (as_float(options.get("num_gpus")) or 0) > 0
    custom = any((as_float(v) or 0) > 0 for v in as_dict(options.get("resources")).values())
    return gpus or custom or runs_vllm(dict(app))


def ray_serve_zero_floors(resource: Any) -> list[str]:
    """The field of every model deployment of a RayService's serveConfigV2 (a Ray Serve LLM model's deployment_config,
    or a deployment ``_model_deployment`` accepts) whose autoscaling_config.min_replicas is 0: Serve then scales it to
    zero when idle (ray.serve.config.AutoscalingConfig, docs.ray.io: "min_replicas: NonNegativeInt = 1", so only an
    explicit 0 does). A deployment with an integer num_replicas does not autoscale."""
    from policies.kube import as_list
    from policies.reading.serving import serve_config

    if split_type(resource.type) != RAY_SERVICE:
        return []
    found = []
    for app in as_list(as_dict(serve_config(resource)).get("applications")):
        app = as_dict(app)
        places = [
            (f"deployment {as_dict(d).get('name', '?')}", as_dict(d))
            for d in as_list(app.get("deployments"))
            if _model_deployment(app, as_dict(d))
        ]
        places += [
            (f"llm_configs[{i}].deployment_config", as_dict(get(llm, "deployment_config")))
            for i, llm in enumerate(as_list(get(app, "args", "llm_configs")))
        ]
        for label, deployment in places:
            if as_int(deployment.get("num_replicas")) is not None:
                continue
            if as_int(get(deployment, "autoscaling_config", "min_replicas")) == 0:
                found.append(f"serveConfigV2 application {app.get('name', '?')} {label} autoscaling_config.min_replicas")
    return found


__all__ = [
    "Floor",
    "KUBEAI_SCALE_DOWN_DEFAULT",
    "SCALER_TYPES",
    "kubeai_default_window",
    "ray_serve_windows",
    "ray_serve_zero_floors",
    "replica_floor",
    "scale_down_window",
]
