"""What S27 ``manifest-is-kubernetes`` says of a file that was read but yields no Kubernetes object.

A YAML file whose documents hold data but no apiVersion and kind (a values.yaml, a CI workflow) is reported once, so a
reader sees what was not checked. A file named for the Kubernetes object it should hold (``service.yaml``,
``kubernetes/hpa.yml``) whose every document is empty but which has comments, an author's note where the object was
meant to be (spent set 115's second labeller: PhenixForge/vllm-serving-kubernetes-platform kubernetes/service.yaml,
"# Pour exposer l'API vLLM (ClusterIP ou NodePort)." and nothing else, while the folder's Ingress sends to
vllm-service), is reported too: `kubectl apply -f` creates nothing from it. Silent for an empty file, and for a
comment-only file whose name names no kind (notes, a kustomize component kept for later).
"""

from __future__ import annotations

import os
import re
from typing import Optional, Sequence

from components.loading import Document
from policies.input.read_records import Unreadable

# Words of a file's name that name the object it holds (the kinds model-serving folders keep one per file).
_KIND_WORDS = frozenset(
    {
        "service", "svc", "deployment", "deploy", "statefulset", "daemonset", "ingress", "hpa", "pvc", "configmap",
        "cm", "secret", "job", "cronjob", "pod", "networkpolicy", "pdb", "scaledobject", "httproute", "gateway",
        "nodepool", "inferenceservice", "servicemonitor", "podmonitor", "namespace", "serviceaccount", "rbac",
    }
)  # fmt: skip
_WORD = re.compile(r"[a-z0-9]+")


def no_object(shown: str, name: str, text: str, docs: Sequence[Document]) -> Optional[Unreadable]:
    """The S27 record of a file read without error that holds no Kubernetes object, or None where nothing is said."""
    if any(d.data is not None for d in docs):
        why = "holds no Kubernetes object (no document with apiVersion and kind), so nothing in it was checked"
        return Unreadable(shown, None, 1, why, "not-kubernetes")
    stem = os.path.basename(name).lower().rsplit(".", 1)[0]
    kinds = [w for w in _WORD.findall(stem.rsplit("__", 1)[-1]) if w in _KIND_WORDS]
    if not kinds or not any(line.lstrip().startswith("#") for line in text.splitlines()):
        return None
    why = (
        f"holds only comments, no Kubernetes object, though its name says it holds a {kinds[-1]}: `kubectl apply -f` "
        f"creates nothing from it, so whatever refers to that object finds none; write the object or remove the file"
    )
    return Unreadable(shown, None, 1, why, "not-kubernetes")
