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


def test_a_literal_compared_with_something_else_stays_silent():
    # Review 43 #3: a script that reads the Authorization header and compares the *path* (or a model id) with a
    # literal holds no key.
    code = """function envoy_on_request(request_handle)
  local auth = request_handle:headers():get("authorization")
  local path = request_handle:headers():get(":path")
  local model = request_handle:headers():get("x-model")
  if path == "/v1/completions" and auth == nil then
    request_handle:respond({[":status"] = "401"}, "missing token")
  end
  if model == "llama-3-1-8b-instruct" then
    request_handle:headers():add("x-pool", "pool1")
  end
end
"""
    assert found_by([_with_code(code)], "no-literal-credential") == []
    # The header read compared directly, literal on either side: the key.
    direct = code.replace(
        'if path == "/v1/completions" and auth == nil', f'if "{_KEY}" ~= request_handle:headers():get("authorization")'
    )
    ((level, _),) = found_by([_with_code(direct)], "no-literal-credential")
    assert level == "mandatory"


def test_long_code_is_read_in_linear_time():
    # A 400 KB blob (under the 1 MiB file limit) of identifiers, dots or quotes beside a header read: each pattern is
    # anchored or bounded, so the read stays linear (measured 1.4 s for 400k of each form here, under load).
    import time

    from policies.k8s_generic.no_literal_credential import _compared_key

    start = time.perf_counter()
    for blob in ("a" * 200_000 + ' == "abc123456789xyz"', "ab." * 70_000, "= " * 100_000, '"' * 200_000):
        assert _compared_key('x = get("authorization")\n' + blob) is None
    assert time.perf_counter() - start < 20
