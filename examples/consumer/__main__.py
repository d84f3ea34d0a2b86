"""Add one model to a running llm-serving platform from another Pulumi project.

The platform stack (this repository's program) exports what other stacks need; this program reads
it through a StackReference: the cluster's name (to build the Kubernetes provider), the serving
namespace, the NodePool name of each GPU pool and the name of the Hugging Face token Secret. It
then adds one VllmService (its capacity plan computed from the model and the pool) and the
model's autoscaler. Needs the library installed: ``pip install git+<this repository>`` (or
``pip install .`` from the repository's root).
"""

import pulumi
import pulumi_kubernetes as k8s
from pydantic import ValidationError

from llm_serving import GpuPoolConfig, ModelAutoscaling, ModelAutoscalingArgs, ModelConfig, VllmService, VllmServiceArgs
from llm_serving.cluster import eks_kubeconfig_output

config = pulumi.Config()
try:
    model = ModelConfig.model_validate(config.require_object("model"))
    gpu_pool = GpuPoolConfig.model_validate(config.require_object("gpuPool"))
except ValidationError as exc:
    # RunError: the CLI prints the message alone, without a Python traceback.
    raise pulumi.RunError(f"invalid configuration: {exc}") from None

platform = pulumi.StackReference(config.require("platformStack"))
namespace = platform.require_output("namespace")

# The platform's cluster, through one explicit provider (its kubeconfig is a secret Output).
cluster = k8s.Provider(
    "platform-cluster",
    kubeconfig=eks_kubeconfig_output(platform.require_output("clusterName"), pulumi.Config("aws").require("region")),
)
on_cluster = pulumi.ResourceOptions(provider=cluster)

service = VllmService(
    model.name,
    VllmServiceArgs(
        model=model,
        gpu_pool=gpu_pool,  # no plan given: the component computes it
        namespace=namespace,
        pool_name=platform.require_output("poolNames").apply(lambda pools: pools[gpu_pool.name]),
        hf_token_secret=platform.require_output("hfTokenSecret"),
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
