"""G64 never-pull-on-cloud: imagePullPolicy Never on a workload whose files also target a managed cloud cluster
(advice).

Minimal hand-written shapes of the cited third-party files (only the fields the rule reads)."""

from __future__ import annotations

import copy

from policy_fixtures import found_by

POLICY = "never-pull-on-cloud"


def _deployment(name: str, image: str, policy: str | None = "Never", **podspec) -> dict:
    container = {"name": name, "image": image, "ports": [{"containerPort": 8080}]}
    if policy:
        container["imagePullPolicy"] = policy
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [container], **podspec}},
        },
    }


def _ingress(name: str, service: str, annotations: dict, klass: str | None = None) -> dict:
    spec: dict = {
        "rules": [
            {
                "http": {
                    "paths": [
                        {"path": "/", "pathType": "Prefix", "backend": {"service": {"name": service, "port": {"number": 80}}}}
                    ]
                }
            }
        ]
    }
    if klass:
        spec["ingressClassName"] = klass
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "Ingress",
        "metadata": {"name": name, "annotations": annotations},
        "spec": spec,
    }


# Spent set 28: savyasachi6/llm-serving-platform infra/kubernetes/base/gateway-deployment.yaml at
# 05118a8288c69162fe6b3b5769bf3ea21957f3ef (gateway:latest, imagePullPolicy Never, "typical for local development
# environments like kind or minikube") and infra/kubernetes/overlays/gcp/ingress.yaml at
# f95a0ce4e26721c5fb3f14a9f5cbc9694eec1c55 (Ingress gateway-ingress, kubernetes.io/ingress.class gce and a global
# static IP). Labelled there blocking with no catalogue row.
SAVYASACHI = [
    _deployment("gateway", "gateway:latest"),
    _ingress(
        "gateway-ingress",
        "gateway",
        {"kubernetes.io/ingress.class": "gce", "kubernetes.io/ingress.global-static-ip-name": "gateway-ip"},
    ),
]


def test_a_never_pulled_image_beside_a_gce_ingress():
    [(level, message)] = found_by(SAVYASACHI, POLICY)
    assert level == "advisory"
    assert message == (
        "container gateway: imagePullPolicy Never starts image gateway:latest only on a node that already holds it "
        "(otherwise ErrImageNeverPull), while these files target a managed cloud cluster (Ingress gateway-ingress of "
        "class gce), whose nodes start from a stock machine image: the pod never starts there; push the image to a "
        "registry the cluster pulls from and use IfNotPresent (unless the nodes' image is built with it)"
    )


def test_other_cloud_signs():
    signs = [
        _ingress("api", "api", {"alb.ingress.kubernetes.io/scheme": "internet-facing"}),
        {"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass", "metadata": {"name": "gpu"}, "spec": {}},
        {
            "apiVersion": "storage.k8s.io/v1",
            "kind": "StorageClass",
            "metadata": {"name": "gp3"},
            "provisioner": "ebs.csi.aws.com",
        },
        {
            "apiVersion": "v1",
            "kind": "ServiceAccount",
            "metadata": {"name": "app", "annotations": {"iam.gke.io/gcp-service-account": "app@p.iam.gserviceaccount.com"}},
        },
        _deployment("vllm", "vllm/vllm-openai:v0.11.0", None, nodeSelector={"cloud.google.com/gke-accelerator": "nvidia-l4"}),
    ]
    for sign in signs:
        [(_, message)] = found_by([SAVYASACHI[0], sign], POLICY)
        assert "while these files target a managed cloud cluster (" in message


def test_careful_forms_stay_silent():
    # digitalronin/datree-article-hello-world kubernetes-deploy.tpl at 5f22f70568433a84e1d76631acddb191b8db7e32: an ALB
    # Ingress in front of a Deployment whose image comes from ECR with the default pull policy.
    datree = [
        _deployment("helloworld-nginx", "123456789012.dkr.ecr.eu-west-1.amazonaws.com/hello:1.0", None),
        _ingress(
            "helloworld-ingress",
            "nginx-service",
            {"kubernetes.io/ingress.class": "alb", "alb.ingress.kubernetes.io/scheme": "internet-facing"},
        ),
    ]
    assert found_by(datree, POLICY) == []
    # Never on a local cluster: an nginx Ingress, a kind node.
    local = [
        _deployment("gateway", "gateway:latest", nodeSelector={"kubernetes.io/hostname": "kind-control-plane"}),
        _ingress("gateway", "gateway", {}, "nginx"),
    ]
    assert found_by(local, POLICY) == []
    # IfNotPresent beside the cloud Ingress.
    pulled = copy.deepcopy(SAVYASACHI)
    pulled[0]["spec"]["template"]["spec"]["containers"][0]["imagePullPolicy"] = "IfNotPresent"
    assert found_by(pulled, POLICY) == []
