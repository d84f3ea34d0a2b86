"""G73: a Ray Serve application's import_path names a module the cluster can import.

"The import path (e.g., text_ml:app) must be importable by Serve at runtime ... Build the code into the cluster's
container image ... or use a runtime_env with a remote URI that hosts the code in remote storage"
(https://docs.ray.io/en/latest/serve/production-guide/handling-dependencies.html). An application whose import_path
names the repository's own module (``ray_serve_autoscale.app:app``, ``vllm-ray-deployments:deployment``) on the stock
images Ray publishes (rayproject/ray, ray-ml, ray-llm: Ray, its libraries and, in ray-llm, vLLM; no application code)
with nothing that brings the module fails to deploy with ModuleNotFoundError, so the RayService never serves. Spent
sets 15 usman0491/vllm-demo simple_ray_vllm/vllm-ray-service.yaml (working_dir commented out, pip lists only vLLM and
CLI libraries) and 38 aabhimittal/Ray-serve-multi-model-GPU-autoscaling deploy/kuberay/rayservice.yaml
(rayproject/ray-ml:2.9.0-py310-gpu, env_vars only), both labels filed none.

What counts as bringing it, and makes this silent: an image not Ray's own; a runtime_env ``working_dir``,
``py_modules``, ``conda``, ``container``/``image_uri``, or a ``pip``/``uv`` entry that is a URL, a path, an option or
the module's own name; a volume mounted at a folder named as the module, at /home/ray (the images' working directory),
/app, /code, /src, /workspace or a site-packages folder, or a ConfigMap whose items write the module (a model cache
at ~/.cache/huggingface or a config folder brings no code); PYTHONPATH set on a container; a container command that
installs or fetches code; a postStart hook. A module Ray's images ship (``ray``, Python's standard library, ``vllm`` on ray-llm) is silent.
Advice: a stock image's site-packages are not listed here.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping
from typing import Any, Optional

from policies.framework import Policy, Resource, unproven
from policies.kube import as_dict, as_list, get
from policies.reading.ray_cluster import groups
from policies.reading.serving import serve_config

RAY_SERVICE_TYPES = ("kubernetes:ray.io/v1:RayService", "kubernetes:ray.io/v1alpha1:RayService")
_STOCK_IMAGE = re.compile(r"^(?:docker\.io/)?(?:rayproject|anyscale)/ray(?:-ml|-llm)?(?::|@|$)", re.IGNORECASE)
_SHIPPED = frozenset({"ray"}) | frozenset(sys.stdlib_module_names)
_CODE_KEYS = ("working_dir", "py_modules", "conda", "container", "image_uri", "py_executable")
# The stock images' working directory (Ray starts there) and the usual application folders.
_CODE_DIRS = frozenset({"/home/ray", "/app", "/code", "/src", "/workspace"})
_FETCHES = re.compile(r"\b(?:pip3?\s+install|uv\s+pip|git\s+clone|curl|wget|gsutil|aws\s+s3|python3?\s+-m\s+pip)\b")


def _top_module(import_path: str) -> Optional[str]:
    """The top-level module an import_path imports (``pkg.mod:attr`` or ``pkg.mod.attr``), or None."""
    module = import_path.split(":", 1)[0] if ":" in import_path else import_path.rsplit(".", 1)[0]
    top = module.strip().split(".", 1)[0]
    return top or None


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def _pip_brings(entries: Any, module: str) -> bool:
    """Whether a runtime_env pip or uv list (or its {"packages": [...]} form) may install the module."""
    packages = as_list(as_dict(entries).get("packages")) if isinstance(entries, Mapping) else as_list(entries)
    if isinstance(entries, str):
        return True  # a requirements file
    for entry in packages:
        text = str(entry).strip()
        if not text or text.startswith("-") or "/" in text or ":" in text or text.endswith((".whl", ".tar.gz", ".zip")):
            return True
        if _normal(re.split(r"[<>=!~\[;@ ]", text, maxsplit=1)[0]) == _normal(module):
            return True
    return False


def _mount_brings(podspec: Mapping, volume: Mapping, module: str) -> bool:
    """Whether a volume other than an emptyDir may put the module on Python's path: mounted at a folder named as the
    module, at Ray's home (the image's working directory) or a site-packages folder, or a ConfigMap whose items write
    the module's file or folder."""
    name = volume.get("name")
    for item in as_list(get(volume, "configMap", "items")) + as_list(get(volume, "secret", "items")):
        path = str(as_dict(item).get("path") or "")
        if _normal(path.split("/", 1)[0].removesuffix(".py")) == _normal(module):
            return True
    for container in as_list(podspec.get("containers")) + as_list(podspec.get("initContainers")):
        for mount in as_list(as_dict(container).get("volumeMounts")):
            mount = as_dict(mount)
            path = str(mount.get("mountPath") or "").rstrip("/")
            if mount.get("name") != name:
                continue
            if _normal(path.rsplit("/", 1)[-1]) == _normal(module) or path in _CODE_DIRS or "site-packages" in path:
                return True
    return False


def _cluster_brings_code(resource: Resource, module: str) -> Optional[str]:
    """Why the cluster's pods may hold the module (None when they hold only Ray's stock image)."""
    for group in groups(resource):
        for volume in as_list(group.podspec.get("volumes")):
            if isinstance(volume, dict) and not set(volume) <= {"name", "emptyDir"}:
                if _mount_brings(group.podspec, volume, module):
                    return "a volume"
        for container in as_list(group.podspec.get("containers")) + as_list(group.podspec.get("initContainers")):
            container = as_dict(container)
            image = str(container.get("image") or "")
            if not _STOCK_IMAGE.match(image.strip()):
                return f"image {image}"
            if any(as_dict(e).get("name") == "PYTHONPATH" for e in as_list(container.get("env"))):
                return "PYTHONPATH"
            line = " ".join(str(t) for t in as_list(container.get("command")) + as_list(container.get("args")))
            if _FETCHES.search(line) or get(container, "lifecycle", "postStart") is not None:
                return "a start command"
    return None


def _check(resource: Resource, config: dict) -> list[str]:
    applications = as_list(as_dict(serve_config(resource)).get("applications"))
    if not applications or not groups(resource):
        return []
    images = sorted({str(as_dict(c).get("image")) for g in groups(resource) for c in as_list(g.podspec.get("containers"))})
    found: list[str] = []
    for app in applications:
        app = as_dict(app)
        path, env = app.get("import_path"), as_dict(app.get("runtime_env"))
        module = _top_module(path) if isinstance(path, str) else None
        if module is None or module in _SHIPPED or any(env.get(key) for key in _CODE_KEYS):
            continue
        if module == "vllm" and all("ray-llm" in image for image in images):
            continue
        if _pip_brings(env.get("pip"), module) or _pip_brings(env.get("uv"), module):
            continue
        if _cluster_brings_code(resource, module) is not None:
            continue
        found.append(
            unproven(
                f"serveConfigV2 application {app.get('name', '?')}: import_path {path} imports module {module}, which "
                f"Ray's own image ({', '.join(images)}) does not ship, and nothing brings it: the runtime_env has no "
                f"working_dir, py_modules or pip entry for it and the pods mount no code, so the application fails "
                f"to deploy with ModuleNotFoundError and the RayService never serves; set runtime_env.working_dir to "
                f"an archive of the code (or py_modules), or build the code into the image"
            )
        )
    return found


POLICY = Policy(
    name="ray-serve-app-module-shipped",
    description=(
        "A RayService's Serve application imports a module the cluster has: Ray's stock images ship no application "
        "code, so the import_path's module comes from runtime_env (working_dir, py_modules, pip), a mount or the image."
    ),
    catalog="G73",
    severity="high",
    enforcement="advisory",
    remediation_steps=(
        "Give the application runtime_env.working_dir (an archive URI of the repository, e.g. a GitHub zip) or "
        "py_modules, or build the code into the Ray image the cluster runs."
    ),
    resource_types=RAY_SERVICE_TYPES,
    check_resource=_check,
    rationale=(
        "Ray Serve imports import_path at deploy time and it 'must be importable by Serve at runtime': built into the "
        "image or brought by a runtime_env (https://docs.ray.io/en/latest/serve/production-guide/"
        "handling-dependencies.html)."
    ),
)
