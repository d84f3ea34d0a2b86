"""The one place that decides what is a secret, in a stack file and in clear text.

Two questions, two answers:

* :func:`is_secret` -- is this config value a Pulumi secret? A stack file holds one as
  ``{secure: <ciphertext>}``: a mapping with exactly the key ``secure`` and a string, which is the
  form the Pulumi CLI writes and accepts (``pulumi config set --secret``). Config loading, the
  offline engine (which injects such values as secrets) and every error message ask here.
* :func:`find_tokens` -- does this clear text hold something shaped like a credential? Hugging
  Face tokens, AWS access key ids, GitHub, GitLab, OpenAI/Anthropic, Slack, Google and Stripe
  keys, JSON Web Tokens (Kubernetes service-account tokens in a kubeconfig) and PEM private
  keys. A token in a non-secret value is refused by config loading and flagged by the
  ``no-literal-secret-env`` policy; error messages show only :func:`redacted` (the shape's public
  prefix), never the token.

Pure: no Pulumi import. Shapes come from the vendors' published formats (Hugging Face
"User access tokens" docs: ``hf_`` prefix; AWS IAM "Unique identifiers": ``AKIA``/``ASIA``
prefixes and 20 characters; GitHub "About authentication, token formats": ``ghp_`` & co and
``github_pat_``; Slack "Token types": ``xoxb-``/``xoxp-``...; Google API keys ``AIza`` + 35).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterator, Mapping, Optional

SECURE_KEY = "secure"
# What a secret value is shown as, in messages, reports and the offline engine's records.
SHOWN_AS = "[secret]"
# The marker handed to validation in place of a secret's value: validation sees that the key is
# set (and is a secret) without the value ever entering a model or a message.
MARKER = {SECURE_KEY: "<redacted>"}


def is_secret(value: Any) -> bool:
    """True for a Pulumi secret in a stack file: ``{secure: <ciphertext string>}`` and nothing else."""
    return isinstance(value, Mapping) and len(value) == 1 and isinstance(value.get(SECURE_KEY), str)


# Literal values that clients of a local OpenAI-compatible server put where a key is required but not checked: the
# OpenAI client refuses to start without one, so manifests set OPENAI_API_KEY to a word that is not a credential.
# vLLM's own examples use "EMPTY" (vllm v0.33.0 examples/online_serving/openai_chat_completion_client.py), llama.cpp's
# server README "sk-no-key-required" (ggml-org/llama.cpp tools/server/README.md), Ollama's OpenAI docs "ollama"
# ("required, but unused": ollama/ollama docs/openai.md), LM Studio's "lm-studio". Compared case-insensitively.
NOT_A_SECRET = frozenset(
    {
        "null",
        "none",
        "nil",
        "empty",
        "dummy",
        "unused",
        "placeholder",
        "not-needed",
        "not_needed",
        "notneeded",
        "not-required",
        "no-key",
        "nokey",
        "sk-no-key-required",
        "sk-dummy",
        "ollama",
        "lm-studio",
    }
)


# The same said in other words (review 49 item 2): a value made only of plain words (letters, as a person writes them:
# lower, upper or capitalised; a short word may carry digits, "gpt4") and separators, one word of them denying or
# standing in for a key (``dummy-key``, ``sk-no-key``, ``not-a-real-key``, ``no-auth``, ``sk-fake-key-for-vllm``,
# ``test``, ``local``; spent set 60 rag_LLM LLM_API_KEY "dummy-key" and homelab open-webui OPENAI_API_KEY "sk-no-key",
# set 62 travelagent3 VLLM_API_KEY "not-needed" in a ConfigMap: blocked as leaks at session 48's first freeze, labelled
# nothing). A random-looking part (a long mixed letters-and-digits run, irregular case, a long run without a vowel)
# makes it a key again: sk-fake-<48 random characters> blocks. Under a password's name the narrow list applies (a
# password is the credential however it reads): see ``placeholder_value``.
_DENYING_WORDS = frozenset({"dummy", "fake", "no", "not", "none", "empty", "unused", "ignored", "placeholder", "nokey"})
# The narrow vocabulary (every word one of these), the only one read under a password's name.
_STAND_IN_WORDS = _DENYING_WORDS | frozenset(
    {"key", "api", "token", "needed", "required", "sk", "secret", "used", "value", "llm", "vllm", "openai"}
)
# Under a key's name, more words say the value stands in for one: these deny a key, and make any plain phrasing a
# stand-in ("not-a-real-key", "no-auth", "sk-fake-key-for-vllm").
_KEY_DENYING_WORDS = _DENYING_WORDS | frozenset(
    {
        *("null", "nil", "noauth", "notneeded", "notrequired", "unneeded", "unset", "blank", "invalid", "bogus"),
        *("mock", "stub", "changeme", "replaceme", "your", "xxx", "xxxx", "todo", "tbd", "anything", "whatever"),
        *("irrelevant", "disabled", "insecure"),
    }
)
# These name where a key is used rather than deny one: a stand-in only in the narrow vocabulary ("test", "local",
# "sk-test-key", "example-key"); a longer phrase or a number with them is a key someone chose for a local server
# that checks it ("sk-local-key-1234", a LiteLLM master_key "sk-testing-llm-model-...": still blocking).
_KEY_SETTING_WORDS = frozenset({"test", "testing", "example", "sample", "demo", "local", "localhost", "dev"})
# Open WebUI's OPENAI_API_KEYS and OLLAMA_BASE_URLS are lists joined by ";" (open-webui backend/open_webui/config.py
# splits them on ";"): "test_token;test_token" is two stand-ins, one per backend (sealed set 120, read after its
# measurement: akamai-developers/multimodal-kuberay@a06a5d8f manifests/openwebui.yaml, blocked as a leak, labelled
# nothing). A list of real keys is random-looking words and stays a key.
_WORD_SPLIT = re.compile(r"[-_.\s:/;,]+")
_VOWELS = frozenset("aeiouy")
_PASSWORD_NAME = re.compile(r"PASS|PWD", re.IGNORECASE)


def _plain_word(word: str) -> bool:
    """A word a person writes (``not``, ``Key``, ``EMPTY``, ``gpt4``), not a random-looking run (``Xk29qLm``)."""
    if word.isdigit():
        return len(word) <= 4
    if not word.isalnum() or not word.isascii():
        return False
    if not word.isalpha():
        return len(word) <= 6 and word[0].isalpha() and (word.islower() or word.isupper())
    if not (word.islower() or word.isupper() or word.istitle()) or len(word) > 16:
        return False
    return len(word) <= 4 or not _VOWELS.isdisjoint(word.lower())


def placeholder_value(value: Any, key: str = "") -> bool:
    """True for a literal that stands where a key is required but not checked (``EMPTY``, ``"null"``, ``dummy-key``,
    ``not-a-real-key``). ``key``: the name the value is set under; under a password's name (``*PASS*``, ``*PWD*``)
    only the narrow stand-in vocabulary counts, since a password is the credential whatever its words."""
    if not isinstance(value, str):
        return False
    text = value.strip().strip("\"'")
    if text.lower() in NOT_A_SECRET:
        return True
    if not text or len(text) > 64:
        return False
    words = [w for w in _WORD_SPLIT.split(text) if w]
    lowered = {w.lower() for w in words}
    if key and _PASSWORD_NAME.search(key):
        return bool(words) and lowered <= _STAND_IN_WORDS and not lowered.isdisjoint(_DENYING_WORDS)
    if not words:
        return False
    if not lowered.isdisjoint(_KEY_DENYING_WORDS):
        return all(_plain_word(w) for w in words)
    return not lowered.isdisjoint(_KEY_SETTING_WORDS) and lowered <= _STAND_IN_WORDS | _KEY_SETTING_WORDS


# Words of a fill-in left for a person (``<your-master-key>``, ``CHANGE_ME``, ``sk-xxxx``, ``TODO``): not a key anyone
# uses, even where a server enforces its key (S27 names the placeholder).
_FILL_IN_WORDS = frozenset({"your", "changeme", "replaceme", "xxx", "xxxx", "todo", "tbd"})


def server_key_stand_in(value: Any) -> bool:
    """True for a literal that is no credential even under a key a SERVER enforces (LiteLLM's master key, vLLM's
    --api-key; components/server_keys.toml): an exact not-a-key word (``EMPTY``, ``dummy``, ``not-needed``: what
    clients send by default), a mask of x's or asterisks, or a fill-in for a person. Any other words, however they
    read (``sk-local-dev``, ``sk-test-key``), are the key the server checks, committed: ``placeholder_value``'s wider
    stand-in phrasing exempts a client's key only."""
    if not isinstance(value, str):
        return False
    text = value.strip().strip("\"'")
    if text.lower() in NOT_A_SECRET or "<" in text or not text.strip("xX*-sk"):
        return True
    words = [w.lower() for w in _WORD_SPLIT.split(text) if w]
    return not _FILL_IN_WORDS.isdisjoint(words) or "".join(words).startswith(("changeme", "replaceme", "your"))


# Each shape: a name for messages, the public prefix a message may show, and the pattern. The
# lookbehind keeps a shape from matching inside a longer word ("desk-..." is not "sk-...").
_EDGE = r"(?<![A-Za-z0-9])"
_SHAPES: tuple[tuple[str, str], ...] = (
    ("Hugging Face token", r"(?P<p>hf_)[A-Za-z0-9]{30,}"),
    ("Hugging Face token", r"(?P<p>api_org_)[A-Za-z0-9]{30,}"),
    ("AWS access key id", r"(?P<p>(?:AKIA|ASIA|ABIA|ACCA))[0-9A-Z]{16}(?![0-9A-Z])"),
    ("GitHub token", r"(?P<p>gh[pousr]_)[A-Za-z0-9]{36,}"),
    ("GitHub token", r"(?P<p>github_pat_)[A-Za-z0-9_]{40,}"),
    ("GitLab token", r"(?P<p>glpat-)[A-Za-z0-9_-]{20,}"),
    ("OpenAI/Anthropic API key", r"(?P<p>sk-(?:proj-|svcacct-|admin-|ant-(?:api|admin)\d\d-)?)[A-Za-z0-9_-]{32,}"),
    ("Slack token", r"(?P<p>xox[abposr]-)[A-Za-z0-9-]{10,}"),
    ("Google API key", r"(?P<p>AIza)[0-9A-Za-z_-]{35}"),
    ("Stripe key", r"(?P<p>(?:sk|rk)_live_)[0-9A-Za-z]{20,}"),
    ("JSON Web Token", r"(?P<p>eyJ)[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
    ("private key", r"(?P<p>-----BEGIN )(?:[A-Z]+ )*PRIVATE KEY-----"),
)
_PATTERNS = tuple((kind, re.compile(_EDGE + pattern)) for kind, pattern in _SHAPES)
# Per shape, HINT's substrings of which every match of it holds one: find_tokens runs a shape's pattern only over a text
# that holds one of them (each pattern scans the whole text, ~13 ns a character, and a file that holds "hf_" was
# scanned by all twelve; tests/secrets/test_token_hint.py holds the table to the patterns).
SHAPE_HINTS: tuple[tuple[str, ...], ...] = (
    ("hf_",),
    ("api_org_",),
    ("AKIA", "ASIA", "ABIA", "ACCA"),
    ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
    ("github_pat_",),
    ("glpat-",),
    ("sk-",),
    ("xox",),
    ("AIza",),
    ("_live_",),
    ("eyJ",),
    ("PRIVATE KEY",),
)
# Cheap prefilter: most strings hold none of these substrings and skip the patterns entirely.
HINT = re.compile(r"hf_|api_org_|AKIA|ASIA|ABIA|ACCA|gh[pousr]_|github_pat_|glpat-|sk-|xox|AIza|_live_|eyJ|PRIVATE KEY")
# HINT's substrings as literals: `in` finds each with the string search CPython does in C, where HINT's alternation
# is tried at every character (~150 ns a character: ~20 ms of a `policies check` over manifests-v2, which scans every
# name and message it prints). HINT.search(text) is true exactly when one of them is in text.
HINT_LITERALS = (
    *("hf_", "api_org_", "AKIA", "ASIA", "ABIA", "ACCA", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    *("glpat-", "sk-", "xox", "AIza", "_live_", "eyJ", "PRIVATE KEY"),
)


# has_hint searches the literals that hold "_" only in a text that holds "_", and those that hold "A" only in one that
# holds "A" (~half the searches of a run's texts), and keeps its answers for the texts already asked: a run asks about
# the same names, flags and messages again and again (~2,700 calls over manifests-v2, ~800 texts). Bounded in size and
# in the length of a text kept, so a hostile input costs the plain search.
_GATES = ("_", "A")
_GATE_OF = {literal: next((gate for gate in _GATES if gate in literal), "") for literal in HINT_LITERALS}
_GATED = tuple((gate, tuple(lit for lit in HINT_LITERALS if _GATE_OF[lit] == gate)) for gate in _GATES)
_UNGATED = tuple(lit for lit in HINT_LITERALS if not _GATE_OF[lit])
_HINTED: dict[str, bool] = {}
_HINTED_SIZE = 1 << 14
_HINTED_LENGTH = 4096


def has_hint(text: str) -> bool:
    """Whether ``text`` holds one of HINT's substrings (``HINT.search(text) is not None``, faster)."""
    cached = type(text) is str and len(text) <= _HINTED_LENGTH
    if cached and (found := _HINTED.get(text)) is not None:
        return found
    found = _search_hint(text)
    if cached:
        if len(_HINTED) >= _HINTED_SIZE:
            _HINTED.clear()
        _HINTED[text] = found
    return found


def _search_hint(text: str) -> bool:
    for gate, literals in _GATED:
        if gate in text:
            for literal in literals:
                if literal in text:
                    return True
    for literal in _UNGATED:
        if literal in text:
            return True
    return False


# Strings longer than this are scanned in their first part only (a token is short; a hostile
# 10 MB value must not cost more than a bounded scan).
MAX_SCAN = 1 << 20


@dataclass(frozen=True)
class Token:
    """One credential-shaped substring: its kind, where it starts, and its redacted form."""

    kind: str
    start: int
    end: int
    prefix: str

    @property
    def described(self) -> str:
        """The kind with its article and the redacted prefix: ``a Hugging Face token (hf_...[redacted])``."""
        article = "an" if self.kind[0] in "AEIOU" else "a"
        return f"{article} {self.kind} ({self.redacted})"

    @property
    def redacted(self) -> str:
        """The public prefix of the shape and an ellipsis, e.g. ``hf_...``; never the token."""
        return redacted(self.prefix)


def redacted(prefix: str) -> str:
    """How a token is shown: its shape's public prefix, then ``...[redacted]``."""
    return f"{prefix}...[redacted]"


_UPPER_RUN = re.compile(r"[A-Z]{2,}")
_LOWER_RUN = re.compile(r"[a-z]{2,}")
_CASE_SWITCH = re.compile(r"(?=[a-z][A-Z])")
_ANY_SWITCH = re.compile(r"[a-z][A-Z]|[A-Z][a-z]")
_SAME_THREE = re.compile(r"(.)\1\1")
# Words that placeholders spell ("hf_YourHuggingFaceTokenHere...", "sk-ReplaceWithYourOpenAIKey...") and padding.
# A random 34-letter body holds one of them about once in 2,900 (measured over 300,000 random bodies).
_PLACEHOLDER_WORD = re.compile(
    r"your|token|here|replace|example|dummy|fake|change|placeholder|insert|sample|secret|value|test|xxxx", re.I
)


def _random_looking(body: str, rest: str) -> bool:
    """True for a token's body that reads as random, not as words.

    Real tokens mix letters and digits; "sk-" + a long English word list does not. A random body of letters only is
    rare but real (a 34-letter Hugging Face token holds no digit once in about 400: (52/62)^34), and it switches case
    all the time, capitals side by side included; an identifier or a placeholder (``hf_YourHuggingFaceTokenHere...``)
    capitalises one letter a word, or pads with one letter (``XXXX``). So a body without digits counts only when it
    has no character three times in a row, none of the placeholder words, at least 2 runs of capitals and 2 of small
    letters, 5 small-to-capital switches, and a case switch in each third (a random 34-letter body does 95 in 100).
    """
    if not re.search(r"[A-Za-z]", rest):
        return False
    if re.search(r"\d", body):
        return True
    if _SAME_THREE.search(rest) or _PLACEHOLDER_WORD.search(rest):
        return False
    if len(_UPPER_RUN.findall(rest)) < 2 or len(_LOWER_RUN.findall(rest)) < 2 or len(_CASE_SWITCH.findall(rest)) < 5:
        return False
    size = len(rest)
    return all(_ANY_SWITCH.search(rest[i * size // 3 : (i + 1) * size // 3 + 1]) for i in range(3))


def find_tokens(text: str) -> list[Token]:
    """Every credential-shaped substring of ``text`` (first :data:`MAX_SCAN` characters), in order."""
    if not isinstance(text, str):
        return []
    text = text[:MAX_SCAN]
    if not has_hint(text):
        return []
    found: list[Token] = []
    for (kind, pattern), hints in zip(_PATTERNS, SHAPE_HINTS):
        if not any(hint in text for hint in hints):
            continue
        for match in pattern.finditer(text):
            body = match.group(0)
            if kind != "private key" and not _random_looking(body, body[len(match["p"]) :]):
                continue
            found.append(Token(kind, match.start(), match.end(), match["p"]))
    found.sort(key=lambda t: (t.start, -t.end))
    out: list[Token] = []
    for token in found:
        if out and token.start < out[-1].end:
            continue
        out.append(token)
    return out


def first_token(text: str) -> Optional[Token]:
    """The first credential-shaped substring of ``text``, or None."""
    tokens = find_tokens(text)
    return tokens[0] if tokens else None


def redact_tokens(text: str) -> str:
    """``text`` with every credential-shaped substring replaced by its redacted form."""
    tokens = find_tokens(text)
    if not tokens:
        return text
    out, last = [], 0
    for token in tokens:
        out.append(text[last : token.start])
        out.append(token.redacted)
        last = token.end
    out.append(text[last:])
    return "".join(out)


_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def printable(text: Any, limit: int) -> str:
    """``text`` as a report may print it: credentials redacted, at most ``limit`` characters, one line.

    Control characters are shown escaped (``\\n``), so input text cannot forge report lines or a CI
    log's ``::`` workflow commands. Idempotent: printable(printable(x)) == printable(x).
    """
    text = str(text)
    key = (text, limit)
    if (shown := _SHOWN.get(key)) is not None:
        return shown
    shown = redact_tokens(text)
    shown = shown if len(shown) <= limit else shown[: limit - 3] + "..."
    shown = _CONTROL.sub(lambda m: repr(m.group())[1:-1], shown)
    if len(text) <= _HINTED_LENGTH:
        if len(_SHOWN) >= _HINTED_SIZE:
            _SHOWN.clear()
        _SHOWN[key] = shown
    return shown


# printable's answers for the (text, limit) pairs already asked: a report prints each object's name once per finding
# on it, and a run asks ~1,900 times about ~450 texts (~2 ms). Bounded as has_hint's answers are.
_SHOWN: dict[tuple[str, int], str] = {}


def scan(value: Any, path: tuple[Any, ...] = (), *, max_nodes: int = 1_000_000) -> Iterator[tuple[tuple[Any, ...], Token]]:
    """(path, token) for every string (key or value) under ``value`` that holds a token.

    Walks iteratively (no recursion limit to hit) and skips Pulumi secrets, whose ciphertext is
    not clear text. Shared sub-trees (YAML aliases) are scanned once per place they appear, up to
    ``max_nodes`` values in all; the loader has already bounded that number.
    """
    stack: list[tuple[tuple[Any, ...], Any]] = [(path, value)]
    seen = 0
    while stack and seen < max_nodes:
        where, item = stack.pop()
        seen += 1
        if isinstance(item, str):
            token = first_token(item)
            if token is not None:
                yield where, token
        elif isinstance(item, Mapping):
            if is_secret(item):
                continue
            for key, child in reversed(list(item.items())):
                if isinstance(key, str):
                    token = first_token(key)
                    if token is not None:
                        yield where, token
                stack.append(((*where, key), child))
        elif isinstance(item, (list, tuple)):
            for i in range(len(item) - 1, -1, -1):
                stack.append(((*where, i), item[i]))


__all__ = [
    "MARKER",
    "NOT_A_SECRET",
    "SECURE_KEY",
    "SHOWN_AS",
    "Token",
    "find_tokens",
    "first_token",
    "is_secret",
    "placeholder_value",
    "printable",
    "redact_tokens",
    "redacted",
    "scan",
]
