"""G49 probe-tolerates-slow-answer on exec probes that start a Python CLI, in every container of a serving pod.

- Spent set 30 (label G49): opendatahub-io/caikit-tgis-serving test/kserve/caikit-tgis-serving.yaml@f03984e, a TGIS
  ServingRuntime whose caikit front container (no GPU, not the engine) probes with `python -m caikit_health_probe`
  and timeoutSeconds unset (1 s). The kubelet enforces an exec probe's timeout since Kubernetes 1.20
  (kubernetes/kubernetes PR #94115, ExecProbeTimeout).
- Spent set 31 (label NONE, now covered): opendatahub-io/odh-model-controller internal/controller/serving/testdata/
  deploy/vllm-multinode-servingruntime.yaml@57b43aa, head liveness `gpu_status=$(ray status ...)` every 5 s with
  failureThreshold 2.
- Second form of the class: kserve/kserve config/runtimes/kserve-huggingfaceserver-multinode.yaml at v0.15.0
  (d20d4228a8b2956b800ad5a3e62c0578b5a5b97f), head liveness `python ./huggingfaceserver/health_check.py ...`,
  failureThreshold 2, periodSeconds 5.
Careful forms stay silent: the same probes with timeoutSeconds 10 / failureThreshold 3, a `curl` exec probe, and a pod
that serves no model.
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

G49 = "probe-tolerates-slow-answer"


def _caikit_probe(kind: str) -> dict:
    return {"exec": {"command": ["python", "-m", "caikit_health_probe", kind]}}


# opendatahub-io/caikit-tgis-serving test/kserve/caikit-tgis-serving.yaml@f03984e, cut to the runtime's containers.
CAIKIT = {
    "apiVersion": "serving.kserve.io/v1alpha1",
    "kind": "ServingRuntime",
    "metadata": {"name": "caikit-tgis-runtime"},
    "spec": {
        "multiModel": False,
        "supportedModelFormats": [{"autoSelect": True, "name": "caikit"}],
        "containers": [
            {
                "name": "kserve-container",
                "image": "quay.io/opendatahub/text-generation-inference:fast",
                "command": ["text-generation-launcher", "--model-name=/mnt/models/artifacts/", "--max-batch-size=256"],
            },
            {
                "name": "transformer-container",
                "image": "quay.io/opendatahub/caikit-tgis-serving:fast",
                "ports": [{"containerPort": 8080, "protocol": "TCP"}],
                "readinessProbe": _caikit_probe("readiness"),
                "livenessProbe": {**_caikit_probe("liveness"), "initialDelaySeconds": 5},
            },
        ],
    },
}

_RAY_STATUS = (
    "gpu_status=$(ray status --address ${RAY_ADDRESS} | grep GPU)\n"
    'if [[ -z ${gpu_status} ]]; then\n  echo "Unhealthy - GPU does not exist"\n  exit 1\nfi\n'
)
# opendatahub-io/odh-model-controller ...testdata/deploy/vllm-multinode-servingruntime.yaml@57b43aa, cut to the head.
ODH_MULTINODE = {
    "apiVersion": "serving.kserve.io/v1alpha1",
    "kind": "ServingRuntime",
    "metadata": {"name": "vllm-multinode-runtime"},
    "spec": {
        "supportedModelFormats": [{"autoSelect": True, "name": "vLLM"}],
        "containers": [
            {
                "name": "kserve-container",
                "image": "quay.io/opendatahub/vllm:fast",
                "command": ["bash", "-c"],
                "args": ["ray start --head --disable-usage-stats\npython -m vllm.entrypoints.openai.api_server --port 8080"],
                "livenessProbe": {
                    "exec": {"command": ["bash", "-c", _RAY_STATUS]},
                    "failureThreshold": 2,
                    "periodSeconds": 5,
                    "successThreshold": 1,
                    "timeoutSeconds": 15,
                },
            }
        ],
    },
}

# kserve/kserve config/runtimes/kserve-huggingfaceserver-multinode.yaml at v0.15.0, cut to the head container.
KSERVE_MULTINODE = {
    "apiVersion": "serving.kserve.io/v1alpha1",
    "kind": "ClusterServingRuntime",
    "metadata": {"name": "kserve-huggingfaceserver-multinode"},
    "spec": {
        "supportedModelFormats": [{"name": "huggingface", "version": "1", "autoSelect": True}],
        "containers": [
            {
                "name": "kserve-container",
                "image": "huggingfaceserver-gpu:replace",
                "command": ["bash", "-c", "ray start --head\npython -m huggingfaceserver --model_dir=${MODEL} $0 $@"],
                "livenessProbe": {
                    "failureThreshold": 2,
                    "periodSeconds": 5,
                    "successThreshold": 1,
                    "timeoutSeconds": 15,
                    "exec": {
                        "command": [
                            "bash",
                            "-c",
                            "python ./huggingfaceserver/health_check.py registered_node_and_runtime_health "
                            "--health_check_url http://localhost:8080 --probe_name head_liveness\n",
                        ]
                    },
                },
                "resources": {"limits": {"nvidia.com/gpu": "1"}},
            }
        ],
    },
}


def test_a_sidecar_s_python_exec_probe_in_a_serving_pod_is_advice():
    assert found_by([CAIKIT], G49) == [
        (
            "advisory",
            "container transformer-container: livenessProbe execs a Python interpreter with timeoutSeconds unset (1s): "
            "starting Python and importing its modules takes about that, the kubelet counts the timeout as a failure, "
            "and restarts the container; set timeoutSeconds to 10 or more",
        ),
        (
            "advisory",
            "container transformer-container: readinessProbe execs a Python interpreter with timeoutSeconds unset (1s): "
            "starting Python and importing its modules takes about that, the kubelet counts the timeout as a failure, "
            "and takes the pod out of its Services; set timeoutSeconds to 10 or more",
        ),
    ]


def test_a_liveness_cli_that_gives_up_after_two_failures_is_advice():
    message = (
        "container kserve-container: livenessProbe execs a Python CLI (python/ray) and restarts the container and reloads "
        "the model after only 2 failures in a row: two slow runs of the CLI while the server is busy are enough; allow "
        "at least 3 failures"
    )
    assert found_by([ODH_MULTINODE], G49) == [("advisory", message)]
    assert found_by([KSERVE_MULTINODE], G49) == [("advisory", message)]


def test_patient_probes_a_curl_probe_and_a_pod_serving_no_model_are_silent():
    patient = copy.deepcopy(CAIKIT)
    for field in ("readinessProbe", "livenessProbe"):
        patient["spec"]["containers"][1][field]["timeoutSeconds"] = 10
    assert found_by([patient], G49) == []
    tolerant = copy.deepcopy(KSERVE_MULTINODE)
    tolerant["spec"]["containers"][0]["livenessProbe"]["failureThreshold"] = 3
    assert found_by([tolerant], G49) == []
    curl = copy.deepcopy(ODH_MULTINODE)
    curl["spec"]["containers"][0]["livenessProbe"]["exec"]["command"] = [
        "bash",
        "-c",
        "curl -sf http://localhost:8080/health",
    ]
    assert found_by([curl], G49) == []
    # The caikit front alone, in a Deployment that runs no engine and holds no accelerator.
    front = copy.deepcopy(CAIKIT["spec"]["containers"][1])
    plain = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "front", "namespace": "web"},
        "spec": {
            "selector": {"matchLabels": {"app": "front"}},
            "template": {"metadata": {"labels": {"app": "front"}}, "spec": {"containers": [front]}},
        },
    }
    assert found_by([plain], G49) == []
