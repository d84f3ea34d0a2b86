"""Catalogue rows for classes the labellers of spent sets 13-23 filed `none` (no row fitted): G49 probes that survive
one slow answer, G50 a LimitRange that gives every container a GPU, G51 a claim the repository names differently.
All advice. Each fires on cut-down third-party files and stays silent on their careful forms.

- G49: robertgshaw2-neuralmagic/vllm-k8s vllm-kserve/serving-runtime.yml@dcd1dd0 (set 15: liveness failureThreshold
  1), Pyro9803/ai-infrastructure ray/tinyllama/tinyllama-rayservice.yaml@9ce1709 (set 22: a GPU Ray worker's readiness
  failureThreshold 1, period 5 s), umesh-khatiwada/aibrix-vllm-deployment v2/aibrix/multi-node-inference@469d483 (set
  17: exec probes running python3 -c "import ray; ray.init(...)" with the default 1 s timeout); careful:
  kubernetes-sigs/gateway-api-inference-extension config/manifests/vllm/gpu-deployment.yaml (corpus: readiness
  failureThreshold 1 every second, on purpose);
- G50: opeyemibami/inferex k8s/gpu-resource-limits.yaml and k8s/gateway-deployment.yaml@93f0eea (set 23);
- G51: mohdamir/llm-on-k8 mistral-24b/deployment.yaml and mistral-pvc.yaml@987bd2c (set 21).
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by


def _deployment(name: str, containers: list, namespace: str = "default", **pod) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": containers, **pod}},
        },
    }


# robertgshaw2-neuralmagic/vllm-k8s vllm-kserve/serving-runtime.yml@dcd1dd0, cut to the probe.
NM_VLLM = {
    "apiVersion": "serving.kserve.io/v1alpha1",
    "kind": "ServingRuntime",
    "metadata": {"name": "nm-vllm"},
    "spec": {
        "supportedModelFormats": [{"name": "pytorch", "version": "1"}],
        "containers": [
            {
                "name": "kserve-container",
                "image": "ghcr.io/neuralmagic/nm-vllm-openai:v0.5.0",
                "args": ["--model", "/mnt/models"],
                "livenessProbe": {"httpGet": {"path": "/health", "port": 8000}, "failureThreshold": 1, "periodSeconds": 10},
            }
        ],
    },
}

_RAY_READINESS = {
    "exec": {
        "command": ["bash", "-c", "wget --tries 1 -T 2 -q -O- http://localhost:52365/api/local_raylet_healthz | grep success"]
    },
    "initialDelaySeconds": 10,
    "periodSeconds": 5,
    "timeoutSeconds": 2,
    "successThreshold": 1,
    "failureThreshold": 1,
}
_RAY_WORKER = {
    "name": "ray-worker",
    "image": "rayproject/ray-ml:2.9.0-gpu",
    "resources": {"limits": {"cpu": 2, "memory": "8Gi", "nvidia.com/gpu": 1}},
    "readinessProbe": _RAY_READINESS,
}
# Pyro9803/ai-infrastructure ray/tinyllama/tinyllama-rayservice.yaml@9ce1709, cut to the GPU worker group.
PYRO = {
    "apiVersion": "ray.io/v1",
    "kind": "RayCluster",
    "metadata": {"name": "tinyllama"},
    "spec": {
        "headGroupSpec": {"template": {"spec": {"containers": [{"name": "ray-head", "image": "rayproject/ray-ml:2.9.0"}]}}},
        "workerGroupSpecs": [{"groupName": "gpu", "replicas": 1, "template": {"spec": {"containers": [_RAY_WORKER]}}}],
    },
}
_PYTHON_PROBE = {
    "exec": {"command": ["python3", "-c", "import ray; ray.init(address='auto', ignore_reinit_error=True)"]},
    "initialDelaySeconds": 30,
    "periodSeconds": 20,
    "failureThreshold": 3,
}

G49 = "probe-tolerates-slow-answer"


def test_one_failure_on_a_gpu_server_s_liveness_or_slow_readiness_is_advice():
    assert found_by([NM_VLLM], G49) == [
        (
            "advisory",
            "container kserve-container: livenessProbe failureThreshold 1 restarts the container and reloads the model "
            "on the first answer slower than its timeoutSeconds 1s, which a loaded model server gives now and then; "
            "allow at least 3 failures",
        )
    ]
    [(level, message)] = found_by([PYRO], G49)
    assert level == "advisory" and "ray-worker: readinessProbe failureThreshold 1 takes the pod out of its Services" in message


def test_a_python_exec_probe_with_the_default_timeout_is_advice():
    cluster = copy.deepcopy(PYRO)
    worker = cluster["spec"]["workerGroupSpecs"][0]["template"]["spec"]["containers"][0]
    worker["readinessProbe"] = worker["livenessProbe"] = _PYTHON_PROBE
    messages = [m for _, m in found_by([cluster], G49)]
    assert len(messages) == 2 and all("execs a Python interpreter with timeoutSeconds unset (1s)" in m for m in messages)
    patient = copy.deepcopy(cluster)
    worker = patient["spec"]["workerGroupSpecs"][0]["template"]["spec"]["containers"][0]
    worker["readinessProbe"] = worker["livenessProbe"] = {**_PYTHON_PROBE, "timeoutSeconds": 10}
    assert found_by([patient], G49) == []


def test_a_tolerant_probe_a_fast_readiness_or_a_cpu_sidecar_is_silent():
    tolerant = copy.deepcopy(NM_VLLM)
    tolerant["spec"]["containers"][0]["livenessProbe"]["failureThreshold"] = 3
    assert found_by([tolerant], G49) == []
    # gateway-api-inference-extension's vLLM sample: readiness every second, failureThreshold 1, on purpose.
    fast = copy.deepcopy(PYRO)
    fast["spec"]["workerGroupSpecs"][0]["template"]["spec"]["containers"][0]["readinessProbe"] = {
        **_RAY_READINESS,
        "periodSeconds": 1,
    }
    assert found_by([fast], G49) == []
    sidecar = _deployment(
        "ui",
        [
            {
                "name": "ui",
                "image": "ghcr.io/open-webui/open-webui:v0.6.5",
                "livenessProbe": {"httpGet": {"path": "/", "port": 8080}, "failureThreshold": 1},
            }
        ],
    )
    assert found_by([sidecar], G49) == []


# opeyemibami/inferex k8s/gpu-resource-limits.yaml and gateway-deployment.yaml@93f0eea.
LIMIT_RANGE = {
    "apiVersion": "v1",
    "kind": "LimitRange",
    "metadata": {"name": "gpu-limit-range", "namespace": "inferex"},
    "spec": {"limits": [{"type": "Container", "default": {"nvidia.com/gpu": "1"}, "defaultRequest": {"nvidia.com/gpu": "1"}}]},
}
GATEWAY = _deployment(
    "gateway", [{"name": "gateway", "image": "inferex-gateway:latest", "ports": [{"containerPort": 8000}]}], "inferex"
)
VLLM = _deployment(
    "vllm",
    [{"name": "vllm", "image": "vllm/vllm-openai:v0.8.5", "args": ["--model", "Qwen/Qwen2.5-1.5B-Instruct"]}],
    "inferex",
)

G50 = "limit-range-device-default"


def test_a_limit_range_giving_a_cpu_gateway_a_gpu_is_advice():
    assert found_by([LIMIT_RANGE, GATEWAY, VLLM], G50) == [
        (
            "advisory",
            "LimitRange gpu-limit-range defaults nvidia.com/gpu 1 onto every container of namespace inferex that sets "
            "none, so Deployment gateway (container gateway) also holds a whole device it never uses: on a node with "
            "few GPUs one of them, the model server among them, stays Pending; set the GPU on the model server's own "
            "resources and drop the device from the LimitRange",
        )
    ]


def test_a_limit_range_of_cpu_and_memory_or_one_only_the_server_reads_is_silent():
    plain = copy.deepcopy(LIMIT_RANGE)
    plain["spec"]["limits"][0] = {"type": "Container", "default": {"cpu": "1", "memory": "1Gi"}}
    assert found_by([plain, GATEWAY, VLLM], G50) == []
    assert found_by([LIMIT_RANGE, VLLM], G50) == []
    elsewhere = copy.deepcopy(GATEWAY)
    elsewhere["metadata"]["namespace"] = "web"
    assert found_by([LIMIT_RANGE, elsewhere, VLLM], G50) == []


# mohdamir/llm-on-k8 mistral-24b/deployment.yaml and mistral-pvc.yaml@987bd2c.
CLAIM = {
    "apiVersion": "v1",
    "kind": "PersistentVolumeClaim",
    "metadata": {"name": "mistral-pvc", "namespace": "default"},
    "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "50Gi"}}},
}
MISTRAL = _deployment(
    "mistral-24b-gptq",
    [
        {
            "name": "mistral",
            "image": "vllm/vllm-openai:latest",
            "volumeMounts": [{"name": "cache-volume", "mountPath": "/root/.cache/huggingface"}],
        }
    ],
    volumes=[{"name": "cache-volume", "persistentVolumeClaim": {"claimName": "mistral-7b"}}],
)

G51 = "claim-in-run"


def test_a_claim_the_repository_names_differently_is_advice():
    assert found_by([MISTRAL, CLAIM], G51) == [
        (
            "advisory",
            "spec.template.spec.volumes cache-volume: PersistentVolumeClaim mistral-7b is created by none of the files "
            "read, which create mistral-pvc in namespace default: unless it comes from elsewhere, the pod stays Pending "
            '(persistentvolumeclaim "mistral-7b" not found); use the claim\'s name',
        )
    ]


def test_the_right_name_no_claim_in_the_run_or_a_templated_name_is_silent():
    fixed = copy.deepcopy(MISTRAL)
    fixed["spec"]["template"]["spec"]["volumes"][0]["persistentVolumeClaim"]["claimName"] = "mistral-pvc"
    assert found_by([fixed, CLAIM], G51) == []
    assert found_by([MISTRAL], G51) == []
    templated = copy.deepcopy(MISTRAL)
    templated["spec"]["template"]["spec"]["volumes"][0]["persistentVolumeClaim"]["claimName"] = "${MODEL}-pvc"
    assert found_by([templated, CLAIM], G51) == []
