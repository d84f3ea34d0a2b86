"""What S27 ``manifest-is-kubernetes`` says of a file that was read but yields no Kubernetes object.

A YAML file whose documents hold data but no apiVersion and kind (a values.yaml, a CI workflow) is reported once, so a
reader sees what was not checked. A file named for the Kubernetes object it should hold (``service.yaml``,
``kubernetes/hpa.yml``) whose every document is empty but which has comments, an author's note where the object was
meant to be (spent set 115's second labeller: PhenixForge/vllm-serving-kubernetes-platform kubernetes/service.yaml,
"# Pour exposer l'API vLLM (ClusterIP ou NodePort)." and nothing else, while the folder's Ingress sends to
vllm-service), is reported too: `kubectl apply -f` creates nothing from it. Silent for an empty file, and for a
comment-only file whose name names no kind (notes, a kustomize component kept for later).

Also silent (review56d) where the comments are there for a reason: a file in a folder that holds no Kubernetes object
of the run (a disabled CI workflow ``.github/workflows/deploy.yml``, every line commented out), a commented-out object
(``# kind: HorizontalPodAutoscaler``: disabled on purpose, and shown), a note that says where the object comes from
(``# created by Argo CD``, ``# kubectl create secret ...``), and a file named for a Secret, which a careful repository
leaves out on purpose (the comment says how to make it; writing it in would commit the credential).
"""

from __future__ import annotations

import os
import re
from typing import Any, Iterable, Mapping, Optional, Sequence

from components.loading import Document
from policies.input.read_records import Unreadable

# Words of a file's name that name the object it holds (the kinds model-serving folders keep one per file). Not
# "secret": a Secret is left out of a repository on purpose, and a comment in its place says how to create it.
_KIND_WORDS = frozenset(
    {
        "service", "svc", "deployment", "deploy", "statefulset", "daemonset", "ingress", "hpa", "pvc", "configmap",
        "cm", "job", "cronjob", "pod", "networkpolicy", "pdb", "scaledobject", "httproute", "gateway",
        "nodepool", "inferenceservice", "servicemonitor", "podmonitor", "namespace", "serviceaccount", "rbac",
    }
)  # fmt: skip
_WORD = re.compile(r"[a-z0-9]+")
# A commented-out object (disabled on purpose), or a note that the object is made elsewhere or not needed.
_FOR_A_REASON = re.compile(
    r"^\s*#+\s*-?\s*(apiVersion|kind)\s*:"
    r"|\b(created|managed|generated|provided|handled|installed|deployed|defined|applied|provisioned)\s+"
    r"(by|in|via|with|from|elsewhere|separately|outside|out of band|manually)\b"
    r"|\bkubectl\s+(create|apply)\b|\bhelm\s+(install|upgrade)\b|\bmoved\s+to\b|\bnot\s+(needed|used|required)\b"
    r"|\b(disabled|deprecated|unused)\b",
    re.IGNORECASE | re.MULTILINE,
)
_ONLY_COMMENTS = "holds only comments"


def no_object(shown: str, name: str, text: str, docs: Sequence[Document]) -> Optional[Unreadable]:
    """The S27 record of a file read without error that holds no Kubernetes object, or None where nothing is said."""
    if any(d.data is not None for d in docs):
        why = "holds no Kubernetes object (no document with apiVersion and kind), so nothing in it was checked"
        return Unreadable(shown, None, 1, why, "not-kubernetes")
    stem = os.path.basename(name).lower().rsplit(".", 1)[0]
    kinds = [w for w in _WORD.findall(stem.rsplit("__", 1)[-1]) if w in _KIND_WORDS]
    comments = "\n".join(line for line in text.splitlines() if line.lstrip().startswith("#"))
    if not kinds or not comments or _FOR_A_REASON.search(comments):
        return None
    why = (
        f"{_ONLY_COMMENTS}, no Kubernetes object, though its name says it holds a {kinds[-1]}: `kubectl apply -f` "
        f"creates nothing from it, so whatever refers to that object finds none; write the object or remove the file"
    )
    return Unreadable(shown, None, 1, why, "not-kubernetes")


def _place(path: str) -> tuple[str, str]:
    """The folder of a file, with the folder a flattened name keeps before its last ``__`` (``kubernetes__hpa.yml``)."""
    folder, base = os.path.split(path)
    return folder, base.rsplit("__", 1)[0] if "__" in base else ""


def beside_objects(unreadable: list[Unreadable], objects: Iterable[Any]) -> list[Unreadable]:
    """The records without a comment-only file (``no_object``) whose folder holds no Kubernetes object of the run: a
    folder of manifests is where a missing object is missed (a CI workflow commented out is not)."""
    if not any(u.why.startswith(_ONLY_COMMENTS) for u in unreadable):
        return unreadable
    places = {_place(str(o.file)) for o in objects}
    return [u for u in unreadable if not u.why.startswith(_ONLY_COMMENTS) or _place(u.file) in places]


def read_as_chart(unreadable: list[Unreadable], charts: Mapping[str, Any]) -> list[Unreadable]:
    """The records without those of a chart's own files (its Chart.yaml, values.yaml and values-<name>.yaml) when a
    template of the run rendered with that chart (policies/reading/helm_chart.py ``Chart.rendered``): they were read as
    the chart's metadata and defaults, which the template's read line names, not left unchecked (spent set 124: S27 on
    every own chart's values.yaml, castai/helm-charts@daa46281 charts/castai-hosted-model/child-charts/vllm)."""
    own = {
        os.path.abspath(path)
        for chart in charts.values()
        if chart.rendered
        for path in (os.path.join(chart.root, "Chart.yaml"), chart.values_file, *(p for p, _ in chart.variants))
        if path
    }
    if not own:
        return unreadable
    return [u for u in unreadable if u.kind != "not-kubernetes" or os.path.abspath(u.file) not in own]
