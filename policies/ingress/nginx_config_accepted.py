"""G46 nginx-config-accepted: an nginx proxy's mounted configuration puts each directive where nginx takes it.

nginx reads its whole configuration at start and stops with '"NAME" directive is not allowed here'
(nginx/nginx release-1.31.4 src/core/ngx_conf_file.c:482) when a directive sits in a block its module does not list:
``limit_req_zone``, ``limit_conn_zone``, ``proxy_cache_path``, ``upstream``, ``map``, ``geo``, ``split_clients`` and
``log_format`` only in the http block, ``listen`` and ``server_name`` only in a server block (the module tables
policies/reading/nginx_conf.py HTTP_ONLY and SERVER_ONLY cite). The container exits, restarts in a loop, and the
proxy in front of the model never serves (spent set 62 Pritiks23/Kubernetes-Request-Serving-2 k8s/api-gateway.yaml:
``limit_req_zone`` inside the ``server`` block of the gateway's default.conf; label filed NONE, blocking).

Read from the ConfigMap keys an nginx/OpenResty container mounts (policies/reading/mounted_scripts.py). Mandatory when
the file is one the image loads: ``/etc/nginx/nginx.conf``, or a ``.conf`` file under ``/etc/nginx/conf.d/``, which
the official image's configuration includes (nginxinc/docker-nginx 1.27.3 entrypoint/10-listen-on-ipv6-by-default.sh:13
edits its shipped /etc/nginx/conf.d/default.conf); advice for a file elsewhere (a template, a sites folder the image may
not include). A file holding a stream or mail block is not judged.
"""

from __future__ import annotations

from policies.framework import Policy, Resource, unproven
from policies.kube import container_label, containers, metadata_name, pod_specs, split_type
from policies.reading.mounted_scripts import mounted_config_files
from policies.reading.nginx_conf import holding_config_map, is_nginx, misplaced_directives


def _loaded(path: str) -> bool:
    return path == "/etc/nginx/nginx.conf" or (path.startswith("/etc/nginx/conf.d/") and path.endswith(".conf"))


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    del config
    findings = []
    for w in resources:
        for where, spec in pod_specs(w):
            for c in containers(spec):
                if not is_nginx(c):
                    continue
                for path, text in sorted(mounted_config_files(spec, c).items()):
                    if "{" not in text:
                        continue
                    for directive, block in misplaced_directives(text):
                        allowed = "a server block" if directive in ("listen", "server_name") else "the http block"
                        message = (
                            f"{split_type(w.type)[1]} {metadata_name(w.props)} {container_label(where, c)}: {path} puts "
                            f"{directive} inside a {block} block, but nginx takes it only in {allowed}: nginx stops at "
                            f'start ("{directive}" directive is not allowed here), the container restarts in a loop and '
                            f"the proxy never serves; move {directive} to {allowed}"
                        )
                        findings.append(
                            (
                                holding_config_map(w, text, resources),
                                message if _loaded(path) else unproven(message + " (if nginx loads this file)"),
                            )
                        )
    return findings


POLICY = Policy(
    name="nginx-config-accepted",
    description="An nginx proxy's mounted configuration puts each directive in a block nginx takes it in "
    "(limit_req_zone, upstream or map in http; listen and server_name in server).",
    catalog="G46",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Move http-only directives (limit_req_zone, limit_conn_zone, proxy_cache_path, upstream, map, geo, split_clients, "
        "log_format) out of server/location blocks: in a conf.d file, to the top level (it is included in http); in "
        "nginx.conf, into the http block. Keep listen and server_name in the server block."
    ),
    config_schema={},
    check_stack=_check,
    rationale=(
        "nginx refuses a directive outside the contexts its module lists and exits at start (release-1.31.4 "
        "src/core/ngx_conf_file.c:482; limit_req_zone is NGX_HTTP_MAIN_CONF only, ngx_http_limit_req_module.c:106-107)."
    ),
)
