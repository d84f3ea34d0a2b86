"""Session 48 forms: a LiteLLM proxy's own timeouts as the inner layer (S9) and the longest call its pod must drain
(S10), and a requirements file installed at every start (S31)."""

from __future__ import annotations

import copy

from policy_fixtures import found_by

from policies.reading.installs import command_installs
from policies.reading.litellm import seconds

# A LiteLLM proxy with its config.yaml in a ConfigMap (BerriAI/litellm docs/my-website/docs/proxy/configs.md: model_list,
# litellm_params.timeout / stream_timeout, router_settings.timeout, litellm_settings.request_timeout; Router
# _get_timeout at litellm/router.py@f292d1ae7d83f2bc07c80c10d1a61bf63cb087bd), behind an ip-target ALB whose idle
# timeout is 600 s: the form of kk137/litellm-eks-public@eb9b447a08b7c522b3d6d5d35c8bc2badcadb272 04-configmap.yaml
# (stream_timeout 900 per model, router_settings timeout 1200), 05-deployment.yaml (grace 60, no preStop), 07-ingress.yaml
# (ip target, idle_timeout.timeout_seconds=600), reduced here (brief forms48 #3, #4).
CONFIG = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "litellm-config", "namespace": "llm"},
    "data": {
        "config.yaml": (
            "model_list:\n"
            "  - model_name: claude\n"
            "    litellm_params:\n"
            "      model: bedrock/anthropic.claude-3-5-sonnet-20240620-v1:0\n"
            "      timeout: 1200\n"
            "      stream_timeout: 900\n"
            "router_settings:\n"
            "  timeout: 1200\n"
        )
    },
}
PROXY = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "litellm", "namespace": "llm"},
    "spec": {
        "selector": {"matchLabels": {"app": "litellm"}},
        "template": {
            "metadata": {"labels": {"app": "litellm"}},
            "spec": {
                "terminationGracePeriodSeconds": 60,
                "containers": [
                    {
                        "name": "litellm",
                        "image": "ghcr.io/berriai/litellm:main-v1.55.8",
                        "args": ["--config", "/app/config.yaml", "--port", "4000"],
                        "volumeMounts": [{"name": "config", "mountPath": "/app/config.yaml", "subPath": "config.yaml"}],
                    }
                ],
                "volumes": [{"name": "config", "configMap": {"name": "litellm-config"}}],
            },
        },
    },
}
SERVICE = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "litellm", "namespace": "llm"},
    "spec": {"selector": {"app": "litellm"}, "ports": [{"port": 4000, "targetPort": 4000}]},
}
INGRESS = {
    "apiVersion": "networking.k8s.io/v1",
    "kind": "Ingress",
    "metadata": {
        "name": "litellm",
        "namespace": "llm",
        "annotations": {
            "alb.ingress.kubernetes.io/target-type": "ip",
            "alb.ingress.kubernetes.io/load-balancer-attributes": "idle_timeout.timeout_seconds=600",
        },
    },
    "spec": {
        "ingressClassName": "alb",
        "rules": [
            {
                "http": {
                    "paths": [
                        {
                            "path": "/",
                            "pathType": "Prefix",
                            "backend": {"service": {"name": "litellm", "port": {"number": 4000}}},
                        }
                    ]
                }
            }
        ],
    },
}


def test_a_litellm_proxy_without_a_drain_is_advised_with_its_own_timeout():
    found = found_by([CONFIG, PROXY, SERVICE, INGRESS], "termination-drains-streams")
    assert [level for level, _ in found] == ["advisory", "advisory"]
    assert found[0][1].startswith("container litellm: no preStop hook on this LiteLLM proxy")
    assert found[1][1] == (
        "container litellm: terminationGracePeriodSeconds 60 < preStop 0s + longest model call 1200s (its configuration "
        "/app/config.yaml model_list[0].litellm_params.timeout): the kubelet cuts the LiteLLM proxy's calls in flight "
        "(long generations) on scale-in and rollout"
    )


def test_a_litellm_proxy_that_drains_its_longest_call_stays_silent():
    careful = copy.deepcopy(PROXY)
    spec = careful["spec"]["template"]["spec"]
    spec["terminationGracePeriodSeconds"] = 1300
    spec["containers"][0]["lifecycle"] = {"preStop": {"sleep": {"seconds": 30}}}
    assert found_by([CONFIG, careful, SERVICE, INGRESS], "termination-drains-streams") == []


def test_an_alb_idle_timeout_below_the_litellm_timeout_is_advised():
    [(level, message)] = found_by([CONFIG, PROXY, SERVICE, INGRESS], "timeout-chain-ordered")
    assert level == "advisory"
    # The same with no Service in the files: the Ingress's backend is named as the proxy (kk137/litellm-eks-public
    # @ 07-ingress.yaml: Ingress litellm to Service litellm, which no file defines, in front of Deployment litellm).
    assert found_by([CONFIG, PROXY, INGRESS], "timeout-chain-ordered") == [(level, message)]
    # Reported on the Ingress, the layer that cuts (session 49: spent set 56 kk137/litellm-eks-public labels the Ingress).
    assert message.startswith("ALB idle_timeout.timeout_seconds=600 cuts a reply that sends no byte for 600s")
    assert (
        "the LiteLLM proxy litellm behind it lets a model call run 1200s (/app/config.yaml model_list[0].litellm_params.timeout)"
        in message
    )


def test_an_alb_idle_timeout_above_the_litellm_timeout_stays_silent():
    careful = copy.deepcopy(INGRESS)
    careful["metadata"]["annotations"]["alb.ingress.kubernetes.io/load-balancer-attributes"] = "idle_timeout.timeout_seconds=1300"
    assert found_by([CONFIG, PROXY, SERVICE, careful], "timeout-chain-ordered") == []


# An init container that pip-installs a requirements file into an emptyDir at every pod start (brief forms48 #5).
def _pod_with(command: str) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "server"},
        "spec": {
            "selector": {"matchLabels": {"app": "s"}},
            "template": {
                "metadata": {"labels": {"app": "s"}},
                "spec": {
                    "initContainers": [
                        {
                            "name": "deps",
                            "image": "python:3.11-slim",
                            "command": ["sh", "-c", command],
                            "volumeMounts": [{"name": "deps", "mountPath": "/deps"}],
                        }
                    ],
                    "containers": [
                        {
                            "name": "app",
                            "image": "python:3.11-slim",
                            "command": ["python", "/app/server.py"],
                            "resources": {"limits": {"nvidia.com/gpu": 1}},
                            "volumeMounts": [{"name": "deps", "mountPath": "/deps"}],
                        }
                    ],
                    "volumes": [{"name": "deps", "emptyDir": {}}],
                },
            },
        },
    }


def test_a_requirements_file_installed_at_every_start_is_advised():
    [(level, message)] = found_by([_pod_with("pip install --target /deps -r /app/requirements.txt")], "serving-code-pinned")
    assert level == "advisory"
    assert message.startswith(
        "container deps: installs the requirements file /app/requirements.txt at every start without --require-hashes"
    )


def test_a_hash_checked_requirements_file_stays_silent():
    pod = _pod_with("pip install --require-hashes --target /deps -r /app/requirements.txt")
    assert found_by([pod], "serving-code-pinned") == []
    assert found_by([pod], "serving-start-installs") == []


def test_requirement_file_spellings():
    assert [i.requirement for i in command_installs("pip install --requirement=req.txt && pip3 install -r b.txt", "c")] == [
        "-r req.txt",
        "-r b.txt",
    ]
    assert command_installs("conda install -n env numpy==1.26.4", "c")[0].file is False


def test_malformed_requirement_operands_name_no_file():
    """review48b item 3 (/tmp/r48b/bad/b.yaml): `-r` followed by `&&` or by another option names no file, and the
    command after `&&` is not read as packages of the first install."""
    found = command_installs("pip install -r && pip install -r -r x", "c")
    assert [i.requirement for i in found] == ["-r x"]


def test_a_non_finite_litellm_timeout_is_no_timeout():
    """review48b item 3: `timeout: 1e400` is YAML inf; S9 and S10 said "longest model call infs"."""
    assert [seconds(v) for v in (1e400, "1e400", float("nan"), ".inf", 600, "30.5")] == [None, None, None, None, 600.0, 30.5]


def test_no_index_with_local_find_links_is_no_index_install():
    """review48b item 2 (/tmp/r48b/s31/a.yaml): --no-index with local --find-links resolves against the image's
    folders only (pip install --no-index), so it is advised no more than --require-hashes; a remote link still is."""
    pod = _pod_with("pip install --no-index --find-links /wheels -r /app/requirements.txt")
    assert found_by([pod], "serving-code-pinned") == []
    assert command_installs("pip install --no-index -f https://x/wheels -r r.txt", "c")[0].file


def test_a_requirements_file_mounted_from_a_config_map_is_read():
    """review48b item 2: the file's entries are in the files read when a ConfigMap of the run mounts it."""
    pod = _pod_with("pip install -r /app/reqs/requirements.txt")
    spec = pod["spec"]["template"]["spec"]
    spec.setdefault("volumes", []).append({"name": "r", "configMap": {"name": "reqs"}})
    spec["initContainers"][0]["volumeMounts"].append({"name": "r", "mountPath": "/app/reqs"})
    reqs = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "reqs"},
        "data": {"requirements.txt": "fastapi==0.115.0\n# c\ntransformers\n"},
    }
    messages = [m for _, m in found_by([reqs, pod], "serving-code-pinned")]
    assert messages and not any("requirements file" in m for m in messages)
    assert any("installs transformers with no pinned version" in m for m in messages)


def test_an_alb_to_a_service_the_files_do_not_define_joins_only_the_proxy_it_is_named_for():
    other = copy.deepcopy(INGRESS)
    other["spec"]["rules"][0]["http"]["paths"][0]["backend"]["service"]["name"] = "chat-ui"
    assert found_by([CONFIG, PROXY, other], "timeout-chain-ordered") == []
    elsewhere = copy.deepcopy(INGRESS)
    elsewhere["metadata"]["namespace"] = "web"
    assert found_by([CONFIG, PROXY, elsewhere], "timeout-chain-ordered") == []
