"""S30 on a Helm release: the claim a chart renders beside its rolling Deployment (``single-attach-chart-rolls``).

A release of a chart that renders its server's Deployment and claims (policies/chart_workloads.py: the vLLM production
stack, LocalAI) is judged as a Deployment is by ``single-attach-volume-rolls`` (policies/gpu/single_attach_rollout.py):
a ReadWriteOnce(Pod) claim the chart makes, or one of the run, mounted under the chart's rolling update or by several
replicas. vllm-stack renders the claim RELEASE-NAME-storage-claim for ``pvcStorage`` (``pvcAccessMode``, else
ReadWriteOnce: helm/templates/pvc.yaml:12-17@vllm-stack-0.1.5) under RollingUpdate maxSurge 100% unless
``servingEngineSpec.strategy`` (_helpers.tpl:38-47); local-ai a claim per enabled ``persistence`` entry with the
accessModes written (ReadWriteMany by default) under a Deployment with no strategy (templates/deployment.yaml:11-16,
pvcs.yaml@local-ai-3.4.2). Advice: the release's values are not the whole story (values files, valuesFrom,
post-renderers), and ReadWriteOnce admits a replacement on the same node.
"""

from __future__ import annotations

from policies.framework import Policy, Resource, unproven
from policies.gpu.single_attach_rollout import SINGLE_ATTACH, _claims, _one_node, _surges
from policies.helm_charts import RELEASE_GROUP_KINDS, chart_workloads
from policies.kube import as_list, get, split_type


class _ReleaseTypes(tuple):
    """The release kinds of policies/helm_charts.py at any API version (RELEASE_GROUP_KINDS)."""

    def __contains__(self, item: object) -> bool:
        return isinstance(item, str) and split_type(item) in RELEASE_GROUP_KINDS


def _check(resource: Resource, config: dict) -> list[str]:
    """A Helm release of a chart that renders its server's Deployment and claims (policies/chart_workloads.py: the vLLM
    production stack, LocalAI): a claim the chart makes single-attach, or one of the run, under the chart's rolling
    update or several replicas, judged as a Deployment's is. Advice: the release's values are not the whole story
    (values files, valuesFrom, post-renderers). Spent set 98 amasolov/home-ops kubernetes/apps/ai/local-ai/app/
    helmrelease.yaml@b387824e (chart local-ai 3.4.2, persistence models and output ReadWriteOnce, no strategy)."""
    messages: list[str] = []
    run_claims: dict | None = None
    for where, workload in chart_workloads(resource.props):
        replicas = workload.replicas
        many = isinstance(replicas, (int, float)) and not isinstance(replicas, bool) and replicas > 1
        if not (many or _surges({"strategy": workload.strategy})):
            continue
        for volume in as_list(workload.pod.get("volumes")):
            name = get(volume, "persistentVolumeClaim", "claimName")
            if not isinstance(name, str):
                continue
            if name in workload.claims:
                modes = list(workload.claims[name])
            else:
                run_claims = _claims(resource) if run_claims is None else run_claims
                if name not in run_claims:
                    continue
                modes = [m for m in as_list(get(run_claims[name], "spec", "accessModes")) if isinstance(m, str)]
            if not modes or any(m not in SINGLE_ATTACH for m in modes):
                continue
            if "ReadWriteOncePod" not in modes and _one_node(workload.pod):
                continue
            why = (
                f"{replicas} replicas: the pods after the first cannot attach it"
                if many
                else "the chart's RollingUpdate starts the new pod before the old one releases it"
            )
            messages.append(
                unproven(
                    f"{where}.volumes {volume.get('name')}: PersistentVolumeClaim {name} is {'/'.join(modes)} "
                    f"(single-attach) and {why} (Multi-Attach error if the new pod lands on another node), so the "
                    f"rollout never completes; give the claim ReadWriteMany, or a Recreate strategy where the chart takes "
                    f"one (vllm-stack servingEngineSpec.strategy)"
                )
            )
    return messages


POLICY = Policy(
    name="single-attach-chart-rolls",
    description=(
        "A Helm release of a chart that renders its server's Deployment (vllm-stack, local-ai) does not mount a "
        "ReadWriteOnce(Pod) claim under the chart's rolling update or several replicas (advice)."
    ),
    catalog="S30",
    severity="high",
    enforcement="advisory",
    remediation_steps=(
        "Give the claim ReadWriteMany (vllm-stack modelSpec[].pvcAccessMode, local-ai persistence.<name>.accessModes), "
        "or set servingEngineSpec.strategy to Recreate on vllm-stack."
    ),
    resource_types=_ReleaseTypes(
        (
            "kubernetes:helm.toolkit.fluxcd.io/v2:HelmRelease",
            "kubernetes:argoproj.io/v1alpha1:Application",
            "kubernetes:helm.cattle.io/v1:HelmChart",
        )
    ),
    check_resource=_check,
    rationale=(
        "ReadWriteOnce mounts a volume on one node and ReadWriteOncePod in one pod "
        "(https://kubernetes.io/docs/concepts/storage/persistent-volumes/#access-modes); the chart's Deployment surges, "
        "so a replacement on another node waits on the attach the old pod holds (Multi-Attach error)."
    ),
)
