"""G35 (beside no-literal-secret-env): no object other than a Secret holds a literal credential anywhere in its spec.

no-literal-secret-env reads the places a pod takes a credential from (env, arguments, ConfigMap data). Other objects
carry them too: a gateway route matching an ``Authorization: Bearer sk-...`` header value (Envoy AI Gateway's
AIGatewayRoute), an operator CR's embedded settings, a scaler's metadata. A credential-shaped string there (the same
shapes components/secrets.py recognises: OpenAI/Anthropic-style ``sk-`` keys, Hugging Face ``hf_`` tokens, AWS keys,
GitHub tokens, JWTs, ...) is clear text to anyone who can read the object, and it is in the repository. So is a
``name``/``value`` pair whose name is a credential's (an ``Authorization`` or ``x-api-key`` header, or a name
no-literal-secret-env's patterns match) with a literal value, whatever its shape (Envoy AI Gateway's own example
matches ``Authorization: sk-abcdefghijklmnopqrstuvwxyz``, envoyproxy/ai-gateway examples/inference-pool/aigwroute.yaml).
Secrets are where credentials belong; ConfigMaps and the containers of workloads are no-literal-secret-env's (the rest
of a workload's spec is read here: a RayService's serveConfigV2 text, comments inside it included; and a token in a YAML
comment of a manifest file, which no object carries: policies/input/comment_tokens.py). A Secret *manifest*
committed with its value is not: a credential-shaped string in its ``stringData`` or (base64-decoded) ``data`` is in
the repository's history, so it blocks; any other literal under a credential's name (``HF_TOKEN: "hf_xxxxxxxx"``, a
value to replace in place) is advice, since the file invites committing the real one (a SealedSecret, an
ExternalSecret or a Secret created at deploy time keeps it out). Empty values and template placeholders are silent,
and so is a Secret a Pulumi program declares (it has a URN): its value comes from the stack's encrypted config at
deploy time, which is the careful form, and the engine may show it decrypted to a policy pack.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any, Iterator, Optional

from components.secrets import NOT_A_SECRET, first_token, placeholder_value
from components.server_keys import SERVER_KEYS
from policies.framework import UNKNOWN, Policy, Resource, unproven
from policies.helm_charts import chart_literal_credentials
from policies.input.comment_tokens import COMMENT_TYPE
from policies.k8s_generic.no_literal_secret_env import CONFIG_MAP_TYPE, NAME_PATTERNS, looks_secret, stand_in_password
from policies.kube import as_dict, as_list, get, workload_types
from policies.reading.placeholders import placeholder_in
from policies.reading.secrets import variables_of_key
from policies.reading.sops import CIPHERTEXT, sops_encrypted

_MAX_DEPTH = 24
_MAX_NODES = 20_000
# Header names that carry a credential (RFC 9110 Authorization; the x-api-key convention), beside the env patterns.
_CREDENTIAL_NAMES = ("AUTHORIZATION", "PROXY_AUTHORIZATION", "X_API_KEY", "API_KEY")
_SECRET_TYPE = "kubernetes:core/v1:Secret"
# Variables through which a server takes the key it enforces (LITELLM_MASTER_KEY, VLLM_API_KEY).
_SERVER_ENV = frozenset(n for s in SERVER_KEYS for n in s.env)
# A workload's containers (their env, args, command, probes) are no-literal-secret-env's; the rest of its spec is read
# here: a RayService's serveConfigV2 text (runtime_env env_vars, and the YAML comments inside that block scalar: set 15,
# usman0491/vllm-demo simple_ray_vllm/vllm-ray-service.yaml@8d2a879 comments out a real HUGGING_FACE_HUB_TOKEN there),
# an annotation-like field of an operator's pod template.
_WORKLOAD_TYPES = frozenset(workload_types())
_SKIP_TYPES = frozenset({_SECRET_TYPE, CONFIG_MAP_TYPE})
# Keys only a container (or KServe's predictor model, a container) has: such a dict is no-literal-secret-env's.
_CONTAINER_KEYS = frozenset({"env", "envFrom", "args", "command", "image"})
# Secret types whose values are not credentials a person pasted (the token controller fills these).
_SECRET_TYPES_SKIPPED = frozenset({"kubernetes.io/service-account-token"})
# How a value the reader fills in starts ("${API_KEY}", "{{ .Values.key }}", "<your key>"); in a Secret also "[secret]",
# how the plan shows a Pulumi secret.
_PLACEHOLDER_STARTS = ("$", "{{", "<")


def _credential_key(key: str) -> bool:
    """True for a name (upper case, ``_`` for ``-``) that carries a credential: a header's or an env pattern's."""
    return key in _CREDENTIAL_NAMES or looks_secret(key, NAME_PATTERNS)


def _named_credential(item: dict) -> bool:
    """A ``{name: Authorization, value: <literal>}`` pair (a header match, a parameter list): a credential by name."""
    name, value = item.get("name"), item.get("value")
    if not isinstance(name, str) or not isinstance(value, str) or not value.strip() or "valueFrom" in item:
        return False
    if value.strip().startswith(_PLACEHOLDER_STARTS) or placeholder_value(value, name):
        return False  # a placeholder the reader fills in
    return _credential_key(name.upper().replace("-", "_"))


# Code inside an object (an EnvoyFilter's Lua inlineCode, a Wasm or ext_proc config's script) that reads a credential
# header and compares it with a quoted literal: the literal is the key. Set 39 (spent early this session),
# prokube/vllm-serving helm-example/admin/envoyfilter.yaml@38112a4: `local api_key = request_handle:headers():get("x-api-key")` then
# `if api_key ~= "<16 letters and digits>" then` (Envoy's Lua filter API: envoyproxy/envoy docs
# configuration/http/http_filters/lua_filter.rst, headers():get()).
_HEADER_NAMES = r"x-api-key|api-key|apikey|authorization|x-auth-token"
# `local api_key = request_handle:headers():get("x-api-key")`, `key = request.headers.get("Authorization")`
_HEADER_READ = re.compile(
    r"""(?<![A-Za-z0-9_])([A-Za-z_][A-Za-z0-9_]{0,63})\s*=\s*[^\n=]{0,200}?get\(\s*["'](?:%s)["']\s*\)""" % _HEADER_NAMES, re.I
)
_HEADER_CALL = r"""[\w:.()]{0,80}get\(\s*["'](?:%s)["']\s*\)""" % _HEADER_NAMES
_LITERAL = r"""["']((?:Bearer\s+)?[A-Za-z0-9_\-.+/=]{12,})["']"""
_OPERATOR = r"\s*(?:~=|==|!=)\s*"


def _compared_key(text: str) -> Optional[str]:
    """The literal a code string compares a credential header's value with (the variable it read the header into,
    or the read itself, on one side of ``==``/``~=``/``!=``), when it holds letters and digits and is no path or
    placeholder; else None (review 43 #3: a path compared elsewhere in the same script is no key)."""
    if "get(" not in text:
        return None
    sides = [re.escape(v) for v in _HEADER_READ.findall(text)] + [_HEADER_CALL]
    for side in sides:
        for pattern in (rf"(?<![\w.]){side}{_OPERATOR}{_LITERAL}", rf"{_LITERAL}{_OPERATOR}{side}(?![\w])"):
            for match in re.finditer(pattern, text):
                literal = match.group(1).removeprefix("Bearer").strip()
                filled = placeholder_value(literal) or placeholder_in(literal)
                if literal.startswith("/") or filled:
                    continue
                if re.search(r"[A-Za-z]", literal) and re.search(r"\d", literal):
                    return literal
    return None


def _literal_credential(value: Any, path: str, skip_containers: bool = False) -> Optional[tuple[str, str]]:
    """(path, what it looks like) of the first literal credential in a value, walked depth-first in document order and
    bounded in depth and size: a credential-shaped string, or a name/value pair named like a credential. With
    ``skip_containers`` a container-shaped dict is passed over (no-literal-secret-env reads those)."""
    stack: list[tuple[str, Any, int]] = [(path, value, 0)]
    seen = 0
    while stack and seen < _MAX_NODES:
        where, item, depth = stack.pop()
        seen += 1
        if isinstance(item, str):
            if (token := first_token(item)) is not None:
                return where, token.described
            if _compared_key(item) is not None:
                return where, "an API key: code that compares a credential header with a literal"
        elif isinstance(item, dict) and skip_containers and not _CONTAINER_KEYS.isdisjoint(item):
            continue
        elif isinstance(item, dict) and _named_credential(item):
            return f"{where}.value", f"a literal value for {item['name']}"
        elif isinstance(item, dict) and depth < _MAX_DEPTH:
            stack.extend((f"{where}.{k}", v, depth + 1) for k, v in reversed(list(item.items())) if isinstance(k, str))
        elif isinstance(item, list) and depth < _MAX_DEPTH:
            stack.extend((f"{where}[{i}]", v, depth + 1) for i, v in reversed(list(enumerate(item))))
    return None


def _secret_values(props: dict) -> Iterator[tuple[str, str]]:
    """(path, text) of a Secret's stringData values and its base64-decoded data values (undecodable ones skipped)."""
    for key, value in as_dict(props.get("stringData")).items():
        if isinstance(value, str):
            yield f"stringData.{key}", value
    for key, value in as_dict(props.get("data")).items():
        try:
            yield f"data.{key}", base64.b64decode(str(value), validate=True).decode("utf-8")
        except (binascii.Error, ValueError):
            continue


def _namespace(props: dict) -> Optional[str]:
    namespace = get(props, "metadata", "namespace")
    return namespace if isinstance(namespace, str) and namespace else None


def _secret_finding(props: dict) -> Optional[str]:
    """The message for a committed Secret holding a literal credential (advice when only its name says so)."""
    if isinstance(props.get("type"), str) and props["type"] in _SECRET_TYPES_SKIPPED:
        return None
    if sops_encrypted(props):
        return None  # a SOPS-encrypted file (policies/reading/sops.py): its values are ciphertext
    named: Optional[str] = None
    readers: Optional[dict[str, frozenset[str]]] = None
    for where, text in _secret_values(props):
        if (token := first_token(text)) is not None:
            return f"{where} holds {token.described} in clear text: {_SECRET_FIX}"
        literal = text.strip()
        if literal.startswith((CIPHERTEXT, *_PLACEHOLDER_STARTS, "[")) or not literal or placeholder_in(literal, (where,)):
            continue  # ciphertext, a value rendered at deploy time ([secret]: the plan's Pulumi secret), or a fill-in
        key = where.split(".", 1)[1]
        if readers is None:
            readers = variables_of_key(_namespace(props), get(props, "metadata", "name"))
        if (server := _SERVER_ENV.intersection(readers.get(key, ()))) and literal.lower() not in NOT_A_SECRET:
            # The key a server of the files enforces (components/server_keys.toml), read through secretKeyRef: the
            # committed value is that server's admin or API key whatever its words (spent set 51
            # roen019/LiteLLM-K8s-Deploy@738ba83b local-manifests/secrets.yaml master-key, read as LITELLM_MASTER_KEY).
            return f"{where} holds the key {sorted(server)[0]} of the server that reads it, in clear text: {_SECRET_FIX}"
        if placeholder_value(literal, where) or stand_in_password(literal):
            continue  # a fill-in (S27/S28 report those) or a stand-in such as changeme
        if named is None and (
            _credential_key(key.upper().replace("-", "_").replace(".", "_"))
            or any(_credential_key(v) for v in readers.get(key, ()))
        ):
            named = where
    if named is not None:
        return unproven(f"{named} holds a literal value under a credential's name: {_SECRET_FIX}")
    return None


_SECRET_FIX = (
    "a Secret manifest committed with its value puts the credential in the repository's history; create the Secret at "
    "deploy time, or commit a SealedSecret/ExternalSecret, and rotate the value"
)


_AUTHZ_TYPES = ("kubernetes:security.istio.io/v1:AuthorizationPolicy", "kubernetes:security.istio.io/v1beta1:AuthorizationPolicy")
_CREDENTIAL_HEADER_KEYS = ("request.headers[authorization]", "request.headers[x-api-key]", "request.headers[api-key]")


def _rendered_header_key(props: dict) -> Optional[str]:
    """Where an Istio AuthorizationPolicy compares a credential header with a value the deploy fills in ("Bearer
    ${OPEN_API_KEY}", rendered by envsubst): the key is then written into the AuthorizationPolicy itself, a non-Secret
    object (a when condition's values cannot reference a Secret: istio.io security/v1beta1 Condition has key, values,
    notValues only). Spent set 17: akamai-developers/kuberay-gpu-llm-quickstart manifests/gateway.yaml@2622d85."""
    for i, rule in enumerate(as_list(get(props, "spec", "rules"))):
        for j, cond in enumerate(as_list(as_dict(rule).get("when"))):
            cond = as_dict(cond)
            if str(cond.get("key", "")).lower() not in _CREDENTIAL_HEADER_KEYS:
                continue
            for value in as_list(cond.get("values")) + as_list(cond.get("notValues")):
                # The check hands rules an unrendered value as UNKNOWN (policies/reading/placeholders.py).
                if value is UNKNOWN or (isinstance(value, str) and ("${" in value or "{{" in value)):
                    return f"spec.rules[{i}].when[{j}] {cond.get('key')}"
    return None


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    findings: list[tuple[str, str]] = []
    for r in resources:
        if r.type in _AUTHZ_TYPES and isinstance(r.props, dict) and (where := _rendered_header_key(r.props)):
            findings.append(
                (
                    r.name,
                    unproven(
                        f"{where} matches a credential header against a value filled in at deploy time; the key is "
                        f"then rendered into this AuthorizationPolicy, clear text to anyone who reads the object (a "
                        f"condition cannot reference a Secret); check a JWT with RequestAuthentication, or an API key at "
                        f"an ext_authz provider or the model server (vLLM --api-key from a Secret)"
                    ),
                )
            )
    for r in resources:
        if r.type == COMMENT_TYPE:
            # A token in a YAML comment of a manifest file (policies/input/comment_tokens.py): no object carries it,
            # but the file, and so the repository's history, does.
            props = as_dict(r.props)
            comment = (
                f"line {props.get('line')}: a YAML comment holds what looks like {props.get('described')}; a "
                "credential commented out is still committed: delete it from the file (and its history) and rotate it"
            )
            if props.get("in_manifest") is False:
                # A file with no Kubernetes object (a Helm values.yaml): its comments document example values, and
                # the pack reads nothing else of it, so the shape alone does not prove a credential (review 28 #5).
                comment = unproven(f"{comment} (the file holds no Kubernetes object: if this is an example value, ignore)")
            findings.append((r.name, comment))
            continue
        if r.type == _SECRET_TYPE and isinstance(r.props, dict):
            # Only a manifest file (no URN) is a Secret committed with its value; see the module docstring.
            if not r.urn and (message := _secret_finding(r.props)) is not None:
                findings.append((r.name, message))
            continue
        if r.type in _SKIP_TYPES or not isinstance(r.props, dict):
            continue
        # One finding an object: the rest of its literals are the same problem.
        if (found := _literal_credential(r.props.get("spec"), "spec", r.type in _WORKLOAD_TYPES)) is not None:
            where, described = found
            findings.append(
                (
                    r.name,
                    f"{where} holds what looks like {described}; keep credentials in a Secret and have the "
                    f"controller read it from there (a literal here is clear text to anyone who reads the object "
                    f"and stays in the repository's history)",
                )
            )
        elif (message := _chart_literal(r.props)) is not None:
            findings.append((r.name, message))
    return findings


def _chart_literal(props: dict) -> Optional[str]:
    """Advice on a release whose values give a credential as a literal string that its chart copies into a Secret of
    its own (policies/helm_charts.py chart_literal_credentials: vllm-stack's ``servingEngineSpec.vllmApiKey`` and
    ``modelSpec[].hf_token``, deployment-vllm-multi.yaml:209-237@vllm-stack-0.1.5): the key is in the repository
    whatever its shape. Placeholders and envsubst variables are silent; advice, as any literal under a credential's
    name is (module docstring)."""
    if props.get("kind") not in ("HelmRelease", "Application", "HelmChart"):
        return None
    for where, what, literal in chart_literal_credentials(props):
        if literal.strip().startswith(_PLACEHOLDER_STARTS) or placeholder_value(literal, "API_KEY"):
            continue
        return unproven(
            f"{where} gives {what} as a literal, which the chart copies into its own Secret: the key is clear text in "
            f"the repository and its history; give the chart a Secret made elsewhere ({{secretName, secretKey}}) and "
            f"rotate this one"
        )
    return None


POLICY = Policy(
    name="no-literal-credential",
    description="No object other than a Secret holds a credential-shaped literal in its spec (a route's header match, "
    "an operator CR's settings), and no Secret manifest is committed with a literal token in stringData or data; "
    "the containers of workloads and ConfigMaps are no-literal-secret-env's (a RayService's serveConfigV2 is read here); "
    "nor does a YAML comment of a manifest file hold a credential-shaped token (advice in a file with no Kubernetes "
    "object, such as a Helm values.yaml).",
    catalog="G35",
    severity="critical",
    enforcement="mandatory",
    remediation_steps="Move the credential into a Secret and reference it the way the object's controller reads one "
    "(a secretRef, a SecurityPolicy's apiKeyAuth credentialRefs for Envoy Gateway); rotate the exposed value.",
    config_schema={},
    check_stack=_check,
    per_object=True,
    rationale=(
        "Objects other than Secrets are not encrypted at rest by default and are readable by anyone with get on their "
        "kind (https://kubernetes.io/docs/concepts/configuration/secret/); a literal key in a manifest is also in the "
        "repository's history. Same token shapes as no-literal-secret-env (components/secrets.py)."
    ),
)
