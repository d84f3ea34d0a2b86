"""S27 manifest-is-kubernetes on a file named for an object that holds only comments (policies/input/no_object.py).

Firing form: PhenixForge/vllm-serving-kubernetes-platform@5916fc6b076c876bb547a5ea33c9b0c878bd93a9
kubernetes/service.yaml, whose only line is a comment while kubernetes/ingress.yaml sends to vllm-service (spent set
115's second labeller, S27 advisory). Careful forms: the same comment in a file whose name names no kind, and an empty
service.yaml, stay silent; and (review56d) comments there for a reason: a CI workflow commented out in a folder of no
Kubernetes object, a commented-out object, a note that says where the object comes from, a Secret's instructions.
"""

from __future__ import annotations

from policies.manifests import read_manifests

PHENIX_SERVICE = "# Pour exposer l’API vLLM (ClusterIP ou NodePort).\n"
INGRESS = """apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: vllm-ingress}
spec:
  rules:
  - http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: vllm-service, port: {number: 8000}}}}
"""


def _why(tmp_path, name: str, text: str, beside: str = "ingress.yaml") -> list[str]:
    """S27 records of the run of ``name`` with ``text``, an Ingress in the folder ``beside`` names (the firing form's)."""
    for path, body in ((beside, INGRESS), (name, text)):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(body, encoding="utf-8")
    return [u.why for u in read_manifests([str(tmp_path)]).unreadable if u.kind == "not-kubernetes"]


def test_a_service_file_holding_only_a_comment_is_reported(tmp_path):
    (why,) = _why(tmp_path, "service.yaml", PHENIX_SERVICE)
    assert why.startswith("holds only comments, no Kubernetes object, though its name says it holds a service")


def test_a_flattened_name_is_read_by_its_last_part(tmp_path):
    (why,) = _why(tmp_path, "kubernetes__hpa.yml", "# autoscaling comes later\n---\n# nothing yet\n", "kubernetes__ingress.yaml")
    assert "holds a hpa" in why


def test_careful_forms_stay_silent(tmp_path):
    assert _why(tmp_path, "notes.yaml", PHENIX_SERVICE) == []
    assert _why(tmp_path, "svc-empty.yaml", "") == []
    assert _why(tmp_path, "deployment.yaml", "\n\n---\n") == []


def test_comments_for_a_reason_stay_silent(tmp_path):
    """review56d: each of these was reported ('write the object or remove the file')."""
    workflow = "# name: deploy\n# on: [push]\n# jobs:\n#   build:\n#     runs-on: ubuntu-latest\n"
    assert _why(tmp_path / "a", ".github/workflows/deploy.yml", workflow, "k8s/ingress.yaml") == []
    assert _why(tmp_path / "b", ".github__workflows__deploy.yml", workflow, "k8s__ingress.yaml") == []
    secret = "# Create it out of band, never commit it:\n#   kubectl create secret generic hf-token --from-literal=token=...\n"
    assert _why(tmp_path / "c", "secret.yaml", secret) == []
    assert _why(tmp_path / "d", "secrets.yaml", "# HF token Secret (fill in and apply by hand)\n") == []
    assert _why(tmp_path / "e", "namespace.yaml", "# The namespace is created by Argo CD (CreateNamespace=true)\n") == []
    disabled = "# single GPU node for now\n# apiVersion: autoscaling/v2\n# kind: HorizontalPodAutoscaler\n"
    assert _why(tmp_path / "f", "hpa.yaml", disabled) == []
