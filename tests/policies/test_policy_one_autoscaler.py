"""G17 one-autoscaler-per-workload: two autoscalers on one workload, across kinds and files of one run.

Third-party forms that fire (minimal hand-written shapes, not copies):
- rmehta2974/LLM_mlops @ 5684269878ef691652db8d14e889d6e0c7a1d6e2 alternate_learning/manifests/ (held-out set 5, spent):
  Deployment triton-llm (10-triton-deployment.yaml), HPA triton-llm-hpa (20-hpa.yaml) and ScaledObject
  triton-llm-scaledobject (21-keda-scaledobject.yaml) on it, namespace llm-inference.
- kubernetes/examples @ 279e8e4fe314f6cb7bc55fa3fbc21bbeaa48c0ea AI/vllm-deployment/hpa/: horizontal-pod-autoscaler.yaml
  and gpu-horizontal-pod-autoscaler.yaml, two HPAs on Deployment vllm-gemma-deployment (which is not in that folder).
- vllm-project/aibrix @ e3e10f9e4aebe9aac5e7d992fb87d2648e01628b samples/autoscaling/: hpa.yaml and kpa.yaml, two
  PodAutoscalers on deploy.yaml's Deployment deepseek-r1-distill-llama-8b (corpus 1).
- GoogleCloudPlatform/kubernetes-engine-samples cost-optimization/gke-keda/ollama/keda-ollama-httpscaledobject.yaml
  (manifests-v2 row 13): an HTTPScaledObject on Deployment ollama, here beside an HPA on the same Deployment.
- NVIDIA/k8s-nim-operator @ f63f74d7ad22eaea7943cc640e545f4ccdbb8077 config/samples/nim/serving/standalone/autoscaling/
  llm.yaml (corpus 1): a NIMService with spec.scale.enabled, here beside a user HPA on its Deployment.
Upstream behaviour is cited in policies/autoscaling/one_autoscaler.py (keda v2.20.2, http-add-on v0.15.0, kserve v0.20.0,
k8s-nim-operator v3.1.2, aibrix v0.7.0).
"""

from __future__ import annotations

import copy
import io
import json
from pathlib import Path

import yaml
from policy_fixtures import manifest

from policies.autoscaling.one_autoscaler import POLICY
from policies.check import main
from policies.registry import evaluate

NS = "llm-inference"


def deployment(name="triton-llm", namespace=NS):
    meta = {"name": name, **({"namespace": namespace} if namespace else {})}
    pod = {"containers": [{"name": "server", "image": "nvcr.io/nvidia/tritonserver:24.01-py3"}]}
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta, "spec": {"template": {"spec": pod}}}


def hpa(name="triton-llm-hpa", target="triton-llm", namespace=NS, kind="Deployment"):
    meta = {"name": name, **({"namespace": namespace} if namespace else {})}
    spec = {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": kind, "name": target}, "minReplicas": 2, "maxReplicas": 10}
    return {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": meta, "spec": spec}


def scaled_object(name="triton-llm-scaledobject", target="triton-llm", namespace=NS, annotations=None, hpa_name=None):
    meta = {"name": name, "namespace": namespace, **({"annotations": annotations} if annotations else {})}
    spec = {"scaleTargetRef": {"name": target}, "triggers": [{"type": "prometheus", "metadata": {"query": "q"}}]}
    if hpa_name:
        spec["advanced"] = {"horizontalPodAutoscalerConfig": {"name": hpa_name}}
    return {"apiVersion": "keda.sh/v1alpha1", "kind": "ScaledObject", "metadata": meta, "spec": spec}


def found(*objs, config=None):
    pack = {POLICY.name: config} if config else None
    return sorted((v.resource, v.enforcement) for v in evaluate([manifest(o) for o in objs], pack, policies=[POLICY]))


def test_hpa_and_scaled_object_on_one_deployment_in_the_set_block_once_on_the_later():
    # One block per conflict (review 43 #19), on the autoscaler applied later; the earlier one is advice naming it.
    # Labellers filed the later one: sets 37 (ggs12355/llm-elastic-governor) and 38 (Ting-YuChou/
    # LLM-Infrastructure-mvp) the ScaledObject after the HPA (KEDA's webhook refuses it), set 41 (rajyadav9/mlops
    # k8s/keda/scaledobject.yaml) the HPA written after the ScaledObject in the same file.
    assert found(deployment(), hpa(), scaled_object()) == [
        ("HorizontalPodAutoscaler/triton-llm-hpa", "advisory"),
        ("ScaledObject/triton-llm-scaledobject", "mandatory"),
    ]
    on_hpa, on_so = evaluate([manifest(o) for o in (deployment(), hpa(), scaled_object())], policies=[POLICY])
    assert on_so.message.startswith(
        "ScaledObject triton-llm-scaledobject (through the HPA KEDA creates for it) and HPA triton-llm-hpa both scale "
        "Deployment/triton-llm in namespace llm-inference: "
    )
    assert on_hpa.message.startswith(
        "HPA triton-llm-hpa and ScaledObject triton-llm-scaledobject (through the HPA KEDA creates for it) both scale "
        "Deployment/triton-llm in namespace llm-inference: "
    )
    assert on_hpa.message.endswith("(the blocking finding is on ScaledObject/triton-llm-scaledobject, applied after this one)")
    assert "KEDA's webhook refuses" in on_so.message and "KEDA's webhook refuses" in on_hpa.message
    # The set 41 order: the ScaledObject first, the HPA after it carries the block.
    assert found(deployment(), scaled_object(), hpa()) == [
        ("HorizontalPodAutoscaler/triton-llm-hpa", "mandatory"),
        ("ScaledObject/triton-llm-scaledobject", "advisory"),
    ]


def test_three_autoscalers_report_each_once_preferring_a_proven_pair():
    # The HPA without a namespace pairs with the others only as advice; of the two namespaced ones the later blocks,
    # once, and the earlier is advice naming it.
    assert found(deployment(), hpa("b", namespace=None), hpa(), scaled_object()) == [
        ("HorizontalPodAutoscaler/b", "advisory"),
        ("HorizontalPodAutoscaler/triton-llm-hpa", "advisory"),
        ("ScaledObject/triton-llm-scaledobject", "mandatory"),
    ]


def test_two_hpas_without_their_target_in_the_set_are_advised():
    # kubernetes/examples AI/vllm-deployment/hpa: two alternatives of one folder, the Deployment elsewhere.
    pair = (hpa("gemma-server-hpa", "vllm-gemma-deployment", None), hpa("gemma-server-gpu-hpa", "vllm-gemma-deployment", None))
    assert found(*pair) == [
        ("HorizontalPodAutoscaler/gemma-server-gpu-hpa", "advisory"),
        ("HorizontalPodAutoscaler/gemma-server-hpa", "advisory"),
    ]
    assert found(deployment("vllm-gemma-deployment", None), *pair) == [
        ("HorizontalPodAutoscaler/gemma-server-gpu-hpa", "mandatory"),
        ("HorizontalPodAutoscaler/gemma-server-hpa", "advisory"),
    ]


def test_two_aibrix_pod_autoscalers_and_scaled_object_pairs():
    def pod_autoscaler(name, strategy):
        spec = {"scalingStrategy": strategy, "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "ds"}}
        meta = {"name": name, "namespace": "default"}
        return {"apiVersion": "autoscaling.aibrix.ai/v1alpha1", "kind": "PodAutoscaler", "metadata": meta, "spec": spec}

    target = deployment("ds", "default")
    assert found(target, pod_autoscaler("ds-hpa", "HPA"), pod_autoscaler("ds-kpa", "KPA")) == [
        ("PodAutoscaler/ds-hpa", "advisory"),
        ("PodAutoscaler/ds-kpa", "mandatory"),
    ]
    assert found(target, pod_autoscaler("ds-kpa", "KPA"), hpa("ds", "ds", "default")) == [
        ("HorizontalPodAutoscaler/ds", "mandatory"),
        ("PodAutoscaler/ds-kpa", "advisory"),
    ]
    so = scaled_object("a", "ds", "default"), scaled_object("b", "ds", "default")
    assert found(target, *so) == [("ScaledObject/a", "advisory"), ("ScaledObject/b", "mandatory")]


def test_http_scaled_object_beside_an_hpa_and_its_own_scaled_object():
    http = {
        "apiVersion": "http.keda.sh/v1alpha1",
        "kind": "HTTPScaledObject",
        "metadata": {"namespace": "ollama", "name": "ollama"},
        "spec": {
            "scaleTargetRef": {
                "name": "ollama",
                "kind": "Deployment",
                "apiVersion": "apps/v1",
                "service": "ollama",
                "port": 11434,
            }
        },
    }
    target = deployment("ollama", "ollama")
    assert found(target, http, hpa("ollama-cpu", "ollama", "ollama")) == [
        ("HTTPScaledObject/ollama", "advisory"),
        ("HorizontalPodAutoscaler/ollama-cpu", "mandatory"),
    ]
    # The ScaledObject the add-on creates has the HTTPScaledObject's name: the same autoscaler, not a second one.
    assert found(target, http, scaled_object("ollama", "ollama", "ollama")) == []
    # With skip-scaledobject-creation the add-on creates none: the user's own ScaledObject is the only autoscaler.
    skipping = copy.deepcopy(http)
    skipping["metadata"]["annotations"] = {"httpscaledobject.keda.sh/skip-scaledobject-creation": "true"}
    assert found(target, skipping, scaled_object("ollama-so", "ollama", "ollama")) == []


def test_nim_service_scale_enabled_beside_a_user_hpa():
    nim = {
        "apiVersion": "apps.nvidia.com/v1alpha1",
        "kind": "NIMService",
        "metadata": {"name": "meta-llama-3-2-1b-instruct", "namespace": "nim-service"},
        "spec": {"scale": {"enabled": True, "hpa": {"minReplicas": 1, "maxReplicas": 3}}},
    }
    user = hpa("llama-hpa", "meta-llama-3-2-1b-instruct", "nim-service")
    assert found(nim, user) == [
        ("HorizontalPodAutoscaler/llama-hpa", "mandatory"),
        ("NIMService/meta-llama-3-2-1b-instruct", "advisory"),
    ]
    nim["spec"]["scale"]["enabled"] = False
    assert found(nim, user) == []


def _isvc(annotations):
    return {
        "apiVersion": "serving.kserve.io/v1beta1",
        "kind": "InferenceService",
        "metadata": {"name": "chat", "namespace": "models", "annotations": annotations},
        "spec": {"predictor": {"model": {"modelFormat": {"name": "huggingface"}}}},
    }


def test_kserve_standard_mode_creates_its_own_hpa():
    user = hpa("chat-hpa", "chat-predictor", "models")
    raw = {"serving.kserve.io/deploymentMode": "RawDeployment"}
    both = [("HorizontalPodAutoscaler/chat-hpa", "mandatory"), ("InferenceService/chat", "advisory")]
    assert found(_isvc(raw), user) == both
    assert found(_isvc({**raw, "serving.kserve.io/autoscalerClass": "keda"}), user) == both
    # autoscalerClass external (or none): KServe creates no HPA, the user's is the only one.
    assert found(_isvc({**raw, "serving.kserve.io/autoscalerClass": "external"}), user) == []
    # Knative mode: the KPA scales revision Deployments of other names.
    assert found(_isvc({"serving.kserve.io/deploymentMode": "Serverless"}), user) == []
    # No mode annotation: the cluster's default (setting), Serverless unless told; RawDeployment makes it advice.
    assert found(_isvc({}), user) == []
    assert found(_isvc({}), user, config={"kserveDefaultDeploymentMode": "RawDeployment"}) == [
        ("HorizontalPodAutoscaler/chat-hpa", "advisory"),
        ("InferenceService/chat", "advisory"),
    ]


def test_keda_adopting_an_hpa_as_documented_is_silent():
    transfer = {"scaledobject.keda.sh/transfer-hpa-ownership": "true"}
    adopting = scaled_object(annotations=transfer, hpa_name="triton-llm-hpa")
    assert found(deployment(), hpa(), adopting) == []
    # The annotation without naming the HPA adopts nothing (KEDA's webhook refuses it).
    assert found(deployment(), hpa(), scaled_object(annotations=transfer)) == [
        ("HorizontalPodAutoscaler/triton-llm-hpa", "advisory"),
        ("ScaledObject/triton-llm-scaledobject", "mandatory"),
    ]


def test_keda_own_hpa_is_not_a_second_autoscaler():
    own = hpa("keda-hpa-triton-llm-scaledobject")
    owned = hpa("renamed")
    owned["metadata"]["ownerReferences"] = [
        {"apiVersion": "keda.sh/v1alpha1", "kind": "ScaledObject", "name": "triton-llm-scaledobject"}
    ]
    assert found(deployment(), scaled_object(), own) == []
    assert found(deployment(), scaled_object(), owned) == []


def test_same_names_in_other_namespaces_or_kinds_are_not_joined():
    assert found(deployment(), deployment(namespace="other"), hpa(), hpa(namespace="other")) == []
    assert found(deployment(), hpa(), hpa("sts-hpa", kind="StatefulSet")) == []
    # One states a namespace, the other is applied wherever kubectl points: advice.
    assert found(deployment(), hpa(), hpa("b", namespace=None)) == [
        ("HorizontalPodAutoscaler/b", "advisory"),
        ("HorizontalPodAutoscaler/triton-llm-hpa", "advisory"),
    ]


def _write(path: Path, *docs: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump_all(docs))


def test_two_clusters_in_one_run_are_never_joined(tmp_path, capsys):
    # dev and prod both define the Deployment (so the run splits by folder); dev scales it with an HPA, prod with KEDA.
    _write(tmp_path / "dev" / "app.yaml", deployment(), hpa())
    _write(tmp_path / "prod" / "app.yaml", deployment(), scaled_object())
    main([str(tmp_path), "--format", "json"], stdin=io.BytesIO())
    report = json.loads(capsys.readouterr().out)
    assert report["scopes"] == ["dev", "prod"]
    assert [v for v in report["violations"] if v["policy"] == POLICY.name] == []
    # One cluster's folder with both in two files: a finding on each; advice, since a folder's files may be
    # alternatives (review 32 R7, /work/review/s25/alt/: deploy.yaml, hpa.yaml "or" keda.yaml).
    _write(tmp_path / "one" / "hpa.yaml", hpa())
    _write(tmp_path / "one" / "so.yaml", deployment(), scaled_object())
    main([str(tmp_path / "one"), "--format", "json"], stdin=io.BytesIO())
    violations = [v for v in json.loads(capsys.readouterr().out)["violations"] if v["policy"] == POLICY.name]
    assert sorted((v["resource"], v["enforcement"], Path(v["file"]).name) for v in violations) == [
        ("HorizontalPodAutoscaler/triton-llm-hpa", "advisory", "hpa.yaml"),
        ("ScaledObject/triton-llm-scaledobject", "advisory", "so.yaml"),
    ]
    for v in violations:
        assert "hpa.yaml and " in v["message"] and v["message"].endswith("so.yaml are applied)")
    # One file holding both proves they are applied together: one block, on the later document.
    _write(tmp_path / "both" / "app.yaml", deployment(), scaled_object(), hpa())
    main([str(tmp_path / "both"), "--format", "json"], stdin=io.BytesIO())
    violations = [v for v in json.loads(capsys.readouterr().out)["violations"] if v["policy"] == POLICY.name]
    assert sorted((v["resource"], v["enforcement"]) for v in violations) == [
        ("HorizontalPodAutoscaler/triton-llm-hpa", "mandatory"),
        ("ScaledObject/triton-llm-scaledobject", "advisory"),
    ]
    # The alternatives in sibling files with the Deployment in a third: advice.
    _write(tmp_path / "alt" / "deploy.yaml", deployment())
    _write(tmp_path / "alt" / "hpa.yaml", hpa())
    _write(tmp_path / "alt" / "keda.yaml", scaled_object())
    main([str(tmp_path / "alt"), "--format", "json"], stdin=io.BytesIO())
    violations = [v for v in json.loads(capsys.readouterr().out)["violations"] if v["policy"] == POLICY.name]
    assert sorted((v["resource"], v["enforcement"]) for v in violations) == [
        ("HorizontalPodAutoscaler/triton-llm-hpa", "advisory"),
        ("ScaledObject/triton-llm-scaledobject", "advisory"),
    ]
