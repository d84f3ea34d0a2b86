"""The vLLM server KubeAI renders for a Model, as the sizing reads it (S2: the model must fit the GPU).

KubeAI's Model (``kubeai.org/v1``) names its engine, its model URL and a resource profile, ``<profile>:<multiple>``;
the operator renders the server's pod from them (substratusai/kubeai v0.21.0, 6babe2c9):

- the vLLM container's args are ``--model=<the url's repository>``, ``--served-model-name=<Model name>``, then the
  Model's ``spec.args`` (internal/modelcontroller/engine_vllm.go:34-41);
- the image is the Model's ``spec.image``, else the profile's ``imageName`` entry of the chart's
  ``modelServers.VLLM.images`` (charts/kubeai/values.yaml:42-52: ``nvidia-gpu`` is vllm/vllm-openai:v0.8.3);
- the profile's requests and limits, each times the multiple (values.yaml:109-187: each stock ``nvidia-gpu-*``
  profile holds one ``nvidia.com/gpu``; internal/modelcontroller/model_controller.go:274-306).

The profiles are the cluster's Helm values; only the chart's stock profile names, whose names say their GPU, are read
here (a cluster that redefines one is outside what the files show). Fresh set 47 cbtham/kubeai-huaweicloud
optimized-models/qwencoder2.5-vllm.yaml (nvidia-gpu-t4:1, labelled S2).
"""

from __future__ import annotations

from typing import Any

from policies.kube import as_dict, as_int, as_list, get, memoized, split_type
from policies.reading.gpu_selection import GKE_ACCELERATOR_LABEL
from policies.reading.scalers_ext import KUBEAI_MODEL
from policies.reading.serving import EngineConfig
from policies.reading.vllm_args import VllmServer, parse_vllm_args, served_model

# values.yaml:42-48 modelServers.VLLM.images at v0.21.0.
_IMAGES = {"nvidia-gpu": "vllm/vllm-openai:v0.8.3", "gh200": "substratusai/vllm-gh200:v0.8.3"}
# Stock profile -> (imageName, the GPU as GKE's accelerator label names it); values.yaml:109-187.
_PROFILES = {
    "nvidia-gpu-t4": ("nvidia-gpu", "nvidia-tesla-t4"),
    "nvidia-gpu-l4": ("nvidia-gpu", "nvidia-l4"),
    "nvidia-gpu-l40s": ("nvidia-gpu", "nvidia-l40s"),
    "nvidia-gpu-h100": ("nvidia-gpu", "nvidia-h100-80gb"),
    "nvidia-gpu-a100-80gb": ("nvidia-gpu", "nvidia-a100-80gb"),
    "nvidia-gpu-a100-40gb": ("nvidia-gpu", "nvidia-tesla-a100"),
}


# Marks a rendered container whose image is KubeAI v0.21.0's chart default: a cluster's Helm values may run another
# release, so what depends on the release is advice.
CHART_IMAGE = "x-kubeai-chart-image"


def chart_image(server: Any) -> bool:
    """True for a KubeAI-rendered server whose image is the chart's default (see CHART_IMAGE)."""
    container = getattr(server, "container", None)
    return isinstance(container, dict) and container.get(CHART_IMAGE) is True


def kubeai_vllm_servers(resource: Any) -> list[VllmServer]:
    """The vLLM server a KubeAI Model on a stock GPU profile renders, or [] (built once per resource and evaluation)."""
    if split_type(resource.type) != KUBEAI_MODEL:
        return []
    return list(memoized(resource, "kubeai_vllm_servers", _servers))


def kubeai_engine_configs(resource: Any) -> list[EngineConfig]:
    """The same server as the start-up rules read an engine (policies/vllm/startup_rules.py)."""
    return [
        EngineConfig(label=s.label, args=s.args, model=served_model(s), image=str(s.container.get("image") or ""), server=s)
        for s in kubeai_vllm_servers(resource)
    ]


def _servers(resource: Any) -> list[VllmServer]:
    if split_type(resource.type) != KUBEAI_MODEL:
        return []
    spec = as_dict(get(resource.props, "spec"))
    url, profile = spec.get("url"), spec.get("resourceProfile")
    if str(spec.get("engine") or "").lower() != "vllm" or not isinstance(url, str) or not url.startswith("hf://"):
        return []
    if not isinstance(profile, str) or ":" not in profile:
        return []
    name, _, multiple = profile.strip().partition(":")
    count = as_int(multiple)
    if name not in _PROFILES or count is None or count < 1:
        return []
    image_name, accelerator = _PROFILES[name]
    own = spec.get("image") if isinstance(spec.get("image"), str) else None
    image = own or _IMAGES.get(image_name)
    model = url[len("hf://") :].lstrip("/")
    served = get(resource.props, "metadata", "name")
    tokens = [f"--model={model}", f"--served-model-name={served}"]
    tokens += [t for t in as_list(spec.get("args")) if isinstance(t, str)]
    env = [{"name": str(k), "value": v} for k, v in as_dict(spec.get("env")).items() if isinstance(v, str)]
    container = {
        "name": "server",
        "image": image,
        "args": tokens,
        "env": env,
        "resources": {"limits": {"nvidia.com/gpu": count}},
    }
    if own is None:
        container[CHART_IMAGE] = True  # the image is the chart's default for the profile, not the files
    podspec = {"nodeSelector": {GKE_ACCELERATOR_LABEL: accelerator}, "containers": [container]}
    return [VllmServer(f"spec (KubeAI resourceProfile {profile.strip()})", podspec, container, parse_vllm_args(tokens))]
