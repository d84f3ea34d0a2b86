"""S24 (widened, read by policies/vllm/startup_quantization_supported.py): a vLLM server's --quantization runs on the
GPU its pod pins.

Each quantization method of vLLM has a least compute capability (components/vllm_quantization.py, read from the
wheels per release); vLLM refuses a method above the GPU's while it builds its config, so the server exits before it
loads a weight ("The quantization method ... is not supported for the current GPU. Minimum capability: 80. Current
capability: 75", vllm 0.13.0 vllm/config/vllm.py:383-388). The Marlin methods (awq_marlin, gptq_marlin) and fp8 need
8.0 up to vLLM 0.13 and 7.5 from 0.14 (Marlin on Turing, vllm-project/vllm#29901), so ``--quantization awq_marlin`` on
a T4 fails on vllm/vllm-openai:v0.13.0 and serves on v0.14.0.

The GPU is the one the pod pins (the llm-serving.io/gpu annotation, else its node selection); where none is pinned
nothing is judged. The release is the image tag's (a moving tag, latest or nightly, or none: the newest release read);
where the tag names none (a digest, a build label) the finding is advice when only some releases refuse the method on
that GPU, and blocks when every release of the table does.
"""

from __future__ import annotations

from components.images import image_tag, is_vllm_published, vllm_release
from components.vllm_quantization import MIN_CAPABILITY, min_capability
from policies.framework import Resource, unproven
from policies.kube import as_dict, get
from policies.reading.gpu_selection import allowed_gpus
from policies.reading.vllm_args import vllm_servers
from policies.reading.vllm_capacity import GPU_ANNOTATION, gpu_type


def _release(image: object) -> tuple[bool, str | None]:
    """(known, release): the image's vLLM release (None: the newest read), known False when the tag names none."""
    if not isinstance(image, str) or not image or not is_vllm_published(image):
        return False, None  # a rebuild's tag is its owner's version, not vLLM's (review 43 #1)
    release = vllm_release(image)
    if release is not None:
        return True, release
    tag = (image_tag(image) or "").lower()
    if "@" not in image and tag in ("", "latest", "nightly"):
        return True, None
    return False, None


def _verdict(method: str, have: int, image: object) -> tuple[int, str, bool] | None:
    """(least capability, the release it holds in, proven) when the method does not run on a GPU of capability
    ``have`` (major*10+minor) at the image's release; None when it runs or the table does not know."""
    known, release = _release(image)
    if known:
        least = min_capability(method, release)
        if least is None or have >= least:
            return None
        return least, f"vLLM {release}" if release else "the newest vLLM release read", True
    rows = [least for _, least in MIN_CAPABILITY.get(method.lower(), ())]
    if not rows or have >= max(rows):
        return None
    if have < min(rows):
        return min(rows), "every vLLM release read", True
    return max(rows), "vLLM before 0.14 (Marlin on Turing came with vllm-project/vllm#29901)", False


def gpu_findings(resource: Resource) -> list[str]:
    """Findings on every vLLM server of ``resource`` whose --quantization the pinned GPU cannot run (module docstring)."""
    messages: list[str] = []
    for server in vllm_servers(resource):
        method = server.args.get("quantization")
        gpu = gpu_type(resource, server) if isinstance(method, str) and "$" not in method else None
        cc = gpu.compute_capability if gpu is not None else None
        if gpu is None or cc is None or not isinstance(method, str):
            continue  # no GPU pinned, or one whose compute capability the table does not give
        have = cc[0] * 10 + cc[1]
        verdict = _verdict(method, have, server.container.get("image"))
        if verdict is None:
            continue
        least, where, proven = verdict
        # The selection may allow several GPU types (an In list, ORed terms): the start fails for sure only when every
        # one of them refuses the method; where another runs it, the scheduler's choice decides (advice).
        others = [] if GPU_ANNOTATION in as_dict(get(resource.props, "metadata", "annotations")) else allowed_gpus(server.podspec)
        runs = [
            g.name
            for g in others
            if g.compute_capability
            and _verdict(method, g.compute_capability[0] * 10 + g.compute_capability[1], server.container.get("image")) is None
        ]
        if runs:
            proven = False
            where = f"{where} (the node selection also allows {', '.join(sorted(set(runs)))}, which runs it)"
        text = (
            f"{server.label}: --quantization {method} needs a GPU of compute capability {least // 10}.{least % 10} or "
            f"above in {where}, and the {gpu.name} has {cc[0]}.{cc[1]}"
        )
        if proven:
            messages.append(
                f'{text}; vLLM refuses it while it builds its config ("The quantization method {method} is not '
                f'supported for the current GPU. Minimum capability: {least}. Current capability: {have}") and the '
                "server exits before it loads a weight; use a method this GPU runs or pin a newer GPU"
            )
        else:
            messages.append(
                unproven(
                    f"{text}; unless the scheduler picks another GPU or the image's release runs it, vLLM exits at start: pin a vLLM tag of 0.14 or later, or a newer GPU"
                )
            )
    return messages
