"""G29 read-only-root-has-writable-paths: a vLLM container with readOnlyRootFilesystem keeps somewhere to write.

Fixture: fresh set 47 SecureCloudOps/llm-rag-infra-platform k8s/vllm/deployment.yaml at
5c772f91cfa74806d2476c25c296b941f65bb1c0 (labelled G29 blocking: readOnlyRootFilesystem, runAsUser 1000, no volume;
vllm/vllm-openai:latest).
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

POLICY = "read-only-root-has-writable-paths"

SECURE = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "vllm", "namespace": "ai-system"},
    "spec": {
        "replicas": 1,
        "selector": {"matchLabels": {"app.kubernetes.io/name": "vllm"}},
        "template": {
            "metadata": {"labels": {"app.kubernetes.io/name": "vllm"}},
            "spec": {
                "securityContext": {"runAsNonRoot": True, "runAsUser": 1000, "runAsGroup": 1000, "fsGroup": 1000},
                "containers": [
                    {
                        "name": "vllm",
                        "image": "vllm/vllm-openai:latest",
                        "command": ["python", "-m", "vllm.entrypoints.openai.api_server"],
                        "args": ["--host", "0.0.0.0", "--port", "8000", "--model", "Qwen/Qwen2.5-0.5B-Instruct"],
                        "ports": [{"name": "http", "containerPort": 8000}],
                        "resources": {"limits": {"nvidia.com/gpu": 1}},
                        "securityContext": {
                            "allowPrivilegeEscalation": False,
                            "capabilities": {"drop": ["ALL"]},
                            "readOnlyRootFilesystem": True,
                        },
                    }
                ],
            },
        },
    },
}


def _container(doc: dict) -> dict:
    return doc["spec"]["template"]["spec"]["containers"][0]


def test_no_writable_temporary_directory_blocks():
    ((enforcement, message),) = found_by([SECURE], POLICY)
    assert enforcement == "mandatory"
    assert "no writable volume is mounted at /tmp" in message and "ZMQ IPC sockets" in message


def test_tmp_mounted_but_no_model_cache_is_advice():
    doc = copy.deepcopy(SECURE)
    _container(doc)["volumeMounts"] = [{"name": "tmp", "mountPath": "/tmp"}]
    doc["spec"]["template"]["spec"]["volumes"] = [{"name": "tmp", "emptyDir": {}}]
    ((enforcement, message),) = found_by([doc], POLICY)
    assert enforcement == "advisory" and "Hugging Face cache" in message


def test_careful_forms_are_silent():
    # The careful form: an emptyDir at /tmp and a cache volume HF_HOME points at (the shape the rule asks for), and
    # TMPDIR set to a mounted path; and the read-only root not asked for at all.
    careful = copy.deepcopy(SECURE)
    _container(careful)["volumeMounts"] = [
        {"name": "tmp", "mountPath": "/tmp"},
        {"name": "cache", "mountPath": "/cache"},
    ]
    _container(careful)["env"] = [
        {"name": "HF_HOME", "value": "/cache/huggingface"},
        {"name": "VLLM_CACHE_ROOT", "value": "/cache/vllm"},
    ]
    tmpdir = copy.deepcopy(SECURE)
    _container(tmpdir)["volumeMounts"] = [{"name": "scratch", "mountPath": "/scratch"}]
    _container(tmpdir)["env"] = [{"name": "TMPDIR", "value": "/scratch"}, {"name": "HF_HOME", "value": "/scratch/hf"}]
    _container(tmpdir)["args"].append("--enforce-eager")
    shm = copy.deepcopy(SECURE)
    _container(shm)["env"] = [
        {"name": "TMPDIR", "value": "/dev/shm"},
        {"name": "HF_HOME", "value": "/dev/shm/hf"},
        {"name": "XDG_CACHE_HOME", "value": "/dev/shm/cache"},
    ]
    _container(shm)["volumeMounts"] = [{"name": "hf", "mountPath": "/dev/shm/hf"}]
    writable = copy.deepcopy(SECURE)
    _container(writable)["securityContext"]["readOnlyRootFilesystem"] = False
    for doc in (careful, tmpdir, shm, writable):
        assert found_by([doc], POLICY) == []
    # Positive twins (review 45 #19): the careful and TMPDIR forms without their volumes are read and block.
    for doc in (careful, tmpdir):
        twin = copy.deepcopy(doc)
        _container(twin)["volumeMounts"] = []
        assert [e for e, _ in found_by([twin], POLICY)] == ["mandatory"]


def test_another_image_with_some_volume_is_advice():
    # A rebuild whose WORKDIR the files do not show: the mounted volume may be it.
    doc = copy.deepcopy(SECURE)
    _container(doc)["image"] = "registry.example.com/team/vllm-server:1.4"
    _container(doc)["volumeMounts"] = [{"name": "models", "mountPath": "/app"}]
    _container(doc)["args"][-1] = "/app/models/qwen"
    assert [e for e, _ in found_by([doc], POLICY)] == ["advisory"]


def test_temp_dir_from_outside_env_or_start_script_is_advice_not_block():
    # Review 45 #2 (/tmp/review45/m/g29b, g29c): envFrom a ConfigMap the files do not hold may set TMPDIR=/scratch;
    # a `sh -c` script that exports TMPDIR/HF_HOME onto the mounted emptyDir is read (silent).
    outside = copy.deepcopy(SECURE)
    _container(outside)["envFrom"] = [{"configMapRef": {"name": "vllm-env"}}]
    _container(outside)["volumeMounts"] = [{"name": "scratch", "mountPath": "/scratch"}]
    ((enforcement, message),) = found_by([outside], POLICY)
    assert enforcement == "advisory" and "files do not show" in message
    secret = copy.deepcopy(SECURE)
    _container(secret)["env"] = [{"name": "TMPDIR", "valueFrom": {"secretKeyRef": {"name": "s", "key": "tmp"}}}]
    assert [e for e, _ in found_by([secret], POLICY)] == ["advisory"]
    script = copy.deepcopy(SECURE)
    _container(script)["command"] = ["/bin/sh", "-c"]
    _container(script)["args"] = [
        'export TMPDIR=/scratch/tmp HF_HOME=/scratch/hf\nmkdir -p "$TMPDIR"\n'
        "exec vllm serve Qwen/Qwen2.5-0.5B-Instruct --port 8000 --enforce-eager\n"
    ]
    _container(script)["volumeMounts"] = [{"name": "scratch", "mountPath": "/scratch"}]
    assert found_by([script], POLICY) == []


def test_config_map_in_the_files_without_tmpdir_still_blocks():
    # The set-47 shape: envFrom a ConfigMap the files hold, which sets no temporary directory: still a block.
    doc = copy.deepcopy(SECURE)
    _container(doc)["envFrom"] = [{"configMapRef": {"name": "vllm-config"}}]
    cm = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "vllm-config", "namespace": "ai-system"},
        "data": {"VLLM_PORT": "8000"},
    }
    assert [e for e, _ in found_by([doc, cm], POLICY)] == ["mandatory"]
    script = copy.deepcopy(SECURE)
    _container(script)["command"] = ["/bin/sh", "-c", "export TMPDIR=/var/lib/x; exec vllm serve Qwen/Qwen2.5-0.5B"]
    assert [e for e, _ in found_by([script], POLICY)] == ["mandatory"]


def test_v1_compile_cache_on_the_read_only_root_is_advice():
    # Review 45 #16: vLLM V1 creates VLLM_CACHE_ROOT/torch_compile_cache at start (vllm/compilation/backends.py
    # VllmBackend.__call__ os.makedirs; VLLM_CACHE_ROOT defaults to ~/.cache/vllm, vllm/envs.py). /tmp and the HF cache
    # writable but no volume for it: advice. --enforce-eager (nothing compiled) or a V0 release: silent.
    doc = copy.deepcopy(SECURE)
    _container(doc)["volumeMounts"] = [{"name": "tmp", "mountPath": "/tmp"}, {"name": "cache", "mountPath": "/cache"}]
    _container(doc)["env"] = [{"name": "HF_HOME", "value": "/cache/huggingface"}]
    ((enforcement, message),) = found_by([doc], POLICY)
    assert enforcement == "advisory" and "compile cache" in message
    eager = copy.deepcopy(doc)
    _container(eager)["args"].append("--enforce-eager")
    old = copy.deepcopy(doc)
    _container(old)["image"] = "vllm/vllm-openai:v0.6.6"
    assert found_by([eager], POLICY) == [] and found_by([old], POLICY) == []


def test_a_start_script_cd_into_a_volume_gives_a_temporary_directory():
    # Review 45 #16: CPython's last tempfile candidate is the working directory; `cd /work && exec vllm serve` with an
    # emptyDir at /work has one (/tmp/review45/m/g29d): no "no temporary directory" block.
    doc = copy.deepcopy(SECURE)
    _container(doc)["command"] = ["/bin/sh", "-c", "cd /work && exec vllm serve /models/qwen --port 8000 --enforce-eager"]
    _container(doc)["args"] = []
    _container(doc)["volumeMounts"] = [{"name": "work", "mountPath": "/work"}]
    assert found_by([doc], POLICY) == []
    _container(doc)["command"][2] = "cd /opt && exec vllm serve /models/qwen --port 8000 --enforce-eager"
    assert [e for e, _ in found_by([doc], POLICY)] == ["mandatory"]


def _embed(uid: object, home: str | None = None) -> dict:
    # Minimal form of theepicsaxguy/homelab k8s/applications/ai/vllm-embed/deployment.yaml@29073de4a6b59f50df6f2b31962b146740d215bf
    # (spent set 80, labelled G29): runAsUser 1000, readOnlyRootFilesystem, emptyDirs at /tmp and /var/tmp, the model
    # cache claim at /root/.cache/huggingface, no HOME/HF_HOME, --enforce-eager, a Hub model.
    doc = copy.deepcopy(SECURE)
    doc["spec"]["template"]["spec"]["securityContext"] = {"runAsNonRoot": True, "runAsUser": uid}
    container = _container(doc)
    container["image"] = "ghcr.io/theepicsaxguy/vllm-cpu:v0.11.0-cfc13f2"
    container["args"].append("--enforce-eager")
    container["volumeMounts"] = [
        {"name": "hf-cache", "mountPath": "/root/.cache/huggingface"},
        {"name": "tmp", "mountPath": "/tmp"},
        {"name": "var-tmp", "mountPath": "/var/tmp"},
    ]
    if home is not None:
        container["env"] = [{"name": "HOME", "value": home}]
    return doc


def test_a_cache_under_root_for_a_non_root_user_is_not_its_home():
    # runc sets HOME=/ for a uid with no passwd entry (v1.2.9 libcontainer/init_linux.go:468-471, :552-554).
    ((enforcement, message),) = found_by([_embed(1000)], POLICY)
    assert enforcement == "advisory"
    assert "with runAsUser 1000 and no HOME, $HOME is /" in message and "never /root" in message


def test_a_root_user_or_a_home_under_the_cache_volume_stays_silent():
    assert found_by([_embed(0)], POLICY) == []
    assert found_by([_embed(1000, home="/root")], POLICY) == []
