"""Pods of a Helm release of bjw-s app-template (the bjw-s "common" library chart), read from the release's values.

Homelab GitOps repositories write model servers (Ollama, Open WebUI, LiteLLM, llama.cpp) as a Flux HelmRelease or an
Argo CD Application whose values ARE a pod template in the common library's shape: ``controllers.<c>.containers.<n>``
with ``image.{repository,tag}``, ``env``, ``args``, ``probes``, ``resources``, ``securityContext``, beside
``defaultPodOptions``, ``controllers.<c>.pod`` and ``persistence``. The release is recognised by that shape (a
controller's container with an ``image`` mapping holding ``repository``), not by the chart's name: repositories name
the chart through an OCIRepository per app (``chartRef: {kind: OCIRepository, name: ollama}``).

What the chart renders from those values, read in bjw-s-labs/helm-charts at tags common-3.0.0, common-3.7.3 and
common-4.1.1 (charts/library/common/templates/lib/):

- probes: each of ``probes.{liveness,readiness,startup}`` is rendered only when its ``enabled`` is true ("Disable
  probe by default", container/fields/_probes.tpl:14-20 at common-4.1.1, the same lines at 3.0.0 and 3.7.3); a
  ``custom`` probe is its ``spec``, otherwise a ``tcpSocket`` (``type`` TCP, the default), ``httpGet`` (HTTP/HTTPS,
  ``path``) or ``grpc`` probe on ``port`` or the primary service's port with ``spec``'s timings (:23-79). No
  probes written means the container has none.
- image: ``repository:tag``, and nothing when either is missing (container/fields/_image.tpl:9-14).
- env: a list is used as is; a map becomes ``{name, value}`` items, a map value being the item itself (``valueFrom``
  or a bare ``secretKeyRef``...); a number or a boolean value is rendered as a string (container/fields/_env.tpl:
  15-79), so ``OLLAMA_NUM_PARALLEL: 1`` is no refused env value.
- pod options: each field of ``defaultPodOptions`` (securityContext, hostNetwork, nodeSelector, ...) unless
  ``controllers.<c>.pod`` sets it, merged into it instead when ``defaultPodOptionsStrategy`` is ``merge``
  (pod/_getOption.tpl:11-34; the strategy key from common-4.0.0, values.yaml:14-18).
- persistence: every item is enabled unless ``enabled: false``; its volume is a PVC unless ``type`` says otherwise
  (pod/fields/_volumes.tpl:41-42), a ``configMap`` or ``secret`` item naming its object by ``name``
  (:54-93@common-4.1.1); it is mounted in every container at each ``globalMounts`` path (and the
  ``advancedMounts`` of that controller and container), else at ``/<item>`` or, for a hostPath, at the host path
  (container/fields/_volumeMounts.tpl:15-111).

Later majors (app-template 5.x, whose common library was not among the tags read) are read the same way. The
values are not the rendered pod (a values file, ``valuesFrom`` or ``postRenderers`` may add to them), so the pack
reports what a pod rule finds on such a release as advice (policies/framework.py, completed_elsewhere).
Pure: no helper of policies.kube, so that kube can call it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_PROBES = (("liveness", "livenessProbe"), ("readiness", "readinessProbe"), ("startup", "startupProbe"))
# Container fields the chart copies as written (container/_spec.tpl).
_COPIED = ("command", "args", "resources", "securityContext", "ports", "envFrom", "lifecycle", "workingDir", "stdin", "tty")
_TIMINGS = ("initialDelaySeconds", "failureThreshold", "timeoutSeconds", "periodSeconds")


# Kinds whose values may be an app-template pod template: Flux's HelmRelease, Argo CD's Application.
_RELEASE_KINDS = frozenset({"HelmRelease", "Application"})


def release_values(props: Mapping) -> tuple[str, Mapping] | None:
    """(path, values) of a Flux HelmRelease's ``spec.values`` or an Argo CD Application's ``helm.valuesObject``."""
    if props.get("kind") not in _RELEASE_KINDS:
        return None
    spec = props.get("spec")
    if not isinstance(spec, Mapping):
        return None
    values = spec.get("values")
    if isinstance(values, Mapping):
        return "spec.values", values
    source = spec.get("source")
    values = source.get("helm") if isinstance(source, Mapping) else None
    values = values.get("valuesObject") if isinstance(values, Mapping) else None
    if isinstance(values, Mapping):
        return "spec.source.helm.valuesObject", values
    return None


def _controllers(values: Mapping) -> list[tuple[str, Mapping]]:
    controllers = values.get("controllers")
    if not isinstance(controllers, Mapping):
        return []
    return [
        (str(name), c)
        for name, c in controllers.items()
        if isinstance(c, Mapping) and c.get("enabled", True) is not False and isinstance(c.get("containers"), Mapping)
    ]


def is_app_template(values: Mapping) -> bool:
    """True when ``values`` are in the common library's shape (a controller's container with image.repository)."""
    for _, controller in _controllers(values):
        for container in controller["containers"].values():
            if isinstance(container, Mapping) and isinstance(image := container.get("image"), Mapping) and "repository" in image:
                return True
    return False


def _env(env: Any) -> Any:
    if isinstance(env, list) or not isinstance(env, Mapping):
        return env
    out = []
    for name, value in env.items():
        if isinstance(value, Mapping):
            if "value" in value or "valueFrom" in value:
                item = {k: v for k, v in value.items() if k != "dependsOn"}
            else:
                item = {"valueFrom": {k: v for k, v in value.items() if k != "dependsOn"}}
            out.append({"name": str(name), **item})
        elif isinstance(value, bool):
            out.append({"name": str(name), "value": "true" if value else "false"})
        elif isinstance(value, (int, float)):
            out.append({"name": str(name), "value": str(value)})
        else:
            out.append({"name": str(name), "value": value})
    return out


def _probe(values: Mapping, port: Any) -> dict | None:
    if not values.get("enabled"):
        return None
    spec = values.get("spec")
    spec = spec if isinstance(spec, Mapping) else {}
    if values.get("custom"):
        return dict(spec)
    kind = str(values.get("type") or "TCP").upper()
    target = values.get("port") or port or "http"
    probe: dict = {k: spec[k] for k in _TIMINGS if k in spec}
    if kind in ("HTTP", "HTTPS"):
        probe["httpGet"] = {"path": values.get("path") or "/", "scheme": kind, "port": target}
    elif kind == "GRPC":
        probe["grpc"] = {"port": target}
    else:
        probe["tcpSocket"] = {"port": target}
    return probe


def _primary_port(values: Mapping, controller: str) -> Any:
    """The port of the controller's primary service (its first port when none is marked primary), or None."""
    services = values.get("service")
    if not isinstance(services, Mapping):
        return None
    for service in services.values():
        if not isinstance(service, Mapping) or service.get("controller", controller) != controller:
            continue
        ports = service.get("ports")
        if isinstance(ports, Mapping) and ports:
            chosen = next((p for p in ports.values() if isinstance(p, Mapping) and p.get("primary")), None)
            chosen = chosen or next((p for p in ports.values() if isinstance(p, Mapping)), None)
            if chosen is not None:
                return chosen.get("targetPort") or chosen.get("port")
    return None


def _volumes(values: Mapping, controller: str) -> tuple[list[dict], dict[str, list[dict]], list[dict]]:
    """(pod volumes, mounts by container name, mounts of every container) of the enabled persistence items."""
    persistence = values.get("persistence")
    volumes: list[dict] = []
    by_container: dict[str, list[dict]] = {}
    everywhere: list[dict] = []
    if not isinstance(persistence, Mapping):
        return volumes, by_container, everywhere
    for ident, item in persistence.items():
        if not isinstance(item, Mapping) or item.get("enabled", True) is False:
            continue
        name = str(ident)
        kind = item.get("type") or "persistentVolumeClaim"
        if kind == "hostPath":
            volume: dict = {"name": name, "hostPath": {"path": item.get("hostPath")}}
            if item.get("hostPathType"):
                volume["hostPath"]["type"] = item["hostPathType"]
            default_path = item.get("hostPath")
        elif kind == "emptyDir":
            volume = {"name": name, "emptyDir": {k: item[k] for k in ("medium", "sizeLimit") if k in item}}
            default_path = f"/{name}"
        elif kind == "persistentVolumeClaim":
            volume = {"name": name, "persistentVolumeClaim": {"claimName": item.get("existingClaim") or name}}
            default_path = f"/{name}"
        elif kind in ("configMap", "secret") and isinstance(item.get("name"), str) and "{{" not in item["name"]:
            # the object named by ``name`` (pod/fields/_volumes.tpl:54-93@common-4.1.1; an ``identifier`` names one
            # of the chart's own, not read here), with its items and mode
            field = "name" if kind == "configMap" else "secretName"
            volume = {"name": name, kind: {field: item["name"], **{k: item[k] for k in ("items", "defaultMode") if k in item}}}
            default_path = f"/{name}"
        else:
            volume = {"name": name, str(kind): {}}
            default_path = f"/{name}"
        volumes.append(volume)
        glob = item.get("globalMounts")
        advanced = item.get("advancedMounts")
        if not glob and not advanced:
            everywhere.append({"name": name, "mountPath": default_path})
            continue
        for mount in glob if isinstance(glob, list) else []:
            if isinstance(mount, Mapping):
                everywhere.append(_mount(name, mount, default_path))
        mine = advanced.get(controller) if isinstance(advanced, Mapping) else None
        for cname, mounts in mine.items() if isinstance(mine, Mapping) else ():
            for mount in mounts if isinstance(mounts, list) else []:
                if isinstance(mount, Mapping):
                    by_container.setdefault(str(cname), []).append(_mount(name, mount, default_path))
    return volumes, by_container, everywhere


def _mount(name: str, mount: Mapping, default_path: Any) -> dict:
    out = {"name": name, "mountPath": mount.get("path") or default_path}
    out.update({k: mount[k] for k in ("subPath", "subPathExpr", "readOnly", "mountPropagation") if mount.get(k)})
    return out


def _container(name: str, values: Mapping, port: Any, mounts: list[dict]) -> dict:
    out: dict = {"name": name}
    image = values.get("image")
    if isinstance(image, Mapping):
        repository, tag = image.get("repository"), image.get("tag")
        if repository and tag:
            out["image"] = f"{repository}:{tag}"
        if image.get("pullPolicy"):
            out["imagePullPolicy"] = image["pullPolicy"]
    elif isinstance(image, str):
        out["image"] = image
    for key in _COPIED:
        if key in values:
            out[key] = [values[key]] if key in ("command", "args") and isinstance(values[key], str) else values[key]
    if "env" in values:
        out["env"] = _env(values["env"])
    probes = values.get("probes")
    for short, field in _PROBES:
        probe = probes.get(short) if isinstance(probes, Mapping) else None
        if isinstance(probe, Mapping) and (rendered := _probe(probe, port)) is not None:
            out[field] = rendered
    if mounts:
        out["volumeMounts"] = mounts
    return out


def _pod_options(values: Mapping, controller: Mapping) -> dict:
    defaults = values.get("defaultPodOptions")
    pod = dict(defaults) if isinstance(defaults, Mapping) else {}
    own = controller.get("pod")
    merge = values.get("defaultPodOptionsStrategy") == "merge"
    for key, value in own.items() if isinstance(own, Mapping) else ():
        if merge and isinstance(value, Mapping) and isinstance(pod.get(key), Mapping):
            pod[key] = {**pod[key], **value}
        elif value is not None:
            pod[key] = value
    return pod


def app_template_pod_specs(props: Mapping) -> list[tuple[str, dict]]:
    """The pods of an app-template release, as (``<values path>.controllers.<c>``, podspec), or [] for any other."""
    found = release_values(props)
    if found is None or not is_app_template(found[1]):
        return []
    path, values = found
    out = []
    for cname, controller in _controllers(values):
        port = _primary_port(values, cname)
        volumes, by_container, everywhere = _volumes(values, cname)
        pod = _pod_options(values, controller)
        pod.pop("annotations", None)
        pod.pop("labels", None)
        defaults = controller.get("defaultContainerOptions")
        defaults = defaults if isinstance(defaults, Mapping) else {}
        for section, field in (("containers", "containers"), ("initContainers", "initContainers")):
            listed = controller.get(section)
            if not isinstance(listed, Mapping):
                continue
            built = []
            for name, container in listed.items():
                if not isinstance(container, Mapping) or container.get("enabled", True) is False:
                    continue
                merged = {**defaults, **container}
                mounts = [*everywhere, *by_container.get(str(name), [])]
                built.append(_container(str(name), merged, port if section == "containers" else None, mounts))
            if built:
                pod[field] = built
        if volumes:
            pod["volumes"] = volumes
        if pod.get("containers"):
            out.append((f"{path}.controllers.{cname}", pod))
    return out


def app_template_services(props: Mapping) -> list[tuple[str, str, str]]:
    """(path, pod path of the controller it selects, type) of each enabled Service of an app-template release: the
    chart renders ``service.<s>`` with ``type`` (ClusterIP by default, classes/_service.tpl:9 at common-4.1.1) in front
    of ``service.<s>.controller``, the only enabled controller when none is named (service/_autoDetectController.tpl:
    9-13)."""
    found = release_values(props)
    if found is None or not is_app_template(found[1]) or not isinstance(services := found[1].get("service"), Mapping):
        return []
    path, values = found
    names = [name for name, _ in _controllers(values)]
    out = []
    for ident, service in services.items():
        if not isinstance(service, Mapping) or service.get("enabled", True) is False:
            continue
        controller = service.get("controller") or (names[0] if len(names) == 1 else None)
        if isinstance(controller, str):
            out.append((f"{path}.service.{ident}", f"{path}.controllers.{controller}", str(service.get("type") or "ClusterIP")))
    return out


def _object_name(release: str, ident: str, count: int, item: Mapping) -> str:
    """An object's name as the common library makes it (lib/common/_determineResourceNameFromValues.tpl at
    common-4.1.1): ``forceRename``, else the fullname, which app-template sets to the release name (app-template-4.1.1
    templates/common.yaml:4-8, global.nameOverride), with ``-<identifier>`` appended when the values enable more than
    one such object."""
    forced = item.get("forceRename")
    if isinstance(forced, str) and forced and "{{" not in forced:
        return forced.lower()
    name = release
    if count > 1 and not name.endswith(f"-{ident}") and ident != name:
        name = f"{name}-{ident}"
    return name.lower()


def _enabled(values: Mapping, key: str) -> list[tuple[str, Mapping]]:
    items = values.get(key)
    if not isinstance(items, Mapping):
        return []
    return [(str(i), v) for i, v in items.items() if isinstance(v, Mapping) and v.get("enabled", True) is not False]


def app_template_service_names(props: Mapping, release: str) -> dict[str, str]:
    """Service name -> pod path of the controller it selects, for the Services an app-template release of Helm release
    name ``release`` renders."""
    found = release_values(props)
    if found is None or not is_app_template(found[1]):
        return {}
    services = _enabled(found[1], "service")
    by_ident = {p.rsplit(".", 1)[1]: pod for p, pod, _ in app_template_services(props)}
    return {_object_name(release, i, len(services), s): by_ident[i] for i, s in services if i in by_ident}


def _service_ref(ref: Any, services: dict[str, str], only: str | None) -> str | None:
    """The Service name a route backendRef or an Ingress path's ``service`` sends to: its ``name``, or the Service of
    its ``identifier``, or the only enabled Service when it names neither (lib/routes/_autoDetectService.tpl:9-21,
    lib/ingress/_autoDetectService.tpl:9-19)."""
    ref = ref if isinstance(ref, Mapping) else {}
    if isinstance(ref.get("name"), str) and ref["name"]:
        return ref["name"]
    ident = ref.get("identifier")
    return services.get(str(ident)) if ident else only


def app_template_edges(props: Mapping, release: str, namespace: Any) -> list[tuple[str, dict]]:
    """(values path, rendered object) of each HTTPRoute/GRPCRoute (``route.<r>``, classes/_route.tpl at common-4.1.1:
    parentRefs, hostnames, rules with backendRefs and filters) and Ingress (``ingress.<i>``, classes/_ingress.tpl:
    annotations, className, tls, hosts) an app-template release renders, its backends named as the rendered Services."""
    found = release_values(props)
    if found is None or not is_app_template(found[1]):
        return []
    path, values = found
    enabled = _enabled(values, "service")
    services = {i: _object_name(release, i, len(enabled), s) for i, s in enabled}
    only = next(iter(services.values())) if len(services) == 1 else None
    out: list[tuple[str, dict]] = []
    for ident, item in (routes := _enabled(values, "route")):
        kind = str(item.get("kind") or "HTTPRoute")
        if kind not in ("HTTPRoute", "GRPCRoute"):
            continue  # a TCPRoute, UDPRoute or TLSRoute carries no HTTP API
        rules = []
        written = item.get("rules")
        for rule in written if isinstance(written, list) else [{}]:
            rule = rule if isinstance(rule, Mapping) else {}
            refs = rule.get("backendRefs")
            refs = refs if isinstance(refs, list) else [{}]
            backends = [{"name": n} for r in refs if (n := _service_ref(r, services, only))]
            rules.append({"backendRefs": backends, **{k: rule[k] for k in ("matches", "filters") if k in rule}})
        meta = {"name": _object_name(release, ident, len(routes), item), "namespace": namespace}
        if isinstance(item.get("annotations"), Mapping):
            meta["annotations"] = dict(item["annotations"])
        route = {"parentRefs": item.get("parentRefs") or [], "rules": rules}
        out.append(
            (
                f"{path}.route.{ident}",
                {"apiVersion": "gateway.networking.k8s.io/v1", "kind": kind, "metadata": meta, "spec": route},
            )
        )
    for ident, item in (ingresses := _enabled(values, "ingress")):
        paths = []
        hosts = item.get("hosts")
        for host in hosts if isinstance(hosts, list) else []:
            for entry in host.get("paths") or [] if isinstance(host, Mapping) else []:
                name = _service_ref(entry.get("service") if isinstance(entry, Mapping) else None, services, only)
                if name:
                    paths.append({"backend": {"service": {"name": name}}})
        meta = {"name": _object_name(release, ident, len(ingresses), item), "namespace": namespace}
        if isinstance(item.get("annotations"), Mapping):
            meta["annotations"] = dict(item["annotations"])
        spec: dict = {"rules": [{"http": {"paths": paths}}]}
        if item.get("className"):
            spec["ingressClassName"] = item["className"]
        if item.get("tls"):
            spec["tls"] = item["tls"]
        out.append(
            (f"{path}.ingress.{ident}", {"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": meta, "spec": spec})
        )
    return out
