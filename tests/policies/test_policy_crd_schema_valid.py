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
    assert sorted(findings(_gpu_inference()), key=lambda f: f[1].split(":")[0]) == [
        (
            "mandatory",
            "spec.template.spec.nodeClassRef: the API server refuses this object: required field group is missing "
            f"(Required value) {SOURCE}",
        ),
        # v1beta1's apiVersion, which v1's nodeClassRef does not define (refused: see below).
        ("mandatory", f"spec.template.spec.nodeClassRef.apiVersion: {NOT_DEFINED}"),
    ]


def _v1_form() -> dict:
    obj = _gpu_inference()
    ref = obj["spec"]["template"]["spec"]["nodeClassRef"]
    del ref["apiVersion"]
    ref["group"] = "karpenter.k8s.aws"
    return obj


PRUNED = (
    "under strict field validation (kubectl's default --validate=strict) the API server refuses the object, otherwise "
    "it drops the field without a word and the setting never takes effect"
)
# kubectl's --validate defaults to "strict": kubernetes/kubectl v0.33.0 pkg/cmd/util/helpers.go:452-457.
REFUSED = (
    "kubectl apply validates strictly by default (--validate=strict, kubernetes/kubectl v0.33.0 "
    "pkg/cmd/util/helpers.go:452-457), so the API server refuses the object (strict decoding error: unknown field); "
    "applied without validation, the field is dropped and the setting never takes effect"
)
NOT_DEFINED = (
    "not a field of the CRD's schema (nodepools.karpenter.sh, aws/karpenter-provider-aws v1.14.1 "
    f"pkg/apis/crds/karpenter.sh_nodepools.yaml): {REFUSED}; remove it or move it where the schema defines it"
)


def test_the_v1_form_passes():
    # The careful form: group instead of apiVersion.
    assert findings(_v1_form()) == []
    assert findings(_published()) == []


def test_a_field_the_schema_does_not_define_is_refused():
    # A field v1 dropped (kubelet moved to EC2NodeClass): refused under strict field validation (kubectl's default),
    # pruned otherwise; karpenter.sh/v1 is a GA version, so the finding blocks.
    obj = _v1_form()
    obj["spec"]["template"]["spec"]["kubelet"] = {"maxPods": 110}
    assert findings(obj) == [("mandatory", f"spec.template.spec.kubelet: {NOT_DEFINED}")]


def test_a_taint_with_a_toleration_operator_is_refused():
    # souhailsegni/Deepseek_R1_VLLM-EKS eks/modules/eks/karpenter/gpu-nodepool.yaml@cbc8af3960419cca39ad67329151abfe01e1d1f7
    # (spent set 15, S26 advisory): a NodePool taint with `operator: Exists`, a toleration's field; the taint schema
    # (karpenter-provider-aws v1.14.1 pkg/apis/crds/karpenter.sh_nodepools.yaml) has effect, key, timeAdded, value.
    obj = _v1_form()
    obj["spec"]["template"]["spec"]["taints"] = [{"key": "nvidia.com/gpu", "effect": "NoSchedule", "operator": "Exists"}]
    assert findings(obj) == [("mandatory", f"spec.template.spec.taints[0].operator: {NOT_DEFINED}")]
    # The careful form: the taint's own fields, and map keys (labels, limits) the schema leaves open.
    obj["spec"]["template"]["spec"]["taints"] = [{"key": "nvidia.com/gpu", "effect": "NoSchedule", "value": "true"}]
    obj["spec"]["template"]["metadata"]["labels"]["team.example.com/any-key"] = "x"
    obj["spec"]["limits"]["example.com/any-device"] = "4"
    assert findings(obj) == []


def _hami_runtime(**spec) -> dict:
    # bogdancstrike/k8s-llm-slm-hami platform/kserve/vllm-servingruntime.yaml@5ce222ff8d497ce6b7ae038b4c278231d80dd0ba, cut down: a
    # ClusterServingRuntime that sets schedulerName (the repo installs KServe v0.13.0).
    return {
        "apiVersion": "serving.kserve.io/v1alpha1",
        "kind": "ClusterServingRuntime",
        "metadata": {"name": "vllm-runtime"},
        "spec": {
            "supportedModelFormats": [{"name": "vllm", "version": "1", "autoSelect": True, "priority": 1}],
            "protocolVersions": ["v2"],
            "containers": [{"name": "kserve-container", "image": "vllm/vllm-openai:v0.6.3"}],
            **spec,
        },
    }


def test_a_field_added_after_a_release_clusters_still_run_is_advice():
    csr = "kubernetes:serving.kserve.io/v1alpha1:ClusterServingRuntime"
    assert findings(_hami_runtime(schedulerName="hami-scheduler"), csr) == [
        (
            "advisory",
            "spec.schedulerName: ClusterServingRuntime defines it only from KServe v0.17.0 (kserve/kserve e3a6afb58 "
            "(#5073) pkg/apis/serving/v1alpha1/servingruntime_types.go:119 at v0.17.0; absent from the file at v0.16.0); "
            f"on an earlier release {PRUNED}",
        )
    ]
    # The careful form: the scheduler set where every release reads it (the InferenceService's predictor), not here.
    assert findings(_hami_runtime(), csr) == []


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
    found = evaluate([resource], policies=[validation_rules.POLICY])
    assert [v.message.split(":")[0] for v in found] == ["spec.template.spec.nodeClassRef.apiVersion"]  # advice only
    broken = copy.deepcopy(obj)
    broken["spec"]["disruption"]["consolidationPolicy"] = "Never"
    patch = Resource(type=NODEPOOL, name="np", props=broken, patch=True)
    refused = [v for v in evaluate([patch], policies=[validation_rules.POLICY]) if "refuses this object" in v.message]
    assert len(refused) == 1


@pytest.mark.parametrize("stack", ["prod"])
def test_the_stacks_custom_resources_pass_their_schemas(stack):
    checked = 0
    for r in record(stack)["resources"]:
        if r["type"] in schema.schemas_by_type():
            assert schema.evaluate(r["type"], r["inputs"]) == [], r["name"]
            assert schema.unknown_fields(r["type"], r["inputs"]) == [], r["name"]
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
    assert [
        m.split(" (schema of CRD")[0] for e, m in findings(_income(), isvc) if e == "mandatory" and "not a field" not in m
    ] == [
        "spec.predictor.sklearn.resources.requests.cpu: the API server refuses this object: 0.1 is not of type integer "
        "or string (Invalid value)"
    ]
    # The careful form: the quantity as a string ("100m" or "0.1"), or a whole number; explainer.alibi is a field
    # v0.20.0's CRD no longer has, so the API server prunes it whatever it holds.
    obj = _income()
    obj["spec"]["predictor"]["sklearn"]["resources"]["requests"]["cpu"] = "100m"
    assert [m.split(": ")[0] for _, m in findings(obj, isvc)] == ["spec.explainer.alibi"]
    assert [e for e, _ in findings(obj, isvc)] == ["mandatory"]


# jinzishuai/jark-demo jark-stack/terraform/src/service/ray-service.yaml@64cab4fb (spent set 81, labelled
# none, blocking): a ray.io/v1alpha1 RayService whose application is only in spec.serveConfig, the Serve v1 form KubeRay
# dropped from both versions at v1.1.0 (the pinned v1.7.0 CRD ray-operator/config/crd/bases/ray.io_rayservices.yaml has
# serveConfigV2 alone). v1alpha1 is marked deprecated there, so no release adds fields to it: the finding blocks.
RAYSERVICE = "kubernetes:ray.io/v1alpha1:RayService"


def _dogbooth(api_version: str = "ray.io/v1alpha1", **app) -> dict:
    return {
        "apiVersion": api_version,
        "kind": "RayService",
        "metadata": {"name": "dogbooth", "namespace": "dogbooth"},
        "spec": {
            "serviceUnhealthySecondThreshold": 600,
            **(app or {"serveConfig": {"importPath": "dogbooth:entrypoint"}}),
            "rayClusterConfig": {
                "rayVersion": "2.6.0",
                "headGroupSpec": {
                    "rayStartParams": {"dashboard-host": "0.0.0.0"},
                    "template": {
                        "spec": {"containers": [{"name": "ray-head", "image": "public.ecr.aws/h3o5n2r0/dogbooth:0.0.1-gpu"}]}
                    },
                },
            },
        },
    }


def test_a_field_a_frozen_version_dropped_is_refused():
    for version in ("ray.io/v1alpha1", "ray.io/v1"):
        ((enforcement, message),) = findings(_dogbooth(version), f"kubernetes:{version}:RayService")
        assert enforcement == "mandatory"
        assert message.startswith(
            "spec.serveConfig: not a field of the CRD's schema (rayservices.ray.io, ray-project/kuberay v1.7.0"
        )
        assert "strict decoding error: unknown field" in message
    # The careful form: the application in serveConfigV2 (a YAML string), which the CRD defines.
    assert findings(_dogbooth(serveConfigV2="applications: []\n"), RAYSERVICE) == []


def test_a_field_under_a_live_alpha_version_is_advice():
    # An LLMInferenceService (serving.kserve.io/v1alpha1, a version KServe still extends): a field the pinned v0.20.0
    # schema lacks may be one a newer release added, so it stays advice.
    llmisvc = {
        "apiVersion": "serving.kserve.io/v1alpha1",
        "kind": "LLMInferenceService",
        "metadata": {"name": "qwen"},
        "spec": {"model": {"uri": "hf://Qwen/Qwen3-0.6B", "name": "Qwen/Qwen3-0.6B"}, "replicaz": 2},
    }
    assert [(e, m.split(":")[0]) for e, m in findings(llmisvc, "kubernetes:serving.kserve.io/v1alpha1:LLMInferenceService")] == [
        ("advisory", "spec.replicaz")
    ]


def test_an_inference_service_predictor_container_is_refused():
    # nohdol97/Nexus k8s/kserve/inferenceservice.yaml (spent set 69, S26 blocking): spec.predictor.container, a key the
    # v1beta1 PredictorSpec lacks (it has containers, a list, and model).
    isvc = {
        "apiVersion": "serving.kserve.io/v1beta1",
        "kind": "InferenceService",
        "metadata": {"name": "llm-vllm"},
        "spec": {"predictor": {"container": {"name": "kserve-container", "image": "vllm/vllm-openai:v0.8.5"}}},
    }
    token = "kubernetes:serving.kserve.io/v1beta1:InferenceService"
    assert ("mandatory", "spec.predictor.container") in [(e, m.split(":")[0]) for e, m in findings(isvc, token)]
    isvc["spec"]["predictor"] = {"containers": [{"name": "kserve-container", "image": "vllm/vllm-openai:v0.8.5"}]}
    assert [m for _, m in findings(isvc, token) if "not a field" in m] == []
