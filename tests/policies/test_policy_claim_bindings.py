"""G51 claim-in-run across namespaces and G83 claim-fits-bound-volume: a pod's claim in another namespace, and a claim
pre-binding a PersistentVolume that cannot satisfy it.

G83's binder facts: kubernetes/kubernetes pkg/controller/volume/persistentvolume/pv_controller.go syncUnboundClaim
(volumeName branch) and checkVolumeSatisfyClaim (code index stored version id 93169161); the default class given at
admission: plugin/pkg/admission/storage/storageclass/setdefault/admission.go Admit (stored version id 65377254).
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

G51 = "claim-in-run"
G83 = "claim-fits-bound-volume"


def _claim(name: str, namespace: str | None = None, **spec) -> dict:
    meta = {"name": name, **({"namespace": namespace} if namespace else {})}
    body = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "50Gi"}}, **spec}
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": meta, "spec": body}


def _server(namespace: str | None, claim: str = "model-cache") -> dict:
    meta = {"name": "vllm", **({"namespace": namespace} if namespace else {})}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": meta,
        "spec": {
            "selector": {"matchLabels": {"app": "vllm"}},
            "template": {
                "metadata": {"labels": {"app": "vllm"}},
                "spec": {
                    "containers": [
                        {
                            "name": "vllm",
                            "image": "vllm/vllm-openai:v0.11.0",
                            "volumeMounts": [{"name": "cache", "mountPath": "/root/.cache/huggingface"}],
                        }
                    ],
                    "volumes": [{"name": "cache", "persistentVolumeClaim": {"claimName": claim}}],
                },
            },
        },
    }


ELSEWHERE = (
    "spec.template.spec.volumes cache: PersistentVolumeClaim model-cache is created by the files read only in namespace "
    "storage, not in the pod's namespace {ns}: a pod mounts only a claim of its own namespace, so unless a claim of "
    'that name is made there another way, the pod stays Pending (persistentvolumeclaim "model-cache" not found); put '
    "the workload and the claim in one namespace"
)


def test_a_claim_only_in_another_stated_namespace_is_advice():
    """Review48 item 3 (/tmp/r48/g51/a.yaml): a claim model-cache in namespace storage does not prove that none exists
    in llm (made by hand, by Terraform, by another repository), so the finding is advice, not a blocking one."""
    assert found_by([_server("llm"), _claim("model-cache", "storage")], G51) == [("advisory", ELSEWHERE.format(ns="llm"))]
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "llm"}}
    assert found_by([namespace, _server("llm"), _claim("model-cache", "storage")], G51) == [
        ("advisory", ELSEWHERE.format(ns="llm"))
    ]


def test_a_side_with_no_namespace_or_an_operator_in_the_pods_namespace_says_so():
    unstated = ELSEWHERE.format(ns="default") + " (it may also be applied to another namespace than the one its file states)"
    assert found_by([_server(None), _claim("model-cache", "storage")], G51) == [("advisory", unstated)]
    operator = {"apiVersion": "example.io/v1", "kind": "Cache", "metadata": {"name": "c", "namespace": "llm"}, "spec": {}}
    assert found_by([_server("llm"), _claim("model-cache", "storage"), operator], G51) == [
        ("advisory", ELSEWHERE.format(ns="llm") + " (Cache c of namespace llm, or its operator or chart, may make it)")
    ]


def test_a_claim_in_the_pods_namespace_too_or_nowhere_is_silent():
    assert found_by([_server("llm"), _claim("model-cache", "storage"), _claim("model-cache", "llm")], G51) == []
    assert found_by([_server("llm"), _claim("other", "storage")], G51) == []
    assert found_by([_server("llm", "${CLAIM}"), _claim("model-cache", "storage")], G51) == []


def _volume(name: str = "model-cache-pv", **spec) -> dict:
    body = {"capacity": {"storage": "500Gi"}, "accessModes": ["ReadWriteOnce"], "hostPath": {"path": "/data/model-cache"}}
    body.update(spec)
    return {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name}, "spec": body}


# The form of a public K3s/vLLM guide in the code index (stored version id 63143504159): PV model-cache-pv (hostPath,
# no class, 500Gi, ReadWriteOnce) and claim model-cache-pvc naming it, with no storageClassName.
GUIDE_PV = _volume()
GUIDE_CLAIM = _claim("model-cache-pvc", volumeName="model-cache-pv", resources={"requests": {"storage": "500Gi"}})
MISMATCH = 'so the PV controller refuses the binding (VolumeMismatch: Cannot bind to requested volume "model-cache-pv": {why}) and the claim stays Pending, with every pod that mounts it'


def test_a_claim_with_no_class_on_a_volume_with_none_is_advice():
    assert found_by([GUIDE_PV, GUIDE_CLAIM], G83) == [
        (
            "advisory",
            "spec.volumeName model-cache-pv: the claim states no storageClassName, so admission gives it the cluster's "
            "default class, while PersistentVolume model-cache-pv has no storage class: unless the cluster has no "
            "default class, and EKS, GKE, AKS and k3s all have one, "
            + MISMATCH.format(why="storageClassName does not match")
            + '; set the claim\'s storageClassName to ""',
        )
    ]


def test_size_modes_and_class_the_volume_lacks_block():
    claim = _claim(
        "model-cache-pvc",
        volumeName="model-cache-pv",
        storageClassName="manual",
        accessModes=["ReadWriteMany"],
        resources={"requests": {"storage": "1Ti"}},
    )
    assert found_by([_volume(storageClassName="local"), claim], G83) == [
        (
            "mandatory",
            "spec.volumeName model-cache-pv: the claim asks access mode ReadWriteMany that PersistentVolume "
            "model-cache-pv does not offer (ReadWriteOnce), "
            + MISMATCH.format(why="incompatible accessMode")
            + "; ask only the volume's modes",
        ),
        (
            "mandatory",
            "spec.volumeName model-cache-pv: the claim requests 1Ti of storage and PersistentVolume model-cache-pv holds "
            "500Gi, " + MISMATCH.format(why="requested PV is too small") + "; request at most the volume's capacity",
        ),
        (
            "mandatory",
            "spec.volumeName model-cache-pv: the claim's storageClassName manual is not PersistentVolume "
            "model-cache-pv's (storageClassName local), "
            + MISMATCH.format(why="storageClassName does not match")
            + "; give the claim the volume's class",
        ),
    ]


def test_a_claim_the_volume_satisfies_or_a_reserved_volume_is_silent():
    careful = copy.deepcopy(GUIDE_CLAIM)
    careful["spec"]["storageClassName"] = ""
    assert found_by([GUIDE_PV, careful], G83) == []
    classed = _claim("c", volumeName="model-cache-pv", storageClassName="manual")
    assert found_by([_volume(storageClassName="manual", accessModes=["ReadWriteOnce", "ReadOnlyMany"]), classed], G83) == []
    reserved = _volume(claimRef={"name": "model-cache-pvc", "namespace": "default"})
    assert found_by([reserved, GUIDE_CLAIM], G83) == []
    default = {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass",
        "metadata": {"name": "manual", "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}},
        "provisioner": "kubernetes.io/no-provisioner",
    }
    unclassed = _claim("c", volumeName="model-cache-pv")
    assert found_by([_volume(storageClassName="manual"), unclassed, default], G83) == []
    assert found_by([GUIDE_CLAIM], G83) == []


# A claim with no volumeName and no class, meant for a class-less PersistentVolume of the run (session 51): spent set 86
# cuongtop4598/chatbot-ui k8s/ollama-pvc.yaml (hostPath PV ollama-models-pv, 150Gi ReadWriteOnce, and claim
# ollama-models-pvc with neither class nor volumeName) and set 89 doublefix/OpsFlow deploy/deepseek_r1_pvc_model.yaml
# (NFS PV labelled app: model-deepseek-r1-671b, the claim picks it by selector), both labelled G83.
def test_a_claim_with_no_class_meant_for_a_volume_with_none_is_advice():
    ((level, message),) = found_by([GUIDE_PV, _claim("model-cache-pvc", resources={"requests": {"storage": "500Gi"}})], G83)
    assert level == "advisory"
    assert message.startswith(
        "spec: the claim states no storageClassName and no volumeName, and PersistentVolume model-cache-pv (no storage "
        "class) is the volume it matches;"
    )
    assert "a fresh, empty volume of that class is provisioned instead" in message
    labelled = _volume(storageClassName="")
    labelled["metadata"]["labels"] = {"app": "model"}
    picker = _claim("model-cache-pvc", selector={"matchLabels": {"app": "model"}})
    ((level, message),) = found_by([labelled, picker], G83)
    assert level == "advisory" and "by its selector" in message and "stays Pending" in message


def test_a_claim_with_a_class_or_that_no_class_less_volume_fits_is_silent():
    assert found_by([GUIDE_PV, _claim("c", storageClassName="")], G83) == []
    assert found_by([_volume(storageClassName="manual"), _claim("c")], G83) == []
    assert found_by([GUIDE_PV, _claim("c", resources={"requests": {"storage": "1Ti"}})], G83) == []
    assert found_by([_volume(claimRef={"name": "other"}), _claim("c")], G83) == []
    picky = _claim("c", selector={"matchLabels": {"app": "other"}})
    assert found_by([GUIDE_PV, picky], G83) == []
    default = {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass",
        "metadata": {"name": "gp3", "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}},
        "provisioner": "ebs.csi.aws.com",
    }
    # A default class of the files is what admission gives the claim: still not the volume's (said by name).
    ((level, message),) = found_by([GUIDE_PV, _claim("c", resources={"requests": {"storage": "500Gi"}}), default], G83)
    assert level == "advisory" and "admission gives the claim the default class gp3 of the files" in message
