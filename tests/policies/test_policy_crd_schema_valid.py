"""S26 crd-validation-rules, its structural half: the structural schema of a custom resource's pinned CRD (required, type, enum).

The schemas live in policies/crd/schemas.json (tools/crd_schemas.py prunes them from the reference folder's crds/);
the check is policies/crd/schema.py, with the jsonschema library.
"""

from __future__ import annotations

import copy

import pytest

from policies.crd import schema, validation_rules
from policies.framework import UNKNOWN, Resource
from policies.registry import evaluate
from tests.conftest import shared_path
from tests.recording import record
from tools import crd_schemas

NODEPOOL = "kubernetes:karpenter.sh/v1:NodePool"
SOURCE = "(schema of CRD nodepools.karpenter.sh, aws/karpenter-provider-aws v1.14.1 pkg/apis/crds/karpenter.sh_nodepools.yaml)"


def _gpu_inference() -> dict:
    # Goutham-Annem/eks-llm-inference manifests/gpu-nodepool.yaml@4ef2b563670203fccc648e443612b229db95fce2 (spent set
    # 12): a karpenter.sh/v1 NodePool whose nodeClassRef keeps the v1beta1 form (apiVersion, no group). The CRD
    # (karpenter-provider-aws v1.14.1 pkg/apis/crds/karpenter.sh_nodepools.yaml, nodeClassRef) requires [group, kind,
    # name], so the API server answers "spec.template.spec.nodeClassRef.group: Required value".
    return {
        "apiVersion": "karpenter.sh/v1",
        "kind": "NodePool",
        "metadata": {"name": "gpu-inference"},
        "spec": {
            "template": {
                "metadata": {"labels": {"workload-type": "gpu-inference"}},
                "spec": {
                    "nodeClassRef": {"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass", "name": "gpu-nodes"},
                    "requirements": [
                        {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot", "on-demand"]},
                        {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["g5.xlarge", "g6.xlarge"]},
                    ],
                    "taints": [{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}],
                },
            },
            "disruption": {"consolidationPolicy": "WhenEmpty", "consolidateAfter": "600s"},
            "limits": {"cpu": "200", "memory": "800Gi", "nvidia.com/gpu": "20"},
        },
    }


def findings(obj: dict, type_token: str = NODEPOOL) -> list[tuple[str, str]]:
    resource = Resource(type=type_token, name="np", props=obj)
    return [(v.enforcement, v.message) for v in evaluate([resource], policies=[validation_rules.POLICY])]


def test_the_schemas_are_the_reference_crds_schemas():
    reference = shared_path("crds").parent
    committed = schema.DATA.read_text(encoding="utf-8")
    assert crd_schemas.render(crd_schemas.extract(reference)) == committed, "run python tools/crd_schemas.py --write"


def test_node_class_ref_without_group_is_refused():
    assert findings(_gpu_inference()) == [
        (
            "mandatory",
            "spec.template.spec.nodeClassRef: the API server refuses this object: required field group is missing "
            f"(Required value) {SOURCE}",
        )
    ]


def test_the_v1_form_passes_and_unknown_fields_are_pruned_not_refused():
    # The careful form: group instead of apiVersion. A field v1 dropped (kubelet moved to EC2NodeClass) is pruned by
    # the API server, not refused, so it stays silent.
    obj = _gpu_inference()
    ref = obj["spec"]["template"]["spec"]["nodeClassRef"]
    del ref["apiVersion"]
    ref["group"] = "karpenter.k8s.aws"
    obj["spec"]["template"]["spec"]["kubelet"] = {"maxPods": 110}
    assert findings(obj) == []
    assert findings(_published()) == []


def _published() -> dict:
    import yaml

    path = shared_path(
        "corpus", "manifests", "aws-samples__karpenter-blueprints", "blueprints__nvidia-gpu-workload__gpu-nodepool.yaml"
    )
    return next(d for d in yaml.safe_load_all(path.read_text()) if d and d.get("kind") == "NodePool")


def test_enum_and_type_errors_are_refused():
    obj = _gpu_inference()
    obj["spec"]["template"]["spec"]["nodeClassRef"] = {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "n"}
    obj["spec"]["disruption"]["consolidationPolicy"] = "WhenUnderutilized"  # the v1beta1 name
    obj["spec"]["template"]["spec"]["requirements"][0]["values"] = "spot"
    assert [m.split(": the API server refuses this object: ")[1] for _, m in findings(obj)] == [
        f"'WhenUnderutilized' is not one of 'WhenEmpty', 'WhenEmptyOrUnderutilized', 'Balanced' (Unsupported value) {SOURCE}",
        f"'spot' is not of type array (Invalid value) {SOURCE}",
    ]


def test_unknown_values_nulls_and_floats_are_not_judged():
    obj = _gpu_inference()
    obj["spec"]["template"]["spec"]["nodeClassRef"] = {"group": UNKNOWN, "kind": "EC2NodeClass", "name": None}
    obj["spec"]["weight"] = 10.0  # the engine sends numbers as floats
    assert findings(obj) == []


def test_a_patch_is_not_told_what_its_base_holds():
    obj = _gpu_inference()
    resource = Resource(type=NODEPOOL, name="np", props=obj, patch=True)
    assert [v.message for v in evaluate([resource], policies=[validation_rules.POLICY])] == []
    broken = copy.deepcopy(obj)
    broken["spec"]["disruption"]["consolidationPolicy"] = "Never"
    patch = Resource(type=NODEPOOL, name="np", props=broken, patch=True)
    assert len(evaluate([patch], policies=[validation_rules.POLICY])) == 1


@pytest.mark.parametrize("stack", ["prod"])
def test_the_stacks_custom_resources_pass_their_schemas(stack):
    checked = 0
    for r in record(stack)["resources"]:
        if r["type"] in schema.schemas_by_type():
            assert schema.evaluate(r["type"], r["inputs"]) == [], r["name"]
            checked += 1
    assert checked > 5


def _income() -> dict:
    # kserve/kserve docs/samples/explanation/alibi/income/income.yaml@aaac4e294dae2c7b1aa1886447793f3aa1c30912:
    # `cpu: 0.1` as a YAML number. A CRD's quantity is x-kubernetes-int-or-string, so the API server answers "in body
    # must be of type integer,string: \"number\"" (the same error quoted in cloudnative-pg/cloudnative-pg#1572 for
    # its Pooler CRD); only a Deployment's own Quantity type takes a bare decimal.
    return {
        "apiVersion": "serving.kserve.io/v1beta1",
        "kind": "InferenceService",
        "metadata": {"name": "income"},
        "spec": {
            "predictor": {
                "minReplicas": 1,
                "sklearn": {
                    "storageUri": "gs://seldon-models/sklearn/income/model",
                    "resources": {"requests": {"cpu": 0.1, "memory": "1Gi"}, "limits": {"cpu": 1, "memory": "1Gi"}},
                },
            },
            "explainer": {"minReplicas": 1, "alibi": {"type": "AnchorTabular", "resources": {"requests": {"cpu": 0.1}}}},
        },
    }


def test_a_decimal_cpu_number_in_a_custom_resource_is_refused():
    isvc = "kubernetes:serving.kserve.io/v1beta1:InferenceService"
    assert [m.split(" (schema of CRD")[0] for _, m in findings(_income(), isvc)] == [
        "spec.predictor.sklearn.resources.requests.cpu: the API server refuses this object: 0.1 is not of type integer "
        "or string (Invalid value)"
    ]
    # The careful form: the quantity as a string ("100m" or "0.1"), or a whole number; explainer.alibi is a field
    # v0.20.0's CRD no longer has, so the API server prunes it whatever it holds.
    obj = _income()
    obj["spec"]["predictor"]["sklearn"]["resources"]["requests"]["cpu"] = "100m"
    assert findings(obj, isvc) == []
