"""S27 manifest-is-kubernetes on a file named for an object that holds only comments (policies/input/no_object.py).

Firing form: PhenixForge/vllm-serving-kubernetes-platform@5916fc6b076c876bb547a5ea33c9b0c878bd93a9
kubernetes/service.yaml, whose only line is a comment while kubernetes/ingress.yaml sends to vllm-service (spent set
115's second labeller, S27 advisory). Careful forms: the same comment in a file whose name names no kind, and an empty
service.yaml, stay silent.
"""

from __future__ import annotations

from policies.manifests import read_manifests

PHENIX_SERVICE = "# Pour exposer l’API vLLM (ClusterIP ou NodePort).\n"


def _why(tmp_path, name: str, text: str) -> list[str]:
    (tmp_path / name).write_text(text, encoding="utf-8")
    return [u.why for u in read_manifests([str(tmp_path)]).unreadable if u.kind == "not-kubernetes"]


def test_a_service_file_holding_only_a_comment_is_reported(tmp_path):
    (why,) = _why(tmp_path, "service.yaml", PHENIX_SERVICE)
    assert why.startswith("holds only comments, no Kubernetes object, though its name says it holds a service")


def test_a_flattened_name_is_read_by_its_last_part(tmp_path):
    (why,) = _why(tmp_path, "kubernetes__hpa.yml", "# autoscaling comes later\n---\n# nothing yet\n")
    assert "holds a hpa" in why


def test_careful_forms_stay_silent(tmp_path):
    assert _why(tmp_path, "notes.yaml", PHENIX_SERVICE) == []
    assert _why(tmp_path, "svc-empty.yaml", "") == []
    assert _why(tmp_path, "deployment.yaml", "\n\n---\n") == []
