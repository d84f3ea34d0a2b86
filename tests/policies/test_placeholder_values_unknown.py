"""Unrendered placeholders a sed or Cloud Build step fills (policies/reading/placeholders.py): S27 names the fields
(advisory), and every other rule reads them as unknown, so none builds a finding on the fill-in's text (G46 parsing
IMAGE_PLACEHOLDER as an image, S1 reading __VLLM_GPU_MEMORY_UTIL__ as a number, S16 taking a placeholder
failureThreshold as the default 3). Objects are read from files, as `python -m policies check` reads them."""

from __future__ import annotations

import textwrap
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from policies.check import resources_of
from policies.framework import Resource
from policies.manifests import read_manifests
from policies.reading import placeholders as placeholders_module
from policies.reading.placeholders import placeholder_in
from policies.registry import evaluate


def _check(tmp_path: Path, text: str) -> list[tuple[str, str, str]]:
    path = tmp_path / "manifest.yaml"
    path.write_text(textwrap.dedent(text))
    return [(v.catalog, v.enforcement, v.message) for v in evaluate(resources_of(read_manifests([str(path)])))]


# taixingbi/eks-vllm kubernetes/vllm/deployment.yaml at 0130657be9f12ad386877d551a746e3075d7c70a (cut down): a sed step
# fills every __NAME__ and ECR_REPOSITORY_URL before kubectl apply.
TAIXINGBI = """\
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: vllm-qwen, namespace: vllm}
    spec:
      replicas: __VLLM_REPLICAS__
      selector: {matchLabels: {app: vllm-qwen}}
      template:
        metadata: {labels: {app: vllm-qwen}}
        spec:
          containers:
            - name: vllm
              image: ECR_REPOSITORY_URL:v0.8.4
              args: [--model, __MODEL_PATH_VALUE__, --dtype, __VLLM_DTYPE__,
                     --gpu-memory-utilization, "__VLLM_GPU_MEMORY_UTIL__"]
              resources:
                requests: {cpu: "__VLLM_CPU_REQUEST__", memory: "__VLLM_MEMORY_REQUEST__", nvidia.com/gpu: "1"}
                limits: {cpu: "__VLLM_CPU_LIMIT__", memory: "__VLLM_MEMORY_LIMIT__", nvidia.com/gpu: "1"}
              startupProbe:
                httpGet: {path: /health, port: 8000}
                periodSeconds: 10
                failureThreshold: __VLLM_STARTUP_FAILURE_THRESHOLD__
    """


def test_sed_placeholders_are_named_by_s27_and_read_as_unknown_by_the_rest(tmp_path):
    found = _check(tmp_path, TAIXINGBI)
    (s27,) = [f for f in found if f[0] == "S27"]
    assert s27[1] == "advisory"
    assert s27[2].startswith(
        "spec.replicas holds __VLLM_REPLICAS__; spec.template.spec.containers[0].image holds ECR_REPOSITORY_URL:v0.8.4;"
    )
    assert "applied as committed" in s27[2]
    assert not [f for f in found if f[0] in ("S1", "S16")]
    # The image's grammar is judged as written (G46, advice: the file says it is filled before it is applied).
    assert [f[:2] for f in found if f[0] == "G46"] == [("G46", "advisory")]
    assert not [f for f in found if f[1] == "mandatory"]


def test_a_registry_placeholder_is_not_an_invalid_image():
    from policies.reading.placeholders import placeholder_in

    # chrismld/ai-on-eks-demos demos/vllm-autoscaling/kubernetes/vllm/deployment.yaml.template at spent set 23's commit:
    # the registry host is the fill-in; G46 must not call the image unparsable.
    image = "REGISTRY_PLACEHOLDER/ecr-public/deep-learning-containers/vllm:0.13-gpu-py312-ec2"
    assert placeholder_in(image, ("image",)) == image
    assert placeholder_in("registry.k8s.io:5000/team/vllm:v0.6.3", ("image",)) is None
    assert placeholder_in("vllm/vllm-openai:v0.6.3", ("image",)) is None


def test_a_registry_host_that_is_a_word_is_a_placeholder():
    # dell-examples/generative-ai intel-XE9680-gaudi3/vLLM/deployment.yml@feba53869e3badfd1281c2a0d1454a759d47580e
    # (spent set 82, labelled S27): the registry host is the word dockerregistryip with a port, no DNS name.
    assert placeholder_in("dockerregistryip:5500/vllm_backend:1.18.0_v1", ("image",)) == "dockerregistryip:5500"
    assert placeholder_in("REGISTRY:5000/vllm:1.0", ("image",)) == "REGISTRY:5000"
    # Careful forms: a DNS name, localhost, an IP address, a hyphenated local name (kind's registry), a Hub namespace.
    for image in (
        "registry.corp:5000/vllm:1.0",
        "localhost:5001/vllm:1.0",
        "10.0.0.5:5000/vllm:1.0",
        "kind-registry:5000/vllm:1.0",
        "dockerregistryip/vllm:1.0",
    ):
        assert placeholder_in(image, ("image",)) is None, image


def test_a_reference_field_holding_its_own_name_is_a_placeholder():
    # GoingOffRoading/Ollama-on-Kubernetes-w-Nvidia-GPU Ollama.yml@be581fdb91020b89019bd710820d5db04c03482e (spent set
    # 61, labelled S27): `nodeName: NodeName  # Change this to the name of the node your GPU is on`.
    assert placeholder_in("NodeName", ("spec", "template", "spec", "nodeName")) == "NodeName"
    assert placeholder_in("storage-class-name", ("spec", "storageClassName")) == "storage-class-name"
    # Careful forms: a real node name, and a field not in the list (an env variable may be named NAME).
    assert placeholder_in("gpu-node-1", ("spec", "nodeName")) is None
    assert placeholder_in("name", ("env", "name")) is None


# ScradFTW/qwen-llm-gke k8s/deployment.yaml at 2b1a9abf8d48d5f0b21c4a543782960a71318ed0 (cut down): Cloud Build's sed
# step replaces IMAGE_PLACEHOLDER; Davidnet/vllm-gke-guide deploy-model.yaml at ab4530fa25a61ae4d8fca6b479718e32e10002d9:
# bucketName GCS_BUCKET ("TODO: Replace with your GCS bucket name!").
SCRAD = """\
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: qwen-llm, namespace: llm}
    spec:
      replicas: 2
      selector: {matchLabels: {app: qwen-llm}}
      template:
        metadata: {labels: {app: qwen-llm}}
        spec:
          containers:
            - name: llama-server
              image: IMAGE_PLACEHOLDER
              resources: {limits: {nvidia.com/gpu: 1}}
          volumes:
            - name: gcs-fuse-csi-ephemeral
              csi:
                driver: gcsfuse.csi.storage.gke.io
                volumeAttributes: {bucketName: GCS_BUCKET, mountOptions: implicit-dirs}
    """


def test_a_placeholder_image_and_bucket_are_s27_not_g46(tmp_path):
    found = _check(tmp_path, SCRAD)
    (s27,) = [f for f in found if f[0] == "S27"]
    assert s27[1:] and s27[2].startswith(
        "spec.template.spec.containers[0].image holds IMAGE_PLACEHOLDER; "
        "spec.template.spec.volumes[0].csi.volumeAttributes.bucketName holds GCS_BUCKET: "
    )
    # IMAGE_PLACEHOLDER does not parse (InvalidImageName as written): advice, since the file is a template Cloud Build
    # fills; it names no tag, so G1 has nothing to judge.
    assert [(f[0], f[1]) for f in found if f[0] in ("G46", "G1")] == [("G46", "advisory")]
    assert (
        "the placeholder IMAGE_PLACEHOLDER must be replaced before the file is applied"
        in [f for f in found if f[0] == "G46"][0][2]
    )


# A placeholder registry in front of a literal tag (spent set 21: mocelj/aks-air-gap-vllm-deployment
# deployment-nim-llama3-isolated.yaml at 787944102bf12a876fd4aac73968a2575ed9a90d, cut down): G46 reads the written
# reference (advice) and G1 the written tag, latest.
MOCELJ = """\
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: vllm-nim-llama3-server}
    spec:
      selector: {matchLabels: {app: nim}}
      template:
        metadata: {labels: {app: nim}}
        spec:
          containers:
            - name: nim-inference-server
              image: "<YOUR-ACR-NAME>.azurecr.io/nvcr.io/nim/meta/llama3-8b-instruct:latest"
              resources: {limits: {nvidia.com/gpu: 1}}
    """


def test_a_placeholder_registry_keeps_its_literal_tag_for_g1(tmp_path):
    found = _check(tmp_path, MOCELJ)
    g46 = [f for f in found if f[0] == "G46"]
    assert [f[1] for f in g46] == ["advisory"]
    assert g46[0][2].startswith(
        "container nim-inference-server: image '<YOUR-ACR-NAME>.azurecr.io/nvcr.io/nim/meta/llama3-8b-instruct:latest' "
        "is not a valid image reference (invalid reference format): the placeholder <YOUR-ACR-NAME> must be replaced"
    )
    g1 = [f for f in found if f[0] == "G1"]
    assert [f[1] for f in g1] == ["advisory"]
    assert "uses the mutable tag latest" in g1[0][2]
    # A placeholder tag is no tag G1 can judge.
    found = _check(tmp_path, MOCELJ.replace(":latest", ":${TAG}"))
    assert not [f for f in found if f[0] == "G1"]
    assert not [f for f in found if f[1] == "mandatory"]


# taixingbi/eks-vllm kubernetes/karpenter/nodepool-g5-spot.yaml at the set's commit (cut down): the requirement values
# INSTANCE_FAMILY / INSTANCE_SIZE are filled by the same script.
NODEPOOL = """\
    apiVersion: karpenter.sh/v1
    kind: NodePool
    metadata: {name: g5-spot}
    spec:
      template:
        spec:
          nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
          requirements:
            - {key: karpenter.k8s.aws/instance-family, operator: In, values: ["INSTANCE_FAMILY"]}
            - {key: karpenter.k8s.aws/instance-size, operator: In, values: ["INSTANCE_SIZE"]}
            - {key: team, operator: In, values: ["ML_PLATFORM"]}
    """


def test_nodepool_requirement_placeholders_are_named(tmp_path):
    (s27,) = [f for f in _check(tmp_path, NODEPOOL) if f[0] == "S27"]
    assert s27[2].startswith(
        "spec.template.spec.requirements[0].values[0] holds INSTANCE_FAMILY; "
        "spec.template.spec.requirements[1].values[0] holds INSTANCE_SIZE: "
    )


# Careful third-party forms that must stay silent: adityonugrohoid/gpu-autoscale-inference k8s/vllm-deployment.yaml at
# cc7f3ae passes `--model $(MODEL_ID)` (the kubelet expands it); an env value in capitals (LOG_LEVEL=INFO,
# VLLM_ATTENTION_BACKEND=FLASH_ATTN), Secret keys (HF_TOKEN), a capability (IPC_LOCK), $(POD_IP) in args, a lowercase
# image, and a label value in capitals on a label that is not a node's well-known one.
SILENT = """\
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: vllm, namespace: llm}
    spec:
      replicas: 1
      strategy: {type: RollingUpdate}
      selector: {matchLabels: {app: vllm}}
      template:
        metadata: {labels: {app: vllm, tier: GPU_SERVING}}
        spec:
          affinity:
            nodeAffinity:
              requiredDuringSchedulingIgnoredDuringExecution:
                nodeSelectorTerms:
                  - matchExpressions: [{key: team, operator: In, values: [ML_PLATFORM]}]
          tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
          containers:
            - name: vllm
              image: vllm/vllm-openai:v0.8.5
              imagePullPolicy: IfNotPresent
              args: [--model, $(MODEL_ID), --host, $(POD_IP), --gpu-memory-utilization, "0.9"]
              securityContext: {capabilities: {add: [IPC_LOCK, SYS_PTRACE]}}
              env:
                - {name: MODEL_ID, value: Qwen/Qwen2.5-1.5B-Instruct}
                - {name: LOG_LEVEL, value: INFO}
                - {name: VLLM_ATTENTION_BACKEND, value: FLASH_ATTN}
                - {name: POD_IP, valueFrom: {fieldRef: {fieldPath: status.podIP}}}
                - {name: HF_TOKEN, valueFrom: {secretKeyRef: {name: hf-secret, key: HF_TOKEN}}}
    """


def test_real_values_in_capitals_and_kubelet_references_stay_silent(tmp_path):
    assert not [f for f in _check(tmp_path, SILENT) if f[0] == "S27"]


def test_the_recogniser_on_single_values():
    assert placeholder_in("IMAGE_PLACEHOLDER", ("image",)) == "IMAGE_PLACEHOLDER"
    assert placeholder_in("REPLACE_WITH_BUCKET", ("spec", "bucket")) == "REPLACE_WITH_BUCKET"
    assert placeholder_in("CHANGE_ME", ("value",)) == "CHANGE_ME"
    assert placeholder_in("--x=__VLLM_GPU_MEMORY_UTIL__", ("args",)) == "__VLLM_GPU_MEMORY_UTIL__"
    assert placeholder_in("$(REGISTRY)/vllm:v1", ("image",)) == "$(REGISTRY)"
    assert placeholder_in("<ECR_REPO_URI>", ("image",)) == "<ECR_REPO_URI>"
    for value, where in [
        ("$(POD_IP)", ("args",)),
        ("FLASH_ATTN", ("env", "value")),
        ("INFO", ("env", "value")),
        ("IfNotPresent", ("imagePullPolicy",)),
        ("NoSchedule", ("effect",)),
        ("ISTIO_MUTUAL", ("trafficPolicy", "tls", "mode")),
        ("vllm/vllm-openai:v0.8.5", ("image",)),
        ("__init__", ("args",)),
    ]:
        assert placeholder_in(value, where) is None, value


@given(st.text(alphabet="$<>{}():-_ aAeEcCgGhHlLmMnNoOpPrRsSuUyY0_", max_size=30) | st.text(max_size=30))
@settings(max_examples=1500)
def test_a_text_the_prefilter_passes_over_holds_no_placeholder_form(text: str) -> None:
    # placeholder_in skips _PLACEHOLDER's search where _may_match is false: it must then find nothing.
    assert placeholders_module._may_match(text) or placeholders_module._PLACEHOLDER.search(text) is None


def test_placeholders_found_with_and_without_the_quick_pass_are_the_same() -> None:
    props = {
        "kind": "Deployment",
        "status": {"image": "${IMAGE}"},
        "kindling": ["$(NOT_EXPANDED)"],
        "spec": {"template": {"spec": {"containers": [{"image": "REGISTRY_PLACEHOLDER/vllm:v1", "args": ["<your-model>"]}]}}},
    }
    resource = Resource(type="kubernetes:apps/v1:Deployment", name="d", props=props)
    spelt = [
        (path, found)
        for path, text, where in placeholders_module._leaves(props, "")
        if not path.startswith(("status", "apiVersion", "kind"))
        and (found := placeholders_module.placeholder_in(text, where)) is not None
    ]
    assert placeholders_module.placeholders(resource) == spelt
    assert [path for path, _ in spelt] == [
        "spec.template.spec.containers[0].image",
        "spec.template.spec.containers[0].args[0]",
    ]


# ratishjain12/eks-vllm-multinode lws.yaml (spent set 73, cut down): the Hub token is the fill-in <hf_token>, labelled
# S28 (a token that is a committed fill-in, in the env); G35 blocked it as a literal credential at session 49's freeze 2.
HF_FILL_IN = """\
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: vllm, namespace: llm}
    spec:
      selector: {matchLabels: {app: vllm}}
      template:
        metadata: {labels: {app: vllm}}
        spec:
          containers:
            - name: vllm-leader
              image: vllm/vllm-openai:v0.10.1
              args: [--model, meta-llama/Llama-3.1-8B-Instruct]
              env:
                - {name: HUGGING_FACE_HUB_TOKEN, value: <hf_token>}
                - {name: OPENAI_API_KEY, value: <your-api-key>}
              resources: {limits: {nvidia.com/gpu: "1"}}
    """


def test_an_hf_token_fill_in_is_s28s_as_written_and_not_a_literal_credential(tmp_path):
    found = _check(tmp_path, HF_FILL_IN)
    (s28,) = [f for f in found if f[0] == "S28"]
    assert s28[1] == "advisory" and "HUGGING_FACE_HUB_TOKEN is the fill-in '<hf_token>'" in s28[2]
    # G35 leaves the token variable to S28, and still blocks a fill-in under another credential name (sets 13, 31).
    g35 = [f for f in found if f[0] == "G35"]
    assert [f[1] for f in g35] == ["mandatory"] and all("OPENAI_API_KEY" in f[2] for f in g35)
