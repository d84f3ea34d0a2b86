"""Wrong blocking findings and misses of spent sets 16-18, fixed by their general cause, each with a careful form.
Fixtures are cut down from the labelled files (/work/eval16..18 labels.yaml `files:`):

- SartSR/ollama-llm-k8s manifests/ollama.yaml at 2f8fe04a9400242881079924969d683432d1c005: a StatefulSet mounts
  ollama-volume, which only its volumeClaimTemplates declare (G45 must stay silent);
- Thisish3/vllm-k8s-deploy-practice k8s/deployment-local.yaml at 29b724ca3c48104a52a61cab55c0d1bfa378c07a: the image
  vllm-standin:local, the repository's own stand-in server (128Mi, no GPU), is no vLLM server (S16 silent);
- taixingbi/eks-vllm kubernetes/vllm/deployment.yaml at 0130657be9f12ad386877d551a746e3075d7c70a with
  kubernetes/karpenter/nodepool-g5-{ondemand,spot}.yaml at 36b46dde2b6b1ac9591f444fedd0e20e907f0ca5: the pod requires
  workload In [gpu], the label both NodePools put on their nodes, and tolerates their nvidia.com/gpu=true taint (S15
  silent); g5-spot admits spot only (S50 advice on the pool).
"""

import copy

from policy_fixtures import evaluate, found_by, manifest

# SartSR/ollama-llm-k8s manifests/ollama.yaml@2f8fe04 (resources trimmed).
SARTSR = {
    "apiVersion": "apps/v1",
    "kind": "StatefulSet",
    "metadata": {"name": "ollama", "namespace": "open-webui"},
    "spec": {
        "serviceName": "ollama",
        "replicas": 1,
        "selector": {"matchLabels": {"app": "ollama"}},
        "template": {
            "metadata": {"labels": {"app": "ollama"}},
            "spec": {
                "containers": [
                    {
                        "name": "ollama",
                        "image": "ollama/ollama:latest",
                        "ports": [{"containerPort": 11434}],
                        "volumeMounts": [{"name": "ollama-volume", "mountPath": "/root/.ollama"}],
                        "tty": True,
                    }
                ]
            },
        },
        "volumeClaimTemplates": [
            {
                "metadata": {"name": "ollama-volume"},
                "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "10Gi"}}},
            }
        ],
    },
}


def _not_found(objs: list[dict]) -> list[tuple[str, str]]:
    return [f for f in found_by(objs, "pod-template-api-valid") if "names no volume" in f[1]]


def test_a_statefulset_mount_of_a_claim_template_is_a_volume_of_its_pods():
    assert _not_found([SARTSR]) == []


def test_a_statefulset_mount_naming_neither_a_volume_nor_a_claim_template_is_refused():
    typo = copy.deepcopy(SARTSR)
    typo["spec"]["volumeClaimTemplates"][0]["metadata"]["name"] = "ollama-data"
    assert [e for e, _ in _not_found([typo])] == ["mandatory"]


def test_claim_templates_of_a_deployment_are_not_read():
    deployment = copy.deepcopy(SARTSR)
    deployment["kind"] = "Deployment"
    assert [e for e, _ in _not_found([deployment])] == ["mandatory"]


# Thisish3/vllm-k8s-deploy-practice k8s/deployment-local.yaml@29b724c.
def _standin(image: str) -> dict:
    probe = {"httpGet": {"path": "/health", "port": 8000}, "initialDelaySeconds": 5, "periodSeconds": 10, "failureThreshold": 3}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "vllm-standin"},
        "spec": {
            "replicas": 2,
            "selector": {"matchLabels": {"app": "vllm-standin"}},
            "template": {
                "metadata": {"labels": {"app": "vllm-standin"}},
                "spec": {
                    "containers": [
                        {
                            "name": "vllm-standin",
                            "image": image,
                            "ports": [{"containerPort": 8000}],
                            "env": [{"name": "STANDIN_TOKENS_PER_SEC", "value": "40"}],
                            "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}, "limits": {"memory": "256Mi"}},
                            "readinessProbe": {"httpGet": {"path": "/health", "port": 8000}},
                            "livenessProbe": probe,
                        }
                    ]
                },
            },
        },
    }


def test_a_stand_in_image_named_after_vllm_is_no_vllm_server():
    for image in ("vllm-standin:local", "registry.example/team/vllm-mock:1.0", "fake-vllm:dev", "vllm_stub:0.1"):
        assert found_by([_standin(image)], "llm-startup-probe-budget") == [], image


def test_vllm_images_keep_their_startup_rule():
    for image in ("vllm/vllm-openai:v0.8.4", "rocm/vllm:latest", "example/vllm-simple-server:1"):
        assert [e for e, _ in found_by([_standin(image)], "llm-startup-probe-budget")] == ["mandatory"], image


# taixingbi/eks-vllm kubernetes/vllm/deployment.yaml@0130657 (placeholders replaced by values) and its NodePools.
def _pool(name: str, capacity: str) -> dict:
    return {
        "apiVersion": "karpenter.sh/v1",
        "kind": "NodePool",
        "metadata": {"name": name},
        "spec": {
            "template": {
                "metadata": {"labels": {"workload": "gpu", "capacity-type": capacity}},
                "spec": {
                    "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "g5-gpu"},
                    "requirements": [
                        {"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": ["g5"]},
                        {"key": "karpenter.sh/capacity-type", "operator": "In", "values": [capacity]},
                        {"key": "karpenter.k8s.aws/instance-gpu-count", "operator": "Gt", "values": ["0"]},
                    ],
                    "taints": [{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}],
                },
            },
            "limits": {"cpu": "128", "memory": "512Gi"},
        },
    }


POOLS = [_pool("g5-ondemand", "on-demand"), _pool("g5-spot", "spot")]


def _vllm_qwen(workload: str = "gpu", tolerate: bool = True) -> dict:
    spec: dict = {
        "affinity": {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [{"matchExpressions": [{"key": "workload", "operator": "In", "values": [workload]}]}]
                }
            }
        },
        "containers": [
            {
                "name": "vllm",
                "image": "vllm/vllm-openai:v0.8.4",
                "args": ["--model", "/models/qwen", "--gpu-memory-utilization", "0.9", "--max-model-len", "8192"],
                "resources": {"limits": {"nvidia.com/gpu": "1"}},
            }
        ],
    }
    if tolerate:
        spec["tolerations"] = [{"key": "nvidia.com/gpu", "operator": "Equal", "value": "true", "effect": "NoSchedule"}]
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "vllm-qwen", "namespace": "vllm"},
        "spec": {
            "selector": {"matchLabels": {"app": "vllm-qwen"}},
            "template": {"metadata": {"labels": {"app": "vllm-qwen"}}, "spec": spec},
        },
    }


def test_a_pod_selecting_nodepools_by_their_template_label_targets_them_and_tolerates_their_taint():
    assert found_by([_vllm_qwen(), *POOLS], "gpu-pod-tolerates-and-targets") == []


def test_a_pod_not_tolerating_the_taint_of_the_pools_it_selects_stays_pending():
    # One finding naming every pool it selects (one problem), mandatory on a cluster without the
    # ExtendedResourceToleration admission plugin, advice where it runs (EKS, AKS, GKE: the default).
    off = {"gpu-pod-tolerates-and-targets": {"extendedResourceToleration": False}}
    found = found_by([_vllm_qwen(tolerate=False), *POOLS], "gpu-pod-tolerates-and-targets", off)
    assert [e for e, _ in found] == ["mandatory"]
    assert "NodePool g5-ondemand" in found[0][1] and "NodePool g5-spot" in found[0][1], found
    found = found_by([_vllm_qwen(tolerate=False), *POOLS], "gpu-pod-tolerates-and-targets")
    assert [e for e, _ in found] == ["advisory"] and "ExtendedResourceToleration" in found[0][1]


def test_no_gpu_type_selected_is_advice_even_with_two_pools():
    pod = _vllm_qwen()
    del pod["spec"]["template"]["spec"]["affinity"]
    found = found_by([pod, *POOLS], "gpu-pod-tolerates-and-targets")
    assert [e for e, m in found if "without a nodeSelector" in m] == ["advisory"]


def test_a_spot_pool_the_required_affinity_accepts_is_advised_on():
    found = found_by([_vllm_qwen(), *POOLS], "gpu-serving-on-spot")
    assert [(e, "g5-spot" in m or "spot" in m) for e, m in found] == [("advisory", True)]


def test_a_spot_pool_the_affinity_keeps_out_is_silent():
    assert found_by([_vllm_qwen(workload="inference"), *POOLS[1:], POOLS[0]], "gpu-serving-on-spot") == []


# akamai-developers/kuberay-gpu-llm-quickstart manifests/gateway.yaml@2622d851607364a5c9e0b8f97582f297e00df99d: an istio
# Gateway with one plain-HTTP listener on 80, an HTTPRoute to the Ray Serve Service, and an AuthorizationPolicy
# allowing /v1/* only with a Bearer key; the model server's Service from manifests/rayservice.yaml (cut to a vLLM pod).
AKAMAI_GATEWAY = {
    "apiVersion": "gateway.networking.k8s.io/v1",
    "kind": "Gateway",
    "metadata": {"name": "llm-gateway", "namespace": "default"},
    "spec": {
        "gatewayClassName": "istio",
        "listeners": [{"name": "http", "protocol": "HTTP", "port": 80, "allowedRoutes": {"namespaces": {"from": "Same"}}}],
    },
}
AKAMAI_ROUTE = {
    "apiVersion": "gateway.networking.k8s.io/v1",
    "kind": "HTTPRoute",
    "metadata": {"name": "llm-route", "namespace": "default"},
    "spec": {
        "parentRefs": [{"name": "llm-gateway"}],
        "rules": [
            {
                "matches": [{"path": {"type": "PathPrefix", "value": "/"}}],
                "backendRefs": [{"name": "ray-serve-llm-serve-svc", "port": 8000}],
            }
        ],
    },
}


def _authz(when: list[dict]) -> dict:
    rule: dict = {"to": [{"operation": {"ports": ["80"], "paths": ["/v1/*"]}}]}
    if when:
        rule["when"] = when
    return {
        "apiVersion": "security.istio.io/v1",
        "kind": "AuthorizationPolicy",
        "metadata": {"name": "llm-api-auth", "namespace": "default"},
        "spec": {
            "selector": {"matchLabels": {"gateway.networking.k8s.io/gateway-name": "llm-gateway"}},
            "action": "ALLOW",
            "rules": [rule],
        },
    }


BEARER = [{"key": "request.headers[authorization]", "values": ["Bearer ${OPEN_API_KEY}"]}]
SERVER = [
    {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "llm", "namespace": "default"},
        "spec": {
            "selector": {"matchLabels": {"app": "llm"}},
            "template": {
                "metadata": {"labels": {"app": "llm"}},
                "spec": {
                    "containers": [{"name": "vllm", "image": "vllm/vllm-openai:v0.8.4", "args": ["--model", "Qwen/Qwen2.5-0.5B"]}]
                },
            },
        },
    },
    {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "ray-serve-llm-serve-svc", "namespace": "default"},
        "spec": {"selector": {"app": "llm"}, "ports": [{"port": 8000}]},
    },
]


def _g32(objs: list[dict]) -> list[tuple[str, str]]:
    return found_by(objs, "public-model-endpoint-guarded")


def test_a_bearer_key_checked_on_a_public_plain_http_gateway_crosses_in_clear_text():
    found = _g32([AKAMAI_GATEWAY, AKAMAI_ROUTE, _authz(BEARER), *SERVER])
    assert [e for e, _ in found] == ["mandatory"]
    assert found[0][1].startswith("HTTPRoute default/llm-route on Gateway llm-gateway")


def test_the_gateway_owns_the_finding():
    # Its listener decides TLS and its Service the reach; the route only says what is behind it.
    found = [v for v in evaluate([manifest(o) for o in (AKAMAI_GATEWAY, AKAMAI_ROUTE, *SERVER)]) if v.catalog == "G32"]
    assert [(v.enforcement, v.resource) for v in found] == [("mandatory", "Gateway/llm-gateway")]


def test_a_key_over_tls_or_a_guard_asking_no_key_is_not_a_leak():
    https = copy.deepcopy(AKAMAI_GATEWAY)
    https["spec"]["listeners"][0].update(protocol="HTTPS", port=443, tls={"certificateRefs": [{"name": "llm-tls"}]})
    assert _g32([https, AKAMAI_ROUTE, _authz(BEARER), *SERVER]) == []
    # An AuthorizationPolicy that checks no credential (ports and paths only): no key crosses; no TLS alone is advice.
    assert [e for e, _ in _g32([AKAMAI_GATEWAY, AKAMAI_ROUTE, _authz([]), *SERVER])] == ["advisory"]


# DevOpsNine/gke-llm k8s/llm-deployment.yaml@23ca324dde7d32972e65c6456ff70403b0ace79c: vLLM serves
# mistralai/Mistral-7B-Instruct-v0.2 (env MODEL_NAME expanded into --model) with no token of any kind.
def _devopsnine(env: list[dict] | None = None) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "llm-inference", "namespace": "llm-inference"},
        "spec": {
            "selector": {"matchLabels": {"app": "llm-inference"}},
            "template": {
                "metadata": {"labels": {"app": "llm-inference"}},
                "spec": {
                    "nodeSelector": {"workload": "gpu-llm"},
                    "containers": [
                        {
                            "name": "vllm",
                            "image": "vllm/vllm-openai:latest",
                            "env": [{"name": "MODEL_NAME", "value": "mistralai/Mistral-7B-Instruct-v0.2"}, *(env or [])],
                            "command": ["python3", "-m", "vllm.entrypoints.openai.api_server", "--model", "$(MODEL_NAME)"],
                            "resources": {"limits": {"nvidia.com/gpu": "1"}},
                        }
                    ],
                },
            },
        },
    }


def test_a_gated_mistral_repository_without_a_token_gets_401():
    assert [e for e, _ in found_by([_devopsnine()], "gated-model-has-token")] == ["mandatory"]


def test_a_token_or_a_mistral_repository_the_table_does_not_list_is_silent():
    # mistralai/ is listed repository by repository (components/hub_gated.toml): others are not claimed.
    token = [{"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": {"name": "huggingface-token", "key": "token"}}}]
    assert found_by([_devopsnine(token)], "gated-model-has-token") == []
    open_model = _devopsnine()
    container = open_model["spec"]["template"]["spec"]["containers"][0]
    container["env"][0]["value"] = "mistralai/Mistral-Small-24B-Instruct-2501"
    assert found_by([open_model], "gated-model-has-token") == []


# heissanjay/ollama-eks-depl kubernetes/deployment.yml@0f87150 (labels.yaml `files:`): open-webui mounts claim ollama-pvc
# (not in the repository) under the default RollingUpdate, beside an Ollama server Deployment.
OLLAMA = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "ollama"},
    "spec": {
        "selector": {"matchLabels": {"app": "ollama"}},
        "template": {
            "metadata": {"labels": {"app": "ollama"}},
            "spec": {"containers": [{"name": "ollama", "image": "ollama/ollama:latest", "ports": [{"containerPort": 11434}]}]},
        },
    },
}


def _webui(strategy: dict | None = None) -> dict:
    spec: dict = {
        "replicas": 1,
        "selector": {"matchLabels": {"app": "openweb-ui"}},
        "template": {
            "metadata": {"labels": {"app": "openweb-ui"}},
            "spec": {
                "volumes": [{"name": "webui-data", "persistentVolumeClaim": {"claimName": "ollama-pvc"}}],
                "containers": [
                    {
                        "name": "openweb-ui",
                        "image": "ghcr.io/open-webui/open-webui",
                        "env": [{"name": "OLLAMA_BASE_URL", "value": "http://svc-ollama:11434"}],
                        "volumeMounts": [{"name": "webui-data", "mountPath": "/app/backend/data"}],
                    }
                ],
            },
        },
    }
    if strategy:
        spec["strategy"] = strategy
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "openweb-ui"}, "spec": spec}


def test_a_ui_beside_a_model_server_rolling_an_unseen_claim_is_advice():
    found = found_by([OLLAMA, _webui()], "single-attach-volume-rolls")
    assert [e for e, m in found if "ollama-pvc" in m] == ["advisory"]


def test_the_ui_alone_or_recreated_is_silent():
    assert found_by([_webui()], "single-attach-volume-rolls") == []
    assert found_by([OLLAMA, _webui({"type": "Recreate"})], "single-attach-volume-rolls") == []


# Shivakumar980/QLora-vLLM-EKS-Deployment-NVIDIA-GPUs EKS-MANIFESTS/vllm-deployment.yaml@c8a9cb82df407c015afe83e889d5146921a57840:
# the image's start script copies the merged model from S3 (S3_BUCKET, S3_PREFIX) to MODEL_PATH, on no volume.
def _qlora(volume: bool = False, command: list[str] | None = None) -> dict:
    container: dict = {
        "name": "vllm",
        "image": "533267109039.dkr.ecr.us-east-1.amazonaws.com/llama-vllm:latest",
        "env": [
            {"name": "MODEL_PATH", "value": "/models/llama-2-7b-merged-vllm"},
            {"name": "S3_BUCKET", "value": "llama-qlora-1763527961"},
            {"name": "S3_PREFIX", "value": "llama-2-7b-merged-vllm"},
        ],
        "resources": {"limits": {"nvidia.com/gpu": 1, "memory": "14Gi"}},
    }
    spec: dict = {"containers": [container]}
    if volume:
        container["volumeMounts"] = [{"name": "models", "mountPath": "/models"}]
        spec["volumes"] = [{"name": "models", "persistentVolumeClaim": {"claimName": "models"}}]
    if command:
        container["command"] = command
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "vllm-llama", "namespace": "vllm"},
        "spec": {
            "selector": {"matchLabels": {"app": "vllm-llama"}},
            "template": {"metadata": {"labels": {"app": "vllm-llama"}}, "spec": spec},
        },
    }


def test_an_image_script_copying_a_model_from_s3_to_its_layer_is_advice():
    found = found_by([_qlora()], "gpu-pod-ephemeral-storage")
    assert [(e, "/models/llama-2-7b-merged-vllm" in m) for e, m in found] == [("advisory", True)]


def test_a_model_path_on_a_volume_or_a_command_of_its_own_is_silent():
    assert found_by([_qlora(volume=True)], "gpu-pod-ephemeral-storage") == []
    assert found_by([_qlora(command=["python3", "train.py"])], "gpu-pod-ephemeral-storage") == []


def test_a_key_rendered_into_an_authorization_policy_header_match_is_advice():
    found = found_by([_authz(BEARER)], "no-literal-credential")
    assert [(e, m.startswith("spec.rules[0].when[0] request.headers[authorization]")) for e, m in found] == [("advisory", True)]


def test_an_authorization_policy_on_claims_or_paths_only_is_silent():
    assert found_by([_authz([])], "no-literal-credential") == []
    claims = [{"key": "request.auth.claims[groups]", "values": ["${GROUP}"]}]
    assert found_by([_authz(claims)], "no-literal-credential") == []
