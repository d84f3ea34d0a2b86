"""``LlmPlatform`` for every Pulumi language: the library's component behind arguments the SDK's
analyzer turns into a package schema (package/PulumiPlugin.yaml hosts it; docs/package.md).

No ``from __future__ import annotations`` here: the analyzer reads the annotations as types
(``inspect.get_annotations`` without evaluating strings), and each property's description from the
string literal after it.
"""

import re
from pathlib import Path
from typing import NotRequired, Optional, TypedDict

import pulumi

from ..platform import LlmPlatform as _Platform
from ..platform import LlmPlatformArgs as _PlatformArgs
from .convert import stack_config
from .types import StackConfig

# The package's name: resource tokens are llm-serving:index:<Component>.
PACKAGE = "llm-serving"


class LlmPlatformArgs(TypedDict):
    """The inputs of an LlmPlatform."""

    config: StackConfig
    """What a stack file's llm-serving keys configure (the cluster, GPU pools, models, ingress, add-ons...), in the same camelCase names, plus region (aws:region). Validated by the library's config models: an error names the field as config.<path> and the rule."""
    hf_token: NotRequired[pulumi.Input[str]]
    """Hugging Face token, for gated models: stored only in the Kubernetes Secret hf-token (as a Pulumi secret). Pass a secret value (pulumi config set --secret). Default: none (public models only)."""
    api_key: NotRequired[pulumi.Input[str]]
    """The API key every model requires on /v1: stored only in the Kubernetes Secret vllm-api-key (as a Pulumi secret), read by vLLM as VLLM_API_KEY. Pass a secret value. Default: none (no key)."""
    vpc_id: NotRequired[pulumi.Input[str]]
    """The cluster's VPC, where a pool that carries an EFA model gets its own EFA security group. Default: looked up from config.cluster.name when some pool needs one."""
    base_dir: NotRequired[str]
    """The folder a model's architecture.configPath is relative to. Default: the program's working directory."""


class LlmPlatform(pulumi.ComponentResource):
    """vLLM on EKS: the cluster connection, GPU pools (Karpenter), the namespace and credentials, one serving component per model (KServe or KubeRay), its autoscaling and the metrics stack, each sized by the capacity plan so that vLLM neither runs out of GPU memory nor times out."""

    namespace: pulumi.Output[str]
    """The namespace the models are served in."""
    service_urls: pulumi.Output[dict[str, str]]
    """Each model's in-cluster URL, by model name."""
    model_names: pulumi.Output[list[str]]
    """The served models' names, in configuration order."""
    pool_names: pulumi.Output[dict[str, str]]
    """Each GPU pool's Karpenter NodePool name, by pool name."""
    queue_budgets: pulumi.Output[dict[str, int]]
    """Each model's queue budget (requests waiting per replica before the autoscaler adds one), by model name; absent for a model without one."""
    hpa_targets: pulumi.Output[dict[str, int]]
    """Each autoscaled model's target of requests in flight per replica, by model name."""
    hf_token_secret: pulumi.Output[Optional[str]]
    """The name of the Kubernetes Secret holding the Hugging Face token (never its value); absent without hfToken."""
    api_key_secret: pulumi.Output[Optional[str]]
    """The name of the Kubernetes Secret holding the API key (never its value); absent without apiKey."""
    region: pulumi.Output[str]
    """The AWS region of the cluster."""
    cluster_endpoint: pulumi.Output[str]
    """The EKS cluster's API endpoint."""
    cluster_certificate_authority: pulumi.Output[str]
    """The EKS cluster's certificate authority data (base64)."""
    kubeconfig: pulumi.Output[str]
    """A kubeconfig for the cluster (a Pulumi secret)."""

    # Marked "secret": true in the schema and made secrets in Construct (components/hosted/provider.py).
    SECRET_INPUTS = ("hf_token", "api_key")
    SECRET_OUTPUTS = ("kubeconfig",)

    def __init__(self, name: str, args: LlmPlatformArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(f"{PACKAGE}:index:LlmPlatform", name, {}, opts)
        cfg = stack_config(
            args.get("config"), has_hf_token=args.get("hf_token") is not None, has_api_key=args.get("api_key") is not None
        )
        platform = _Platform(
            name,
            _PlatformArgs(
                config=cfg,
                hf_token=args.get("hf_token"),
                api_key=args.get("api_key"),
                vpc_id=args.get("vpc_id"),
                base_dir=Path(args.get("base_dir") or "."),
            ),
            opts=pulumi.ResourceOptions(parent=self),
        )
        self.platform = platform
        outputs = dict(platform.stack_outputs())
        # The library keeps a model without a budget as None; a schema map holds no nulls.
        outputs["queueBudgets"] = pulumi.Output.from_input(outputs["queueBudgets"]).apply(
            lambda budgets: {k: v for k, v in budgets.items() if v is not None}
        )
        # Each stack output is the attribute of the same name in snake case (the schema's outputs, above).
        for key, value in outputs.items():
            setattr(self, re.sub(r"(?<!^)(?=[A-Z])", "_", key).lower(), value)
        self.register_outputs(outputs)
