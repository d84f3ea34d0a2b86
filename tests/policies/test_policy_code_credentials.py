"""G35 no-literal-credential: code inside an object that compares a credential header with a literal holds the key.

Fixture: set 39 (spent early this session), prokube/vllm-serving helm-example/admin/envoyfilter.yaml
@38112a4f540578934d85a32e3971372a38ec08f8: an Istio EnvoyFilter whose Lua inlineCode reads the x-api-key header
(request_handle:headers():get, envoyproxy/envoy docs configuration/http/http_filters/lua_filter.rst) and answers 403
unless it equals a 16-character literal. The key below is made up; the message never prints it.
Silent: the same filter comparing with a value read from the environment, with a placeholder, and a Lua filter that
compares another header with a literal.
"""

from __future__ import annotations

import copy

from tests.policies.policy_fixtures import found_by

_KEY = "k3yF0rT3stsOnly99"
_LUA = f"""function envoy_on_request(request_handle)
  local path = request_handle:headers():get(":path")
  if string.match(path, "^/vllm%-serving/") then
    local api_key = request_handle:headers():get("x-api-key")
    if api_key ~= "{_KEY}" then
      request_handle:respond({{[":status"] = "403"}}, "Forbidden: Missing or invalid API key")
    end
  end
end
"""
_FILTER = {
    "apiVersion": "networking.istio.io/v1alpha3",
    "kind": "EnvoyFilter",
    "metadata": {"name": "ingress-gateway-api-key-check", "namespace": "istio-system"},
    "spec": {
        "workloadSelector": {"labels": {"istio": "ingressgateway"}},
        "configPatches": [
            {
                "applyTo": "HTTP_FILTER",
                "match": {"context": "GATEWAY"},
                "patch": {
                    "operation": "INSERT_BEFORE",
                    "value": {
                        "name": "envoy.lua",
                        "typed_config": {
                            "@type": "type.googleapis.com/envoy.extensions.filters.http.lua.v3.Lua",
                            "inlineCode": _LUA,
                        },
                    },
                },
            }
        ],
    },
}


def _with_code(code: str) -> dict:
    changed = copy.deepcopy(_FILTER)
    changed["spec"]["configPatches"][0]["patch"]["value"]["typed_config"]["inlineCode"] = code
    return changed


def test_a_lua_filter_comparing_the_api_key_with_a_literal_blocks():
    ((level, message),) = found_by([_FILTER], "no-literal-credential")
    assert level == "mandatory"
    assert message.startswith(
        "spec.configPatches[0].patch.value.typed_config.inlineCode holds what looks like an API key: code that "
        "compares a credential header with a literal"
    )
    assert _KEY not in message


def test_careful_code_stays_silent():
    assert found_by([_with_code(_LUA.replace(f'"{_KEY}"', 'os.getenv("API_KEY")'))], "no-literal-credential") == []
    assert found_by([_with_code(_LUA.replace(_KEY, "REPLACE_WITH_KEY_123"))], "no-literal-credential") == []
    other = _LUA.replace('"x-api-key"', '"x-request-source"')
    assert found_by([_with_code(other)], "no-literal-credential") == []
