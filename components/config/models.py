"""One served model: the vLLM engine, replicas, autoscaling, SLOs, traffic, startup, weights source,
an architecture outside the catalogue, a long-context sibling and multi-node serving.

Pure: pydantic, the timeout chain's rule on servable request lengths (components/timeouts.py) and the
serving back-ends' keys (components/backend_keys.py).
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal, Optional

from pydantic import BeforeValidator, Field, WithJsonSchema, field_validator, model_validator

from ..aws_ids import arn_problem, arn_region
from ..backend_keys import BUILT_IN, multi_node_keys
from ..timeouts import max_request_rule
from .base import _DNS_LABEL, _NAME_MAX, Bool, Float, Int, Str, _dns_name, _Model, matching

_HF_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*")
_COMMIT = re.compile(r"[0-9a-f]{40}")


Dtype = Literal["auto", "bfloat16", "float16", "half", "float32"]
KvCacheDtype = Literal["auto", "fp8", "fp8_e4m3", "fp8_e5m2"]
# vLLM's CUDA block sizes (config/cache.py BlockSize); `python -m stacks size` takes the same set.
BLOCK_SIZES = (1, 8, 16, 32, 64, 128, 256)
Quantization = Literal[
    "fp8", "awq", "awq_marlin", "gptq", "gptq_marlin", "compressed-tensors", "bitsandbytes", "mxfp4", "modelopt", "fbgemm_fp8"
]


class EngineConfig(_Model):
    """vLLM engine arguments (vLLM 0.33 names, camelCase). Unset numbers are derived by the capacity plan."""

    tensor_parallel_size: Int = Field(default=1, ge=1, le=64, description="--tensor-parallel-size. Default 1.")
    pipeline_parallel_size: Int = Field(default=1, ge=1, le=64, description="--pipeline-parallel-size. Default 1.")
    max_model_len: Int = Field(description="--max-model-len, tokens per request (required, > 0).", gt=0, le=10_485_760)
    gpu_memory_utilization: Float = Field(
        default=0.9,
        gt=0,
        le=1,
        description="--gpu-memory-utilization, fraction of each GPU's total memory vLLM may use. Default 0.9 "
        "(vLLM 0.33 itself defaults to 0.92; policy S1 bounds it).",
    )
    max_num_seqs: Optional[Int] = Field(
        default=None, gt=0, le=65_536, description="--max-num-seqs. Default: derived from the KV cache by the capacity plan."
    )
    max_num_batched_tokens: Optional[Int] = Field(
        default=None, gt=0, le=1_048_576, description="--max-num-batched-tokens. Default: vLLM's hardware default for the GPU."
    )
    max_num_queued_reqs: Optional[Int] = Field(
        default=None,
        ge=0,
        description="Requests a replica queues beyond maxNumSeqs; more get 503. Rendered as "
        "--max-num-queued-reqs = maxNumSeqs + this (vLLM counts running requests against the flag). "
        "Default: derived from the TTFT SLO.",
    )
    block_size: Int = Field(default=16, description="--block-size, tokens per KV block. Default 16 (vLLM's CUDA default).")
    dtype: Dtype = Field(default="auto", description='--dtype. Default "auto" (the checkpoint dtype).')
    kv_cache_dtype: KvCacheDtype = Field(default="auto", description='--kv-cache-dtype. Default "auto" (the model dtype).')
    quantization: Optional[Quantization] = Field(default=None, description="--quantization. Default null (from the checkpoint).")
    enforce_eager: Bool = Field(default=False, description="--enforce-eager (no CUDA graphs). Default false.")
    extra_args: tuple[Str, ...] = Field(
        default=(), description="Further vLLM flags passed verbatim, e.g. ['--enable-auto-tool-choice']. Default []."
    )

    @field_validator("block_size")
    @classmethod
    def _block(cls, v: int) -> int:
        if v not in BLOCK_SIZES:
            raise ValueError(f"must be one of {', '.join(map(str, BLOCK_SIZES))}")
        return v

    @field_validator("extra_args")
    @classmethod
    def _extra(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        typed = {
            "--tensor-parallel-size",
            "--pipeline-parallel-size",
            "--max-model-len",
            "--gpu-memory-utilization",
            "--max-num-seqs",
            "--max-num-batched-tokens",
            "--max-num-queued-reqs",
            "--block-size",
            "--dtype",
            "--kv-cache-dtype",
            "--quantization",
            "--enforce-eager",
            "--port",
            "--served-model-name",
            "--revision",
            "--model",
            "--host",
        }
        for arg in v:
            flag = arg.split("=", 1)[0]
            if flag in typed:
                raise ValueError(f"{flag} is a typed engine field or set by the component; set it there instead")
            if flag in ("--api-key",) or "token" in flag:
                raise ValueError(f"{flag} would put a secret on the command line; use hfToken (a Kubernetes Secret)")
        return v


class ReplicasConfig(_Model):
    """Replica bounds of one model (the HPA's min and max)."""

    min: Int = Field(default=1, ge=0, description="Fewest replicas. Default 1 (policy S5 forbids 0: cold starts take minutes).")
    max: Int = Field(default=1, ge=1, le=1000, description="Most replicas. Default 1.")
    single_replica_reason: Optional[Str] = Field(
        default=None,
        description="Why this model may run one replica in a prod environment (where min must otherwise be at least 2, "
        "so a drain or a crash never leaves it without a ready replica). Default null.",
    )

    @model_validator(mode="after")
    def _order(self) -> "ReplicasConfig":
        if self.max < self.min:
            raise ValueError(f"max ({self.max}) must be >= min ({self.min})")
        return self


AutoscalingBackend = Literal["prometheus-adapter", "keda"]


class AutoscalingConfig(_Model):
    """How the model scales on serving load (per-pod requests in flight: vLLM running + waiting)."""

    backend: AutoscalingBackend = Field(
        default="prometheus-adapter",
        description='What feeds the HPA: "prometheus-adapter" (an autoscaling/v2 HPA on a Pods metric the adapter '
        'serves) or "keda" (a KEDA ScaledObject with a Prometheus trigger). Default "prometheus-adapter".',
    )
    target_in_flight_per_pod: Optional[Int] = Field(
        default=None,
        gt=0,
        description="Running + waiting requests per pod the HPA aims for; at most maxNumSeqs + maxNumQueuedReqs (what one "
        "replica can hold). Default: derived by the capacity plan (80% of maxNumSeqs).",
    )
    scale_down_stabilization_seconds: Int = Field(
        default=300,
        ge=0,
        le=3600,
        description="Seconds the HPA looks back before removing a replica (scale-down stabilization window). Default 300; "
        "policy S8 (llm-hpa-behavior) advises against less than 300, since a removed GPU replica takes minutes to come back "
        "(a house threshold: advice, not a blocking finding).",
    )


class SloConfig(_Model):
    """Latency objectives that size the queue, the timeouts and the drain."""

    max_request_seconds: Float = Field(
        default=300,
        gt=0,
        description="Longest request to serve uncut, seconds. Default 300. Every timeout, keep-alive and drain of the "
        "model's path derives from it (components/timeouts.py); at most what an ALB can carry (3585).",
    )
    time_to_first_token_seconds: Float = Field(
        default=5, gt=0, le=600, description="Target time to first token, seconds. Default 5."
    )
    streaming: Bool = Field(
        default=True,
        description="Clients stream responses (SSE). Default true. A non-streamed response sends no byte until it "
        "ends, so the Envoy -> vLLM connection gets TCP keep-alive probes for the silence.",
    )
    traffic: Optional[Str] = Field(
        default=None,
        description="A traffic profile (docs/simulate.md; path relative to the stack file) under which `python -m stacks "
        "plan` simulates the stack; the advisory plan policy llm-simulated-slo then reports this model when its simulated "
        "P95 TTFT exceeds timeToFirstTokenSeconds or its 504/503 rates exceed their limits. Without "
        "traffic.typicalRequestTokens, the derived maxNumSeqs is sized on the profile's prompt + output sizes for this "
        "model (their mean and spread; docs/concepts.md). Default null (no simulation: the plan stays fast).",
        min_length=1,
        max_length=1000,
    )

    @field_validator("max_request_seconds")
    @classmethod
    def _servable(cls, v: float) -> float:
        rule = max_request_rule(v)
        if rule:
            raise ValueError(rule)
        return v

    @model_validator(mode="after")
    def _order(self) -> "SloConfig":
        if self.time_to_first_token_seconds >= self.max_request_seconds:
            raise ValueError("timeToFirstTokenSeconds must be below maxRequestSeconds")
        return self


class TrafficConfig(_Model):
    """What a typical request looks like; sizes the batch, the HPA target and the queue."""

    typical_request_tokens: Optional[Int] = Field(
        default=None,
        gt=0,
        description="Prompt + output tokens of a typical request. Default min(2048, engine.maxModelLen), or with "
        "slo.traffic the profile's sizes for the model.",
    )
    typical_request_seconds: Float = Field(
        default=20, gt=0, le=3600, description="Seconds a typical request holds a batch slot (prefill + decode). Default 20."
    )


class StartupConfig(_Model):
    """How long a replica may take to become ready (weights fetched and loaded, compile, graph capture)."""

    budget_seconds: Optional[Int] = Field(
        default=None,
        ge=60,
        le=7200,
        description="Startup probe budget in seconds. Default null: derived by the capacity plan from the model "
        "source, the checkpoint size and the GPUs (components/capacity/cold_start.py, figures from "
        "public reports cited there); the plan report lists the parts.",
    )


class ModelSourceConfig(_Model):
    """Where a replica gets its weights from on start."""

    type: Literal["huggingface", "s3", "localCache"] = Field(
        default="huggingface",
        description='"huggingface" (default, the fallback): every pod downloads the pinned revision from the Hub into '
        'its ephemeral storage. "s3": vLLM streams the weights from an S3 mirror of that revision with the Run:ai '
        'streamer (--load-format runai_streamer). "localCache": KServe\'s LocalModelCache keeps the weights on the '
        "pool nodes' instance-store NVMe, filled once per node.",
    )
    uri: Optional[Str] = Field(
        default=None,
        description="s3: the mirror, s3://bucket/prefix holding the safetensors of the pinned revision (required). "
        "localCache: what the cache is filled from, hf://<org>/<name> or s3://... Default null (localCache: the "
        "Hugging Face id).",
    )
    region: Optional[Str] = Field(
        default=None, description="s3: the bucket's AWS region (required for s3; pods cannot reach IMDS). Default null."
    )
    service_account: Optional[Str] = Field(
        default=None,
        description="s3: a ServiceAccount in the namespace with read access to the bucket (EKS Pod Identity or IRSA; "
        "required for s3). Default null.",
    )
    kms_key_arn: Optional[Str] = Field(
        default=None,
        description="s3: the KMS key the mirror's objects are encrypted with (SSE-KMS), in the bucket's region; the "
        "reader's role may kms:Decrypt with it through S3 only (kms:ViaService). Default null (SSE-S3 or no encryption).",
    )

    @model_validator(mode="after")
    def _complete(self) -> "ModelSourceConfig":
        if self.type == "s3":
            missing = [
                k for k, v in (("uri", self.uri), ("region", self.region), ("serviceAccount", self.service_account)) if v is None
            ]
            if missing:
                raise ValueError(f"type s3 needs {', '.join(missing)}")
            if not re.match(r"^s3://[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](/[A-Za-z0-9._/-]*)?$", self.uri or ""):
                raise ValueError("uri must be s3://<bucket>/<prefix> for type s3")
            if not re.match(r"^[a-z]{2}(-gov)?-[a-z]+-\d$", self.region or ""):
                raise ValueError("region must be an AWS region such as us-west-2")
            if not _DNS_LABEL.match(self.service_account or ""):
                raise ValueError("serviceAccount must be a DNS-1035 label")
            if self.kms_key_arn is not None:
                rule = arn_problem(
                    self.kms_key_arn,
                    "kms",
                    r"key/([0-9a-f-]{36}|mrk-[0-9a-f]{32})",
                    "arn:aws:kms:<region>:<account>:key/<key id>",
                )
                if rule:
                    raise ValueError(f"kmsKeyArn {rule}")
                if arn_region(self.kms_key_arn) != self.region:
                    raise ValueError(
                        f"kmsKeyArn is in {arn_region(self.kms_key_arn)}, the bucket in {self.region}: S3 uses a key of the bucket's region"
                    )
        elif self.type == "localCache":
            if self.uri is not None and not re.match(
                r"^(hf://[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._:-]*|s3://[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](/[A-Za-z0-9._/-]*)?)$",
                self.uri,
            ):
                raise ValueError("uri must be hf://<org>/<name> or s3://<bucket>/<prefix> for type localCache")
            if self.region is not None or self.service_account is not None or self.kms_key_arn is not None:
                raise ValueError("region, serviceAccount and kmsKeyArn are only read with type s3")
        elif any(v is not None for v in (self.uri, self.region, self.service_account, self.kms_key_arn)):
            raise ValueError(
                "uri, region, serviceAccount and kmsKeyArn are not read with type huggingface (it downloads model at revision)"
            )
        return self


class ArchitectureConfig(_Model):
    """A model the catalogue does not know: its Hugging Face config.json and checkpoint size."""

    config_path: Str = Field(description="Path of the model's config.json, relative to the stack file (required).")
    weights_gib: Float = Field(description="Size of the whole checkpoint in GiB (required, > 0).", gt=0)


class LongContextConfig(_Model):
    """A sibling pool of the same model for long prompts (its own InferenceService ``<name>-long``).

    Long prompts hold many KV blocks and slow every request batched with them, so they get their
    own replicas with a larger maxModelLen and fewer sequences; the route sends a request there
    when it carries the header ``x-llm-context: long`` (README, "Short and long pools").
    """

    max_model_len: Int = Field(
        description="--max-model-len of the sibling (required, above the model's own).", gt=0, le=10_485_760
    )
    max_num_seqs: Optional[Int] = Field(
        default=None,
        gt=0,
        le=65_536,
        description="--max-num-seqs of the sibling. Default: derived from its KV cache by the capacity plan.",
    )
    replicas: ReplicasConfig = Field(
        default_factory=ReplicasConfig, description="The sibling's replica bounds. Default {min: 1, max: 1}."
    )
    max_request_seconds: Optional[Float] = Field(
        default=None,
        gt=0,
        description="The sibling's slo.maxRequestSeconds. Default: the model's own (long prefills may need more).",
    )

    @field_validator("max_request_seconds")
    @classmethod
    def _servable(cls, v: Optional[float]) -> Optional[float]:
        rule = max_request_rule(v) if v is not None else None
        if rule:
            raise ValueError(rule)
        return v


# The header that sends a request to a model's long-context sibling, and the sibling's name suffix.
LONG_CONTEXT_HEADER = "x-llm-context"
LONG_CONTEXT_VALUE = "long"
LONG_SUFFIX = "-long"


def _one_of(values: tuple[str, ...]) -> str:
    """``'a'``, ``'a' or 'b'``, ``'a', 'b' or 'c'``: how pydantic lists a Literal's values."""
    quoted = [repr(v) for v in values]
    return " or ".join([", ".join(quoted[:-1]), quoted[-1]] if len(quoted) > 1 else quoted)


def _multi_node_backend(v: Any) -> Any:
    """``v`` when it is a multi-node back-end's key (components/backend_keys.py, read when the config is loaded)."""
    keys = multi_node_keys()
    if not (isinstance(v, str) and v in keys):
        raise ValueError(f"input should be {_one_of(keys)}")
    return v


# The shipped multi-node back-ends, for the reference and the JSON schema (a run-time one is accepted, not listed);
# the title is the type the configuration reference prints, written as it writes a Literal's (Markdown-escaped).
_SHIPPED = tuple(item for item in BUILT_IN if item.multi_node)
MultiNodeBackend = Annotated[
    Str,
    BeforeValidator(_multi_node_backend),
    WithJsonSchema({"title": " \\| ".join(f'"{item.key}"' for item in _SHIPPED), "enum": [item.key for item in _SHIPPED]}),
]


class DistributedConfig(_Model):
    """Multi-node serving: one vLLM engine spread over several nodes of the model's pool.

    Tensor parallelism stays inside a node (NVLink); pipeline stages cross nodes. The node
    count is tensorParallelSize x pipelineParallelSize / the pool's GPUs per node, and the
    back-end named by ``backend`` runs the engine's pods and places the ranks. Autoscaling a
    multi-node replica is out of scope (as in KServe and NIM): such a model runs exactly one replica.
    """

    backend: MultiNodeBackend = Field(
        description="How the nodes are coordinated (required): "
        + ", ".join(f'"{item.key}" ({item.runs})' for item in _SHIPPED)
        + ".",
    )
    nccl_socket_ifname: Str = Field(
        default="eth0",
        description="NCCL_SOCKET_IFNAME and GLOO_SOCKET_IFNAME of every pod of the engine, whichever back-end runs "
        "it: the interface NCCL's and Gloo's bootstrap sockets use. Default \"eth0\" (the pod interface of the "
        "Amazon VPC CNI).",
    )
    efa: Bool = Field(
        default=True,
        description="Request every EFA interface of the node (vpc.amazonaws.com/efa) for each pod that holds the "
        "engine's GPU ranks, on instance types that have EFA, and open the nodes' security group to itself as EFA "
        "requires; the aws-efa-k8s-device-plugin DaemonSet must run on the nodes. Default true.",
    )
    host_network_reason: Optional[Str] = Field(
        default=None,
        description="Run the engine's pods with hostNetwork: true, for the reason given here (it becomes the policy "
        "exemption's reason). Default null (pod network; EFA works without hostNetwork).",
    )

    @field_validator("nccl_socket_ifname")
    @classmethod
    def _ifname(cls, v: str) -> str:
        # NCCL accepts a prefix list, optionally negated with ^ (NCCL docs, NCCL_SOCKET_IFNAME).
        return matching(
            v,
            r"\^?=?[A-Za-z0-9_.-]{1,15}(,=?[A-Za-z0-9_.-]{1,15})*",
            'must be an interface name or an NCCL prefix list such as "eth0" or "^lo,docker"',
        )

    @field_validator("host_network_reason")
    @classmethod
    def _reason(cls, v: Optional[str]) -> Optional[str]:
        if v is not None and len(v.strip()) < 10:
            raise ValueError("must explain why the pods need the node's network (at least 10 characters)")
        return v


class ModelConfig(_Model):
    """One served model: what to serve, where, and with which engine settings."""

    name: Str = Field(description="Service name (required); the InferenceService and served model name.")
    model: Str = Field(description="Hugging Face model id, e.g. meta-llama/Llama-3.1-8B-Instruct (required).")
    revision: Str = Field(description="Pinned Hugging Face commit (40 hex characters, required).")
    pool: Str = Field(description="Name of the gpuPools entry the model runs on (required).")
    image: Str = Field(default="vllm/vllm-openai:v0.33.0", description="vLLM image. Default vllm/vllm-openai:v0.33.0.")
    engine: EngineConfig = Field(description="vLLM engine arguments (required: maxModelLen).")
    replicas: ReplicasConfig = Field(default_factory=ReplicasConfig, description="Default {min: 1, max: 1}.")
    autoscaling: AutoscalingConfig = Field(default_factory=AutoscalingConfig, description="Default: derived targets.")
    slo: SloConfig = Field(default_factory=SloConfig, description="Default {maxRequestSeconds: 300, timeToFirstTokenSeconds: 5}.")
    traffic: TrafficConfig = Field(default_factory=TrafficConfig, description="Default {typicalRequestSeconds: 20}.")
    startup: StartupConfig = Field(
        default_factory=StartupConfig, description="Default: the budget derived from the model source."
    )
    source: ModelSourceConfig = Field(
        default_factory=ModelSourceConfig,
        description="Where the weights come from. Default {type: huggingface} (download on every start).",
    )
    architecture: Optional[ArchitectureConfig] = Field(
        default=None, description="For a model outside the catalogue: its config.json and weights size. Default null (catalogue)."
    )
    long_context: Optional[LongContextConfig] = Field(
        default=None,
        description="A sibling pool for long prompts, reached with the header x-llm-context: long. Default null (no sibling).",
    )
    distributed: Optional[DistributedConfig] = Field(
        default=None,
        description="Opt-in for a model larger than one node, e.g. {backend: ray}: tensorParallelSize x "
        "pipelineParallelSize GPUs over several nodes of the pool. Default null (one node per replica).",
    )

    _check_name = field_validator("name")(classmethod(lambda cls, v: _dns_name(v)))

    @model_validator(mode="after")
    def _long_context(self) -> "ModelConfig":
        lc = self.long_context
        if lc is not None:
            if lc.max_model_len <= self.engine.max_model_len:
                raise ValueError(
                    f"longContext.maxModelLen ({lc.max_model_len}) must be above engine.maxModelLen ({self.engine.max_model_len})"
                )
            if len(self.name) + len(LONG_SUFFIX) > _NAME_MAX:
                raise ValueError(
                    f"name must leave room for the sibling's suffix {LONG_SUFFIX!r} (at most {_NAME_MAX - len(LONG_SUFFIX)} characters)"
                )
        return self

    def long_sibling(self) -> Optional["ModelConfig"]:
        """The long-context sibling as a model of its own (None without longContext)."""
        lc = self.long_context
        if lc is None:
            return None
        engine = self.engine.model_copy(
            update={
                "max_model_len": lc.max_model_len,
                "max_num_seqs": lc.max_num_seqs,
                "max_num_batched_tokens": None,
                "max_num_queued_reqs": None,
            }
        )
        slo = self.slo.model_copy(update={"max_request_seconds": lc.max_request_seconds or self.slo.max_request_seconds})
        return self.model_copy(
            update={
                "name": self.name + LONG_SUFFIX,
                "engine": engine,
                "replicas": lc.replicas,
                "slo": slo,
                "long_context": None,
                "traffic": self.traffic.model_copy(update={"typical_request_tokens": None}),
                "autoscaling": self.autoscaling.model_copy(update={"target_in_flight_per_pod": None}),
            }
        )

    @field_validator("model")
    @classmethod
    def _model_id(cls, v: str) -> str:
        if not _HF_ID.fullmatch(v):
            raise ValueError("must be a Hugging Face id of the form <org>/<name>")
        return v

    @field_validator("revision")
    @classmethod
    def _revision(cls, v: str) -> str:
        if not _COMMIT.fullmatch(v):
            raise ValueError("must be a full 40-character commit hash, so the weights cannot change under the service")
        return v

    @field_validator("image")
    @classmethod
    def _image(cls, v: str) -> str:
        return matching(v, r"[a-z0-9][a-z0-9._/:@-]*", "must be an image reference like vllm/vllm-openai:v0.33.0")
