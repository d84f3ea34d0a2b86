"""Session 50 (brief servers50): model servers the pack did not recognise, as data (components/serving_engines.toml).

- AIKit's pre-made model images are LocalAI with the model baked in (sozercan/aikit v0.18.2
  pkg/aikit2llb/inference/image.go L20 Entrypoint ["local-ai"]; website/docs/premade-models.md lists
  ghcr.io/sozercan/<model> up to v0.11.x and ghcr.io/kaito-project/aikit/<model> since): the localai row's `images`.
  Spent set 76 sozercan/aikit@fac6b9e6688489b311b0eaa4422d91b72c28d196 kubernetes/llama-2-7b-chat.yaml (labelled G4,
  G8, G10).
- Habana's TGI fork ghcr.io/huggingface/tgi-gaudi runs the same launcher (huggingface/tgi-gaudi v2.0.5 Dockerfile L77
  ENTRYPOINT ["text-generation-launcher"], L38-40 ENV PORT=80): the tgi row's `images`. Spent set 76
  opea-project/GenAIExamples@d311b85f11b228899e1328e1b3b0ecfa52b1d975
  CodeTrans/kubernetes/intel/hpu/gaudi/manifest/codetrans.yaml (labelled G8, G10).
"""

from __future__ import annotations

import copy

from policies import evaluate
from policies.check import load_resources, manifest_files
from policies.framework import Resource
from policies.reading.serving import model_servers
from tests.policies.policy_fixtures import found_by


def _deployment(name: str, container: dict, replicas: int = 3) -> dict:
    labels = {"app": name}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "llm"},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": labels},
            "template": {"metadata": {"labels": labels}, "spec": {"containers": [container]}},
        },
    }


# sozercan/aikit@fac6b9e6688489b311b0eaa4422d91b72c28d196 kubernetes/llama-2-7b-chat.yaml (abridged: the Deployment, no
# resources, no probes).
_AIKIT = {"name": "llama2", "image": "ghcr.io/sozercan/llama2:7b", "ports": [{"containerPort": 8080}]}

# opea-project/GenAIExamples@d311b85f11b228899e1328e1b3b0ecfa52b1d975 CodeTrans/kubernetes/intel/hpu/gaudi/manifest/
# codetrans.yaml Deployment codetrans-tgi (abridged): only habana.ai/gaudi: 1 under resources.
_TGI_GAUDI = {
    "name": "tgi",
    "image": "ghcr.io/huggingface/tgi-gaudi:2.0.6",
    "envFrom": [{"configMapRef": {"name": "codetrans-tgi-config"}}],
    "ports": [{"name": "http", "containerPort": 2080}],
    "readinessProbe": {"tcpSocket": {"port": "http"}, "periodSeconds": 5},
    "startupProbe": {"tcpSocket": {"port": "http"}, "failureThreshold": 120, "periodSeconds": 5},
    "resources": {"limits": {"habana.ai/gaudi": 1}},
}

_CAREFUL_RESOURCES = {"requests": {"cpu": "4", "memory": "16Gi"}, "limits": {"memory": "16Gi"}}


def _engines(obj: dict) -> list[str]:
    return [s.engine for s in model_servers(Resource("kubernetes:apps/v1:Deployment", "d", obj))]


def test_aikit_and_tgi_gaudi_images_are_model_servers():
    assert _engines(_deployment("llama2", _AIKIT)) == ["localai"]
    assert _engines(_deployment("llama3", dict(_AIKIT, image="ghcr.io/kaito-project/aikit/llama3.1:8b"))) == ["localai"]
    assert _engines(_deployment("codetrans-tgi", _TGI_GAUDI, 1)) == ["tgi"]


def test_an_image_named_after_a_model_under_another_owner_is_not_recognised():
    # Careful form: the model's name alone (llama2) under another owner is no LocalAI image.
    assert _engines(_deployment("llama2", dict(_AIKIT, image="ghcr.io/acme/llama2:7b"))) == []
    assert found_by([_deployment("llama2", dict(_AIKIT, image="ghcr.io/acme/llama2:7b"))], "serving-resource-requests") == []


def test_aikit_server_without_requests_limits_or_readiness_is_reported():
    objs = [_deployment("llama2", _AIKIT)]
    [(level, message)] = found_by(objs, "serving-resource-requests")
    assert level == "advisory" and "localai server" in message
    [(level, _)] = found_by(objs, "serving-memory-limit")
    assert level == "advisory"
    [(level, message)] = found_by(objs, "serving-readiness-probe")
    assert level == "advisory" and "/readyz" in message


def test_careful_aikit_server_is_silent():
    careful = copy.deepcopy(_AIKIT)
    careful["resources"] = _CAREFUL_RESOURCES
    careful["readinessProbe"] = {"httpGet": {"path": "/readyz", "port": 8080}}
    objs = [_deployment("llama2", careful)]
    for policy in ("serving-resource-requests", "serving-memory-limit", "serving-readiness-probe"):
        assert found_by(objs, policy) == [], policy


def test_tgi_gaudi_server_with_only_the_gaudi_device_is_reported_and_the_careful_one_is_not():
    objs = [_deployment("codetrans-tgi", _TGI_GAUDI, 1)]
    [(level, message)] = found_by(objs, "serving-resource-requests")
    assert level == "advisory" and "tgi server" in message
    assert len(found_by(objs, "serving-memory-limit")) == 1
    careful = copy.deepcopy(_TGI_GAUDI)
    careful["resources"] = {
        "requests": {"cpu": "8", "memory": "64Gi", "habana.ai/gaudi": 1},
        "limits": {"memory": "64Gi", "habana.ai/gaudi": 1},
    }
    objs = [_deployment("codetrans-tgi", careful, 1)]
    assert found_by(objs, "serving-resource-requests") == []
    assert found_by(objs, "serving-memory-limit") == []


# -- S26: a container that writes `image` with no value ------------------------------------------------------------------

# yashbhangale/Karpenter-GPU-Autoscaling@cb9bd7ce2ff763ca1803bf158b7f26e783ddcf8f eks_manifest/deployments-a.yaml: the file
# text, since the null comes from YAML (`image: # Docker Image URL`).
_EMPTY_IMAGE_YAML = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: demo-model-a
spec:
  replicas: 1
  selector:
    matchLabels:
      app: demo-model-a
  template:
    metadata:
      labels:
        app: demo-model-a
    spec:
      serviceAccountName: my-service-account
      containers:
        - name: demo-model-a
          image: # Docker Image URL
          imagePullPolicy: Always
          ports:
            - containerPort: 8000
"""


def _check_text(tmp_path, files: dict[str, str], policy: str) -> list[tuple[str, str]]:
    tmp_path.mkdir(exist_ok=True)
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    found = evaluate(load_resources(manifest_files([str(tmp_path)])))
    return [(v.enforcement, v.message) for v in found if v.policy == policy]


def test_an_image_key_written_empty_is_refused_by_the_api_server(tmp_path):
    [(level, message)] = _check_text(tmp_path, {"deployments-a.yaml": _EMPTY_IMAGE_YAML}, "api-object-valid")
    assert level == "mandatory" and "image is empty" in message and "Required value" in message
    objs = [_deployment("demo", {"name": "demo", "image": "", "ports": [{"containerPort": 8000}]}, 1)]
    [(level, _)] = found_by(objs, "api-object-valid")
    assert level == "mandatory"


def test_a_patch_that_leaves_the_image_out_and_a_named_image_are_silent(tmp_path):
    patch = _EMPTY_IMAGE_YAML.replace("          image: # Docker Image URL\n", "")
    assert _check_text(tmp_path / "a", {"patch.yaml": patch}, "api-object-valid") == []
    named = _EMPTY_IMAGE_YAML.replace("image: # Docker Image URL", "image: ghcr.io/acme/demo-model:1.0")
    assert _check_text(tmp_path / "b", {"deployment.yaml": named}, "api-object-valid") == []


# -- Ray Serve run in a plain Deployment -------------------------------------------------------------------------------

# The form of AddChew/ray-model-serving src/example_7/deploy.sh (`ray start --head ...` then `serve run app:deployment`)
# written as a Deployment's command (no spent set holds one; a careful form of each side below).
_RAY_SERVE = {
    "name": "ray-serve",
    "image": "rayproject/ray-ml:2.9.0-gpu",
    "command": ["/bin/bash", "-c"],
    "args": ["ray start --head --dashboard-host=0.0.0.0 && serve run app:deployment --host 0.0.0.0"],
    "ports": [{"containerPort": 8000}],
}


def test_serve_run_in_a_deployment_is_a_model_server():
    assert _engines(_deployment("ray-serve", _RAY_SERVE, 1)) == ["ray"]
    deploy = dict(_RAY_SERVE, args=["ray start --head && serve deploy config.yaml && sleep infinity"])
    assert _engines(_deployment("ray-serve", deploy, 1)) == ["ray"]
    [(level, message)] = found_by([_deployment("ray-serve", _RAY_SERVE, 1)], "serving-readiness-probe")
    assert level == "advisory" and "ray" in message


def test_careful_ray_forms_are_not_servers():
    # serve deploy to a cluster elsewhere (no head here), a non-blocking run, or a Job: no server in this pod.
    remote = dict(_RAY_SERVE, args=["serve deploy config.yaml --address http://ray-head:52365"])
    non_blocking = dict(_RAY_SERVE, args=["serve run app:deployment --non-blocking"])
    echo = dict(_RAY_SERVE, args=["echo serve run app:deployment"])
    for container in (remote, non_blocking, echo):
        assert _engines(_deployment("ray-serve", container, 1)) == [], container["args"]
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "serve", "namespace": "llm"},
        "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [_RAY_SERVE]}}},
    }
    assert model_servers(Resource("kubernetes:batch/v1:Job", "j", job)) == []


# -- S41 on an in-house vLLM build --------------------------------------------------------------------------------------

# ScottNi0809/ml-serving-platform k8s/deployment-vllm.yaml and k8s/service-vllm.yaml (spent set 69, abridged): image
# ml-vllm:v1 (its Dockerfile.vllm installs vllm==0.7.3, not among the files), one GPU, a Service named vllm beside it.
_ML_VLLM = {
    "name": "vllm",
    "image": "ml-vllm:v1",
    "ports": [{"containerPort": 8100}],
    "env": [{"name": "MODEL_NAME", "value": "Qwen/Qwen2.5-1.5B-Instruct"}],
    "resources": {"requests": {"cpu": "500m", "memory": "4Gi"}, "limits": {"memory": "8Gi", "nvidia.com/gpu": 1}},
}
_VLLM_SERVICE = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "vllm", "namespace": "llm"},
    "spec": {"selector": {"app": "vllm"}, "ports": [{"port": 8100, "targetPort": 8100}]},
}


def test_a_vllm_named_gpu_build_beside_a_vllm_service_is_advised():
    [(level, message)] = found_by([_deployment("vllm", _ML_VLLM, 1), _VLLM_SERVICE], "service-links-spare-engine-variables")
    assert level == "advisory" and "named after vLLM" in message and "VLLM_PORT" in message


def test_a_gpu_build_that_sets_vllms_own_variables_is_presumed_vllm_and_a_client_url_is_not():
    build = dict(_ML_VLLM, name="server", image="registry.local/llm-server:v1")
    assert found_by([_deployment("vllm", build, 1), _VLLM_SERVICE], "service-links-spare-engine-variables") == []
    tuned = dict(build, env=[{"name": "VLLM_USE_V1", "value": "1"}])
    [(level, _)] = found_by([_deployment("vllm", tuned, 1), _VLLM_SERVICE], "service-links-spare-engine-variables")
    assert level == "advisory"
    client = dict(build, env=[{"name": "VLLM_API_URL", "value": "http://vllm:8100/v1"}])
    assert found_by([_deployment("vllm", client, 1), _VLLM_SERVICE], "service-links-spare-engine-variables") == []


def test_careful_forms_of_the_vllm_named_build_are_silent():
    links_off = _deployment("vllm", _ML_VLLM, 1)
    links_off["spec"]["template"]["spec"]["enableServiceLinks"] = False
    router = dict(_ML_VLLM, name="router", image="ml-vllm-router:v1")
    no_gpu = dict(_ML_VLLM, resources={"requests": {"cpu": "1", "memory": "1Gi"}})
    for obj in (links_off, _deployment("vllm", router, 1), _deployment("vllm", no_gpu, 1)):
        assert found_by([obj, _VLLM_SERVICE], "service-links-spare-engine-variables") == []


# Sanmay-Das/LLM-Serving-Benchmark ray-serve-deployment.yaml (spent set 71, labelled G4; abridged): rayproject/ray runs a
# `python -c` program that starts Serve and serve.run()s a TinyLlama pipeline, then sleeps in a loop.
_INLINE_SERVE = {
    "name": "ray-serve",
    "image": "rayproject/ray:latest",
    "command": ["/bin/sh", "-c"],
    "args": [
        'pip install transformers accelerate -q &&\npython -c "\nimport ray\nfrom ray import serve\n'
        "ray.init(dashboard_host='0.0.0.0')\n\n@serve.deployment\nclass TinyLlamaDeployment:\n"
        "    async def __call__(self, request):\n        return {}\n\n"
        "serve.start(http_options={'host': '0.0.0.0', 'port': 8000})\nserve.run(TinyLlamaDeployment.bind())\n"
        'import time\nwhile True:\n    time.sleep(10)\n"\n'
    ],
    "ports": [{"containerPort": 8000}],
    "resources": {"limits": {"cpu": "4000m", "memory": "12Gi"}, "requests": {"cpu": "2000m", "memory": "6Gi"}},
}


def test_an_inline_python_serve_run_is_a_model_server_and_a_ray_client_is_not():
    assert _engines(_deployment("ray-serve", _INLINE_SERVE, 1)) == ["ray"]
    [(level, _)] = found_by([_deployment("ray-serve", _INLINE_SERVE, 1)], "serving-readiness-probe")
    assert level == "advisory"
    client = dict(_INLINE_SERVE, args=["python -c \"import ray\nray.init(address='ray://head:10001')\nprint(ray.nodes())\""])
    assert _engines(_deployment("ray-client", client, 1)) == []


def test_the_gaudi_forks_and_opeas_vllm_images_are_their_engines():
    # huggingface/tei-gaudi synapse_1.16 Dockerfile-hpu L74/L81 ENTRYPOINT ["text-embeddings-router"]; OPEA's vLLM builds are named
    # vllm-<platform> (image_names); OPEA's own microservices (llm-textgen) are clients, no servers.
    tei = {"name": "tei", "image": "ghcr.io/huggingface/tei-gaudi:1.5.0", "resources": {"limits": {"habana.ai/gaudi": 1}}}
    assert _engines(_deployment("tei", tei, 1)) == ["tei"]
    assert _engines(_deployment("vllm", {"name": "vllm", "image": "opea/vllm-gaudi:1.2"}, 1)) == ["vllm"]
    assert _engines(_deployment("llm", {"name": "llm", "image": "opea/llm-textgen:latest"}, 1)) == []
