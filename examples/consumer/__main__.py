"""Add one model to a running llm-serving platform from another Pulumi project.

The platform stack (this repository's program) exports what other stacks need; this program reads
it through a StackReference: the cluster's name, region, endpoint and CA (to build the Kubernetes
provider, without a lookup in a region of its own), the serving namespace, the NodePool name of
each GPU pool, and the names of the Hugging Face token and API key Secrets. It then adds one
VllmService (its capacity plan computed from the model and the pool, behind the platform's API
key) and the model's autoscaler. Its own ``aws:region``, when set, must be the platform's: it is
refused otherwise. Needs the library installed: ``pip install git+<this repository>`` (or
``pip install .`` from the repository's root).
"""

import pulumi
import pulumi_kubernetes as k8s
from llm_serving import GpuPoolConfig, ModelAutoscaling, ModelAutoscalingArgs, ModelConfig, VllmService, VllmServiceArgs
from llm_serving.builders.kubeconfig import eks_kubeconfig
from pydantic import ValidationError

config = pulumi.Config()
try:
    model = ModelConfig.model_validate(config.require_object("model"))
    gpu_pool = GpuPoolConfig.model_validate(config.require_object("gpuPool"))
except ValidationError as exc:
    # RunError: the CLI prints the message alone, without a Python traceback.
    raise pulumi.RunError(f"invalid configuration: {exc}") from None

platform = pulumi.StackReference(config.require("platformStack"))
namespace = platform.require_output("namespace")

# The platform's cluster, where the platform says it is: its region and endpoint are the platform's
# exports, so this stack never looks the cluster up in a region of its own.
aws_config = pulumi.Config("aws")
own_region = aws_config.get("region")
roles = aws_config.get_object("assumeRoles") or []


def _same_region(region: str) -> str:
    if own_region and own_region != region:
        raise pulumi.RunError(
            f"aws:region = {own_region!r}, but the platform stack's region output is {region!r}: this stack adds a model "
            "to the platform's cluster, so set aws:region to the platform's region (or leave it unset)"
        )
    return region


def _kubeconfig(values: list) -> str:
    name, endpoint, authority, region = values
    # kubectl's exec plugin runs as this stack's AWS profile / assumed role, like its AWS provider.
    role = roles[0].get("roleArn") if roles and isinstance(roles[0], dict) else None
    return eks_kubeconfig(name, endpoint, authority, _same_region(region), aws_config.get("profile"), role)


cluster_region = platform.require_output("region")
cluster_endpoint = platform.require_output("clusterEndpoint")
kubeconfig: pulumi.Output[str] = pulumi.Output.all(
    platform.require_output("clusterName"),
    cluster_endpoint,
    platform.require_output("clusterCertificateAuthority"),
    cluster_region,
).apply(_kubeconfig)
secret_kubeconfig: pulumi.Output[str] = pulumi.Output.secret(kubeconfig)
cluster = k8s.Provider("platform-cluster", kubeconfig=secret_kubeconfig)
on_cluster = pulumi.ResourceOptions(provider=cluster)

service = VllmService(
    model.name,
    VllmServiceArgs(
        model=model,
        gpu_pool=gpu_pool,  # no plan given: the component computes it
        namespace=namespace,
        pool_name=platform.require_output("poolNames").apply(lambda pools: pools[gpu_pool.name]),
        hf_token_secret=platform.require_output("hfTokenSecret"),
        # Behind the platform's API key too, when it has one (its apiKeySecret output; null otherwise).
        api_key_secret=platform.get_output("apiKeySecret"),
    ),
    opts=on_cluster,
)
scaling = ModelAutoscaling(
    f"{model.name}-autoscaling",
    ModelAutoscalingArgs(model=model, plan=service.plan, namespace=namespace),
    opts=on_cluster,
)

pulumi.export("url", service.url)
pulumi.export("modelName", service.model_name)
pulumi.export("queueBudget", service.queue_budget)
pulumi.export("hpaTarget", scaling.hpa_target)
pulumi.export("clusterRegion", cluster_region.apply(_same_region))
pulumi.export("clusterEndpoint", cluster_endpoint)
