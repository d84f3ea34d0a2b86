"""Credentials an engine needs, as engine-table data (components/serving_engines.toml [engines.nim.downloads]
credentials = NGC_API_KEY): S37 engine-download-credential, and S28 hf-token-secret-not-placeholder on a fill-in under
any credential's key (NGC_API_KEY, *_API_KEY, api-key, *_TOKEN), not only a Hugging Face token's.

Fixtures:

- spent set 33 funtastic1234/SkyGuardian k8s/nim.yaml@e620a00fa0b399c767a73eef6537c40a943cd7f8: embedding-nim sets no
  NGC_API_KEY and mounts no cache (labelled NONE, blocking: the NIM cannot download its profile); Secret ngc-secret
  holds api-key "REPLACE_WITH_NGC_API_KEY" (labelled S27 advisory);
- spent set 34 shenoyabhijith/llama-k8s-deployment k8s/secret.yaml@d710e32 (API_KEY "your_api_key", base64; the
  Secret is labelled S28 advisory);
- careful: MohammadB88/rag-anythingllm model_nvidia_nim/llama3-2-1b_all_resources.yaml@5200b50 (NGC_API_KEY from a
  Secret, a claim at /opt/nim/.cache).
"""

from __future__ import annotations

import base64
import copy

from policy_fixtures import found_by
from test_policy_gpu_only_engines import CAREFUL, EMBEDDING, NEMOTRON

S37 = "engine-download-credential"
S28_SECRET = "hf-token-secret-not-placeholder"
# Fill-ins under other credentials' keys are S27's (secret-value-not-placeholder); S28 keeps the Hugging Face token.
S27_SECRET = "secret-value-not-placeholder"


def _container(manifest: dict) -> dict:
    return manifest["spec"]["template"]["spec"]["containers"][0]


def _secret(name: str, **data: str) -> dict:
    return {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": name}, "type": "Opaque", "stringData": data}


def test_a_nim_with_no_ngc_key_and_no_cache_cannot_download_its_model():
    assert found_by([EMBEDDING], S37) == [
        (
            "advisory",
            "container embedding-nim: NVIDIA NIM downloads its model from NGC (or the Hugging Face Hub for an hf:// "
            "model) at start and needs NGC_API_KEY for it, but the container sets no NGC_API_KEY and mounts nothing at "
            "/opt/nim/.cache that could already hold the model, so the download is refused and the server never "
            "becomes ready; set env NGC_API_KEY from a Secret (valueFrom.secretKeyRef), or mount a volume pre-filled "
            "with the model at /opt/nim/.cache",
        )
    ]


def test_a_nim_with_its_key_or_a_cache_claim_or_a_local_model_is_silent():
    assert found_by([NEMOTRON], S37) == []  # NGC_API_KEY from ngc-secret
    assert found_by([CAREFUL], S37) == []
    claim = copy.deepcopy(EMBEDDING)
    claim["spec"]["template"]["spec"]["volumes"] = [{"name": "c", "persistentVolumeClaim": {"claimName": "nim-cache"}}]
    _container(claim)["volumeMounts"] = [{"name": "c", "mountPath": "/opt/nim/.cache"}]
    assert found_by([claim], S37) == []
    local = copy.deepcopy(EMBEDDING)
    _container(local)["env"] = [{"name": "NIM_MODEL_PATH", "value": "/models/nv-embedqa"}]
    assert found_by([local], S37) == []


def test_an_empty_dir_cache_does_not_hold_the_model():
    empty = copy.deepcopy(EMBEDDING)
    empty["spec"]["template"]["spec"]["volumes"] = [{"name": "c", "emptyDir": {}}]
    _container(empty)["volumeMounts"] = [{"name": "c", "mountPath": "/opt/nim/.cache"}]
    [(level, _)] = found_by([empty], S37)
    assert level == "advisory"


def test_a_fill_in_under_any_credential_key_is_advice():
    assert found_by([_secret("ngc-secret", **{"api-key": "REPLACE_WITH_NGC_API_KEY"})], S28_SECRET) == []
    assert found_by([_secret("ngc-secret", **{"api-key": "REPLACE_WITH_NGC_API_KEY"})], S27_SECRET) == [
        (
            "advisory",
            "key api-key holds the fill-in 'REPLACE_WITH_NGC_API_KEY', not a credential: applying this Secret with the "
            "files overwrites a real one, and a pod that reads it sends the fill-in, which the service (NGC, an API, a "
            "login) refuses or, for a key the app issues itself, accepts from anyone who reads the repository; create "
            "the Secret out of band (kubectl create secret generic ... --from-literal) and leave it out of the applied "
            "files",
        )
    ]
    encoded = {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": "llama-secrets", "namespace": "llama-deployment"},
        "data": {"API_KEY": base64.b64encode(b"your_api_key").decode(), "TLS_CERT": ""},
    }
    [(level, message)] = found_by([encoded], S27_SECRET)
    assert level == "advisory" and message.startswith("key API_KEY holds the fill-in 'your_api_key', not a credential")
    for key in ("NGC_API_KEY", "OPENAI_API_KEY", "PROMETHEUS_AUTH_TOKEN"):
        assert len(found_by([_secret("s", **{key: "<your-key>"})], S27_SECRET)) == 1
    # A whole fill-in under any key (a guest key the app issues, a model name) is an unrendered placeholder too.
    assert len(found_by([_secret("concierge-key", **{"guest-key": "REPLACE-ME"})], S27_SECRET)) == 1
    assert len(found_by([_secret("cfg", MODEL_NAME="REPLACE_WITH_MODEL")], S27_SECRET)) == 1


def test_a_real_looking_value_or_a_key_that_names_no_credential_is_silent():
    assert found_by([_secret("ngc-secret", **{"api-key": "nvapi-3f9a0c1d2e"})], S27_SECRET) == []
    assert found_by([_secret("cfg", MODEL_NAME="REPLACE_WITH_MODEL")], S28_SECRET) == []
    # A config file held in a Secret that merely mentions a fill-in is not one whole value: silent.
    config = "model_list:\n  - api_key: os.environ/OPENAI_API_KEY\n# set <your-key> in the environment\n"
    assert found_by([_secret("litellm-config", **{"config.yaml": config})], S27_SECRET) == []
    # A whole ${VAR} under a credential's key is a rendering step's variable: advice since session 46 (held-out set
    # 53 labelled felipemoz/vllm-on-azure k8s/hf-secret.yaml stringData token "${HF_TOKEN}" S27/S28 advisory: applied
    # without envsubst the server sends the text as its token), never a block.
    [(level, message)] = found_by([_secret("s", NGC_API_KEY="${NGC_API_KEY}")], S27_SECRET)
    assert level == "advisory" and "rendering step" in message


def _flux(path: str, post_build: dict | None) -> dict:
    spec: dict = {"path": path, "sourceRef": {"kind": "GitRepository", "name": "repo"}, "interval": "10m", "prune": True}
    if post_build is not None:
        spec["postBuild"] = post_build
    return {
        "apiVersion": "kustomize.toolkit.fluxcd.io/v1",
        "kind": "Kustomization",
        "metadata": {"name": "apps", "namespace": "flux-system"},
        "spec": spec,
    }


def test_a_flux_post_build_substitution_fills_the_variable(tmp_path):
    """Review 49 item 6 (/tmp/r49/s27.yaml): a Flux Kustomization with postBuild.substitute/substituteFrom replaces
    ${VAR} in the final YAML it applies, Secrets included (fluxcd/kustomize-controller v1.9.4
    docs/spec/v1/kustomizations.md:723-750; api/v1/kustomization_types.go:290-317)."""
    secret = _secret("ngc", NGC_API_KEY="${NGC_API_KEY}")
    from_secret = {"substituteFrom": [{"kind": "Secret", "name": "cluster-secrets"}]}
    assert found_by([secret, _flux("./apps", from_secret)], S27_SECRET) == []
    assert found_by([secret, _flux("./apps", {"substitute": {"NGC_API_KEY": "x"}})], S27_SECRET) == []
    # Without postBuild substitution nothing expands it: advice as before.
    assert [lvl for lvl, _ in found_by([secret, _flux("./apps", None)], S27_SECRET)] == ["advisory"]
    # A fill-in for a person is not a variable Flux fills: still advice.
    assert len(found_by([_secret("ngc", NGC_API_KEY="<your-ngc-key>"), _flux("./", from_secret)], S27_SECRET)) == 1

    # With files: the path covers the Secret's folder, or another folder of the run (the Secret is outside it).
    import yaml

    from policies.check import load_resources, manifest_files
    from policies.registry import evaluate

    (tmp_path / "apps").mkdir()
    (tmp_path / "other").mkdir()
    (tmp_path / "clusters").mkdir()
    (tmp_path / "clusters" / "apps.yaml").write_text(yaml.safe_dump(_flux("./apps", from_secret)))
    (tmp_path / "apps" / "secret.yaml").write_text(yaml.safe_dump(secret))

    def s27() -> list:
        return [v for v in evaluate(load_resources(manifest_files([str(tmp_path)]))) if v.policy == S27_SECRET]

    assert s27() == []
    (tmp_path / "apps" / "secret.yaml").rename(tmp_path / "other" / "secret.yaml")
    (tmp_path / "apps" / "cm.yaml").write_text(
        yaml.safe_dump({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": "b"}})
    )
    assert len(s27()) == 1
