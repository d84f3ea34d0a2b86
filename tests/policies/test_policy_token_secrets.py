"""S28 reads the Secrets of the same run: a token taken from a committed Secret whose value is empty is advice.

Firing form, written out minimally: aubree-lianto/Orchard at 376d28461652927a4da42fba6580a3e88bf61b0f (spent set 23),
k8s/vllm-deployment.yaml takes HUGGING_FACE_HUB_TOKEN from key HF_TOKEN of Secret orchard-secrets, and
k8s/secrets.yaml commits that Secret with ``data: {HF_TOKEN: ""}`` in the same namespace. The API server merges
``stringData`` over ``data`` (kubernetes/api core/v1 types.go Secret.StringData), so both are read. Careful forms
that must stay silent: a non-empty value, a Secret of another namespace, a Secret not among the files.
"""

from __future__ import annotations

import base64
import copy

from tests.policies.policy_fixtures import found_by

_SECRET = {
    "apiVersion": "v1",
    "kind": "Secret",
    "metadata": {"name": "orchard-secrets", "namespace": "orchard"},
    "type": "Opaque",
    "data": {"OPENAI_API_KEY": "", "HF_TOKEN": ""},
}
_DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "vllm", "namespace": "orchard"},
    "spec": {
        "selector": {"matchLabels": {"app": "vllm"}},
        "template": {
            "metadata": {"labels": {"app": "vllm"}},
            "spec": {
                "containers": [
                    {
                        "name": "vllm",
                        "image": "vllm/vllm-openai:v0.8.5",
                        "args": ["--model", "meta-llama/Meta-Llama-3-8B-Instruct", "--max-model-len", "8192"],
                        "env": [
                            {
                                "name": "HUGGING_FACE_HUB_TOKEN",
                                "valueFrom": {"secretKeyRef": {"name": "orchard-secrets", "key": "HF_TOKEN"}},
                            }
                        ],
                        "resources": {"limits": {"nvidia.com/gpu": "1"}},
                    }
                ]
            },
        },
    },
}
_EXPECTED = (
    "container vllm: env HUGGING_FACE_HUB_TOKEN comes from key HF_TOKEN of Secret orchard-secrets, whose committed value "
    "is empty: applied as these files stand, the token is an empty string, the Hub client sends none and a gated model "
    "fails with 401 at start; create the Secret out of band (and leave it out of the applied files) or fill it from a "
    "secret store"
)


# On the Secret itself (brief api49 item 3): the empty key is read as the token of a gated model's download with no
# other token source, so applied as it stands the download gets 401: blocking, reported once, on the Secret.
_ON_SECRET = (
    "key HF_TOKEN is empty while Deployment/vllm container vllm reads it as its Hugging Face token to download the "
    "gated meta-llama/Meta-Llama-3-8B-Instruct"
)


def test_token_from_a_committed_empty_secret_is_advice():
    def found(objs: list) -> list:
        return [(level, m.split(":")[0] if m.startswith("key ") else m) for level, m in found_by(objs, "hf-token-not-empty")]

    assert found([_SECRET, _DEPLOYMENT]) == [("advisory", _EXPECTED), ("mandatory", _ON_SECRET)]
    as_string = copy.deepcopy(_SECRET)
    del as_string["data"]
    as_string["stringData"] = {"HF_TOKEN": " "}
    assert found([as_string, _DEPLOYMENT]) == [("advisory", _EXPECTED), ("mandatory", _ON_SECRET)]


def test_token_from_an_empty_secret_by_env_from():
    deployment = copy.deepcopy(_DEPLOYMENT)
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    del container["env"]
    container["envFrom"] = [{"secretRef": {"name": "orchard-secrets"}}]
    [(level, message), (on_secret, _)] = found_by([_SECRET, deployment], "hf-token-not-empty")
    assert level == "advisory" and on_secret == "advisory"  # envFrom may bring another token: no 401 proven
    assert message.startswith("container vllm: env HF_TOKEN comes from Secret orchard-secrets (envFrom), whose committed")


def test_careful_secret_forms_stay_silent():
    filled = copy.deepcopy(_SECRET)
    filled["data"]["HF_TOKEN"] = base64.b64encode(b"hf_example").decode()
    assert found_by([filled, _DEPLOYMENT], "hf-token-not-empty") == []
    # stringData wins over data on write.
    merged = copy.deepcopy(_SECRET)
    merged["stringData"] = {"HF_TOKEN": "hf_example"}
    assert found_by([merged, _DEPLOYMENT], "hf-token-not-empty") == []
    elsewhere = copy.deepcopy(_SECRET)
    elsewhere["metadata"]["namespace"] = "other"
    assert found_by([elsewhere, _DEPLOYMENT], "hf-token-not-empty") == []
    assert found_by([_DEPLOYMENT], "hf-token-not-empty") == []


# Review 49b #1 (/work/r49b/s28): a Kustomize base commits Secret hf-secret with an empty HF_TOKEN and an overlay's
# secretGenerator replaces it (kustomize api/types/generatorargs.go:16-20@api/v0.21.1 "'replace': replace the existing
# one", "'merge': merge with the existing one"): the base is applied only through the overlay, so the empty value is an
# absence the overlay fills, advice on the base; the built overlay's Secret holds the token (stringData dropped,
# api/resmap/reswrangler.go:582-602) and is silent. Without the overlay the base Secret still blocks.
_KUSTOMIZE_BASE = """apiVersion: v1
kind: Secret
metadata: {name: hf-secret}
type: Opaque
stringData:
  HF_TOKEN: ""
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: vllm}
spec:
  selector: {matchLabels: {app: vllm}}
  template:
    metadata: {labels: {app: vllm}}
    spec:
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.8.5
        args: ["--model", "meta-llama/Meta-Llama-3-8B-Instruct"]
        env:
        - name: HF_TOKEN
          valueFrom: {secretKeyRef: {name: hf-secret, key: HF_TOKEN}}
        resources: {limits: {nvidia.com/gpu: 1, memory: 32Gi}}
"""


def _on_secrets(root, capsys) -> list[tuple[str, str]]:
    import json

    from policies.check import main

    main([str(root), "--format", "json"])
    rows = json.loads(capsys.readouterr().out)["violations"]
    return sorted(
        (r["enforcement"], r["file"].split(str(root))[-1])
        for r in rows
        if r["policy"] == "hf-token-not-empty" and "Secret" in r["resource"]
    )


def test_a_base_secret_an_overlay_regenerates_or_patches_is_advice(tmp_path, capsys):
    (tmp_path / "base").mkdir()
    (tmp_path / "base" / "all.yaml").write_text(_KUSTOMIZE_BASE)
    (tmp_path / "base" / "kustomization.yaml").write_text("resources: [all.yaml]\n")
    prod = tmp_path / "overlays" / "prod"
    prod.mkdir(parents=True)
    (prod / "hf.env").write_text("HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyzABCDEFGH\n")
    for behavior in ("replace", "merge"):
        (prod / "kustomization.yaml").write_text(
            "resources: [../../base]\nsecretGenerator:\n- name: hf-secret\n"
            f"  behavior: {behavior}\n  envs: [hf.env]\ngeneratorOptions: {{disableNameSuffixHash: true}}\n"
        )
        assert _on_secrets(tmp_path, capsys) == [("advisory", "/base/all.yaml")], behavior
    (prod / "hf.env").unlink()  # the env file gitignored: the overlay is not built, the base still advice
    assert _on_secrets(tmp_path, capsys) == [("advisory", "/base/all.yaml")]
    # A strategic-merge patch of the Secret marks the base the same way.
    (prod / "secret.yaml").write_text("apiVersion: v1\nkind: Secret\nmetadata: {name: hf-secret}\nstringData: {HF_TOKEN: x}\n")
    (prod / "kustomization.yaml").write_text("resources: [../../base]\npatches:\n- path: secret.yaml\n")
    assert ("mandatory", "/base/all.yaml") not in _on_secrets(tmp_path, capsys)
    # Careful form: an overlay that only includes the base (a generator creating another Secret) leaves it blocking.
    (prod / "secret.yaml").unlink()
    (prod / "kustomization.yaml").write_text("resources: [../../base]\nsecretGenerator:\n- name: other\n  literals: [a=b]\n")
    assert ("mandatory", "/base/all.yaml") in _on_secrets(tmp_path, capsys)


def test_a_server_that_never_contacts_the_hub_is_not_blocked():
    """Review 49b #2 (/work/r49b/s28b): HF_HUB_OFFLINE (or TRANSFORMERS_OFFLINE) true makes huggingface_hub send no
    request (constants.py is_offline_mode, cited at policies/reading/engines.py _HF_OFFLINE), so the empty token is
    never sent: advice (the leftover empty variable fails the moment the server goes online), not a block. A local
    model path downloads nothing either."""
    offline = copy.deepcopy(_DEPLOYMENT)
    container = offline["spec"]["template"]["spec"]["containers"][0]
    for name, value in (("HF_HUB_OFFLINE", "1"), ("TRANSFORMERS_OFFLINE", "TRUE")):
        container["env"] = [{"name": name, "value": value}, *_DEPLOYMENT_ENV]
        assert {level for level, _ in found_by([_SECRET, offline], "hf-token-not-empty")} == {"advisory"}, name
        literal = copy.deepcopy(offline)
        literal["spec"]["template"]["spec"]["containers"][0]["env"] = [
            {"name": name, "value": value},
            {"name": "HF_TOKEN", "value": ""},
        ]
        assert [level for level, _ in found_by([literal], "hf-token-not-empty")] == ["advisory"], name
    local = copy.deepcopy(_DEPLOYMENT)
    local["spec"]["template"]["spec"]["containers"][0]["args"][1] = "/models/Meta-Llama-3-8B-Instruct"
    assert {level for level, _ in found_by([_SECRET, local], "hf-token-not-empty")} == {"advisory"}
    # Careful form: offline set false keeps the block.
    container["env"] = [{"name": "HF_HUB_OFFLINE", "value": "0"}, *_DEPLOYMENT_ENV]
    assert "mandatory" in {level for level, _ in found_by([_SECRET, offline], "hf-token-not-empty")}


_DEPLOYMENT_ENV = _DEPLOYMENT["spec"]["template"]["spec"]["containers"][0]["env"]
