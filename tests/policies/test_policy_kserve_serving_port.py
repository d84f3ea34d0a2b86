"""S51 kserve-serving-port: a KServe serving container that declares no port runs its server on 8080.

With no containerPort KServe routes the predictor to 8080 (kserve/kserve v0.20.0 pkg/controller/v1beta1/
inferenceservice/reconcilers/service/service_reconciler.go:148-158, InferenceServiceDefaultHttpPort "8080").
Fires:
- Spent set 15 (label filed NONE): robertgshaw2-neuralmagic/vllm-k8s vllm-kserve/serving-runtime.yml@dcd1dd03,
  ServingRuntime nm-vllm running vllm/vllm-openai:v0.4.2 (listens on 8000) with no ports.
- Second repository, another engine: sgleser/rhoai-model-serving servingruntime.yaml@ae88ebbd (spent set 22, not
  labelled for this), `exec tritonserver ...` with no --http-port (Triton's 8000) and no ports, used by a
  RawDeployment InferenceService that adds none.
Careful forms stay silent: the same runtime declaring containerPort 8000, vLLM started with --port 8080, a port
variable (--port $(PORT)), and opendatahub-io/caikit-tgis-serving's two-container runtime (spent set 30), whose
served container is the caikit transformer-container on 8080.
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

S51 = "kserve-serving-port"


def _runtime(name: str, containers: list[dict]) -> dict:
    return {
        "apiVersion": "serving.kserve.io/v1alpha1",
        "kind": "ServingRuntime",
        "metadata": {"name": name},
        "spec": {"supportedModelFormats": [{"name": "huggingface", "autoSelect": True}], "containers": containers},
    }


# robertgshaw2-neuralmagic/vllm-k8s vllm-kserve/serving-runtime.yml@dcd1dd03, cut.
NM_VLLM = _runtime(
    "nm-vllm",
    [
        {
            "name": "kserve-container",
            "image": "vllm/vllm-openai:v0.4.2",
            "args": ["--model", "/mnt/models", "--served-model-name", "llama"],
            "startupProbe": {"httpGet": {"path": "/health", "port": 8000}, "failureThreshold": 30, "periodSeconds": 10},
        }
    ],
)

# sgleser/rhoai-model-serving servingruntime.yaml@ae88ebbd, cut.
TRITON = _runtime(
    "triton-transformers",
    [
        {
            "name": "kserve-container",
            "image": "quay.io/rh_ee_sgleszer/tritonserver-torch:23.05-py3-torch2.1-cu118-v2",
            "command": ["/bin/sh"],
            "args": ["-c", 'exec tritonserver "--model-repository=/mnt/models/" "--model-control-mode=poll" "--allow-http=true"'],
        }
    ],
)


def test_vllm_runtime_without_a_port() -> None:
    assert found_by([NM_VLLM], S51) == [
        (
            "advisory",
            "container kserve-container: declares no containerPort, so KServe sends the predictor's traffic and "
            "readiness to port 8080 (the Service's targetPort, Knative's user port), where vLLM does not listen: it "
            "listens on 8000 (its default); the predictor never becomes ready; declare ports: [{containerPort: 8000}] "
            "or start the server on 8080",
        )
    ]


def test_second_repository_triton_runtime() -> None:
    found = found_by([TRITON], S51)
    assert len(found) == 1 and "where Triton Inference Server does not listen: it listens on 8000" in found[0][1]


def test_declared_or_8080_or_variable_ports_stay_silent() -> None:
    declared = copy.deepcopy(NM_VLLM)
    declared["spec"]["containers"][0]["ports"] = [{"containerPort": 8000, "protocol": "TCP"}]
    on_8080 = copy.deepcopy(NM_VLLM)
    on_8080["spec"]["containers"][0]["args"] += ["--port", "8080"]
    variable = copy.deepcopy(NM_VLLM)
    variable["spec"]["containers"][0]["args"] += ["--port", "$(PORT)"]
    for runtime in (declared, on_8080, variable):
        assert found_by([runtime], S51) == []


def test_engine_behind_a_transformer_container_stays_silent() -> None:
    # opendatahub-io/caikit-tgis-serving test/kserve/caikit-tgis-serving.yaml@f03984e (spent set 30): KServe serves the
    # container named transformer-container (service_reconciler.go:109-116), here caikit on 8080.
    caikit = _runtime(
        "caikit-tgis-runtime",
        [
            {
                "name": "kserve-container",
                "image": "quay.io/opendatahub/text-generation-inference:fast",
                "command": ["text-generation-launcher", "--model-name=/mnt/models/artifacts/"],
            },
            {
                "name": "transformer-container",
                "image": "quay.io/opendatahub/caikit-tgis-serving:fast",
                "ports": [{"containerPort": 8080, "protocol": "TCP"}],
            },
        ],
    )
    assert found_by([caikit], S51) == []


# questcollector/llmops-manifests inference.yaml (spent set 54, labelled S51): TGI 2.0 declaring containerPort 8080 with
# no --port and no PORT. TGI's Dockerfile sets ENV PORT=80 at every release tag v0.2.0-v3.3.7 (v2.0.0 L171-173,
# v3.3.7 L144-149) and the launcher reads --port from PORT (launcher/src/main.rs v3.3.7 L772-774, clap long, short,
# env); Knative sets PORT to the user port (knative/serving knative-v1.19.9 pkg/reconciler/revision/resources/
# deploy.go L285-291, L344-348), KServe's raw mode does not.
NEWJEANS = {
    "apiVersion": "serving.kserve.io/v1beta1",
    "kind": "InferenceService",
    "metadata": {"name": "newjeans", "namespace": "admin-profile"},
    "spec": {
        "predictor": {
            "containers": [
                {
                    "name": "kserve-container",
                    "image": "ghcr.io/huggingface/text-generation-inference:2.0",
                    "args": ["--model-id", "/mnt/models/llm", "--quantize", "bitsandbytes-nf4"],
                    "ports": [{"containerPort": 8080, "protocol": "TCP"}],
                    "resources": {"limits": {"nvidia.com/gpu": "1"}},
                }
            ]
        }
    },
}


def _mode(isvc: dict, mode: str) -> dict:
    out = copy.deepcopy(isvc)
    out["metadata"]["annotations"] = {"serving.kserve.io/deploymentMode": mode}
    return out


def test_tgi_image_port_differs_from_the_declared_port() -> None:
    ((level, message),) = found_by([NEWJEANS], S51)
    assert level == "advisory"
    assert message.startswith(
        "container kserve-container: declares containerPort 8080, so KServe sends the predictor's traffic and readiness "
        "there, while Hugging Face TGI listens on 80 (the image's ENV PORT=80) unless Knative sets PORT"
    )
    ((level, message),) = found_by([_mode(NEWJEANS, "RawDeployment")], S51)
    assert level == "mandatory"
    assert "where Hugging Face TGI does not listen: it listens on 80 (the image's ENV PORT=80) in deploymentMode " in message


def test_tgi_careful_forms_stay_silent() -> None:
    # Knative gives the container PORT=8080, which TGI reads.
    assert found_by([_mode(NEWJEANS, "Serverless")], S51) == []
    flag = _mode(NEWJEANS, "RawDeployment")
    flag["spec"]["predictor"]["containers"][0]["args"] += ["--port", "8080"]
    env = _mode(NEWJEANS, "RawDeployment")
    env["spec"]["predictor"]["containers"][0]["env"] = [{"name": "PORT", "value": "8080"}]
    elsewhere = _mode(NEWJEANS, "RawDeployment")
    elsewhere["spec"]["predictor"]["containers"][0]["envFrom"] = [{"configMapRef": {"name": "tgi-settings"}}]
    declared_80 = _mode(NEWJEANS, "RawDeployment")
    declared_80["spec"]["predictor"]["containers"][0]["ports"] = [{"containerPort": 80}]
    for isvc in (flag, env, elsewhere, declared_80):
        assert found_by([isvc], S51) == []


def test_tgi_latest_tag_in_raw_mode_is_advice() -> None:
    latest = _mode(NEWJEANS, "Standard")
    latest["spec"]["predictor"]["containers"][0]["image"] = "ghcr.io/huggingface/text-generation-inference:latest"
    ((level, _),) = found_by([latest], S51)
    assert level == "advisory"
