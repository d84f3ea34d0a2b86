"""G69 namespace-created: a GitOps object deploys into a namespace something of its run creates.

Firing third-party form: rbizzell40/devops-ai-stack@ce2c605bded0230194eed9c84011f845eb730ecb applications/ollama.yaml
(spent set 111): an Argo CD Application of the otwld ollama chart into namespace ollama, no CreateNamespace=true, no
Namespace ollama in the repository. Careful third-party form: tzervas/self-hosted-ai@8ceff0f137f851444c24bc3561c1e1c6be2f04c3
argocd/applications/ollama.yaml, destination namespace ai-services with syncOptions [CreateNamespace=true]: silent.
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by, manifest

from policies.framework import Resource
from policies.k8s_generic.namespace_created import POLICY
from policies.registry import evaluate

APPLICATION = {
    "apiVersion": "argoproj.io/v1alpha1",
    "kind": "Application",
    "metadata": {"name": "ollama", "namespace": "argocd"},
    "spec": {
        "project": "default",
        "destination": {"namespace": "ollama", "server": "https://kubernetes.default.svc"},
        "source": {"repoURL": "https://helm.otwld.com", "chart": "ollama", "targetRevision": "1.41.0"},
        "syncPolicy": {"automated": {"prune": True, "selfHeal": True}},
    },
}


def test_an_application_into_a_namespace_nothing_creates_is_advice():
    ((level, message),) = found_by([APPLICATION], POLICY.name)
    assert level == "advisory"
    assert message.startswith("spec.destination.namespace ollama: no Namespace ollama among the files")
    assert 'Argo CD\'s sync fails (namespaces "ollama" not found)' in message


def test_careful_forms_stay_silent():
    careful = copy.deepcopy(APPLICATION)
    careful["spec"]["destination"]["namespace"] = "ai-services"
    careful["spec"]["syncPolicy"]["syncOptions"] = ["CreateNamespace=true"]
    assert found_by([careful], POLICY.name) == []
    # A Namespace object of the run, or another Application creating it.
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ollama"}}
    assert found_by([APPLICATION, namespace], POLICY.name) == []
    other = copy.deepcopy(APPLICATION)
    other["metadata"]["name"] = "ollama-models"
    other["spec"]["syncPolicy"]["syncOptions"] = ["CreateNamespace=true"]
    assert found_by([APPLICATION, other], POLICY.name) == []
    # The cluster's own namespaces and the controller's.
    for name in ("default", "kube-system", "argocd"):
        app = copy.deepcopy(APPLICATION)
        app["spec"]["destination"]["namespace"] = name
        assert found_by([app], POLICY.name) == []


RELEASE = {
    "apiVersion": "helm.toolkit.fluxcd.io/v2",
    "kind": "HelmRelease",
    "metadata": {"name": "open-webui", "namespace": "flux-system"},
    "spec": {
        "targetNamespace": "ai-stack",
        "chart": {"spec": {"chart": "open-webui", "sourceRef": {"kind": "HelmRepository", "name": "open-webui"}}},
    },
}


def test_flux_target_namespaces():
    ((level, message),) = found_by([RELEASE], POLICY.name)
    assert level == "advisory" and "set spec.install.createNamespace: true" in message
    created = copy.deepcopy(RELEASE)
    created["spec"]["install"] = {"createNamespace": True}
    assert found_by([created], POLICY.name) == []
    kustomization = {
        "apiVersion": "kustomize.toolkit.fluxcd.io/v1",
        "kind": "Kustomization",
        "metadata": {"name": "ai-stack", "namespace": "flux-system"},
        "spec": {"targetNamespace": "ai-stack", "path": "./apps", "sourceRef": {"kind": "GitRepository", "name": "x"}},
    }
    (message,) = _found([kustomization, _from("repo/apps/web.yaml", _CONFIG_MAP)])
    assert "kustomize-controller never creates it" in message
    # The release creates it for the Kustomization too.
    assert _found([kustomization, _from("repo/apps/web.yaml", _CONFIG_MAP), created]) == []


_CONFIG_MAP = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "web"}, "data": {}}


def _from(path: str, obj: dict) -> Resource:
    return Resource(type=manifest(obj).type, name=f"{path}#0 {obj['kind']}/{obj['metadata']['name']}", props=obj)


def _found(objs: list) -> list[str]:
    resources = [o if isinstance(o, Resource) else manifest(o) for o in objs]
    return [v.message for v in evaluate(resources) if v.policy == POLICY.name]


def test_a_folder_the_run_did_not_read_may_define_the_namespace():
    # review54b: an Application or Kustomization of another repository's folder (or one of this repository the run
    # did not read) may apply its own Namespace; the folder read, flattened or not, is judged.
    app = copy.deepcopy(APPLICATION)
    app["spec"]["source"] = {"repoURL": "https://github.com/acme/llm-serving.git", "path": "deploy/vllm"}
    assert _found([app]) == []
    (message,) = _found([app, _from("repo/deploy/vllm/deployment.yaml", _CONFIG_MAP)])
    assert message.startswith("spec.destination.namespace ollama: no Namespace ollama among the files")
    assert len(_found([app, _from("files/acme__llm-serving/deploy__vllm__deployment.yaml", _CONFIG_MAP)])) == 1
    kustomization = {
        "apiVersion": "kustomize.toolkit.fluxcd.io/v1",
        "kind": "Kustomization",
        "metadata": {"name": "vllm", "namespace": "flux-system"},
        "spec": {"targetNamespace": "vllm", "path": "./apps/vllm", "sourceRef": {"kind": "GitRepository", "name": "apps"}},
    }
    assert _found([kustomization, _from("repo/apps/web.yaml", _CONFIG_MAP)]) == []
