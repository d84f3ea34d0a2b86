"""G20 pdb-below-replicas (G19 pdb-allows-disruption until session 47): a minAvailable 1 over a workload the files read do not hold, a Deployment whose replicas
are unset (1 by default), and a KEDA ScaledObject's minReplicaCount as the floor."""

from __future__ import annotations

from policy_fixtures import found_by

POLICY = "pdb-below-replicas"


def _pdb(budget: dict, app: str = "vllm") -> dict:
    return {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": f"{app}-pdb", "namespace": "inference"},
        "spec": {**budget, "selector": {"matchLabels": {"app": app}}},
    }


def _deployment(replicas: int | None, app: str = "vllm") -> dict:
    spec: dict = {
        "selector": {"matchLabels": {"app": app}},
        "template": {
            "metadata": {"labels": {"app": app}},
            "spec": {"containers": [{"name": app, "image": "vllm/vllm-openai:v0.10.1"}]},
        },
    }
    if replicas is not None:
        spec["replicas"] = replicas
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": app, "namespace": "inference"}, "spec": spec}


def _scaled_object(floor: int | None, app: str = "vllm") -> dict:
    spec: dict = {"scaleTargetRef": {"name": app}, "triggers": [{"type": "cpu", "metadata": {"value": "60"}}]}
    if floor is not None:
        spec["minReplicaCount"] = floor
    return {
        "apiVersion": "keda.sh/v1alpha1",
        "kind": "ScaledObject",
        "metadata": {"name": app, "namespace": "inference"},
        "spec": spec,
    }


def test_min_available_one_over_a_workload_not_read_is_advice():
    # jolyonbrown/inference-platform k8s/base/pdb.yaml@75af5222f451c7930604d4d0a8738047fe5b6a96 (spent set 41, labelled
    # G19/G20): minAvailable 1 over app=vllm, whose one-replica Deployment is another file of the kustomization.
    ((level, message),) = found_by([_pdb({"minAvailable": 1})], POLICY)
    assert level == "advisory" and "no workload of the files read" in message


def test_replicas_unset_is_one_and_a_keda_floor_counts():
    # chrismld/ai-on-eks-demos demos/vllm-autoscaling/kubernetes/vllm/pdb.yaml (spent set 23, labelled G20): minAvailable
    # 1 over a Deployment with no replicas field (KEDA owns it).
    ((_, message),) = found_by([_pdb({"minAvailable": 1}), _deployment(None)], POLICY)
    assert "not below the 1 replicas of Deployment vllm" in message
    # riya0920/asr-serving-vllm-k8s infra/k8s/deployment.yaml (spent set 18, labelled G20): minAvailable 2 and a KEDA
    # minReplicaCount 2 over a Deployment with no replicas field.
    ((_, message),) = found_by([_pdb({"minAvailable": 2}), _deployment(None), _scaled_object(2)], POLICY)
    assert "not below the 2 replicas of Deployment vllm" in message


def test_careful_budgets_stay_silent():
    # Two replicas or a KEDA floor of 2 under minAvailable 1, or maxUnavailable 1 over pods not read: an eviction is allowed.
    assert found_by([_pdb({"minAvailable": 1}), _deployment(2)], POLICY) == []
    assert found_by([_pdb({"minAvailable": 1}), _deployment(None), _scaled_object(2)], POLICY) == []
    assert found_by([_pdb({"maxUnavailable": 1})], POLICY) == []
    assert found_by([_pdb({"minAvailable": "50%"})], POLICY) == []


def test_a_keda_floor_over_a_workload_not_read_is_g20():
    # ShivSingh96/litellm-gateway-demo keda/scaledobject.yaml (spent set 44, labelled G20): a ScaledObject
    # litellm-gateway with minReplicaCount 1 over Deployment litellm (not in the file) and, beside it, a PDB minAvailable 1
    # over app=litellm. The KEDA floor is the proof the unseen-workload guess lacks: pdb-below-autoscaler-floor reports it,
    # pdb-below-replicas steps aside.
    scaled = _scaled_object(1, app="litellm")
    scaled["metadata"]["name"] = "litellm-gateway"
    objs = [scaled, _pdb({"minAvailable": 1}, app="litellm")]
    assert found_by(objs, POLICY) == []
    ((level, message),) = found_by(objs, "pdb-below-autoscaler-floor")
    assert level == "advisory" and "minReplicaCount 1 of ScaledObject litellm-gateway" in message
    assert "Deployment litellm (not in the files read" in message


def test_a_keda_floor_below_the_budget_or_another_target_is_silent():
    # Careful forms: a floor of 2 under minAvailable 1; a selector naming another app than the scaled target; the
    # workload in the files is judged by the reader of its pods, once, not a second time by name.
    assert (
        found_by([_scaled_object(2, app="litellm"), _pdb({"minAvailable": 1}, app="litellm")], "pdb-below-autoscaler-floor") == []
    )
    assert (
        found_by([_scaled_object(1, app="litellm"), _pdb({"minAvailable": 1}, app="redis")], "pdb-below-autoscaler-floor") == []
    )
    objs = [_scaled_object(1, app="litellm"), _pdb({"minAvailable": 1}, app="litellm"), _deployment(3, app="litellm")]
    assert len(found_by(objs, "pdb-below-autoscaler-floor")) == 1


def test_a_keda_floor_is_read_through_a_match_expressions_selector():
    # The same PDB with `matchExpressions: [{key: app, operator: In, values: [litellm]}]`, the same selector
    # (LabelSelectorAsSelector; tools/form_variants.py match-expressions); a two-value In says more and stays silent.
    scaled = _scaled_object(1, app="litellm")
    pdb = _pdb({"minAvailable": 1}, app="litellm")
    pdb["spec"]["selector"] = {"matchExpressions": [{"key": "app", "operator": "In", "values": ["litellm"]}]}
    assert [lv for lv, _ in found_by([scaled, pdb], "pdb-below-autoscaler-floor")] == ["advisory"]
    pdb["spec"]["selector"]["matchExpressions"][0]["values"].append("redis")
    assert found_by([scaled, pdb], "pdb-below-autoscaler-floor") == []


def test_the_budget_is_g20_and_joined_across_an_omitted_namespace():
    # The catalogue's G20 row ("PDB minAvailable vs replicas / HPA min") is this comparison; labellers of spent sets 18,
    # 23 and 41 chose G20 for it while G19 reported it. A PDB in its own file that names namespace inference, beside a
    # Deployment file that names none (kubectl apply -n, or a kustomization, gives it one), is the same pair; so is the
    # reverse.
    bare = _deployment(1)
    del bare["metadata"]["namespace"]
    ((level, message),) = found_by([_pdb({"minAvailable": 1}), bare], POLICY)
    assert level == "advisory" and "not below the 1 replicas of Deployment vllm" in message
    budget = _pdb({"minAvailable": 1})
    del budget["metadata"]["namespace"]
    assert len(found_by([budget, _deployment(None)], POLICY)) == 1
    assert found_by([_pdb({"minAvailable": 1}), _deployment(1)], "pdb-allows-disruption") == []  # G19: zero budgets only


def test_careful_budgets_over_a_workload_read_stay_silent():
    # minAvailable 1 over 2 replicas; maxUnavailable 1 over 1; a percentage (50% of 2 rounds up to 1: one eviction
    # allowed); another namespace named on both sides.
    assert found_by([_pdb({"minAvailable": 1}), _deployment(2)], POLICY) == []
    assert found_by([_pdb({"maxUnavailable": 1}), _deployment(1)], POLICY) == []
    assert found_by([_pdb({"minAvailable": "50%"}), _deployment(2)], POLICY) == []
    other = _deployment(1)
    other["metadata"]["namespace"] = "batch"
    assert found_by([_pdb({"minAvailable": 1}), other], POLICY) == [
        (
            "advisory",
            "PodDisruptionBudget vllm-pdb: minAvailable 1 over pods no workload of the files read holds; if that "
            "workload runs one replica (the default when replicas is unset), no voluntary eviction is ever allowed, so "
            "GPU nodes cannot be drained, consolidated or patched; use maxUnavailable: 1, or run two or more replicas",
        )
    ]


def test_a_workload_in_the_pdbs_own_namespace_is_the_one_it_guards():
    # review47b item 3: prod's PDB (namespace inference, minAvailable 2) beside prod's Deployment (3 replicas), and
    # another environment's Deployment with the same labels that names no namespace (1 replica): the budget guards
    # its own namespace's workload and allows one eviction there, so nothing is reported.
    bare = _deployment(1)
    del bare["metadata"]["namespace"]
    assert found_by([_pdb({"minAvailable": 2}), _deployment(3), bare], POLICY) == []
    # With no workload in its namespace the omitted-namespace join still stands.
    ((level, _),) = found_by([_pdb({"minAvailable": 2}), bare], POLICY)
    assert level == "advisory"


def _lws(groups: int | None, size: int | None) -> dict:
    template = {
        "metadata": {"labels": {"app": "vllm"}},
        "spec": {"containers": [{"name": "vllm", "image": "vllm/vllm-openai:v0.10.1"}]},
    }
    lwt: dict = {"workerTemplate": template}
    if size is not None:
        lwt["size"] = size
    spec: dict = {"leaderWorkerTemplate": lwt}
    if groups is not None:
        spec["replicas"] = groups
    return {
        "apiVersion": "leaderworkerset.x-k8s.io/v1",
        "kind": "LeaderWorkerSet",
        "metadata": {"name": "vllm", "namespace": "inference"},
        "spec": spec,
    }


def test_a_leader_worker_set_counts_pods_not_groups_and_zero_replicas_are_silent():
    # review47b items 4 and 5: one group of 4 pods under minAvailable 2 allows two evictions; minAvailable 4 allows
    # none; a Deployment scaled to 0 by hand has no pods to evict.
    assert found_by([_pdb({"minAvailable": 2}), _lws(1, 4)], POLICY) == []
    ((level, message),) = found_by([_pdb({"minAvailable": 4}), _lws(None, 4)], POLICY)
    assert level == "advisory" and "not below the 4 replicas of LeaderWorkerSet vllm" in message
    assert found_by([_pdb({"minAvailable": 1}), _deployment(0)], POLICY) == []
