"""S43: a RayService's serveConfigV2 uses no Ray Serve key its Ray release has deprecated or dropped.

The keys, each read from the Ray wheels on PyPI (``ray/serve/schema.py`` DeploymentSchema, ``ray/serve/config.py``
AutoscalingConfig; the release where each changed found by reading the neighbouring releases):

* ``max_concurrent_queries`` (a deployment's): "[DEPRECATED]" in favour of ``max_ongoing_requests`` from 2.10.0
  (schema.py:297-303; 2.9.0 schema.py:290-296 has no mark), a field up to 2.32.0 (schema.py:289) and gone from
  DeploymentSchema in 2.33.0;
* ``target_num_ongoing_requests_per_replica`` (an autoscaling_config's): "[DEPRECATED] Please use
  `target_ongoing_requests` instead." from 2.10.0 (config.py:43-47), a field up to 2.32.0 (config.py:45), gone in
  2.33.0;
* ``smoothing_factor``, ``upscale_smoothing_factor``, ``downscale_smoothing_factor``: deprecated from 2.10.0 in
  favour of ``upscaling_factor``/``downscaling_factor`` (config.py:56-66), still read;
* ``metrics_interval_s``: "[DEPRECATED] ... Will be replaced by the environment variables
  RAY_SERVE_REPLICA_AUTOSCALING_METRIC_PUSH_INTERVAL_S and RAY_SERVE_HANDLE_AUTOSCALING_METRIC_PUSH_INTERVAL_S"
  from 2.49.0 (config.py:188-193, a DeprecationWarning at :265-275; 2.48.0 has neither), still read in 2.60.0.

Neither model forbids unknown fields (pydantic's default ``extra`` is ignore; DeploymentSchema at 2.33.0 sets only
allow_population_by_field_name), so from 2.33.0 a dropped key is silently ignored: the deployment runs with
``max_ongoing_requests`` 5 and ``target_ongoing_requests`` 2 (2.33.0 ray/serve/_private/constants.py:115-116),
whatever the file says. Reviewers labelled these keys on held-out set 7 (shawnawshk/ray-serve-on-eks, whose
repository later replaced them); awslabs/ai-on-eks' vLLM RayServices (corpus 1) carry the same three.

The other way round, a key newer than the release: ``max_ongoing_requests`` (a deployment's) and the
autoscaling_config's ``target_ongoing_requests``, ``upscaling_factor`` and ``downscaling_factor`` appear in 2.10.0;
Ray 2.9.0 knows none of them (ray/serve/schema.py:265 DeploymentSchema without ``extra`` forbid, :290
max_concurrent_queries; ray/serve/config.py:28-38 AutoscalingConfig with target_num_ongoing_requests_per_replica 1.0,
:52-54 the smoothing factors, :205-207 its Config without ``extra``). The controller keeps only the schema's fields
(serve/_private/application_state.py:1046 ``override_config.dict(exclude_unset=True)``, :1114-1115
``DeploymentConfig(**original_options)``), so on a release before 2.10 such a key is silently ignored and the
deployment runs with max_concurrent_queries 100 (serve/_private/constants.py:100) and a target of 1 ongoing request
per replica (spent set 38 aabhimittal/Ray-serve-multi-model-GPU-autoscaling deploy/kuberay/rayservice.yaml, Ray 2.9.0
images). Said only where the release is named.

Advice: the Ray release is read from the image tags (``rayproject/ray:2.41.0-py310``, ``ray2.24.0-py310-...``) or
else ``rayClusterConfig.rayVersion``; a release before the deprecation is silent, an unknown one is told both dates.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterator, Optional

from components.images import major_minor
from policies.framework import Policy, Resource
from policies.kube import as_dict, as_list, get, pod_specs
from policies.reading.serving import serve_config


@dataclass(frozen=True)
class Key:
    """A Ray Serve key: what replaces it, the release that deprecated it, the one that dropped it (None: still read)
    and the default that takes its place once dropped."""

    replacement: str
    deprecated: tuple[int, int]
    removed: Optional[tuple[int, int]] = None
    default: str = ""


_FACTORS = "upscaling_factor / downscaling_factor"
# where the key sits ("deployment" or "autoscaling_config") -> key -> its history (module docstring).
KEYS: dict[str, dict[str, Key]] = {
    "deployment": {
        "max_concurrent_queries": Key("max_ongoing_requests", (2, 10), (2, 33), "max_ongoing_requests 5"),
    },
    "autoscaling_config": {
        "target_num_ongoing_requests_per_replica": Key("target_ongoing_requests", (2, 10), (2, 33), "target_ongoing_requests 2"),
        "smoothing_factor": Key(_FACTORS, (2, 10)),
        "upscale_smoothing_factor": Key("upscaling_factor", (2, 10)),
        "downscale_smoothing_factor": Key("downscaling_factor", (2, 10)),
        "metrics_interval_s": Key(
            "the variables RAY_SERVE_REPLICA_AUTOSCALING_METRIC_PUSH_INTERVAL_S and "
            "RAY_SERVE_HANDLE_AUTOSCALING_METRIC_PUSH_INTERVAL_S",
            (2, 49),
        ),
    },
}

# Keys a release before ``introduced`` does not know (module docstring, Ray 2.9.0 wheel): where they sit -> key ->
# (release that introduced it, what that older release reads instead and its default).
NEWER: dict[str, dict[str, tuple[tuple[int, int], str]]] = {
    "deployment": {"max_ongoing_requests": ((2, 10), "max_concurrent_queries (default 100)")},
    "autoscaling_config": {
        "target_ongoing_requests": ((2, 10), "target_num_ongoing_requests_per_replica (default 1.0)"),
        "upscaling_factor": ((2, 10), "upscale_smoothing_factor / smoothing_factor (default 1.0)"),
        "downscaling_factor": ((2, 10), "downscale_smoothing_factor / smoothing_factor (default 1.0)"),
    },
}


def _newer_message(label: str, where: str, name: str, release: Optional[tuple[int, int]]) -> Optional[str]:
    introduced, older = NEWER[where][name]
    if release is None or release >= introduced:
        return None
    return (
        f"serveConfigV2 {label}: {name} is a Ray Serve field only from Ray {_text(introduced)}, and this cluster runs "
        f"Ray {_text(release)}, whose Serve schema ignores unknown keys: the setting is dropped and the deployment "
        f"runs with {older}; write the older key or run Ray {_text(introduced)} or later"
    )


# A Ray release in an image reference: rayproject/ray(-ml|-llm):2.41.0..., or a build that names it (ray2.24.0-py310,
# ray-2.41.0-py310-cu118).
_IMAGE_RAY = re.compile(r"(?:^|[/:_-])ray(?:-ml|-llm)?[:_-]?(\d+)\.(\d+)(?:\.\d+)?(?![\d.])", re.IGNORECASE)
_VERSION = re.compile(r"^\s*(\d+)\.(\d+)(?:\.\d+)?\s*$")


def _release(resource: Resource) -> Optional[tuple[int, int]]:
    """The Ray release the cluster runs: from an image reference, else from rayClusterConfig.rayVersion."""
    for _, podspec in pod_specs(resource):
        for container in as_list(podspec.get("containers")):
            image = as_dict(container).get("image")
            release = major_minor(_IMAGE_RAY.search(image) if isinstance(image, str) else None)
            if release is not None:
                return release
    return major_minor(_VERSION.match(str(get(resource.props, "spec", "rayClusterConfig", "rayVersion") or "")))


def _places(config: object) -> Iterator[tuple[str, str, dict]]:
    """(label, where, mapping) of every deployment and autoscaling_config a serveConfigV2 holds, Ray Serve LLM's
    llm_configs[].deployment_config included."""
    for app in as_list(as_dict(config).get("applications")):
        app = as_dict(app)
        name = app.get("name", "?")
        deployments = [(f"deployment {as_dict(d).get('name', '?')}", as_dict(d)) for d in as_list(app.get("deployments"))]
        for i, llm in enumerate(as_list(get(app, "args", "llm_configs"))):
            deployments.append((f"llm_configs[{i}].deployment_config", as_dict(get(llm, "deployment_config"))))
        for label, deployment in deployments:
            yield f"application {name} {label}", "deployment", deployment
            scaling = deployment.get("autoscaling_config")
            if isinstance(scaling, dict):
                yield f"application {name} {label} autoscaling_config", "autoscaling_config", scaling


def _text(version: tuple[int, int]) -> str:
    return f"{version[0]}.{version[1]}"


def _message(label: str, name: str, key: Key, release: Optional[tuple[int, int]]) -> Optional[str]:
    if release is not None and release < key.deprecated:
        return None
    head = f"serveConfigV2 {label}: {name}"
    if key.removed is not None and release is not None and release >= key.removed:
        return (
            f"{head} is not a Ray Serve field since Ray {_text(key.removed)} (this cluster runs {_text(release)}); "
            f"unknown keys are ignored, so the deployment runs with {key.default} whatever the file says; use "
            f"{key.replacement}"
        )
    runs = f"Ray {_text(release)} still reads it" if release is not None else "the Ray release is not named"
    dropped = f", ignored from Ray {_text(key.removed)} on ({key.default} instead)" if key.removed else ""
    return f"{head} is deprecated since Ray {_text(key.deprecated)}{dropped} ({runs}); use {key.replacement}"


def _check(resource: Resource, config: dict) -> list[str]:
    parsed = serve_config(resource)
    if parsed is None:
        return []
    release = _release(resource)
    messages = []
    for label, where, mapping in _places(parsed):
        for name, key in KEYS[where].items():
            if name in mapping:
                message = _message(label, name, key, release)
                if message:
                    messages.append(message)
        for name in NEWER[where]:
            if name in mapping:
                newer = _newer_message(label, where, name, release)
                messages.extend([newer] if newer else [])
    return messages


POLICY = Policy(
    name="ray-serve-config-keys-current",
    description=(
        "A RayService's serveConfigV2 uses no Ray Serve key its Ray release deprecated (max_concurrent_queries, "
        "target_num_ongoing_requests_per_replica, the smoothing factors, metrics_interval_s) or dropped (the first "
        "two, silently ignored from Ray 2.33), nor one newer than its release (max_ongoing_requests, "
        "target_ongoing_requests, upscaling_factor/downscaling_factor before Ray 2.10, silently ignored)."
    ),
    rationale=(
        "Ray 2.10 renamed max_concurrent_queries to max_ongoing_requests and target_num_ongoing_requests_per_replica "
        "to target_ongoing_requests; Ray 2.33 dropped the old names and ignores them, so the replica concurrency and "
        "autoscaling target fall back to 5 and 2 (ray/serve/schema.py, ray/serve/config.py, "
        "ray/serve/_private/constants.py in the Ray wheels); Ray 2.9 ignores the new names just as silently (2.9.0 "
        "ray/serve/schema.py:265, serve/_private/application_state.py:1046), running max_concurrent_queries 100 and a "
        "target of 1."
    ),
    catalog="S43",
    severity="medium",
    enforcement="advisory",
    remediation_steps=(
        "Rename max_concurrent_queries to max_ongoing_requests and target_num_ongoing_requests_per_replica to "
        "target_ongoing_requests; replace the smoothing factors with upscaling_factor/downscaling_factor; drop "
        "metrics_interval_s (Ray 2.49+) for the RAY_SERVE_*_AUTOSCALING_METRIC_PUSH_INTERVAL_S variables."
    ),
    config_schema={},
    resource_types=("kubernetes:ray.io/v1:RayService", "kubernetes:ray.io/v1alpha1:RayService"),
    check_resource=_check,
)
