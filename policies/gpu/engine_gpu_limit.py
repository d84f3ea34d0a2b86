"""G13: a GPU model server must hold a GPU: a vLLM container with no nvidia.com/gpu limit at all.

Kubernetes hands a container GPUs only through a device resource it is given (nvidia.com/gpu limits,
https://kubernetes.io/docs/tasks/manage-gpus/scheduling-gpus/) or a DRA claim. Without one the scheduler may place
the pod on any node; vLLM picks its platform from what the process sees, and the CUDA build (the vllm/vllm-openai
image) selects its CPU platform only for a CPU build of vLLM (vllm 0.8.3 vllm/platforms/__init__.py:156-175, the
version string names cpu) or, from later releases on, VLLM_TARGET_DEVICE=cpu (0.34.0 vllm/platforms/__init__.py:
174-195, read by set 13's labeller; on vLLM's CUDA image that is advice, not silence: _cpu_target_on_cuda_build). Otherwise it falls to UnspecifiedPlatform (0.8.3 :239-244) and the engine
stops at "Failed to infer device type" (0.8.3 vllm/config.py:1880-1890; 0.6.6 config.py:1522-1527; 0.34.0
vllm/config/device.py:39-49). On a GPU node whose default runtime exposes every device (the image sets
NVIDIA_VISIBLE_DEVICES=all) it would instead use GPUs the scheduler never gave it, shared with whatever holds them.

Spent sets 13-14 (skytin1004/k8s-vllm-inference-poc, ambideXtrous9/LLMOps-Production-Platform, marcin119a/bielik_vllm
k8s/vllm-deployment.yaml) labelled it blocking. Blocking here when the image is vLLM's own CUDA build and nothing
else gives the container a device; advice where the build is not known from the image name (a private image may be
a CPU build) or where the pod targets GPU nodes by a node label, a GPU toleration or NVIDIA_VISIBLE_DEVICES (the
node's default runtime decides whether it sees one). Silent where something supplies the device: another vendor's
device resource on a build for it (vLLM's CUDA image given only amd.com/gpu, an Intel, Gaudi, Neuron or TPU
resource blocks: _wrong_build, set 26 mo11om/LuminaLocal), HAMi's or MIG resources, a DRA claim or KServe's managed DRA annotation, a CPU build, a
RuntimeClass of NVIDIA's runtime on a pod sent to GPU nodes (NVIDIA_VISIBLE_DEVICES=all from the image then reaches
every GPU of the node, a deliberate choice on unified-memory boards: set 14 Angel-FulFilment-Services/Angel-Intelligence;
NVIDIA's RuntimeClass with nothing that sends the pod to GPU nodes is advice, ``_runtime_only``: fresh set 54), a Container
LimitRange of the pod's namespace among the files read that defaults a device resource (LimitRanger fills it in:
policies/reading/limit_ranges.py), a ServingRuntime
that supplies the model's resources, and an engine whose ranks Ray places on other pods (--distributed-executor-
backend ray under KubeRay). A GPU request without a limit is gpu-request-equals-limit's; a limit that differs from
the ranks is vllm-tp-matches-gpu-limit's (S3). A RayService whose Serve applications run vLLM (Ray Serve LLM, or a
custom app: policies/reading/serve_apps.py) on a Ray cluster where no group gives Ray a GPU is advice
(``_ray_engine_without_gpu``; S48 blocks on the replicas that cannot place). An engine the table marks
``gpu_or_cpu`` (Ollama: it runs on the CPU when it finds no GPU) whose pod reaches for a GPU without holding one is
advice (``_judge_cpu_capable``), unless it mounts device nodes from the host (a Jetson's /dev/nvgpu: spent set 43
kcirtapfromspace/gemma4, trap G13). An engine the table marks ``needs_gpu`` (NIM, TensorRT-LLM: they serve only on an
NVIDIA GPU) with no GPU limit is advice, and blocks where its image is one of the row's ``gpu_only_images`` in a core
workload that shows no sign of GPU nodes (``_judge_gpu_engine``): a new GPU-only engine is a row of the table. A
``gpu_or_cpu`` engine whose image is one of its row's ``cuda_images`` (TGI's CUDA image) with no GPU at all is advice:
it falls back to a slow CPU path the publisher ships another image for (``_cuda_image_without_gpu``).
"""

from __future__ import annotations

import posixpath

from components.capacity.accounting import parse_release
from components.gpu_vendors import device_resources, vendor
from components.images import image_tag, is_published, names_image, vllm_release
from components.serving_engines import Engine
from policies.framework import Policy, Resource, unproven
from policies.kube import (
    GPU_RESOURCE,
    WORKLOAD_TYPES,
    as_dict,
    as_list,
    container_label,
    containers,
    get,
    is_custom_type,
    is_ray,
    pod_specs,
    resource_value,
)
from policies.reading.accelerators import dra_pod, host_devices, other_device_source
from policies.reading.engines import EngineServer, env_values, table_servers
from policies.reading.gpu_pools import node_label_keys
from policies.reading.gpu_selection import GPU_LABELS
from policies.reading.limit_ranges import namespace_defaults
from policies.reading.ray_cluster import groups, kuberay_created_pod
from policies.reading.serve_apps import serve_app_engines
from policies.reading.serving import engine_configs
from policies.reading.vllm_args import VllmServer, command_tokens, parallel_size, vllm_servers

# vLLM's own image, built from docker/Dockerfile on CUDA (vllm docs deployment/docker.md): its tags are releases
# (v0.10.1, v0.10.1-cu130), latest and nightly; the CPU and ROCm builds are other repositories.
_CUDA_REPOSITORIES = ("vllm/vllm-openai", "docker.io/vllm/vllm-openai", "index.docker.io/vllm/vllm-openai")
_NOT_CUDA_TAGS = ("cpu", "rocm", "xpu", "tpu", "neuron", "hpu")
# Node labels beyond GPU_LABELS that only GPU nodes carry (Karpenter's, NVIDIA GPU feature discovery's, AKS's).
_GPU_NODE_LABELS = (
    *GPU_LABELS,
    "karpenter.k8s.aws/instance-gpu-count",
    "karpenter.k8s.aws/instance-gpu-manufacturer",
    "nvidia.com/gpu.present",
    "nvidia.com/gpu.count",
    "kubernetes.azure.com/accelerator",
)


def cuda_build(image: object) -> bool:
    """True for vLLM's own CUDA image (vllm/vllm-openai on Docker Hub) at a tag that names no other platform."""
    if not isinstance(image, str):
        return False
    tag = (image_tag(image) or "").lower()
    return is_published(image, _CUDA_REPOSITORIES) and not any(t in tag for t in _NOT_CUDA_TAGS)


def _gpu_node_hint(podspec: dict, env: dict[str, str]) -> str | None:
    """How the pod may reach a GPU without holding one: a GPU node label it requires, a toleration of the
    nvidia.com/gpu taint, or NVIDIA_VISIBLE_DEVICES in its env; None when it shows none of them."""
    for key in sorted(node_label_keys(podspec)):
        if key in _GPU_NODE_LABELS:
            return f"it requires the node label {key}"
    for key, value in as_dict(podspec.get("nodeSelector")).items():
        if "gpu" in f"{key}={value}".lower():
            return f"it selects nodes by {key}={value}"
    for toleration in as_list(podspec.get("tolerations")):
        if as_dict(toleration).get("key") == GPU_RESOURCE:
            return f"it tolerates the {GPU_RESOURCE} taint"
    visible = env.get("NVIDIA_VISIBLE_DEVICES")
    if visible is not None and visible.strip().lower() not in ("", "void", "none"):
        return f"it sets NVIDIA_VISIBLE_DEVICES={visible}"
    return None


def _device_elsewhere(resource: Resource, server: VllmServer, env: dict[str, str]) -> bool:
    """True when something other than an nvidia.com/gpu limit gives the container its device, or it needs none."""
    if server.runtime_merged or other_device_source(server.container):
        return True
    if dra_pod(get(resource.props, "metadata", "annotations"), server.podspec):
        return True
    if _target_cpu(env) and not cuda_build(server.container.get("image")):
        return True  # a build of the files' own, asked for the CPU: judged as a CPU build
    if _nvidia_runtime(server.podspec) and _gpu_node_hint(server.podspec, env) is not None:
        return True  # NVIDIA's runtime on nodes picked for their GPU: sharing them is deliberate (set 14, trap G13)
    ray_executor = server.args.get("distributed-executor-backend") == "ray"
    return ray_executor and (is_ray(resource.type) or kuberay_created_pod(resource))


def _nvidia_runtime(podspec: dict) -> str | None:
    """The pod's runtimeClassName when it names NVIDIA's runtime (the GPU Operator's `nvidia`), else None."""
    runtime = podspec.get("runtimeClassName")
    return runtime if isinstance(runtime, str) and "nvidia" in runtime.lower() else None


def _runtime_only(podspec: dict, env: dict[str, str]) -> str | None:
    """The hint for a pod that reaches a GPU only through NVIDIA's RuntimeClass, with nothing that sends it to GPU
    nodes (no GPU node label, no GPU toleration, no NVIDIA_VISIBLE_DEVICES of its own): the runtime hands the container
    every GPU of the node it lands on (the image's NVIDIA_VISIBLE_DEVICES=all), but the scheduler counts none and may
    place it on any node (fresh set 54: mshahzeb/k8s-llm-stack vllm.yaml and tgi.yaml, labelled G13 advisory)."""
    runtime = _nvidia_runtime(podspec)
    if runtime is None or _gpu_node_hint(podspec, env) is not None:
        return None
    return (
        f"it reaches a GPU only through runtimeClassName {runtime} (the image's NVIDIA_VISIBLE_DEVICES=all), with "
        f"nothing that sends it to GPU nodes: the scheduler counts no GPU for it and may place it on a node without one "
        f"(or without that runtime); on a GPU node it shares devices other pods were given"
    )


def _target_cpu(env: dict[str, str]) -> bool:
    return env.get("VLLM_TARGET_DEVICE", "").strip().lower() == "cpu"


def _cpu_target_on_cuda_build(server: VllmServer, image: str) -> list[str]:
    """Advice on vLLM's CUDA image asked for the CPU by VLLM_TARGET_DEVICE=cpu with no GPU (fresh set 46:
    lionelmarcus10/aipaas apps/vllm/deployment.yaml, vllm/vllm-openai:latest, "k3d CPU mode"). The variable is first
    a build switch (setup.py: which kernels the wheel compiles); a release reads it at run time only where
    cpu_platform_plugin does (0.34.0 vllm/platforms/__init__.py:174-195, read by set 13's labeller; later releases
    make it win over every probe, vllm-project/vllm#49515), and the CPU platform then runs on a wheel built for CUDA;
    a release that does not read it finds no platform and exits. Which one the tag pulls the files do not show."""
    return [
        unproven(
            f"{server.label}: image {image} is vLLM's CUDA build, with no {GPU_RESOURCE} limit and "
            f"VLLM_TARGET_DEVICE=cpu: that variable picks the kernels a build compiles; a release that does not also "
            f'read it at run time finds no platform without a GPU and exits ("Failed to infer device type"), and one '
            f"that does runs its CPU platform on a wheel built for CUDA; use vLLM's CPU image (vllm/vllm-openai-cpu), or "
            f"set resources.limits {GPU_RESOURCE}"
        )
    ]


def _limit_range_device(resource: Resource) -> bool:
    """True when a Container LimitRange of the pod's namespace among the files read defaults a device resource
    (nvidia.com/gpu, another vendor's): LimitRanger writes it into every container that sets none of it
    (policies/reading/limit_ranges.py), so the container holds a device once admitted."""
    limits, requests = namespace_defaults(resource, "limits"), namespace_defaults(resource, "requests")
    if GPU_RESOURCE in limits or GPU_RESOURCE in requests:
        return True
    return other_device_source({"resources": {"limits": limits, "requests": requests}})


def _ranks(server: VllmServer) -> str:
    tp, pp = parallel_size(server.args, "tensor-parallel-size"), parallel_size(server.args, "pipeline-parallel-size")
    return f"tensor x pipeline parallel size, {tp * pp}" if tp and pp else "tensor x pipeline parallel size"


def _no_gpu_exit(image: str) -> str:
    """How the CUDA build stops on a node without a GPU, by the release the tag names. Before 0.6 DeviceConfig takes
    "cuda" for a non-CPU build without asking torch (vllm/config.py DeviceConfig.__init__, read at HabanaAI/vllm-fork
    v0.4.2-Gaudi-1.16.0:655-667 and v0.5.3.post1-Gaudi-1.17.0:854-872, upstream's class plus an HPU branch), so the
    engine fails when it first initialises CUDA; from 0.6 on it infers no platform (0.6.6 config.py:1522-1527)."""
    release = parse_release(vllm_release(image))
    if release is not None and release < (0, 6):
        return "vLLM 0.4-0.5 takes the device to be CUDA (DeviceConfig asks no driver) and fails when it initialises CUDA"
    return 'vLLM finds no platform and exits ("Failed to infer device type")'


# Device resources of other vendors' accelerators, and the vLLM platform each needs (a build of its own): vLLM's CUDA
# build detects CUDA through NVML only (0.34.0 vllm/platforms/__init__.py:57-105; a Jetson aside) and ROCm through
# amdsmi (:108-125), which the wheel does not require (its METADATA), so on such a node it finds no platform.
# (The vendors, their device resources and platforms are data: components/gpu_vendors.toml, each row with its source.)


def _other_vendor(container: dict) -> tuple[str, str] | None:
    """(resource name, vLLM platform) of another vendor's accelerator than NVIDIA's the container is given, or None."""
    for section in ("limits", "requests"):
        for name, row in device_resources(as_dict(get(container, "resources", section))):
            if row.name != "nvidia":
                return name, row.platform
    return None


def rocm_marks(container: dict) -> str | None:
    """What marks the container as set up for AMD's ROCm (components/gpu_vendors.toml amd row): its image's words
    (rocm/vllm, ollama/ollama:rocm, a -rocm tag) or a variable only ROCm reads (HSA_OVERRIDE_GFX_VERSION), or None."""
    amd = vendor("amd")
    image = container.get("image")
    if isinstance(image, str) and amd.marks_image(image):
        return f"image {image} is a {amd.platform} build"
    names = {str(as_dict(e).get("name")) for e in as_list(container.get("env"))}
    named = next((v for v in amd.env if v in names), None)
    return f"it sets {named}, which only {amd.display}'s {amd.platform} runtime reads" if named else None


def _rocm_without_device(resource: Resource) -> list[str]:
    """Advice for a container set up for ROCm (rocm_marks) that holds no device: no amd.com/gpu (nor any device
    resource, DRA claim, LimitRange default), no device nodes from the host, not privileged. The scheduler reserves no
    AMD GPU for it and may place it on a node without one, and none is guaranteed where it lands: Ollama's ROCm image
    then serves on the CPU (ollama/ollama v0.32.15 docs/docker.mdx:65-68 runs it with /dev/kfd and /dev/dri), a ROCm
    build of vLLM finds no platform. Session 48 sealed-set form: rocm/* and *-rocm images, HSA_OVERRIDE_GFX_VERSION set."""
    amd = vendor("amd")
    found: list[str] = []
    if _limit_range_device(resource):
        return found
    for path, podspec in pod_specs(resource):
        if dra_pod(get(resource.props, "metadata", "annotations"), podspec):
            continue
        for container in containers(podspec):
            why = rocm_marks(container)
            if why is None or other_device_source(container):
                continue
            if get(container, "securityContext", "privileged") is True:
                # privileged reaches whatever devices its node has, but the scheduler still reserves no GPU and may
                # place it on a node with none (spent set 107 dysonfrost/arkollama ollama:rocm, privileged, label G13)
                why = f"{why} (privileged: it reaches the devices of whatever node it lands on)"
            if any(resource_value(container, s, GPU_RESOURCE) is not None for s in ("limits", "requests")):
                continue
            if host_devices(podspec, container) is not None:
                continue  # /dev/kfd and /dev/dri mounted from the host: a GPU reached on purpose
            found.append(
                unproven(
                    f"{container_label(path, container)}: {why}, but the container holds no {amd.resources[0]}: the "
                    f"scheduler reserves no {amd.display} GPU for it and may place it on a node without one, and none "
                    f"is guaranteed where it lands, so the server runs on the CPU (Ollama) or finds no platform (vLLM); "
                    f"set resources.limits {amd.resources[0]}"
                )
            )
    return found


def _wrong_build(server: VllmServer) -> list[str]:
    """vLLM's CUDA image given only another vendor's accelerator (amd.com/gpu): it finds no platform. Advice where
    the pod also reaches for NVIDIA nodes (a label, a toleration, NVIDIA_VISIBLE_DEVICES) or NVIDIA's runtime."""
    image, vendor = server.container.get("image"), _other_vendor(server.container)
    if vendor is None or not cuda_build(image):
        return []
    runtime = str(server.podspec.get("runtimeClassName") or "").lower()
    message = (
        f"{server.label}: image {image} is vLLM's CUDA build, but the container is given {vendor[0]}, not "
        f"{GPU_RESOURCE}: the CUDA build detects its platform through NVML (0.34.0 vllm/platforms/__init__.py:57-105), "
        f"sees no NVIDIA GPU there and has no {vendor[1]} support, so vLLM finds no platform and exits "
        f'("Failed to infer device type"); use vLLM\'s {vendor[1]} image'
    )
    placement = [server.podspec.get(k) for k in ("nodeSelector", "affinity", "tolerations")]
    nvidia = "nvidia" in f"{placement} {runtime}".lower() or "NVIDIA_VISIBLE_DEVICES" in env_values(server.container)
    return [unproven(message) if nvidia else message]


def _judge(resource: Resource, server: VllmServer) -> list[str]:
    container = server.container
    if resource_value(container, "limits", GPU_RESOURCE) is not None:
        return []
    if resource_value(container, "requests", GPU_RESOURCE) is not None:
        return []  # a request without a limit: gpu-request-equals-limit reports it
    if not server.runtime_merged and _other_vendor(container):
        return _wrong_build(server)
    if _limit_range_device(resource):
        return []
    env = env_values(container)
    if _device_elsewhere(resource, server, env):
        return []
    image = container.get("image")
    hint = _gpu_node_hint(server.podspec, env) or _runtime_only(server.podspec, env)
    device = server.args.get("device")
    early = (parse_release(vllm_release(str(image))) or (1, 0)) < (0, 6)
    cpu_flag = (
        " (--device cpu asks 0.4-0.5 for the CPU worker, whose kernels only a CPU build of vLLM compiles)"
        if str(device).lower() == "cpu" and early
        else " (--device cpu does not switch the CUDA build to vLLM's CPU platform: the build or VLLM_TARGET_DEVICE does)"
        if str(device).lower() == "cpu"
        else ""
    )
    fix = f"set resources.limits {GPU_RESOURCE} to {_ranks(server)}"
    if cuda_build(image) and _target_cpu(env):
        return _cpu_target_on_cuda_build(server, str(image))
    if cuda_build(image) and hint is None:
        return [
            f"{server.label}: image {image} is vLLM's CUDA build, but the container has no {GPU_RESOURCE} limit, so "
            f"the scheduler may place it on a node without a GPU, where {_no_gpu_exit(str(image))}{cpu_flag}, or on a "
            f"GPU node where it uses devices nobody allocated to it; {fix}"
        ]
    if hint is not None and _nvidia_runtime(server.podspec):
        why = hint
    elif hint is not None:
        why = f"{hint}, but the scheduler counts no GPU for it: it sees one only where the node's default runtime exposes every device, and then shares GPUs other pods hold"
    else:
        why = 'the image\'s build is not known from its name (a CPU build needs no GPU); a CUDA build exits on a node without a GPU ("Failed to infer device type")'
    return [unproven(f"{server.label}: runs vLLM with no {GPU_RESOURCE} limit; {why}{cpu_flag}; {fix}")]


def _ray_engine_without_gpu(resource: Resource) -> list[str]:
    """Advice for a RayService whose Serve applications run vLLM while no group of its Ray cluster holds a GPU.

    KubeRay gives ``ray start`` a GPU count only from the Ray container's GPU limit or rayStartParams num-gpus
    (policies/reading/ray_cluster.py RayGroup.pod_gpus), so such a cluster offers Ray no GPU and the engine's replicas
    wait for one (S48 reports the shortfall); or, through the node's default runtime, the image reaches GPUs the
    scheduler never granted. Set 14: datvodinh/serve-llm k8s/ray-service.yaml@c779392 comments out the only worker
    group's nvidia.com/gpu while its VLLMDeployment asks num_gpus 0.05."""
    apps = [e.label for e in engine_configs(resource) if e.extra.get("ray_serve_llm")]
    apps += [a.label for a in serve_app_engines(resource)]
    cluster = groups(resource)
    # Per pod, not per pod count: a group at replicas 0 that the autoscaler grows still holds GPUs when it runs.
    if not cluster or any(g.pod_gpus() != 0 for g in cluster):
        return []
    if not apps:
        return _ray_pinned_without_gpu(cluster)
    workers = [g for g in cluster if not g.is_head]
    where = ", ".join(f"{g.path} ({g.name})" for g in workers) or "spec.rayClusterConfig"
    return [
        unproven(
            f"{where}: {apps[0]} runs vLLM on this Ray cluster, but no group sets an {GPU_RESOURCE} limit (or "
            f"rayStartParams num-gpus), so Ray offers the engine no GPU: its replicas wait for one, or reach the node's "
            f"GPUs unaccounted through the default runtime; give the GPU worker group limits {GPU_RESOURCE}: N"
        )
    ]


def _ray_pinned_without_gpu(cluster: list) -> list[str]:
    """Advice for a Ray cluster whose every group is sent to GPU nodes (a GPU node label, a gpu nodeSelector, the
    nvidia.com/gpu toleration) while no group holds a GPU: KubeRay starts Ray with no GPU (num-gpus comes only from the
    GPU limit or rayStartParams, kuberay v1.7.0 ray-operator/controllers/ray/common/pod.go:1453-1455), so the Serve
    replicas run on CPU on nodes paid for their GPUs, or reach them unaccounted through a default nvidia runtime (set 45:
    totallylegitco/model-serving serve.yaml, head and workers on node.kubernetes.io/gpu: gpu with no nvidia.com/gpu)."""
    hints = [(g, _gpu_node_hint(g.podspec, {})) for g in cluster]
    if not all(hint for _, hint in hints):
        return []
    group, hint = hints[-1]
    return [
        unproven(
            f"{group.path} ({group.name}): every group of this Ray cluster is sent to GPU nodes ({hint}) but none sets "
            f"an {GPU_RESOURCE} limit (or rayStartParams num-gpus), so Ray starts with no GPU: its work runs on CPU on "
            f"nodes paid for their GPUs, or reaches their GPUs unaccounted through the node's default runtime; give the "
            f"groups that run models limits {GPU_RESOURCE}: N"
        )
    ]


def _judge_cpu_capable(resource: Resource, server: EngineServer) -> list[str]:
    """Advice for an engine of the table that serves on GPU or CPU (``gpu_or_cpu``: Ollama) when its pod reaches for a
    GPU (the GPU taint tolerated, a GPU node label, NVIDIA_VISIBLE_DEVICES, NVIDIA's RuntimeClass) but holds none: on a
    node without one it runs on the CPU (slow, not broken); on a GPU node, through the image's NVIDIA_VISIBLE_DEVICES=all,
    it uses GPUs the scheduler counts for other pods. Sets 16 and 18: heissanjay/ollama-eks-depl
    kubernetes/deployment.yml@0f87150 (tolerates nvidia.com/gpu), yuxiaojian/ollama-k8s ollama-gpu.yaml@7915996
    (runtimeClassName nvidia)."""
    container = server.container
    if (
        resource_value(container, "limits", GPU_RESOURCE) is not None
        or resource_value(container, "requests", GPU_RESOURCE) is not None
    ):
        return []
    if other_device_source(container) or dra_pod(get(resource.props, "metadata", "annotations"), server.podspec):
        return []
    if _limit_range_device(resource) or host_devices(server.podspec, container) is not None:
        return []  # (device nodes mounted from the host: a GPU reached on purpose, as on a Jetson)
    env = env_values(container)
    hint = _gpu_node_hint(server.podspec, env)
    runtime = server.podspec.get("runtimeClassName")
    if hint is None and isinstance(runtime, str) and "nvidia" in runtime.lower():
        hint = f"it runs under runtimeClassName {runtime} (the image sets NVIDIA_VISIBLE_DEVICES=all, so it sees every GPU of the node)"
    if hint is None:
        return _cuda_image_without_gpu(server)
    name = server.row.display if server.row else server.engine
    return [
        unproven(
            f"{server.label}: runs {name}, which serves on a GPU or falls back to the CPU, with no {GPU_RESOURCE} "
            f"limit while {hint}: the scheduler counts no GPU for it, so on a node without one it runs on the CPU and on "
            f"a GPU node it shares GPUs other pods hold; set resources.limits {GPU_RESOURCE}: 1 (or drop the GPU "
            f"toleration/runtime to serve on CPU on purpose)"
        )
    ]


# Tag words of builds for another platform than NVIDIA's GPUs (a CPU or ROCm build of an engine that has one).
_OTHER_PLATFORM_TAGS = (*_NOT_CUDA_TAGS, "gaudi", "xeon", "musa", "npu", "ascend")


def _cuda_image_without_gpu(server: EngineServer) -> list[str]:
    """Advice for a ``gpu_or_cpu`` engine whose image is one of its row's ``cuda_images`` (TGI's CUDA image) in a pod
    with no GPU and no sign of one: the engine finds no CUDA device and falls back to its CPU path (TGI: SYSTEM cpu, no
    flash attention, transformers' CausalLM; huggingface/text-generation-inference v3.3.7
    server/text_generation_server/utils/import_utils.py L48-71, models/__init__.py L185), which the publisher ships
    other images for (-intel-cpu). Fresh set 54: grandiv/fragrance-palette-scalable k8s/tgi.yaml, TGI 2.4.0 with no GPU
    (labelled G13 advisory). Silent on a tag naming another platform, and where the row names no CUDA image (Ollama's
    one image serves CPU and GPU alike)."""
    row, image = server.row, server.container.get("image")
    if row is None or not row.cuda_images or not isinstance(image, str):
        return []
    tag = (image_tag(image) or "").lower()
    if any(t in tag for t in _OTHER_PLATFORM_TAGS) or not any(m in image.lower() for m in row.cuda_images):
        return []
    if not _runs_the_server(server.container, row.commands, row.modules):
        return []
    return [
        unproven(
            f"{server.label}: image {image} is {row.display}'s CUDA build, with no {GPU_RESOURCE} limit and nothing "
            f"that gives the pod a GPU: it finds no CUDA device and falls back to its CPU path (no flash attention, far "
            f"slower), which the publisher ships a CPU image for; set resources.limits {GPU_RESOURCE}: 1 with the GPU "
            f"pool's toleration and node selection, or use the CPU image"
        )
    ]


def _gpu_only_image(image: object, row: Engine, container: dict) -> bool:
    """True when ``image`` is one of an engine's publisher's GPU-only images (the row's ``gpu_only_images``) at a tag
    that names no other platform: on the publisher's own registry path, or through a mirror (names_image) when the
    container also shows the engine's own settings (a credential, cache variable or setting variable of the row, or a
    mount at its cache directory). A mirror path alone may be another team's nested project (`nim/frontend/chat-ui`
    in a GitLab group: review 45 #21)."""
    images = row.gpu_only_images
    if not isinstance(image, str) or not images:
        return False
    tag = (image_tag(image) or "").lower()
    if any(t in tag for t in _OTHER_PLATFORM_TAGS) or not names_image(image, images):
        return False
    return any(marker in image.lower() for marker in images) or _shows_engine(container, row)


def _shows_engine(container: dict, row: Engine) -> bool:
    """True when the container sets a variable the engine's row names, or mounts its default cache directory."""
    names = {v for variables in row.env.values() for v in variables}
    if row.downloads is not None:
        names |= set(row.downloads.credentials) | {v for v, _ in row.downloads.env}
    dirs = set(row.downloads.dirs) if row.downloads is not None else set()
    env = {as_dict(e).get("name") for e in as_list(container.get("env"))}
    mounts = {as_dict(m).get("mountPath") for m in as_list(container.get("volumeMounts"))}
    return bool(names & env) or bool(dirs & mounts)


def _runs_the_server(container: dict, commands: tuple, modules: tuple) -> bool:
    """True when the container runs the engine's server: the image's own entrypoint and CMD (no ``command``, and no
    ``args`` or args that are options), or a command line
    (a shell script's too) that starts one of the row's server commands or modules. A converter (``python3
    convert_checkpoint.py``, which takes --load_model_on_cpu) or NIM's ``download-to-cache`` utility in the same image
    is not the server (review 41 item 14)."""
    if not as_list(container.get("command")):
        args = as_list(container.get("args"))
        if not args or not isinstance(args[0], str) or args[0].startswith("-"):
            return True  # the image's entrypoint and CMD, or options given to them
        # (args alone replace the image's CMD: NIM's `args: [download-to-cache, ...]` runs the utility; review 41
        # item 24)
    argv, _ = command_tokens(container)
    for i, token in enumerate(argv):
        base = posixpath.basename(token)
        if any(base == w[0] and argv[i + 1 : i + len(w)] == list(w[1:]) for w in commands):
            return True
        if any(token.startswith(m) for m in modules):
            return True
    return False


def _judge_gpu_engine(resource: Resource, server: EngineServer) -> list[str]:
    """An engine of the table that serves only on an NVIDIA GPU (``needs_gpu``: NIM, TensorRT-LLM) in a container with
    no GPU limit and no other device source. Blocking where the image is one of the row's ``gpu_only_images``, the
    pod is a core workload (an operator may fill resources of its own resource) and nothing points it at GPU nodes:
    the scheduler may place it on a node without a GPU, where the engine cannot start (spent set 33
    funtastic1234/SkyGuardian k8s/nim.yaml@e620a00 embedding-nim, labelled G13 blocking). Advice otherwise (set 33
    nemotron-8b-reasoning: the GPU taint tolerated, a GPU node pool selected; labelled G13 advisory)."""
    row, container = server.row, server.container
    if row is None or not row.needs_gpu or is_ray(resource.type):
        return []
    if (
        resource_value(container, "limits", GPU_RESOURCE) is not None
        or resource_value(container, "requests", GPU_RESOURCE) is not None
        or other_device_source(container)
        or dra_pod(get(resource.props, "metadata", "annotations"), server.podspec)
        or _limit_range_device(resource)
    ):
        return []
    image, env = container.get("image"), env_values(container)
    runtime_only = _runtime_only(server.podspec, env)
    if _nvidia_runtime(server.podspec) and runtime_only is None:
        return []  # NVIDIA's runtime on nodes picked for their GPU
    tag = (image_tag(str(image)) or "").lower() if isinstance(image, str) else ""
    if any(t in tag for t in _OTHER_PLATFORM_TAGS):
        return []  # a build for another platform (a CPU or ROCm tag) needs no NVIDIA GPU
    hint = _gpu_node_hint(server.podspec, env) or runtime_only
    fix = f"set resources.limits {GPU_RESOURCE} to the GPUs the model needs, with the GPU pool's toleration and node selection"
    serving = _runs_the_server(container, row.commands, row.modules)
    if _gpu_only_image(image, row, container) and hint is None and not is_custom_type(resource.type) and serving:
        return [
            f"{server.label}: image {image} is {row.display}, which serves only on an NVIDIA GPU, but the container has "
            f"no {GPU_RESOURCE} limit and nothing points the pod at GPU nodes, so the scheduler may place it on a node "
            f"without a GPU, where it cannot start (or on a GPU node, using a device nobody allocated to it); {fix}"
        ]
    why = (
        runtime_only
        if runtime_only is not None
        else f"{hint}, but the scheduler counts no GPU for it: it sees one only where the node's default runtime exposes "
        f"every device, and then shares GPUs other pods hold"
        if hint is not None
        else "on a node without a GPU it cannot start (unless this build or the operator that runs it supplies a device)"
    )
    return [
        unproven(
            f"{server.label}: runs {row.display}, which serves only on an NVIDIA GPU, with no {GPU_RESOURCE} limit; {why}; {fix}"
        )
    ]


def _check(resource: Resource, config: dict) -> list[str]:
    rocm = _rocm_without_device(resource)
    # A container set up for ROCm is judged by its own finding (rocm above), not as a server missing an NVIDIA GPU.
    found = [m for server in vllm_servers(resource) if not rocm_marks(server.container) for m in _judge(resource, server)]
    for server in table_servers(resource):
        if rocm_marks(server.container):
            continue
        if server.row and server.row.gpu_or_cpu:
            found += _judge_cpu_capable(resource, server)
        elif server.row and server.row.needs_gpu:
            found += _judge_gpu_engine(resource, server)
    return found + rocm + _ray_engine_without_gpu(resource)


POLICY = Policy(
    name="gpu-engine-has-gpu-limit",
    description="A vLLM container, or one of an engine the table marks GPU-only (NIM, TensorRT-LLM), must hold a GPU: an "
    "nvidia.com/gpu limit, or another device source (another vendor's "
    "resource, DRA, NVIDIA's RuntimeClass, a CPU build); a RayService whose Serve applications run vLLM needs a group "
    "with a GPU limit (advice); an engine that also serves on CPU (Ollama) reaching for a GPU without a limit is advice.",
    catalog="G13",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        'Set resources.limits["nvidia.com/gpu"] to --tensor-parallel-size x --pipeline-parallel-size (the request '
        "defaults to the limit), with the GPU pool's toleration and node selection; to serve on CPUs use vLLM's CPU "
        "image (public.ecr.aws/q9t5s3a7/vllm-cpu-release-repo) instead of vllm/vllm-openai."
    ),
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    rationale=(
        "A container sees GPUs only through a device resource it is given "
        "(https://kubernetes.io/docs/tasks/manage-gpus/scheduling-gpus/); vLLM's CUDA build with no GPU finds no "
        'platform and stops at "Failed to infer device type" (vllm 0.8.3 vllm/platforms/__init__.py:156-175, '
        "vllm/config.py:1880-1890), and on a GPU node whose runtime exposes every device it uses GPUs the scheduler "
        "never counted. Catalogue row 13 (Kyverno's check-nvidia-gpu looks only at the image's env)."
    ),
    operator_fills="the GPU limit",
)
