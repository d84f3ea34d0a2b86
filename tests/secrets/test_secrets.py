"""components/secrets.py: the one decision on "is this a secret" and on credential shapes."""

from __future__ import annotations

import pytest

from components.secrets import find_tokens, first_token, is_secret, printable, redact_tokens, scan

HF = "hf_" + "Ab3" * 12


@pytest.mark.parametrize(
    "value,expected",
    [
        ({"secure": "v1:abc"}, True),
        ({"secure": 123}, False),
        ({"secure": "v1:abc", "other": 1}, False),
        ("v1:abc", False),
        ({}, False),
        (None, False),
        (["secure"], False),
    ],
)
def test_is_secret_is_pulumis_secure_form_only(value, expected):
    assert is_secret(value) is expected


@pytest.mark.parametrize(
    "text,kind,prefix",
    [
        (HF, "Hugging Face token", "hf_"),
        # letters only, switching case at random: real tokens are so about once in 400 (set 15, usman0491/vllm-demo)
        ("hf_" + "QwErTYuiOPasDFghJKlzXCvbNMqwERtyUI", "Hugging Face token", "hf_"),
        ("api_org_" + "Ab3" * 11, "Hugging Face token", "api_org_"),
        ("AKIAIOSFODNN7EXAMPLE", "AWS access key id", "AKIA"),
        ("ASIA" + "Z7" * 8, "AWS access key id", "ASIA"),
        ("ghp_" + "a1B2" * 9, "GitHub token", "ghp_"),
        ("github_pat_" + "11AB" * 10 + "x9", "GitHub token", "github_pat_"),
        ("glpat-" + "aB3" * 7, "GitLab token", "glpat-"),
        ("sk-" + "Ab1" * 16, "OpenAI/Anthropic API key", "sk-"),
        ("sk-proj-" + "Ab1" * 15, "OpenAI/Anthropic API key", "sk-proj-"),
        ("sk-ant-api03-" + "Ab1_" * 10, "OpenAI/Anthropic API key", "sk-ant-api03-"),
        ("xoxb-1234567890-abcdefghij", "Slack token", "xoxb-"),
        ("AIza" + "Sy0" * 11 + "xy", "Google API key", "AIza"),
        ("sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc", "Stripe key", "sk_live_"),
        ("eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzeXN0ZW0ifQ.c2lnbmF0dXJlMTIz", "JSON Web Token", "eyJ"),
        ("-----BEGIN RSA PRIVATE KEY-----", "private key", "-----BEGIN "),
    ],
)
def test_token_shapes(text, kind, prefix):
    for wrapped in (text, f"--flag={text}", f"url https://u:{text}@host/x", f"'{text}'"):
        token = first_token(wrapped)
        assert token is not None and (token.kind, token.prefix) == (kind, prefix), wrapped
        assert text not in redact_tokens(wrapped)
        assert f"{prefix}...[redacted]" in redact_tokens(wrapped)


@pytest.mark.parametrize(
    "text",
    [
        "meta-llama/Llama-3.1-8B-Instruct",
        "0e9e39f249a16976918f6564b8830bc894c89659",
        "vllm/vllm-openai:v0.33.0",
        "desk-" + "a1" * 20,
        "task-assistant-model-2024-finetuned-v1-final",
        "hf_short1",
        "sk-" + "word" * 10,
        "hf_" + "YourHuggingFaceTokenGoesHereXyzAbc",  # a placeholder: one capital a word
        "hf_" + "X" * 34,
        # placeholders padded with capitals or carrying acronyms (review 28 #2): words, runs of one letter
        "hf_" + "YourHuggingFaceTokenHere" + "X" * 10,
        "hf_" + "ChangeMeToYourOwnHFTokenFromHFCo",
        "sk-" + "ReplaceWithYourOpenAIKeyHEREPlease",
        "hf_" + "xxxYYYzzzAAAbbbCCCdddEEEfffGGGhhhI",
        "hf_" + "ExampleTokenValueXYZabcDEFghiJKLmn",
        "hf_" + "QwErTYuiOPasDFghJKlzXCvbNMqwERtyUIabcdefghijklmnopqrs",  # switches bunched at the start
        "AKIA-not-a-key",
        "--max-num-batched-tokens=8192",
        "v1:RvcCpmij+ppCX+RdnQrVvvU6k/MveF1K2jxRujpWCH4AfsfNYOCwaw==",
        "https://huggingface.co/hf_models",
        "$(HF_TOKEN)",
    ],
)
def test_ordinary_text_is_not_a_token(text):
    assert find_tokens(text) == []
    assert redact_tokens(text) == text


def test_several_tokens_are_all_redacted():
    text = f"a {HF} b AKIAIOSFODNN7EXAMPLE c"
    assert redact_tokens(text) == "a hf_...[redacted] b AKIA...[redacted] c"


def test_scan_walks_keys_and_values_iteratively_and_skips_secrets():
    deep: dict = {}
    node = deep
    for _ in range(10_000):
        node["k"] = {}
        node = node["k"]
    node["v"] = HF
    found = list(scan({"a": [1, {"b": HF}], HF: 2, "s": {"secure": HF}, "deep": deep}))
    paths = [p for p, _ in found]
    assert ("a", 1, "b") in paths and () in paths
    assert any(len(p) == 10_002 for p in paths)
    assert not any(p[:1] == ("s",) for p in paths)


def test_scan_of_a_huge_string_is_bounded():
    assert first_token("x" * 5_000_000 + HF) is None  # beyond the scanned prefix
    assert first_token("x" * 1000 + " " + HF) is not None


def test_printable_answers_the_same_when_asked_again() -> None:
    # printable keeps its answers per (text, limit): asked again, or with a str subclass of the same text, the same.
    class Named(str):
        pass

    text = "model\nhf_" + "aB3" * 12 + " \u2028end"
    whole = printable(text, 8000)
    assert printable(text, 8000) == whole == printable(Named(text), 8000) == "model\\nhf_...[redacted] \\u2028end"
    assert printable(text, 12) == printable(Named(text), 12) == "model\\nhf_..." and printable(12, 5) == "12"
