"""S27 manifest-is-kubernetes over a ConfigMap's data (policies/reading/config_placeholders.py): fill-ins any program
takes literally, and ``${NAME}`` where the file's consumer (components/serving_apps.toml [consumers]) expands none.

Fixtures, cut down, as of the commits named:
- chiheb08/openWebUI-Kubernetes litellm-configmap.yaml@83732e3909906b118493768cb514b8a8b098953d (``[API_Key]``,
  ``model_name: [model_name]``);
- kk137/litellm-eks-public 04-configmap.yaml@eb9b447a08b7c522b3d6d5d35c8bc2badcadb272 (``<YOUR_ACCOUNT_ID>``; its
  bedrock_team_tag_hook.py key's docstring ``litellm-<team>`` is code's prose and stays silent);
- sukantadash/rhoai3 maas/base/instances/reverse-proxy-llminference/configmap-nginx.yaml@122e9d1940c064d7a28fa55b02ecc611f86c5fe8
  (``<cluster-domain>``, ``<llm-namespace>`` in nginx's upstream and proxy_pass);
- roen019/LiteLLM-K8s-Deploy configmaps/litellm-config.yaml@738ba83bbf2dd948cf7b80dc4be2300d6d58fa76
  (``database_url: postgresql://litellm:${USER_PASSWORD}@...`` in a LiteLLM config: LiteLLM expands only
  os.environ/NAME, BerriAI/litellm litellm/proxy/proxy_server.py ProxyConfig._check_for_os_environ_vars);
- an nginx ConfigMap mounted at /etc/nginx/conf.d with ``${UPSTREAM_HOST}`` (constructed: nginx reads ``${name}`` as
  its own variable and fails on an unknown one, nginx/nginx release-1.31.4 src/http/ngx_http_variables.c:606,2858;
  the docker image renders only /etc/nginx/templates/*.template, nginxinc/docker-nginx 1.27.3
  entrypoint/20-envsubst-on-templates.sh:32-34,46-53).
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

POLICY = "manifest-is-kubernetes"


def config_map(data: dict, name: str = "cfg", namespace: str = "llm") -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": namespace}, "data": data}


def messages(objs: list[dict]) -> list[str]:
    return [m for _, m in found_by(objs, POLICY)]


CHIHEB = config_map(
    {
        "config.yaml": (
            "model_list:\n"
            "  - model_name: [model_name]\n"
            "    litellm_params:\n"
            "      model: azure/[model_name_on_azure]\n"
            '      api_base: "[API_ENDPOINT/Target_URI]"\n'
            '      api_key: "[API_Key]"\n'
            '      api_version: "[API_Version]"\n'
        )
    },
    "litellm-config",
    "openwebui-system",
)

KK137 = config_map(
    {
        "config.yaml": (
            "# ============\n# Model List\n# ============\nmodel_list:\n  - model_name: claude\n"
            "    litellm_params:\n      model: bedrock/anthropic.claude\nlitellm_settings:\n"
            "  # S3 request/response logging\n  s3_callback_params:\n"
            "    s3_bucket_name: litellm-request-logs-<YOUR_ACCOUNT_ID>-us-east-1\n    s3_region_name: us-east-1\n"
        ),
        "bedrock_team_tag_hook.py": (
            '"""\nBedrock per-team cost attribution hook for LiteLLM.\n\n'
            "  --> Bedrock InvokeModel runs as assumed-role/bedrock-exec/litellm-<team>\n"
            'Set YOUR_TEAM in the key metadata.\n"""\nimport os\n'
        ),
    },
    "litellm-config",
    "litellm",
)

SUKANTADASH = config_map(
    {
        "nginx.conf": (
            "worker_processes auto;\nevents { worker_connections 1024; }\nhttp {\n  upstream llm_d_gateway {\n"
            "    server inference-gateway.apps.<cluster-domain>:443;\n  }\n  server {\n    listen 8080;\n"
            "    location /v1/ {\n      proxy_pass https://llm_d_gateway/<llm-namespace>/<llm-name>/v1/;\n"
            "      proxy_set_header Authorization $http_authorization;\n    }\n  }\n}\n"
        )
    },
    "qwen-maas-nginx-config",
    "qwen-maas-proxy",
)

ROEN019 = config_map(
    {
        "config.yaml": (
            "model_list:\n  - model_name: gpt-4\n    litellm_params:\n      model: gpt-4\n"
            "      api_key: os.environ/OPENAI_API_KEY\n\ngeneral_settings:\n  master_key: os.environ/LITELLM_MASTER_KEY\n"
            '  database_url: "postgresql://litellm:${USER_PASSWORD}@litellm-postgresql:5432/litellm"\n'
        )
    },
    "litellm-config",
    "litellm",
)

NGINX_CONF = config_map(
    {
        "default.conf": (
            "server {\n  listen 8080;\n  # the gateway in front of vLLM\n  location / {\n"
            "    proxy_pass http://${UPSTREAM_HOST}:8000;\n    proxy_set_header Host $host;\n"
            "    proxy_set_header X-Real-IP ${remote_addr};\n  }\n}\n"
        )
    },
    "edge-nginx",
)


def nginx(mount_path: str, sub_path: str | None = None, command: list | None = None, env: list | None = None) -> dict:
    mount: dict = {"name": "conf", "mountPath": mount_path}
    if sub_path:
        mount["subPath"] = sub_path
    container: dict = {"name": "nginx", "image": "nginx:1.27.3", "volumeMounts": [mount]}
    if command:
        container["command"] = command
    if env:
        container["env"] = env
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "edge", "namespace": "llm"},
        "spec": {
            "selector": {"matchLabels": {"app": "edge"}},
            "template": {
                "metadata": {"labels": {"app": "edge"}},
                "spec": {"containers": [container], "volumes": [{"name": "conf", "configMap": {"name": "edge-nginx"}}]},
            },
        },
    }


def test_bracketed_fill_ins_in_a_litellm_config_are_named():
    assert messages([CHIHEB]) == [
        "data.config.yaml holds [model_name], [model_name_on_azure], [API_ENDPOINT/Target_URI], [API_Key] and more: a "
        "fill-in its author left for the user, which the program reading it takes literally (a host that does not "
        "resolve, a key no server accepts, a list where a name belongs); fill it in before applying"
    ]


def test_an_angle_bracketed_account_id_is_named_and_code_keys_are_not_read():
    assert [m.split(":", 1)[0] for m in messages([KK137])] == ["data.config.yaml holds <YOUR_ACCOUNT_ID>"]


def test_angle_bracketed_words_in_nginx_hosts_and_urls_are_named():
    assert [m.split(":", 1)[0] for m in messages([SUKANTADASH])] == [
        "data.nginx.conf holds <cluster-domain>, <llm-namespace>, <llm-name>"
    ]


def test_a_variable_in_a_litellm_config_is_literal_to_the_proxy():
    assert messages([ROEN019]) == [
        "data.config.yaml holds ${USER_PASSWORD} in a LiteLLM proxy configuration, which the proxy reads as written: "
        "it expands only os.environ/NAME, so the value reaches it literally (a password, key or URL that is the "
        "placeholder's text); write os.environ/NAME, or render the file before the proxy reads it"
    ]


def test_a_litellm_config_a_pod_renders_first_is_silent():
    pod = nginx("/templates")  # any container of the pod that runs envsubst on its files
    pod["spec"]["template"]["spec"]["volumes"][0]["configMap"]["name"] = "litellm-config"
    pod["metadata"]["namespace"] = "litellm"
    pod["spec"]["template"]["spec"]["containers"][0].update(
        image="ghcr.io/berriai/litellm:main-v1.74.0-stable",
        command=["sh", "-c", "envsubst < /templates/config.yaml > /app/config.yaml && litellm --config /app/config.yaml"],
    )
    assert messages([ROEN019, pod]) == []


def test_an_nginx_variable_from_the_environment_outside_the_template_folder_is_named():
    assert messages([NGINX_CONF, nginx("/etc/nginx/conf.d")]) == [
        "data.default.conf, mounted by Deployment/edge container nginx at /etc/nginx/conf.d/default.conf, holds "
        "${UPSTREAM_HOST}: nginx reads no environment, takes it for a variable of its own that nothing defines and "
        "refuses the configuration (unknown variable), so the server never starts; only files under "
        "/etc/nginx/templates named *.template are passed through envsubst by the image's entrypoint: mount it there "
        "(e.g. default.conf.template)"
    ]
    # subPath mount of the one key at a file path: the same.
    assert len(messages([NGINX_CONF, nginx("/etc/nginx/conf.d/default.conf", "default.conf")])) == 1


def test_nginx_templates_own_variables_and_unmounted_files_are_silent():
    template = copy.deepcopy(NGINX_CONF)
    template["data"] = {"default.conf.template": NGINX_CONF["data"]["default.conf"]}
    assert messages([template, nginx("/etc/nginx/templates")]) == []
    # The image's variables move the folder; a file outside it with no suffix is not rendered.
    moved = nginx("/config", env=[{"name": "NGINX_ENVSUBST_TEMPLATE_DIR", "value": "/config"}])
    assert messages([template, moved]) == []
    # Defined by `set`, or nginx's own ($host, ${remote_addr}, ${HOST} read as $host): not placeholders.
    defined = copy.deepcopy(NGINX_CONF)
    text = defined["data"]["default.conf"]
    defined["data"]["default.conf"] = text.replace("  location / {\n", "  set $UPSTREAM_HOST vllm;\n  location / {\n")
    assert messages([defined, nginx("/etc/nginx/conf.d")]) == []
    # Nobody known reads it: the pipeline that applies it may render it.
    assert messages([NGINX_CONF]) == []
    # A pod that renders its files itself.
    rendered = nginx("/etc/nginx/conf.d", command=["sh", "-c", "envsubst < /in/default.conf > /etc/nginx/conf.d/x.conf"])
    assert messages([NGINX_CONF, rendered]) == []


def test_careful_config_map_forms_stay_silent():
    quiet = config_map(
        {
            "start.sh": '#!/bin/sh\nexport URL="http://${HOST}:8000"\ncurl "$URL" -H "Authorization: YOUR_TOKEN"\n',
            "entry": "#!/bin/bash\nollama pull ${MODEL}\n",
            "settings.toml": '[server_config]\nhost = "api.example.com"\n',
            "README.md": "See [the_docs](https://example.com/docs) and set <your-key>.\n",
            "config.yaml": (
                "# set YOUR_API_KEY below through os.environ\nmodel_list:\n  - model_name: llama\n"
                "    litellm_params:\n      model: openai/llama\n      api_base: http://vllm.llm.svc:8000/v1\n"
                '      api_key: os.environ/VLLM_API_KEY\n      stop: ["<eos>"]\n      tags: [gpu_a100]\n'
            ),
            "OPENAI_API_BASE": "http://vllm.llm.svc.cluster.local:8000/v1",
            "TEMPLATE": "<s>[INST] {prompt} [/INST]",
            # Knative's documentation block (traefik/traefik integration/fixtures/knative config-certmanager).
            "_example": "issuerRef: |\n  kind: ClusterIssuer\n  name: your-company-issuer\n",
        }
    )
    assert messages([quiet]) == []
