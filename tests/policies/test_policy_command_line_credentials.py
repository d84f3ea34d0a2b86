"""G35 no-literal-secret-env: a credential written into a command line or a ConfigMap's script (advice).

Fires: spent set 80, schoolofdevops/302-llmops@a3fe73c330595f4f859b716f849f7dc9fbca1b70
course-code/labs/lab-08/solution/k8s/20-inferenceservice.yaml: a KServe InferenceService whose predictor init container
runs `mc alias set minio http://minio.minio:9000 minio minio123` (the MinIO client's positional ACCESSKEY SECRETKEY:
minio/mc cmd/alias-set.go:69@RELEASE.2024-11-21T17-21-54Z), labelled G35 advisory. The same form in a ConfigMap's init
script, `PGPASSWORD=... psql`, mysql's attached -p, redis-cli -a, curl -u user:password fire too.
Silent: the keys read from the environment ($MINIO_ROOT_USER, $(PASS)), the stand-ins the row already exempts
(changeme, EMPTY), a secret-named path (DB_PASSWORD_FILE=/run/...), mysql -p with no value (it prompts).
"""

from __future__ import annotations

import pytest

from policies.k8s_generic.command_line_credentials import command_line_credentials
from tests.policies.policy_fixtures import found_by

_SCRIPT = """set -euo pipefail
echo "Configuring MinIO alias..."
mc alias set minio http://minio.minio:9000 minio minio123
mc cp --recursive minio/models/smollm2-finetuned/ /mnt/model/
touch /mnt/model/READY
"""


def _isvc(script: str) -> dict:
    return {
        "apiVersion": "serving.kserve.io/v1beta1",
        "kind": "InferenceService",
        "metadata": {"name": "smollm2", "namespace": "llm-serving"},
        "spec": {
            "predictor": {
                "initContainers": [
                    {
                        "name": "model-download",
                        "image": "quay.io/minio/mc:RELEASE.2024-11-21T17-21-54Z",
                        "command": ["sh", "-c", script],
                        "volumeMounts": [{"name": "model", "mountPath": "/mnt/model"}],
                    }
                ],
                "containers": [
                    {
                        "name": "kserve-container",
                        "image": "vllm/vllm-openai:v0.9.1",
                        "command": ["python3", "-m", "vllm.entrypoints.openai.api_server", "--model=/mnt/model"],
                        "volumeMounts": [{"name": "model", "mountPath": "/mnt/model"}],
                    }
                ],
                "volumes": [{"name": "model", "emptyDir": {}}],
            }
        },
    }


def _cli_findings(objs: list[dict]) -> list[tuple[str, str]]:
    return [f for f in found_by(objs, "no-literal-secret-env") if "command line" in f[1]]


def test_the_spent_mc_alias_with_keys_is_advised():
    found = _cli_findings([_isvc(_SCRIPT)])
    assert [e for e, _ in found] == ["advisory"]
    assert "container model-download" in found[0][1] and "`mc alias set` passes the MinIO secret key" in found[0][1]
    assert "minio123" not in found[0][1]


def test_keys_read_from_the_environment_stay_silent():
    script = _SCRIPT.replace("minio minio123", '"$MINIO_ROOT_USER" "$MINIO_ROOT_PASSWORD"')
    assert _cli_findings([_isvc(script)]) == []
    assert _cli_findings([_isvc(_SCRIPT.replace("minio minio123", "$(ACCESS) $(SECRET)"))]) == []


def test_a_config_map_init_script_is_read():
    cm = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "init"},
        "data": {"init.sh": "#!/bin/sh\nPGPASSWORD=Pr0dDbPass psql -h db -U app -c 'select 1'\n"},
    }
    found = _cli_findings([cm])
    assert [e for e, _ in found] == ["advisory"] and "ConfigMap data init.sh" in found[0][1] and "PGPASSWORD" in found[0][1]
    cm["data"]["init.sh"] = '#!/bin/sh\nPGPASSWORD="$DB_PASSWORD" psql -h db -U app -c "select 1"\n'
    assert _cli_findings([cm]) == []


@pytest.mark.parametrize(
    "text",
    [
        "mc config host add s3 https://s3.amazonaws.com AKIDEXAMPLE wJalrXUtnFEMIbPxRfiCYEXAMPLEKEY",
        "export API_KEY=abc123 && ./serve",
        "mysql -u root -prootpw models",
        "redis-cli -a hunter2 ping",
        "curl -u admin:adm1n http://grafana/api/health",
    ],
)
def test_other_command_line_forms_fire(text):
    assert command_line_credentials(text)


@pytest.mark.parametrize(
    "text",
    [
        "mc alias set local http://minio:9000 $MINIO_USER $MINIO_PASS",
        "PASSWORD=changeme ./run",
        "OPENAI_API_KEY=EMPTY python client.py",
        "export DB_PASSWORD_FILE=/run/secrets/db",
        "mysql -u root -p models",
        "curl -u admin:$ADMIN_PASS http://grafana",
        "MAX_NEW_TOKEN=5 python bench.py",
        "API_KEY=os.environ['API_KEY']",
    ],
)
def test_careful_forms_stay_silent(text):
    assert command_line_credentials(text) == []
