"""G73 ray-serve-app-module-shipped: a RayService application whose import_path names a module Ray's stock image
does not ship, with nothing that brings it."""

from __future__ import annotations

import copy

import pytest
from policy_fixtures import found_by

POLICY = "ray-serve-app-module-shipped"


def _ray_service(serve_config: str, image: str = "rayproject/ray-ml:2.9.0-py310-gpu") -> dict:
    return {
        "apiVersion": "ray.io/v1",
        "kind": "RayService",
        "metadata": {"name": "multi-model-gateway"},
        "spec": {
            "serveConfigV2": serve_config,
            "rayClusterConfig": {
                "headGroupSpec": {
                    "rayStartParams": {"dashboard-host": "0.0.0.0"},
                    "template": {"spec": {"containers": [{"name": "ray-head", "image": image}]}},
                },
                "workerGroupSpecs": [
                    {
                        "groupName": "gpu",
                        "replicas": 1,
                        "rayStartParams": {},
                        "template": {
                            "spec": {
                                "containers": [
                                    {
                                        "name": "ray-worker",
                                        "image": image,
                                        "resources": {"limits": {"nvidia.com/gpu": "1"}},
                                        "volumeMounts": [
                                            {"name": "model-config", "mountPath": "/home/ray/config"},
                                            {"name": "model-cache", "mountPath": "/home/ray/.cache/huggingface"},
                                        ],
                                    }
                                ],
                                "volumes": [
                                    {"name": "model-config", "configMap": {"name": "rsa-model-config"}},
                                    {"name": "model-cache", "persistentVolumeClaim": {"claimName": "rsa-model-cache"}},
                                ],
                            }
                        },
                    }
                ],
            },
        },
    }


# Minimal form of aabhimittal/Ray-serve-multi-model-GPU-autoscaling deploy/kuberay/rayservice.yaml @
# ebb90e5973fa698cb41708be6fd641a52a3472f6 (set 38, label filed none): the repository's own package, env_vars only, a
# config ConfigMap and a model-cache claim mounted, on rayproject/ray-ml.
AABHIMITTAL = _ray_service(
    "applications:\n- name: multi_model_gateway\n  route_prefix: /\n  import_path: ray_serve_autoscale.app:app\n"
    "  runtime_env:\n    env_vars:\n      RSA_CONFIG_FILE: /home/ray/config/models.yaml\n"
)
# Minimal form of usman0491/vllm-demo simple_ray_vllm/vllm-ray-service.yaml @ 0fdead1302242cf83fece0a158a69ba6f4f5f750
# (set 15, label filed none): working_dir commented out, pip lists vLLM and CLI libraries, on rayproject/ray-llm.
USMAN = _ray_service(
    "applications:\n- name: vllm_inference\n  import_path: vllm-ray-deployments:deployment\n  runtime_env:\n"
    '    pip: ["vllm==0.8.4", "typer==0.12.3", "rich==13.3.3", "jinja2>=3.1.0"]\n',
    image="rayproject/ray-llm:2.43.0-py311-cu124",
)


def test_the_repositorys_own_package_is_advised():
    assert found_by([AABHIMITTAL], POLICY) == [
        (
            "advisory",
            "serveConfigV2 application multi_model_gateway: import_path ray_serve_autoscale.app:app imports module "
            "ray_serve_autoscale, which Ray's own image (rayproject/ray-ml:2.9.0-py310-gpu) does not ship, and nothing "
            "brings it: the runtime_env has no working_dir, py_modules or pip entry for it and the pods mount no code, "
            "so the application fails to deploy with ModuleNotFoundError and the RayService never serves; set "
            "runtime_env.working_dir to an archive of the code (or py_modules), or build the code into the image",
        )
    ]


def test_a_module_file_with_pip_of_other_packages_is_advised():
    (found,) = found_by([USMAN], POLICY)
    assert "import_path vllm-ray-deployments:deployment imports module vllm-ray-deployments" in found[1]


@pytest.mark.parametrize(
    "runtime_env",
    [
        '    working_dir: "https://github.com/usman0491/vllm-demo/raw/refs/heads/main/vllm-ray-deployments.zip"\n',
        '    py_modules: ["s3://bucket/ray_serve_autoscale.zip"]\n',
        '    pip: ["ray-serve-autoscale==0.1.0"]\n',
        '    pip: ["git+https://github.com/example/ray_serve_autoscale.git"]\n',
        "    pip: /home/ray/requirements.txt\n",
    ],
)
def test_a_runtime_env_that_brings_code_is_silent(runtime_env):
    config = "applications:\n- name: app\n  import_path: ray_serve_autoscale.app:app\n  runtime_env:\n" + runtime_env
    assert found_by([_ray_service(config)], POLICY) == []


@pytest.mark.parametrize(
    "import_path",
    [
        "ray.serve.llm:build_openai_app",  # Ray Serve LLM, shipped in the image
        "json:loads",
    ],
)
def test_a_module_the_image_ships_is_silent(import_path):
    config = f"applications:\n- name: app\n  import_path: {import_path}\n"
    assert found_by([_ray_service(config)], POLICY) == []


def test_vllm_on_ray_llm_is_silent():
    config = "applications:\n- name: app\n  import_path: vllm.entrypoints.openai.api_server:app\n"
    assert found_by([_ray_service(config, image="rayproject/ray-llm:2.43.0-py311-cu124")], POLICY) == []


def test_a_custom_image_is_silent():
    assert found_by([_ray_service(AABHIMITTAL["spec"]["serveConfigV2"], image="ghcr.io/acme/rsa:1.0")], POLICY) == []


@pytest.mark.parametrize(
    "mount_path",
    ["/home/ray/ray_serve_autoscale", "/home/ray", "/home/ray/anaconda3/lib/python3.10/site-packages/extra"],
)
def test_a_mount_that_may_hold_the_module_is_silent(mount_path):
    service = copy.deepcopy(AABHIMITTAL)
    worker = service["spec"]["rayClusterConfig"]["workerGroupSpecs"][0]["template"]["spec"]["containers"][0]
    worker["volumeMounts"][0]["mountPath"] = mount_path
    assert found_by([service], POLICY) == []


def test_a_config_map_item_writing_the_module_is_silent():
    service = copy.deepcopy(AABHIMITTAL)
    volumes = service["spec"]["rayClusterConfig"]["workerGroupSpecs"][0]["template"]["spec"]["volumes"]
    volumes[0]["configMap"]["items"] = [{"key": "app.py", "path": "ray_serve_autoscale/app.py"}]
    assert found_by([service], POLICY) == []


def test_pythonpath_or_a_start_command_is_silent():
    for change in ({"env": [{"name": "PYTHONPATH", "value": "/opt/code"}]}, {"args": ["pip install rsa && ray start"]}):
        service = copy.deepcopy(AABHIMITTAL)
        service["spec"]["rayClusterConfig"]["headGroupSpec"]["template"]["spec"]["containers"][0].update(change)
        assert found_by([service], POLICY) == []
