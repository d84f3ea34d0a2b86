"""The labels KServe puts on the pods of an LLMInferenceService (shared by the policies that select them: a
PodDisruptionBudget's, a NetworkPolicy's)."""

from __future__ import annotations

from typing import Any

from policies.kube import as_dict, get, pod_specs

# LLMInferenceService pod labels (KServe v0.20.0 pkg/constants/constants.go:417-446; single node
# workload_single_node.go:95-97,503-509, prefill :222-227, spec.labels propagated :179,283; multi-node
# workload_multi_node.go:137-160 for the LeaderWorkerSet's leader and worker pods).
_LLMISVC_COMPONENTS = {
    "spec.template": "llminferenceservice-workload",
    "spec.prefill.template": "llminferenceservice-workload-prefill",
}


def llmisvc_pod_labels(resource: Any, name: str) -> list[dict]:
    """One label set per pod template of the LLMInferenceService named ``name``."""
    spec = as_dict(get(resource.props, "spec"))
    paths = {path for path, _ in pod_specs(resource)}
    found = []
    for path in sorted(paths):
        owner = as_dict(spec.get("prefill")) if path.startswith("spec.prefill") else spec
        labels = {
            "app.kubernetes.io/name": name,
            "app.kubernetes.io/part-of": "llminferenceservice",
            **as_dict(owner.get("labels")),
        }
        worker = path.endswith(".worker")
        leader_of_group = not worker and path.replace("template", "worker") in paths
        # A prefill group's pods carry the -prefill forms (kserve v0.20.0 pkg/constants/constants.go:447-448,
        # pkg/controller/v1alpha2/llmisvc/workload_multi_node.go:285, :295; review 44 #7).
        prefill = "-prefill" if path.startswith("spec.prefill") else ""
        if worker:
            labels["app.kubernetes.io/component"] = f"llminferenceservice-workload-worker{prefill}"
        elif leader_of_group:
            labels["app.kubernetes.io/component"] = f"llminferenceservice-workload-leader{prefill}"
        else:
            labels["app.kubernetes.io/component"] = _LLMISVC_COMPONENTS.get(path, "llminferenceservice-workload")
        if not worker:
            labels["kserve.io/component"] = "workload"
            labels["llm-d.ai/role"] = (
                "prefill" if path.startswith("spec.prefill") else ("decode" if "prefill" in spec else "both")
            )
        found.append(labels)
    return found


__all__ = ["llmisvc_pod_labels"]
