"""Where a chat front end (Open WebUI) sends its model requests, as its release resolves its settings.

The apps and their settings are data (components/chat_uis.toml, each fact cited at a release). For a container that
runs one of them, ``ui_backends`` reads, per kind of backend, the URLs the app ends up with: the container's env over
the image's own (Open WebUI's image sets OLLAMA_BASE_URL=/ollama and ENV=prod), the plural variable before the
singular one, a legacy variable only while the singular one is empty, the relative value the image sets resolved as
the app resolves it in production (``/ollama``, or ``/ollama/``: one trailing slash is cut, -> http://host.docker.internal:11434 unless
USE_OLLAMA_DOCKER says otherwise), and K8S_FLAG winning over any URL in production, and the default URL (api.openai.com) counted only with a key. A value the files do not
show (valueFrom, envFrom, a template) makes the backend unknown, never wrong.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Optional

import components
from components.images import image_tag
from components.parse_cache import read_toml
from policies.kube import as_dict, as_list, name_of

TABLE = Path(components.__file__).resolve().with_name("chat_uis.toml")  # installed as llm_serving too


@dataclass(frozen=True)
class Backend:
    """One kind of backend of an app row (components/chat_uis.toml [[apps.NAME.backends]])."""

    name: str
    urls: str
    url: str
    legacy: str
    legacy_suffix: str
    enable: str
    keys: tuple[str, ...]
    default: str
    needs_key: bool
    relative: str
    relative_url: str
    flag: str
    flag_url: str
    bundle_flag: str
    bundle_url: str


@dataclass(frozen=True)
class App:
    key: str
    display: str
    images: tuple[str, ...]
    bundled_tags: tuple[str, ...]
    separator: str
    image_env: tuple[tuple[str, str], ...]
    backends: tuple[Backend, ...]
    checked_tags: tuple[str, ...] = ()
    port: int = 0  # the port the publisher's image serves on (0: not read)
    health: str = ""  # its health path ("" not read)
    auth: tuple[tuple[str, object], ...] = ()  # [apps.NAME.auth]: login switch and session key settings (G87)

    def auth_fact(self, key: str, default: object = "") -> object:
        """One [apps.NAME.auth] fact (switch, switch_on, session_keys, session_key_file_env, session_key_file)."""
        return dict(self.auth).get(key, default)


@cache
def apps() -> tuple[App, ...]:
    """The rows of components/chat_uis.toml, read once."""
    out = []
    for key, row in read_toml(TABLE)["apps"].items():
        backends = tuple(
            Backend(**{**{k: v for k, v in b.items() if k != "keys"}, "keys": tuple(b.get("keys", ()))}) for b in row["backends"]
        )
        out.append(
            App(
                key=key,
                display=row["display"],
                images=tuple(i.lower() for i in row["images"]),
                bundled_tags=tuple(t.lower() for t in row.get("bundled_tags", ())),
                separator=row["list_separator"],
                image_env=tuple((str(k), str(v)) for k, v in row.get("image_env", {}).items()),
                backends=backends,
                checked_tags=tuple(str(t).lower() for t in row.get("checked_tags", ())),
                port=int(row.get("port", 0)),
                health=str(row.get("health", "")),
                auth=tuple((str(k), tuple(v) if isinstance(v, list) else v) for k, v in row.get("auth", {}).items()),
            )
        )
    return tuple(out)


def unchecked_tag(container: Mapping, app: App) -> Optional[str]:
    """The container's image tag when it is not one of the releases the app's facts were read at (``checked_tags``):
    a floating tag (main, latest) or another release may resolve its settings otherwise. None when checked or untagged
    with a digest."""
    tag = image_tag(str(container.get("image")))
    if not tag or not app.checked_tags:
        return None
    bare = tag.lower().removeprefix("v")
    return None if any(bare == t or bare.startswith(t + "-") for t in app.checked_tags) else tag


def ui_app(container: Mapping) -> Optional[App]:
    """The app row whose image the container runs (its own entrypoint: no command), or None."""
    image = container.get("image")
    if not isinstance(image, str) or as_list(container.get("command")):
        return None
    lowered = image.lower()
    return next((a for a in apps() if any(m in lowered for m in a.images)), None)


def _repository_name(image: str) -> str:
    """The last path segment of an image reference, without its tag or digest (``kopi/openwebui@sha256:...`` ->
    ``openwebui``)."""
    bare = image.lower().split("@", 1)[0]
    last = bare.rsplit("/", 1)[-1]
    return last.split(":", 1)[0]


def rebuilt_ui_app(container: Mapping) -> Optional[App]:
    """The app row of a container that runs a rebuild of a chat UI under another publisher's name: its image repository
    is named as the app's (``open-webui`` or ``openwebui``, spent set 116 walidshaari/sample-aws-eks-auto-mode
    examples/gpu/open-webui.yaml ``kopi/openwebui@sha256:...``) and the container writes the app's own login switch
    (``WEBUI_AUTH``) in its env, so it is the app whatever the registry. None for the publisher's image (``ui_app``) and
    for anything else. Only the switch is read from such a container: a rebuild may move the image's other facts
    (its environment, its key file), so callers other than the login switch keep to ``ui_app``."""
    image = container.get("image")
    if not isinstance(image, str) or as_list(container.get("command")) or ui_app(container) is not None:
        return None
    name = _repository_name(image)
    written = {name_of(as_dict(e)) for e in as_list(container.get("env"))}
    for app in apps():
        own = {_repository_name(i) for i in app.images}
        switch = app.auth_fact("switch")
        if switch and switch in written and (name in own or name in {o.replace("-", "") for o in own}):
            return app
    return None


@dataclass(frozen=True)
class Resolved:
    """What one kind of backend resolves to: ``urls`` (with the variable each came from), or ``unknown`` when a value
    the files do not show may set it; ``off`` when the app's switch turns it off; ``notes`` say how it was read."""

    backend: Backend
    urls: tuple[tuple[str, str], ...]
    unknown: bool
    off: bool
    notes: tuple[str, ...]


def _env(container: Mapping) -> tuple[dict[str, Optional[str]], bool]:
    """The container's variables (a literal string, or None for a value the files do not show) and whether
    an envFrom may set any other."""
    env: dict[str, Optional[str]] = {}
    for item in (as_dict(e) for e in as_list(container.get("env"))):
        name = name_of(item)
        if not isinstance(name, str):
            continue
        value = item.get("value")
        if "valueFrom" in item:
            env[name] = None
        elif isinstance(value, str):
            env[name] = None if ("{{" in value or "${" in value or "$(" in value) else value
        else:
            env[name] = ""
    return env, bool(as_list(container.get("envFrom")))


def bundled(container: Mapping, app: App) -> bool:
    """True when the container's image tag says the image also runs the model server inside (Open WebUI's :ollama)."""
    tag = (image_tag(str(container.get("image"))) or "").lower()
    return any(t in tag for t in app.bundled_tags)


def ui_backends(container: Mapping, app: App) -> list[Resolved]:
    """Each kind of backend the app resolves for this container (module docstring)."""
    own, env_from = _env(container)
    env: dict[str, Optional[str]] = {**dict(app.image_env), **own}

    def value(name: str) -> Optional[str]:
        """The variable's value: a string, None (unknown), or "" (unset)."""
        if not name:
            return ""
        if name in env:
            return env[name]
        return None if env_from else ""

    in_image = bundled(container, app)
    out = []
    for b in app.backends:
        notes: list[str] = []
        enabled = value(b.enable)
        if isinstance(enabled, str) and enabled.strip().lower() == "false":
            out.append(Resolved(b, (), False, True, ()))
            continue
        plural, single = value(b.urls), value(b.url)
        if plural is None or single is None:
            out.append(Resolved(b, (), True, False, ()))
            continue
        if plural:
            urls = [(b.urls, u.strip()) for u in plural.split(app.separator) if u.strip()]
            out.append(Resolved(b, tuple(urls), False, False, ()))
            continue
        source, url = b.url, single
        if not url and b.legacy:
            legacy = value(b.legacy)
            if legacy is None:
                out.append(Resolved(b, (), True, False, ()))
                continue
            if legacy:
                source, url = b.legacy, legacy.removesuffix(b.legacy_suffix) if b.legacy_suffix else legacy
        elif url and b.legacy and isinstance(own.get(b.legacy), str) and own.get(b.legacy) and b.url not in own:
            notes.append(
                f"{b.legacy} is set, but {app.display} reads it only while {b.url} is empty, and its image sets {b.url}={url}"
            )
        if url and b.relative and url.endswith("/"):
            url = url[:-1]  # the app cuts one trailing slash before comparing (b8912aa67 config.py L857-861)
        if b.relative_url and value("ENV") == "prod" and (url == b.relative or (b.flag and value(b.flag) != "")):
            # In production the flag wins over any URL (config.py L873-882: `elif K8S_FLAG`), the relative value
            # resolves to the bundled or host URL; a flag the files do not show leaves the backend unknown.
            flag, bundle = value(b.flag), value(b.bundle_flag)
            if flag is None or bundle is None:
                out.append(Resolved(b, (), True, False, tuple(notes)))
                continue
            given = url
            if flag:
                url = b.flag_url
            elif (isinstance(bundle, str) and bundle.lower() == "true") or in_image:
                url = b.bundle_url
            else:
                url = b.relative_url
            if given == b.relative:
                notes.append(f"{b.url}={b.relative} (the image's) resolves in production to {url}")
            else:
                notes.append(f"{b.flag} is set, so in production {b.url} ({given or 'unset'}) becomes {url}")
        if not url and b.default:
            keys = [value(k) for k in b.keys]
            if any(k is None for k in keys):
                out.append(Resolved(b, (), True, False, tuple(notes)))
                continue
            if b.needs_key and not any(keys):
                out.append(Resolved(b, (), False, False, tuple(notes)))  # the default URL without a key serves nothing
                continue
            url = b.default
        out.append(Resolved(b, ((source, url),) if url else (), False, False, tuple(notes)))
    return out
