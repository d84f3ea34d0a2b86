"""G20 reads a PodDisruptionBudget an operator's resource asks for (a podDisruptionBudget / pdb field) against the
replicas of the same component (beside it, in a mapping holding it, or in that mapping's autoscaling)."""

from __future__ import annotations

import copy

from policy_fixtures import found_by

POLICY = "pdb-below-autoscaler-floor"

# opendatahub-io/llama-stack-k8s-operator config/samples/_v1alpha1_llamastackdistribution.yaml@76895fce0f00a3a7e147b7f5689a7d1b4ed5b6c9 (spent set 31, labelled
# G20): replicas 1, autoscaling minReplicas 1, podDisruptionBudget minAvailable 1.
V1ALPHA1 = {
    "apiVersion": "llamastack.io/v1alpha1",
    "kind": "LlamaStackDistribution",
    "metadata": {"name": "llamastackdistribution-sample"},
    "spec": {
        "replicas": 1,
        "server": {
            "containerSpec": {"name": "llama-stack"},
            "distribution": {"name": "starter"},
            "podDisruptionBudget": {"minAvailable": 1},
            "autoscaling": {"minReplicas": 1, "maxReplicas": 5, "targetCPUUtilizationPercentage": 75},
            "storage": {"size": "20Gi"},
        },
    },
}
# The same in v1alpha2's layout, as llamastack/llama-stack-k8s-operator docs/migration-v1alpha1-to-v1alpha2.md@4013ae6
# maps it (spec.replicas -> spec.workload.replicas, spec.server.podDisruptionBudget -> spec.workload.podDisruptionBudget).
V1ALPHA2 = {
    "apiVersion": "llamastack.io/v1alpha2",
    "kind": "LlamaStackDistribution",
    "metadata": {"name": "my-llsd"},
    "spec": {
        "distribution": {"name": "starter"},
        "workload": {"replicas": 1, "podDisruptionBudget": {"minAvailable": 1}},
    },
}


def test_a_budget_at_the_components_floor_is_advice():
    assert found_by([V1ALPHA1], POLICY) == [
        (
            "advisory",
            "spec.server.podDisruptionBudget.minAvailable 1 is not below spec.replicas 1: the operator's "
            "PodDisruptionBudget then lets no pod be evicted whenever the pods number that many, so node drains, upgrades "
            "and consolidation wait; use maxUnavailable: 1, or a minAvailable below the fewest replicas",
        )
    ]
    [(level, message)] = found_by([V1ALPHA2], POLICY)
    assert level == "advisory" and message.startswith("spec.workload.podDisruptionBudget.minAvailable 1 is not below")


def test_a_budget_below_the_floor_or_another_components_replicas_stays_silent():
    # The migration guide's full example: replicas 2, autoscaling minReplicas 2, minAvailable 1.
    full = copy.deepcopy(V1ALPHA1)
    full["spec"]["replicas"] = 2
    full["spec"]["server"]["autoscaling"]["minReplicas"] = 2
    # A Percona XtraDB-style resource: the proxy's budget beside its own size (no replicas field), a database component
    # elsewhere with replicas 1 is not this component's floor.
    other = {
        "apiVersion": "pxc.percona.com/v1",
        "kind": "PerconaXtraDBCluster",
        "metadata": {"name": "mysql"},
        "spec": {"pxc": {"replicas": 1}, "haproxy": {"size": 2, "podDisruptionBudget": {"minAvailable": 1}}},
    }
    assert found_by([full, other], POLICY) == []
