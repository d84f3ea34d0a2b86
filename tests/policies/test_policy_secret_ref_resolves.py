"""G60 secret-ref-resolves: a container's Secret reference that the run's Secret of that name cannot serve.

Fixture that fires: set 34, brokedba/vllm-lab examples/k8s/civo/vllm_deploy_cpu_civo.yml and vllm_pvc_civo.yml
@ccbb525332596805c4c9e6e5ea321ab3ae6dfc7f: HUGGING_FACE_HUB_TOKEN is a non-optional secretKeyRef to hf-token-secret,
whose only manifest holds data.token "<base64-HF-token>" (not base64: the API server refuses the Secret). Second
third-party form: spent set 20, JanLeyva/k8s-vllm inference/deployment.yaml and inference/hf_token.yaml
@d700619a33da5a7322632ea22fb58f10fdf6deb4 (data.token "==", padding only; labelled G47 blocking with "the Deployment's
non-optional secretKeyRef also fails"). Another form: the Secret holds other keys than the one the pod reads.
Silent: an optional reference, a valid Secret with the key, a Secret the files do not define or define with no
namespace. Advice since set 39: a Secret the files define only in another namespace.
"""

from __future__ import annotations

import copy

from policy_fixtures import manifest

from policies.registry import evaluate

_SECRET = {
    "apiVersion": "v1",
    "kind": "Secret",
    "metadata": {"name": "hf-token-secret", "namespace": "vllm"},
    "type": "Opaque",
    "data": {"token": "<base64-HF-token>"},
}
_DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "vllm-server", "namespace": "vllm"},
    "spec": {
        "replicas": 1,
        "selector": {"matchLabels": {"app.kubernetes.io/name": "vllm"}},
        "template": {
            "metadata": {"labels": {"app.kubernetes.io/name": "vllm"}},
            "spec": {
                "containers": [
                    {
                        "name": "vllm",
                        "image": "public.ecr.aws/q9t5s3a7/vllm-cpu-release-repo:v0.8.5",
                        "args": ["--model", "TinyLlama/TinyLlama-1.1B-Chat-v1.0"],
                        "env": [
                            {
                                "name": "HUGGING_FACE_HUB_TOKEN",
                                "valueFrom": {"secretKeyRef": {"name": "hf-token-secret", "key": "token"}},
                            }
                        ],
                        "ports": [{"containerPort": 8000}],
                    }
                ]
            },
        },
    },
}


def _g60(*objs: dict) -> list[tuple[str, str]]:
    return [(v.enforcement, v.message) for v in evaluate([manifest(o) for o in objs], None) if v.policy == "secret-ref-resolves"]


def test_a_secret_the_api_server_refuses_is_advice():
    ((level, message),) = _g60(_DEPLOYMENT, _SECRET)
    assert level == "advisory"
    assert message.startswith(
        "spec.template.spec: container vllm env[0] HUGGING_FACE_HUB_TOKEN reads key token of Secret hf-token-secret (not "
        "optional), and the Secret vllm/hf-token-secret of the files read cannot give it: data.token is not base64"
    )


def test_a_padding_only_token_is_advice():
    # Set 20 JanLeyva/k8s-vllm: namespace default, data.token "==".
    secret = copy.deepcopy(_SECRET)
    secret["metadata"] = {"name": "hf-token-secret", "namespace": "default"}
    secret["data"] = {"token": "=="}
    deployment = copy.deepcopy(_DEPLOYMENT)
    deployment["metadata"] = {"name": "mistral-7b"}
    ((level, message),) = _g60(deployment, secret)
    assert level == "advisory"
    assert "the Secret default/hf-token-secret of the files read cannot give it: data.token is not base64" in message


def test_a_secret_without_the_key_is_advice():
    other_key = copy.deepcopy(_SECRET)
    other_key["data"] = {"hf-token": "aGZfeHl6"}
    ((level, message),) = _g60(_DEPLOYMENT, other_key)
    assert level == "advisory"
    assert "it holds no key token (it has hf-token)" in message


def test_careful_forms_stay_silent():
    good = copy.deepcopy(_SECRET)
    good["data"] = {"token": "aGZfeHl6"}
    assert _g60(_DEPLOYMENT, good) == []
    plain = {**{k: v for k, v in _SECRET.items() if k != "data"}, "stringData": {"token": "hf_xyz"}}
    assert _g60(_DEPLOYMENT, plain) == []
    assert _g60(_DEPLOYMENT) == []
    optional = copy.deepcopy(_DEPLOYMENT)
    optional["spec"]["template"]["spec"]["containers"][0]["env"][0]["valueFrom"]["secretKeyRef"]["optional"] = True
    assert _g60(optional, _SECRET) == []
    # A Secret that states no namespace lands wherever it is applied.
    unplaced = copy.deepcopy(good)
    unplaced["metadata"].pop("namespace")
    assert _g60(_DEPLOYMENT, unplaced) == []


def test_a_secret_only_in_another_namespace_is_advice():
    # Set 39 (spent early this session), bnice00/k3s-vLLM-Streamlit-inference-stack- @ae2ba9780e5aa8c8041b7955364c160d66c77b0e:
    # manifests/streamlit.yaml (namespace vllm-rocm) reads gateway-secret, which manifests/gateway-secret.yaml defines
    # in namespace hermes-lair only; a pod reads Secrets of its own namespace.
    elsewhere = copy.deepcopy(_SECRET)
    elsewhere["metadata"]["namespace"] = "hermes-lair"
    elsewhere["data"] = {"token": "aGZfeHl6"}
    ((level, message),) = _g60(_DEPLOYMENT, elsewhere)
    assert level == "advisory"
    assert (
        "reads Secret hf-token-secret (not optional) in namespace vllm, but the files define Secret hf-token-secret only in namespace hermes-lair"
        in message
    )


def test_a_secret_volume_only_in_another_namespace_is_advice():
    # Set 39's form with the Secret mounted as a volume (and as a projected source): the kubelet mounts only a Secret of
    # the pod's namespace (https://kubernetes.io/docs/concepts/configuration/secret/#using-secrets-as-files-from-a-pod).
    elsewhere = copy.deepcopy(_SECRET)
    elsewhere["metadata"]["namespace"] = "hermes-lair"
    elsewhere["data"] = {"token": "aGZfeHl6"}
    mounted = copy.deepcopy(_DEPLOYMENT)
    pod = mounted["spec"]["template"]["spec"]
    del pod["containers"][0]["env"]
    pod["volumes"] = [
        {"name": "token", "secret": {"secretName": "hf-token-secret"}},
        {"name": "both", "projected": {"sources": [{"secret": {"name": "hf-token-secret"}}]}},
    ]
    assert _g60(mounted, elsewhere) == [
        (
            "advisory",
            f"spec.template.spec: {where} reads Secret hf-token-secret (not optional) in namespace vllm, but the files "
            "define Secret hf-token-secret only in namespace hermes-lair: a pod reads Secrets of its own namespace only, "
            "so unless vllm/hf-token-secret is created another way the pod stays in ContainerCreating (FailedMount: "
            "secret not found); define the Secret in vllm too, or mark the reference optional: true",
        )
        for where in ("volumes[0] token", "volumes[1] both projected.sources[0]")
    ]
    # Silent: an optional volume, or the Secret in the pod's namespace too.
    optional = copy.deepcopy(mounted)
    optional["spec"]["template"]["spec"]["volumes"] = [
        {"name": "t", "secret": {"secretName": "hf-token-secret", "optional": True}}
    ]
    assert _g60(optional, elsewhere) == []
    here = copy.deepcopy(elsewhere)
    here["metadata"]["namespace"] = "vllm"
    assert _g60(mounted, elsewhere, here) == []
