"""G90 replicas-left-to-autoscaler: a workload an autoscaler of the files manages states no spec.replicas.

Form that fires: spent set 78 thecoinmaniac/llm-kubernetes-exercise@508a6c124df4ac7bb6dc768f094dd78944138ace
phase4/hardening.yaml (HPA ml-demo-inference, namespace ml-demo, min 1 max 3) on phase3/inference-stack.yaml's Deployment
ml-demo-inference, which states replicas: 1 (a label filed NONE). Kubernetes scales a workload to the spec.replicas of
each applied manifest (kubernetes.io HPA docs, "Migrating Deployments and StatefulSets to horizontal autoscaling");
Argo CD leaves replicas out of Git for HPA-managed Deployments (argoproj/argo-cd v3.5.1
docs/user-guide/best_practices.md:34-46).
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import yaml
from policy_fixtures import found_by

from policies.check import main

POLICY = "replicas-left-to-autoscaler"
NS = "ml-demo"


def deployment(replicas=1, namespace=NS, kind="Deployment"):
    spec = {
        "selector": {"matchLabels": {"app": "ml-demo-inference"}},
        "template": {
            "metadata": {"labels": {"app": "ml-demo-inference"}},
            "spec": {"containers": [{"name": "app", "image": "python:3.11-slim"}]},
        },
    }
    if replicas is not ...:
        spec["replicas"] = replicas
    meta = {"name": "ml-demo-inference", **({"namespace": namespace} if namespace else {})}
    return {"apiVersion": "apps/v1", "kind": kind, "metadata": meta, "spec": spec}


def hpa(namespace=NS, kind="Deployment"):
    return {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "ml-demo-inference", "namespace": namespace},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": kind, "name": "ml-demo-inference"},
            "minReplicas": 1,
            "maxReplicas": 3,
            "metrics": [
                {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 70}}}
            ],
        },
    }


def scaled_object():
    return {
        "apiVersion": "keda.sh/v1alpha1",
        "kind": "ScaledObject",
        "metadata": {"name": "inference", "namespace": NS},
        "spec": {"scaleTargetRef": {"name": "ml-demo-inference"}, "triggers": [{"type": "cpu", "metadata": {"value": "70"}}]},
    }


def test_spent_set_78_form_fires_on_the_autoscaler_and_the_workload(tmp_path, capsys):
    (tmp_path / "phase3__inference-stack.yaml").write_text(yaml.safe_dump(deployment()))
    (tmp_path / "phase4__hardening.yaml").write_text(yaml.safe_dump(hpa()))
    main([str(tmp_path), "--format", "json"], stdin=io.BytesIO())
    found = [v for v in json.loads(capsys.readouterr().out)["violations"] if v["policy"] == POLICY]
    assert sorted((Path(v["file"]).name, v["enforcement"]) for v in found) == [
        ("phase3__inference-stack.yaml", "advisory"),  # the workload whose spec.replicas is the field to remove
        ("phase4__hardening.yaml", "advisory"),  # the autoscaler that makes it wrong
    ]
    assert found[0]["message"] == found[1]["message"]
    message = found[0]["message"]
    assert "HPA ml-demo-inference manages Deployment/ml-demo-inference" in message
    assert "Deployment/ml-demo-inference, whose manifest states spec.replicas 1" in message, message


def test_keda_and_statefulset_fire():
    found = found_by([deployment(2), scaled_object()], POLICY)
    assert len(found) == 2 and found[0] == found[1]  # on the ScaledObject and on the Deployment, one message
    ((enforcement, message),) = set(found)
    assert enforcement == "advisory" and "ScaledObject inference" in message and "spec.replicas 2" in message
    assert len(found_by([deployment(kind="StatefulSet"), hpa(kind="StatefulSet")], POLICY)) == 2


def test_careful_forms_are_silent():
    assert found_by([deployment(...), hpa()], POLICY) == []  # replicas left out
    assert found_by([deployment(0), hpa()], POLICY) == []  # zero: the HPA leaves it alone
    assert found_by([deployment("{{ .Values.replicas }}"), hpa()], POLICY) == []
    assert found_by([deployment(namespace="other"), hpa()], POLICY) == []
    assert found_by([deployment(kind="StatefulSet"), hpa()], POLICY) == []  # the HPA names a Deployment
    assert found_by([deployment()], POLICY) == []


def test_bad_input_is_silent():
    broken = hpa()
    broken["spec"]["scaleTargetRef"] = ["x"]
    assert found_by([deployment(), broken, {**deployment(), "spec": None}], POLICY) == []
