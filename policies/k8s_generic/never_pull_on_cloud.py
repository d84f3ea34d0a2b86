"""G64 never-pull-on-cloud: imagePullPolicy Never on a workload whose run targets a managed cloud cluster.

With ``imagePullPolicy: Never`` "the kubelet does not try fetching the image. If the image is somehow already present
locally, the kubelet attempts to start the container; otherwise, startup fails"
(https://kubernetes.io/docs/concepts/containers/images/#image-pull-policy; the kubelet's image manager,
pkg/kubelet/images/image_manager.go EnsureImageExists, returns ErrImageNeverPull, "Container image ... is not present
with pull policy of Never"). The policy is for an image built or loaded on the node itself (``kind load``, ``minikube
image load``, a local Docker daemon). Nodes of a managed cloud cluster (EKS, GKE, AKS, Karpenter's EC2 nodes) start
from a stock machine image and hold no such image, so when the same run also targets one the pod never starts
(spent set 28, savyasachi6/llm-serving-platform infra/kubernetes/base/gateway-deployment.yaml@05118a8 ``gateway:latest``
with Never, while infra/kubernetes/overlays/gcp/ingress.yaml@f95a0ce gives it a GCE Ingress).

What counts as targeting a cloud, read from the run's objects: an Ingress of a cloud load balancer class (alb, gce,
gce-internal, gce-regional-external, azure-application-gateway) or with a cloud controller's annotations (alb.ingress.
kubernetes.io/, networking.gke.io/, appgw.ingress.kubernetes.io/, the GCE static IP); a Service with a cloud load
balancer's annotations; an object of a cloud provider's API (Karpenter's EC2NodeClass or AKSNodeClass, EKS Auto Mode's
NodeClass, GKE's BackendConfig/FrontendConfig/ManagedCertificate, AWS's TargetGroupBinding); a StorageClass of a cloud
disk driver; a ServiceAccount bound to a cloud IAM role; a pod selecting a cloud's node labels. Advice: the image may
be preloaded into the nodes' machine image (a custom AMI, a GKE image streaming cache), and an overlay may replace the
policy.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Optional

from policies.framework import Policy, Resource
from policies.kube import (
    WORKLOAD_TYPES,
    annotations_of,
    as_dict,
    as_list,
    container_label,
    containers,
    get,
    pod_specs,
    split_type,
)
from policies.reading.edge import ingress_class

_CLOUD_CLASSES = ("alb", "gce", "gce-internal", "gce-regional-external", "azure-application-gateway", "azure/application-gateway")
_INGRESS_ANNOTATIONS = (
    "alb.ingress.kubernetes.io/",
    "networking.gke.io/",
    "appgw.ingress.kubernetes.io/",
    "kubernetes.io/ingress.global-static-ip-name",
)
_SERVICE_ANNOTATIONS = (
    "service.beta.kubernetes.io/aws-load-balancer",
    "cloud.google.com/",
    "networking.gke.io/",
    "service.beta.kubernetes.io/azure-",
)
_CLOUD_KINDS = {
    ("karpenter.k8s.aws", "EC2NodeClass"): "EKS (Karpenter EC2NodeClass)",
    ("karpenter.azure.com", "AKSNodeClass"): "AKS (Karpenter AKSNodeClass)",
    ("eks.amazonaws.com", "NodeClass"): "EKS Auto Mode (NodeClass)",
    ("cloud.google.com", "BackendConfig"): "GKE (BackendConfig)",
    ("networking.gke.io", "FrontendConfig"): "GKE (FrontendConfig)",
    ("networking.gke.io", "ManagedCertificate"): "GKE (ManagedCertificate)",
    ("elbv2.k8s.aws", "TargetGroupBinding"): "AWS (TargetGroupBinding)",
}
_PROVISIONERS = (
    "ebs.csi.aws.com",
    "efs.csi.aws.com",
    "kubernetes.io/aws-ebs",
    "pd.csi.storage.gke.io",
    "filestore.csi.storage.gke.io",
    "kubernetes.io/gce-pd",
    "disk.csi.azure.com",
    "file.csi.azure.com",
    "kubernetes.io/azure-disk",
)
_IAM_ANNOTATIONS = ("eks.amazonaws.com/role-arn", "iam.gke.io/gcp-service-account", "azure.workload.identity/client-id")
_NODE_LABELS = (
    "cloud.google.com/gke-",
    "eks.amazonaws.com/",
    "karpenter.k8s.aws/",
    "kubernetes.azure.com/",
    "k8s.amazonaws.com/",
)


def _selected_labels(podspec: dict) -> Iterator[str]:
    yield from as_dict(podspec.get("nodeSelector"))
    required = get(podspec, "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
    for term in as_list(required):
        for expression in as_list(as_dict(term).get("matchExpressions")):
            key = as_dict(expression).get("key")
            if isinstance(key, str):
                yield key


def _cloud(r: Resource) -> Optional[str]:
    """What shows that an object targets a managed cloud cluster, or None."""
    group, kind = split_type(r.type)
    name = get(r.props, "metadata", "name")
    annotations = annotations_of(r.props)
    if kind == "Ingress":
        klass = ingress_class(r)
        if klass in _CLOUD_CLASSES:
            return f"Ingress {name} of class {klass}"
        marked = next((a for a in annotations if str(a).startswith(_INGRESS_ANNOTATIONS)), None)
        return f"Ingress {name} ({marked})" if marked else None
    if (group, kind) == ("", "Service"):
        marked = next((a for a in annotations if str(a).startswith(_SERVICE_ANNOTATIONS)), None)
        return f"Service {name} ({marked})" if marked else None
    if (group, kind) in _CLOUD_KINDS:
        return f"{kind} {name}: {_CLOUD_KINDS[(group, kind)]}"
    if (group, kind) == ("storage.k8s.io", "StorageClass") and r.props.get("provisioner") in _PROVISIONERS:
        return f"StorageClass {name} (provisioner {r.props.get('provisioner')})"
    if (group, kind) == ("", "ServiceAccount"):
        marked = next((a for a in annotations if a in _IAM_ANNOTATIONS), None)
        return f"ServiceAccount {name} ({marked})" if marked else None
    if r.type in WORKLOAD_TYPES:
        for _, podspec in pod_specs(r):
            key = next((k for k in _selected_labels(podspec) if str(k).startswith(_NODE_LABELS)), None)
            if key:
                return f"{kind} {name} (selects nodes by {key})"
    return None


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    never = [
        (w, label, c)
        for w in resources
        if w.type in WORKLOAD_TYPES and isinstance(w.props, dict) and not w.patch
        for path, podspec in pod_specs(w)
        for c in containers(podspec, init=True)
        if c.get("imagePullPolicy") == "Never"
        for label in [container_label(path, c)]
    ]
    if not never:
        return []
    cloud = next((found for r in resources if isinstance(r.props, dict) and (found := _cloud(r))), None)
    if cloud is None:
        return []
    return [
        (
            w.name,
            f"{label}: imagePullPolicy Never starts image {c.get('image')} only on a node that already holds it "
            f"(otherwise ErrImageNeverPull), while these files target a managed cloud cluster ({cloud}), whose nodes "
            f"start from a stock machine image: the pod never starts there; push the image to a registry the cluster "
            f"pulls from and use IfNotPresent (unless the nodes' image is built with it)",
        )
        for w, label, c in never
    ]


POLICY = Policy(
    name="never-pull-on-cloud",
    description=(
        "A container with imagePullPolicy Never runs on a cluster whose nodes hold its image; advice when the same "
        "files target a managed cloud cluster (a cloud Ingress class, load balancer annotations, EC2NodeClass, cloud "
        "storage or IAM bindings), whose nodes start from a stock image."
    ),
    catalog="G64",
    severity="high",
    enforcement="advisory",
    remediation_steps=(
        "Push the image to a registry the cluster can pull (ECR, Artifact Registry, ACR) and set imagePullPolicy "
        "IfNotPresent, or keep Never only in a local overlay (kind, minikube)."
    ),
    config_schema={},
    check_stack=_check,
    rationale=(
        "With imagePullPolicy Never the kubelet never fetches the image and the start fails unless the node holds it "
        "(https://kubernetes.io/docs/concepts/containers/images/#image-pull-policy)."
    ),
)
