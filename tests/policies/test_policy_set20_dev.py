"""Misses of dev set 20 that name a catalogue id, fixed by their general cause, each with a careful form that stays
silent. Fixtures are cut down from the labelled files (/work/eval20/labels.yaml `files:`):

- phucly01/ollama-k8s ollama/ollama.yaml at 152e6532e503b23a0a4c27aaff758f07386ca39c: ``name: ollama-storage``
  indented under spec.template, so volumes[0] has no name (G45) and the hostPath /opt/ollama joins no mount (G31);
- alaasalmo/ollama-kubernetes ollama/ollama-deployment.yaml at 3512339dad2f0d9cf5901f610ea7b300da75c804: the server
  image alaasalmo/ollama:1.1.1.1, a rebuild named like the engine (S46; G4 once it is read as an Ollama server);
- davidglogan/ollama-kubernetes-stack legacy/ollama-deployment.yaml at 8ec34a92da5092149f46ed8c922a9c0b0bfe7fc7:
  memory request 8Gi, limit 48Gi on a CPU Ollama server (G12);
- edenreich/ollama-kubernetes ollama/llama3/03-deployment.yaml at 3276d532d5286aa1385032e411a83825c896e7d0: a sidecar
  pulls llama3.3:70b-instruct-q2_K into a pod whose ollama/ollama:0.5.4 server is limited to 10000Mi (G46).
"""

import copy

from policy_fixtures import found_by


def deployment(name: str, spec: dict, replicas: int = 1) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"name": name}},
            "template": {"metadata": {"labels": {"name": name}}, "spec": spec},
        },
    }


# phucly01/ollama-k8s ollama/ollama.yaml@152e653: the volume's name sits under spec.template.
PHUCLY = deployment(
    "ollama-deploy",
    {
        "containers": [
            {
                "name": "ollama",
                "image": "ollama/ollama:latest",
                "volumeMounts": [{"mountPath": "/root/.ollama", "name": "ollama-storage"}],
                "ports": [{"name": "container-port", "containerPort": 11434}],
            }
        ],
        "volumes": [{"hostPath": {"path": "/opt/ollama", "type": "DirectoryOrCreate"}}],
    },
)
PHUCLY["spec"]["template"]["name"] = "ollama-storage"


def _fixed_indent(read_only: bool = False) -> dict:
    fixed = copy.deepcopy(PHUCLY)
    del fixed["spec"]["template"]["name"]
    spec = fixed["spec"]["template"]["spec"]
    spec["volumes"][0]["name"] = "ollama-storage"
    if read_only:
        spec["containers"][0]["volumeMounts"][0]["readOnly"] = True
    return fixed


def test_a_volume_with_no_name_and_a_mount_naming_no_volume_are_refused():
    assert sorted(found_by([PHUCLY], "pod-template-api-valid")) == [
        (
            "mandatory",
            "container ollama: volumeMount ollama-storage names no volume of the pod; the API server refuses the pod "
            "(volumeMounts.name: Not found), so no pod is created",
        ),
        (
            "mandatory",
            "spec.template.spec.volumes[0] has no name (a mis-indented name: is read as a key of the map around it); "
            "the API server refuses the pod (volumes[0].name: Required value), so no pod is created",
        ),
    ]


def test_the_volume_named_in_its_list_item_is_valid():
    assert found_by([_fixed_indent()], "pod-template-api-valid") == []


def test_a_mount_of_a_volume_an_operator_adds_is_not_judged():
    # A custom resource's pods may be completed by its operator (KubeRay adds volumes of its own).
    ray = {
        "apiVersion": "ray.io/v1",
        "kind": "RayCluster",
        "metadata": {"name": "llm"},
        "spec": {
            "headGroupSpec": {
                "rayStartParams": {},
                "template": {
                    "spec": {
                        "containers": [
                            {
                                "name": "ray-head",
                                "image": "rayproject/ray:2.40.0",
                                "volumeMounts": [{"name": "added-by-operator", "mountPath": "/x"}],
                            }
                        ]
                    }
                },
            }
        },
    }
    assert [m for _, m in found_by([ray], "pod-template-api-valid") if "Not found" in m] == []


def test_a_nameless_host_path_with_a_writable_mount_that_names_no_volume_is_advice():
    assert found_by([PHUCLY], "host-path-read-only") == [
        (
            "advisory",
            "container ollama: volumeMount ollama-storage names no volume, and the pod's hostPath /opt/ollama has no "
            "name: once its name is set, the mount writes to the node at /root/.ollama; mount it readOnly or use an "
            "emptyDir or PVC",
        )
    ]


def test_the_nameless_host_path_under_a_read_only_mount_is_silent():
    unnamed_read_only = copy.deepcopy(PHUCLY)
    unnamed_read_only["spec"]["template"]["spec"]["containers"][0]["volumeMounts"][0]["readOnly"] = True
    assert found_by([unnamed_read_only], "host-path-read-only") == []
    assert found_by([_fixed_indent(read_only=True)], "host-path-read-only") == []


# alaasalmo/ollama-kubernetes ollama/ollama-deployment.yaml@3512339, with its ClusterIP Service.
def _alaasalmo(image: str, name: str = "ollama", port: int = 11434) -> list[dict]:
    server = deployment(
        "ollama",
        {
            "containers": [
                {
                    "name": name,
                    "image": image,
                    "ports": [{"containerPort": port}],
                    "resources": {"requests": {"memory": "5Gi", "cpu": "2"}, "limits": {"memory": "6Gi", "cpu": "2"}},
                }
            ]
        },
    )
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "ollama-service-internal"},
        "spec": {"selector": {"name": "ollama"}, "ports": [{"port": 11434, "targetPort": 11434}]},
    }
    return [server, service]


def test_a_rebuild_named_like_ollama_is_an_ollama_server():
    objs = _alaasalmo("alaasalmo/ollama:1.1.1.1")
    assert [e for e, _ in found_by(objs, "engine-image-from-publisher")] == ["advisory"]
    assert [m.split(",")[0] for _, m in found_by(objs, "serving-readiness-probe")] == [
        "container ollama: no readinessProbe on this ollama server"
    ]
    # A 6Gi limit over a 5Gi request is within the ratio.
    assert found_by(objs, "model-server-memory-ratio") == []


def test_the_publishers_image_and_an_image_merely_containing_ollama_are_not_flagged():
    assert found_by(_alaasalmo("ollama/ollama:0.5.4"), "engine-image-from-publisher") == []
    # Open WebUI's image tagged ollama, as its own container (name and port 8080): a container named ollama on 11434
    # would run the bundled Ollama server and be read as one.
    webui = _alaasalmo("ghcr.io/open-webui/open-webui:ollama", name="open-webui", port=8080)
    assert found_by(webui, "engine-image-from-publisher") == []
    # Not read as an Ollama server; since session 48 G4 advises on the UI itself (no readinessProbe on Open WebUI).
    assert [m.split(",")[0] for _, m in found_by(webui, "serving-readiness-probe")] == [
        "container open-webui: no readinessProbe on this Open WebUI"
    ]


# davidglogan/ollama-kubernetes-stack legacy/ollama-deployment.yaml@8ec34a9.
def _davidglogan(request: str, limit: str) -> dict:
    return deployment(
        "ollama",
        {
            "containers": [
                {
                    "name": "ollama",
                    "image": "ollama/ollama:latest",
                    "resources": {"requests": {"memory": request, "cpu": "2000m"}, "limits": {"memory": limit}},
                    "env": [{"name": "OLLAMA_HOST", "value": "0.0.0.0"}],
                }
            ]
        },
    )


def test_a_memory_limit_far_above_the_request_of_a_model_server_is_advice():
    assert found_by([_davidglogan("8Gi", "48Gi")], "model-server-memory-ratio") == [
        (
            "advisory",
            "container ollama: memory limit 48Gi is 6.0x its request 8Gi on this ollama server; the scheduler reserves "
            "only the request, so loading the model takes memory the node never set aside, and under node memory "
            "pressure the kubelet evicts it first; request at least 1/2.5 of the limit (ideally the limit itself)",
        )
    ]


def test_a_limit_within_the_ratio_and_a_non_server_are_silent():
    assert found_by([_davidglogan("20Gi", "48Gi")], "model-server-memory-ratio") == []
    web = _davidglogan("128Mi", "2Gi")
    web["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:1.27"
    assert found_by([web], "model-server-memory-ratio") == []


# edenreich/ollama-kubernetes ollama/llama3/03-deployment.yaml@3276d53: the server and a puller sidecar.
def _edenreich(image: str = "ollama/ollama:0.5.4", limit: str = "10000Mi", model: str = "llama3.3:70b-instruct-q2_K"):
    mounts = [{"name": "ollama-models-store", "mountPath": "/root/.ollama/models"}]
    return deployment(
        "llama3",
        {
            "containers": [
                {
                    "name": "ollama-model",
                    "image": image,
                    "ports": [{"containerPort": 11434}],
                    "resources": {"limits": {"cpu": "6000m", "memory": limit}, "requests": {"memory": "6000Mi"}},
                    "volumeMounts": mounts,
                },
                {
                    "name": "ollama-model-puller",
                    "image": image,
                    "command": ["bash"],
                    "args": ["-c", f"ollama pull {model} && tail -f /dev/null"],
                    "env": [{"name": "OLLAMA_HOST", "value": "127.0.0.1"}],
                    "resources": {"limits": {"memory": "1000Mi"}},
                    "volumeMounts": mounts,
                },
            ],
            "volumes": [
                {
                    "name": "ollama-models-store",
                    "hostPath": {"path": "/nfs/ollama-models-store", "type": "DirectoryOrCreate"},
                }
            ],
        },
    )


EDENREICH = (
    "container ollama-model: the pod pulls the Ollama model llama3.3:70b-instruct-q2_K, whose weights alone are at "
    "least 19.3 GiB, but the server is limited to 10000Mi and holds no GPU: Ollama loads CPU models into memory (mmap "
    "off), so the load is refused (when the node's free memory is short) or its runner OOM-killed, and the model is "
    "never served; raise the memory limit above the model or pull a smaller one"
)


def test_a_cpu_ollama_server_limited_below_the_weights_it_pulls_cannot_serve_them():
    assert found_by([_edenreich()], "container-can-start") == [("mandatory", EDENREICH)]


def test_a_moving_tag_makes_it_advice():
    found = found_by([_edenreich(image="ollama/ollama:latest")], "container-can-start")
    assert [e for e, _ in found] == ["advisory"]


def test_a_limit_that_holds_the_model_a_smaller_model_or_a_gpu_is_silent():
    assert found_by([_edenreich(limit="32Gi")], "container-can-start") == []
    assert found_by([_edenreich(model="llama3.2:3b")], "container-can-start") == []
    assert found_by([_edenreich(model="phi3:mini")], "container-can-start") == []
    gpu = _edenreich()
    gpu["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] = "1"
    assert found_by([gpu], "container-can-start") == []


def test_a_gpu_through_dra_or_a_gpu_node_is_silent():
    # Review 28 #12 (/tmp/review/ollama/dra2.yaml, gpunode.yaml): the rule judges only pods with no GPU in any form.
    # A DRA claim: the container's resources.claims on the pod's resourceClaims.
    dra = _edenreich()
    pod = dra["spec"]["template"]["spec"]
    pod["resourceClaims"] = [{"name": "gpu", "resourceClaimTemplateName": "gpu"}]
    pod["containers"][0]["resources"]["claims"] = [{"name": "gpu"}]
    assert found_by([dra], "container-can-start") == []
    # A GPU node it selects and tolerates: the ollama/ollama image sets NVIDIA_VISIBLE_DEVICES=all itself (v0.5.4
    # Dockerfile:196-197), so under NVIDIA's default runtime the pod sees the node's GPUs.
    node = _edenreich()
    node["spec"]["template"]["spec"]["nodeSelector"] = {"nvidia.com/gpu.present": "true"}
    assert found_by([node], "container-can-start") == []
    tolerates = _edenreich()
    tolerates["spec"]["template"]["spec"]["tolerations"] = [{"key": "nvidia.com/gpu", "operator": "Exists"}]
    assert found_by([tolerates], "container-can-start") == []
    # A node selector that names no GPU keeps the finding.
    cpu = _edenreich()
    cpu["spec"]["template"]["spec"]["nodeSelector"] = {"kubernetes.io/os": "linux"}
    assert found_by([cpu], "container-can-start") == [("mandatory", EDENREICH)]
