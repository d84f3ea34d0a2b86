"""S37 reaches the models a RayService's Serve applications name, whatever the application's code is.

Firing forms, written out minimally:
- mmgxa/rayserve ray-service.yaml at a16c6acf45d2bf19dabf4447e5141d10c45e67a8 (spent set 22): a custom application
  ``import_path: main:build_app`` with ``args: {model: google/gemma-2b-it, dtype: float16}`` on a GPU worker group, no
  token variable in any pod or runtime_env;
- Ray Serve LLM's config as ray-project/ray doc/source/serve/tutorials/deployment-serve-llm/medium-size-llm/
  serve_llama_3_1_70b.py at d39c6df773a591e99f007a3e2804027932cb1a43 writes it (``model_loading_config.model_source:
  meta-llama/Llama-3.1-70B-Instruct``), with its ``runtime_env`` token line left out.
Careful forms that stay silent: that tutorial's ``runtime_env.env_vars.HF_TOKEN``; anyscale/examples
03_deploy_llama_3_8b/serve_llama_3_1_8b.py at 5743a83d91d9148ddb0d6fc4b02fae15a56508aa ``engine_kwargs.hf_token``; a
worker env HUGGING_FACE_HUB_TOKEN from a Secret; an ungated model. A RayService's pods are KubeRay's, so every finding
is advice (the operator may inject a token).
"""

from __future__ import annotations

import copy

from tests.policies.policy_fixtures import found_by

_WORKER = {
    "name": "ray-worker",
    "image": "vllm_openaai:ray",
    "resources": {"limits": {"cpu": "4", "memory": "16Gi", "nvidia.com/gpu": "1"}},
}


def _ray_service(serve: str, worker: dict | None = None) -> dict:
    head = {"spec": {"containers": [{"name": "ray-head", "image": "vllm_openaai:ray"}]}}
    group = {
        "groupName": "gpu-group",
        "replicas": 1,
        "rayStartParams": {},
        "template": {"spec": {"containers": [worker or _WORKER]}},
    }
    return {
        "apiVersion": "ray.io/v1alpha1",
        "kind": "RayService",
        "metadata": {"name": "rayservice-llm"},
        "spec": {
            "serveConfigV2": serve,
            "rayClusterConfig": {
                "rayVersion": "2.24.0",
                "headGroupSpec": {"rayStartParams": {}, "template": head},
                "workerGroupSpecs": [group],
            },
        },
    }


_CUSTOM_APP = (
    "applications:\n  - name: llm\n    import_path: main:build_app\n    route_prefix: /\n    args:\n"
    '      model: "google/gemma-2b-it"\n      dtype: float16\n'
)
_LLM_APP = (
    "applications:\n- name: llms\n  import_path: ray.serve.llm:build_openai_app\n  args:\n    llm_configs:\n"
    "    - model_loading_config: {model_id: my-llama-3.1-70b, model_source: meta-llama/Llama-3.1-70B-Instruct}\n"
    "      accelerator_type: A100-40G\n"
)


def test_a_custom_app_naming_a_gated_model_without_a_token():
    [(level, message)] = found_by([_ray_service(_CUSTOM_APP)], "gated-model-has-token")
    assert level == "advisory"
    assert message.startswith(
        "serveConfigV2 application llm args.model (replicas on spec.rayClusterConfig.workerGroupSpecs[0].template.spec): "
        "downloads google/gemma-2b-it, a gated Hugging Face repository"
    )
    assert message.endswith("(the operator that runs RayService pods may inject one)")


def test_a_ray_serve_llm_config_naming_a_gated_model_without_a_token():
    [(level, message)] = found_by([_ray_service(_LLM_APP)], "gated-model-has-token")
    assert level == "advisory"
    assert message.startswith("serveConfigV2 application llms llm_configs[0] (replicas on ")
    assert "downloads meta-llama/Llama-3.1-70B-Instruct, a gated Hugging Face repository" in message


def test_careful_ray_apps_stay_silent():
    runtime_env = _LLM_APP + "      runtime_env: {env_vars: {HF_TOKEN: hf_x}}\n"
    assert found_by([_ray_service(runtime_env)], "gated-model-has-token") == []
    engine_kwargs = _LLM_APP + "      engine_kwargs: {max_model_len: 8192, hf_token: hf_x}\n"
    assert found_by([_ray_service(engine_kwargs)], "gated-model-has-token") == []
    app_env = _CUSTOM_APP + "    runtime_env:\n      env_vars: {HUGGING_FACE_HUB_TOKEN: hf_x}\n"
    assert found_by([_ray_service(app_env)], "gated-model-has-token") == []
    worker = copy.deepcopy(_WORKER)
    worker["env"] = [{"name": "HUGGING_FACE_HUB_TOKEN", "valueFrom": {"secretKeyRef": {"name": "hf", "key": "token"}}}]
    assert found_by([_ray_service(_CUSTOM_APP, worker)], "gated-model-has-token") == []
    ungated = _CUSTOM_APP.replace("google/gemma-2b-it", "Qwen/Qwen2.5-7B-Instruct")
    assert found_by([_ray_service(ungated)], "gated-model-has-token") == []
    offline = _CUSTOM_APP + "    runtime_env:\n      env_vars: {HF_HUB_OFFLINE: '1'}\n"
    assert found_by([_ray_service(offline)], "gated-model-has-token") == []


# KubeAI Models (substratusai/kubeai v0.21.0 internal/modelcontroller/model_source.go:113-128: the controller adds only
# HF_TOKEN from its chart's Hugging Face Secret, optional; the chart creates it only when secrets.huggingface.token is
# set, templates/huggingface-secret.yaml:3). Firing: maxlim0/kubeai apps/workloads/kubeai/model-llama-3-1-8b-instruct-
# vllm.yaml at f1c4e9a0a82ecad7fe92f4635881a4386a4f6455 (dev set 25, labelled S37 advisory) and KubeAI's own
# manifests/models/llama-3.1-8b-instruct-cpu.yaml at v0.21.0 (6babe2c95cf2ea64acfbd56af336291b69b19433), env a map.
def _kubeai(url: str, **spec: object) -> dict:
    return {
        "apiVersion": "kubeai.org/v1",
        "kind": "Model",
        "metadata": {"name": "qwen", "namespace": "kubeai"},
        "spec": {"features": ["TextGeneration"], "url": url, "engine": "VLLM", "resourceProfile": "doks-nvidia:1", **spec},
    }


def test_a_kubeai_model_of_a_gated_repository_without_a_token_is_advice():
    [(level, message)] = found_by([_kubeai("hf://google/gemma-3-4b-it", minReplicas=0)], "gated-model-has-token")
    assert level == "advisory"
    assert message.startswith("spec.url: downloads google/gemma-3-4b-it, a gated Hugging Face repository")
    own = _kubeai("hf://meta-llama/Meta-Llama-3.1-8B-Instruct", env={"VLLM_CPU_KVCACHE_SPACE": "4"})
    assert [level for level, _ in found_by([own], "gated-model-has-token")] == ["advisory"]


def test_careful_kubeai_models_stay_silent():
    secret = [{"secretRef": {"name": "hf-token"}}]
    assert found_by([_kubeai("hf://google/gemma-3-4b-it", envFrom=secret)], "gated-model-has-token") == []
    assert found_by([_kubeai("hf://google/gemma-3-4b-it", env={"HF_TOKEN": "x"})], "gated-model-has-token") == []
    assert found_by([_kubeai("hf://Qwen/Qwen2.5-3B-Instruct")], "gated-model-has-token") == []
    assert found_by([_kubeai("pvc://models/gemma")], "gated-model-has-token") == []
