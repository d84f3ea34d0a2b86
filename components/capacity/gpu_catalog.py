"""GPU catalogue and AWS GPU instance catalogue for vLLM memory planning.

``GPUS`` maps a canonical upper-case GPU name to:

* ``aliases``: other spellings (lower-case ids, device names as ``nvidia-smi`` / ``torch.cuda.get_device_name`` print them).
* ``karpenter_gpu_name``: value of the node label ``karpenter.k8s.aws/instance-gpu-name`` (None when not sold on AWS).
  Note that Karpenter labels both A100 variants ``a100``; tell them apart by ``instance-gpu-memory``
  (40960 vs 81920 MiB) or by instance type (p4d vs p4de).
* ``memory_gib``: total device memory AS CUDA REPORTS IT, i.e. ``torch.cuda.mem_get_info()[1] / 2**30``. This is the
  ``total_gpu_memory`` that vLLM multiplies by ``gpu_memory_utilization`` (vllm-project/vllm vllm/v1/worker/gpu_worker.py ``determine_available_memory``), and
  the "total capacity of X GiB" in torch out-of-memory messages. Each value is a figure seen in a public log, cited
  in ``source``.
* ``memory_gib_ec2``: EC2's ``instance-gpu-memory`` (MiB) / 1024 as Karpenter's instance-type reference lists it
  (aws/karpenter-provider-aws @1d927085 website/content/en/preview/reference/instance-types.md; rounded to 6
  significant digits). None when not sold on AWS.
* ``compute_capability``: from https://developer.nvidia.com/cuda-gpus ("CUDA GPU Compute Capability" table).
* ``fp8``: native FP8 tensor cores (Ada 8.9, Hopper 9.0, Blackwell 10.x/12.0). Ampere (8.0/8.6) has none; vLLM
  still runs FP8 checkpoints there through weight-only Marlin kernels, which saves weight memory but not compute.
* ``source``: where the figures came from.

How ``memory_gib`` relates to EC2's number and to ``nvidia-smi``: EC2's figure and ``nvidia-smi``'s ``memory.total``
(MiB) describe the memory on the board; CUDA's total is smaller, by roughly 0.3-1.2 GiB, because the driver keeps
part of the memory for itself (ECC, page tables, reserved regions). Observed pairs: B300 nvidia-smi 275,040 MiB
(268.59 GiB, = EC2's 268.594) vs CUDA 267.69 GiB; RTX PRO 6000 nvidia-smi 97,887 MiB (95.59 GiB; EC2 says 96) vs CUDA
94.97 GiB; H100 nvidia-smi 81,559 MiB (79.65 GiB; EC2 says 80) vs CUDA 79.18 GiB; RTX 4090 nvidia-smi 24,564 MiB
(23.99 GiB) vs CUDA 23.64 GiB; A10G/L4 EC2 22888 MiB (22.35 GiB) vs CUDA 22.06/22.04 GiB. The CUDA figure also moves
by a few hundredths of a GiB with the driver version (for example H100 79.11-79.21, L4 22.03-22.05, H200
139.72-139.81 in different logs), so budget with the value here, not with EC2's or the marketing number, and treat
the second decimal as noise.

``INSTANCES`` maps an EC2 instance type to ``gpu`` (a key of ``GPUS``), ``gpu_count``, ``vcpu``, ``memory_gib`` (host
memory), ``efa`` (bool), ``local_nvme_gb`` (instance-local NVMe, as EC2 reports it). The g6f sizes are fractional L4
partitions (EC2/Karpenter report 0 GPUs); they carry ``"fractional": True`` and ``gpu_memory_gib_ec2`` (the slice).

Plain data only: no imports beyond typing, no functions. This module is the one place the product keeps these
facts (nothing reads files outside the package at run time); tests compare the instance table with the upstream
reference page's rows when the reference folder is present (tests/capacity/test_layout.py).
"""

from typing import Any, Dict

GPUS: Dict[str, Dict[str, Any]] = {
    "A10G": {
        "aliases": ["a10g", "nvidia-a10g", "NVIDIA A10G"],
        "karpenter_gpu_name": "a10g",
        "memory_gib": 22.06,
        "memory_gib_ec2": 22.3516,
        "compute_capability": "8.6",
        "fp8": False,
        "source": (
            "memory_gib: torch OOM 'GPU 0 has a total capacity of 22.06 GiB' on an AWS g5.12xlarge (A10G x4) in a "
            "measured vLLM write-up ('A10G 한 장의 가용 메모리는 22.06GiB', index file id 59672298265). vLLM logs "
            "with 'total_gpu_memory (22.07GiB)' (OCI troubleshooting guide, index file id 14319663172) and "
            "(22.06GiB) (index file id 60663571995) do not name the GPU. compute_capability: the NVIDIA table lists the A10 (same GA102 chip) at 8.6; the A10G is "
            "not listed by name."
        ),
    },
    "L4": {
        "aliases": ["l4", "nvidia-l4", "NVIDIA L4"],
        "karpenter_gpu_name": "l4",
        "memory_gib": 22.04,
        "memory_gib_ec2": 22.3516,
        "compute_capability": "8.9",
        "fp8": True,
        "source": (
            "memory_gib: torch OOM 'total capacity of 22.04 GiB' on an AWS g6.12xlarge (L4 x4) in the same "
            "write-up (index file id 59672298265: 'L4 ... 22.06GiB에서 22.04GiB로'); other L4 logs show 22.03 GiB "
            "('NVIDIA L4 (22.03 GiB visible to PyTorch)', index file id 55497994311) and 22.05 GiB (vLLM CI L4 "
            "runner, index file id 56901214414). compute_capability: NVIDIA table (8.9)."
        ),
    },
    "L40S": {
        "aliases": ["l40s", "nvidia-l40s", "NVIDIA L40S"],
        "karpenter_gpu_name": "l40s",
        "memory_gib": 44.42,
        "memory_gib_ec2": 44.7031,
        "compute_capability": "8.9",
        "fp8": True,
        "source": (
            "memory_gib: vLLM log 'total_gpu_memory (44.42GiB) x gpu_memory_utilization (0.90) = 39.98GiB' on L40S "
            "(https://github.com/vllm-project/vllm/issues/15815); "
            "nvidia-smi reports about 46 GB (index file id 54876698882). compute_capability: NVIDIA table (8.9)."
        ),
    },
    "A100-40GB": {
        "aliases": ["a100-40gb", "a100-40g", "nvidia-a100-40gb", "NVIDIA A100-SXM4-40GB", "NVIDIA A100-PCIE-40GB"],
        "karpenter_gpu_name": "a100",
        "memory_gib": 39.39,
        "memory_gib_ec2": 40,
        "compute_capability": "8.0",
        "fp8": False,
        "source": (
            "memory_gib: torch OOM 'GPU 1: 39.39 GiB total capacity' on an A100 40GB ('batch_size=20在A100 40GB上"
            "刚好OOM', index file id 15996934928; the same '39.39 GiB total capacity' string recurs in other logs "
            "that do not name the GPU). EC2: p4d.24xlarge (40960 MiB). compute_capability: NVIDIA "
            "table (A100 = 8.0)."
        ),
    },
    "A100-80GB": {
        "aliases": ["a100-80gb", "a100-80g", "nvidia-a100-80gb", "NVIDIA A100-SXM4-80GB", "NVIDIA A100 80GB PCIe"],
        "karpenter_gpu_name": "a100",
        "memory_gib": 79.15,
        "memory_gib_ec2": 80,
        "compute_capability": "8.0",
        "fp8": False,
        "source": (
            "memory_gib: torch OOM '(GPU 0; 79.15 GiB total capacity ...)' on an A100 80 GB ('A100 80 GB bile "
            "yetmiyor', index file id 54383473390); vLLM memory-profiling lines with 'total_gpu_memory (79.15GiB)' "
            "appear in index file ids 6934259882 and 66443972436 (GPU not named there). UNCERTAIN in the second "
            "decimal: 79.14 GiB is also seen. EC2: p4de.24xlarge (81920 MiB). compute_capability: NVIDIA table (8.0)."
        ),
    },
    "H100": {
        "aliases": ["h100", "h100-80gb", "h100-sxm", "nvidia-h100", "NVIDIA H100 80GB HBM3"],
        "karpenter_gpu_name": "h100",
        "memory_gib": 79.18,
        "memory_gib_ec2": 80,
        "compute_capability": "9.0",
        "fp8": True,
        "source": (
            "memory_gib: vLLM 'Free memory on device: 78.57/79.18 GiB on startup' on H100 (llm-d/llm-d-benchmark "
            "config_explorer/empirical-vllm-memory-results.md @259334868c50). nvidia-smi shows '0MiB / 81559MiB' for 'NVIDIA H100 80GB "
            "HBM3' (https://github.com/vllm-project/vllm/issues/27508). Other logs (GPU not always named) show "
            "79.11-79.25 GiB, so the second decimal depends on driver/setup. "
            "SXM 80 GB part (p5). compute_capability: NVIDIA table (9.0)."
        ),
    },
    "H200": {
        "aliases": ["h200", "h200-141gb", "nvidia-h200", "NVIDIA H200"],
        "karpenter_gpu_name": "h200",
        "memory_gib": 139.8,
        "memory_gib_ec2": 141,
        "compute_capability": "9.0",
        "fp8": True,
        "source": (
            "memory_gib: torch OOM 'GPU 5 has a total capacity of 139.80 GiB' on 8xH200 (index file id 47349552184) "
            "and 'H200 ~140 GiB in our logs (total capacity of 139.80 GiB)' (index file id 53284662842). UNCERTAIN in "
            "the second decimal: 139.72 and 139.81 GiB also appear in other logs (index file ids 52268112620, "
            "59745020847; GPU not named). compute_capability: NVIDIA table (9.0)."
        ),
    },
    "B200": {
        "aliases": ["b200", "nvidia-b200", "NVIDIA B200"],
        "karpenter_gpu_name": "b200",
        "memory_gib": 178.35,
        "memory_gib_ec2": 179.062,
        "compute_capability": "10.0",
        "fp8": True,
        "source": (
            "memory_gib: 'Usable HBM 178.35 GiB' per GPU on a B200 node from torch OOM 'total capacity of 178.35 GiB' "
            "(index file id 63244951597; also B200 in 53753063886); 8xB200 runs elsewhere show 178.36 GiB (index file "
            "id 47349552184). compute_capability: NVIDIA table (10.0)."
        ),
    },
    "B300": {
        "aliases": ["b300", "nvidia-b300", "NVIDIA B300 SXM6"],
        "karpenter_gpu_name": "b300",
        "memory_gib": 267.69,
        "memory_gib_ec2": 268.594,
        "compute_capability": "10.3",
        "fp8": True,
        "source": (
            "memory_gib: 8x B300 SXM6 node, 'Memory per GPU 275,040 MiB (268.6 GiB), of which vLLM sees 267.69 GiB' "
            "from vLLM's 'Free memory on device (264.8/267.69 GiB)' log line ('Benchmarking DeepSeek-V4.1-Flash on 8x "
            "B300', index file id 66974703316); torch OOMs with 'total capacity of 267.69 GiB' (GPU not named) in "
            "index file ids 65719067222, 66068615294. compute_capability: NVIDIA table (10.3)."
        ),
    },
    "RTX-PRO-6000": {
        "aliases": [
            "rtx-pro-6000",
            "rtx-pro-server-6000",
            "rtx-pro-6000-blackwell",
            "NVIDIA RTX PRO 6000 Blackwell Server Edition",
            "NVIDIA RTX PRO 6000 Blackwell Workstation Edition",
        ],
        "karpenter_gpu_name": "rtx-pro-server-6000",
        "memory_gib": 94.97,
        "memory_gib_ec2": 96,
        "compute_capability": "12.0",
        "fp8": True,
        "source": (
            "memory_gib: CUDA 'total 94.97 GiB' for 'NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition' "
            "(index file id 58557685273), '96 GB (94.97 GiB, RTX PRO 6000)' device total (index file id 71365626269), "
            "'PRO defaults to its CUDA total (94.97 GiB)' (index file id 70068698548). nvidia-smi shows 97887MiB on "
            "a real g7e.2xlarge (index file id 60136800386) and on RTX PRO 6000 Blackwell Server Edition hosts "
            "(index file id 70085960454), the same total as the workstation cards, so the same CUDA figure is "
            "expected. UNCERTAIN: no CUDA total was seen logged on the Server Edition itself. compute_capability: "
            "NVIDIA table lists the Server Edition at 12.0."
        ),
    },
    "RTX-3090": {
        "aliases": ["rtx-3090", "rtx3090", "3090", "NVIDIA GeForce RTX 3090"],
        "karpenter_gpu_name": None,
        "memory_gib": 23.58,
        "memory_gib_ec2": None,
        "compute_capability": "8.6",
        "fp8": False,
        "source": (
            "memory_gib: vLLM memory-profiling line total_gpu_memory=23.58GiB on an RTX 3090 "
            "(https://github.com/vllm-project/vllm/issues/10517, comment by kaspersiminski). compute_capability: NVIDIA table (GeForce RTX 3090, 8.6)."
        ),
    },
    "RTX-4090": {
        "aliases": ["rtx-4090", "rtx4090", "4090", "NVIDIA GeForce RTX 4090"],
        "karpenter_gpu_name": None,
        "memory_gib": 23.64,
        "memory_gib_ec2": None,
        "compute_capability": "8.9",
        "fp8": True,
        "source": (
            "memory_gib: torch OOM 'GPU 0 has a total capacity of 23.64 GiB' on a 24564-MiB card (peak memory.used "
            "24200 of 24564 MiB, index file id 70210211531); 24564MiB is the nvidia-smi total of the GeForce RTX 4090 "
            "(https://github.com/vllm-project/vllm/issues/7553). A 24 GB-card table gives 23.65 GiB (index file id "
            "71365626269). compute_capability: NVIDIA table (8.9)."
        ),
    },
}

# Every row from Karpenter's instance-type reference (source of every row:
# karpenter-provider-aws@1d927085 website/content/en/preview/reference/instance-types.md, i.e.
# aws/karpenter-provider-aws HEAD 1d927085dd81a9df9301e613f371dac5b4d16bfe). gpu is the GPUS key for the
# label karpenter.k8s.aws/instance-gpu-name (a100 split into A100-40GB / A100-80GB by instance-gpu-memory);
# memory_gib = instance-memory MiB / 1024; efa = the node advertises vpc.amazonaws.com/efa; local_nvme_gb =
# instance-local-nvme. g6f rows are fractional L4 slices (gpu_count 0): "fractional": True and the slice size.

# Throughput facts for the simulator's step-time roofline (components/simulate/roofline.py), per GPU:
# ``hbm_gb_s`` memory bandwidth (GB/s, 10^9), ``bf16_tflops`` and ``fp8_tflops`` dense tensor-core peaks
# (the datasheets print "with sparsity" figures twice these; fp8 None without FP8 tensor cores),
# ``link`` how tensor-parallel ranks on one node talk ("nvlink" or "pcie") and ``link_gb_s`` its
# bandwidth per GPU and direction (GB/s). Datasheet peaks, not achieved rates: the roofline scales
# them by efficiencies calibrated on published vLLM runs (benchmarks/fidelity.py). GPUs without an
# entry cannot be simulated (the simulator says so).
PERFORMANCE: Dict[str, Dict[str, Any]] = {
    "A10G": {
        "hbm_gb_s": 600, "bf16_tflops": 125, "fp8_tflops": None, "link": "pcie", "link_gb_s": 32,
        "source": "NVIDIA A10 datasheet (https://www.nvidia.com/en-us/data-center/products/a10-gpu/): 600 GB/s GDDR6, "
                  "BF16 125 TFLOPS dense (250 with sparsity), PCIe Gen4 x16 (64 GB/s both directions). UNCERTAIN: AWS "
                  "publishes no datasheet for the A10G; the A10's figures are used (same GA102 chip).",
    },
    "L4": {
        "hbm_gb_s": 300, "bf16_tflops": 121, "fp8_tflops": 242.5, "link": "pcie", "link_gb_s": 32,
        "source": "NVIDIA L4 datasheet (https://www.nvidia.com/en-us/data-center/l4/): 300 GB/s, BF16 242 and FP8 485 "
                  "TFLOPS with sparsity (dense: half), PCIe Gen4 x16.",
    },
    "L40S": {
        "hbm_gb_s": 864, "bf16_tflops": 362, "fp8_tflops": 733, "link": "pcie", "link_gb_s": 32,
        "source": "NVIDIA L40S datasheet (https://www.nvidia.com/en-us/data-center/l40s/): 864 GB/s GDDR6, BF16 362.05 "
                  "(733 with sparsity), FP8 733 (1,466 with sparsity) TFLOPS, PCIe Gen4 x16 (64 GB/s both directions), no NVLink.",
    },
    "A100-40GB": {
        "hbm_gb_s": 1555, "bf16_tflops": 312, "fp8_tflops": None, "link": "nvlink", "link_gb_s": 300,
        "source": "NVIDIA A100 datasheet (https://www.nvidia.com/en-us/data-center/a100/): 40GB SXM 1,555 GB/s, BF16 312 "
                  "TFLOPS dense, NVLink 600 GB/s (both directions).",
    },
    "A100-80GB": {
        "hbm_gb_s": 2039, "bf16_tflops": 312, "fp8_tflops": None, "link": "nvlink", "link_gb_s": 300,
        "source": "NVIDIA A100 datasheet (https://www.nvidia.com/en-us/data-center/a100/): 80GB SXM 2,039 GB/s, BF16 312 "
                  "TFLOPS dense, NVLink 600 GB/s (both directions).",
    },
    "H100": {
        "hbm_gb_s": 3350, "bf16_tflops": 989, "fp8_tflops": 1979, "link": "nvlink", "link_gb_s": 450,
        "source": "NVIDIA H100 datasheet (https://www.nvidia.com/en-us/data-center/h100/), SXM: 3.35 TB/s, BF16 1,979 and "
                  "FP8 3,958 TFLOPS with sparsity (dense: half), NVLink 900 GB/s (both directions).",
    },
    "H200": {
        "hbm_gb_s": 4800, "bf16_tflops": 989, "fp8_tflops": 1979, "link": "nvlink", "link_gb_s": 450,
        "source": "NVIDIA H200 datasheet (https://www.nvidia.com/en-us/data-center/h200/), SXM: 4.8 TB/s, BF16 1,979 and "
                  "FP8 3,958 TFLOPS with sparsity (dense: half), NVLink 900 GB/s (both directions).",
    },
    "RTX-3090": {
        "hbm_gb_s": 936, "bf16_tflops": 71, "fp8_tflops": None, "link": "pcie", "link_gb_s": 32,
        "source": "NVIDIA Ampere GA102 GPU architecture whitepaper (GeForce RTX 3090 column): 936 GB/s GDDR6X, peak BF16 "
                  "tensor TFLOPS with FP32 accumulate 71 (142 with sparsity), PCIe Gen4 x16.",
    },
    "RTX-4090": {
        "hbm_gb_s": 1008, "bf16_tflops": 165.2, "fp8_tflops": 330.3, "link": "pcie", "link_gb_s": 32,
        "source": "NVIDIA Ada GPU architecture whitepaper (GeForce RTX 4090 column): 1,008 GB/s GDDR6X, peak FP16/BF16 tensor "
                  "TFLOPS with FP32 accumulate 165.2 (330.4 with sparsity), FP8 with FP32 accumulate 330.3, PCIe Gen4 x16.",
    },
    "B200": {
        "hbm_gb_s": 8000, "bf16_tflops": 2250, "fp8_tflops": 4500, "link": "nvlink", "link_gb_s": 900,
        "source": "NVIDIA HGX B200 datasheet (https://www.nvidia.com/en-us/data-center/hgx/): 8 TB/s per GPU; 8 GPUs give "
                  "36 PFLOPS BF16 and 72 PFLOPS FP8 with sparsity (per GPU dense: 2.25 and 4.5), NVLink 1.8 TB/s (both directions).",
    },
}

INSTANCES: Dict[str, Dict[str, Any]] = {
    "g5.xlarge": {"gpu": "A10G", "gpu_count": 1, "vcpu": 4, "memory_gib": 16, "efa": False, "local_nvme_gb": 250},
    "g5.2xlarge": {"gpu": "A10G", "gpu_count": 1, "vcpu": 8, "memory_gib": 32, "efa": False, "local_nvme_gb": 450},
    "g5.4xlarge": {"gpu": "A10G", "gpu_count": 1, "vcpu": 16, "memory_gib": 64, "efa": False, "local_nvme_gb": 600},
    "g5.8xlarge": {"gpu": "A10G", "gpu_count": 1, "vcpu": 32, "memory_gib": 128, "efa": True, "local_nvme_gb": 900},
    "g5.12xlarge": {"gpu": "A10G", "gpu_count": 4, "vcpu": 48, "memory_gib": 192, "efa": True, "local_nvme_gb": 3800},
    "g5.16xlarge": {"gpu": "A10G", "gpu_count": 1, "vcpu": 64, "memory_gib": 256, "efa": True, "local_nvme_gb": 1900},
    "g5.24xlarge": {"gpu": "A10G", "gpu_count": 4, "vcpu": 96, "memory_gib": 384, "efa": True, "local_nvme_gb": 3800},
    "g5.48xlarge": {"gpu": "A10G", "gpu_count": 8, "vcpu": 192, "memory_gib": 768, "efa": True, "local_nvme_gb": 7600},
    "g6.xlarge": {"gpu": "L4", "gpu_count": 1, "vcpu": 4, "memory_gib": 16, "efa": False, "local_nvme_gb": 250},
    "g6.2xlarge": {"gpu": "L4", "gpu_count": 1, "vcpu": 8, "memory_gib": 32, "efa": False, "local_nvme_gb": 450},
    "g6.4xlarge": {"gpu": "L4", "gpu_count": 1, "vcpu": 16, "memory_gib": 64, "efa": False, "local_nvme_gb": 600},
    "g6.8xlarge": {"gpu": "L4", "gpu_count": 1, "vcpu": 32, "memory_gib": 128, "efa": True, "local_nvme_gb": 900},
    "g6.12xlarge": {"gpu": "L4", "gpu_count": 4, "vcpu": 48, "memory_gib": 192, "efa": True, "local_nvme_gb": 3760},
    "g6.16xlarge": {"gpu": "L4", "gpu_count": 1, "vcpu": 64, "memory_gib": 256, "efa": True, "local_nvme_gb": 1880},
    "g6.24xlarge": {"gpu": "L4", "gpu_count": 4, "vcpu": 96, "memory_gib": 384, "efa": True, "local_nvme_gb": 3760},
    "g6.48xlarge": {"gpu": "L4", "gpu_count": 8, "vcpu": 192, "memory_gib": 768, "efa": True, "local_nvme_gb": 7520},
    "g6e.xlarge": {"gpu": "L40S", "gpu_count": 1, "vcpu": 4, "memory_gib": 32, "efa": False, "local_nvme_gb": 250},
    "g6e.2xlarge": {"gpu": "L40S", "gpu_count": 1, "vcpu": 8, "memory_gib": 64, "efa": False, "local_nvme_gb": 450},
    "g6e.4xlarge": {"gpu": "L40S", "gpu_count": 1, "vcpu": 16, "memory_gib": 128, "efa": False, "local_nvme_gb": 600},
    "g6e.8xlarge": {"gpu": "L40S", "gpu_count": 1, "vcpu": 32, "memory_gib": 256, "efa": True, "local_nvme_gb": 900},
    "g6e.12xlarge": {"gpu": "L40S", "gpu_count": 4, "vcpu": 48, "memory_gib": 384, "efa": True, "local_nvme_gb": 3800},
    "g6e.16xlarge": {"gpu": "L40S", "gpu_count": 1, "vcpu": 64, "memory_gib": 512, "efa": True, "local_nvme_gb": 1900},
    "g6e.24xlarge": {"gpu": "L40S", "gpu_count": 4, "vcpu": 96, "memory_gib": 768, "efa": True, "local_nvme_gb": 3800},
    "g6e.48xlarge": {"gpu": "L40S", "gpu_count": 8, "vcpu": 192, "memory_gib": 1536, "efa": True, "local_nvme_gb": 7600},
    "g7e.2xlarge": {"gpu": "RTX-PRO-6000", "gpu_count": 1, "vcpu": 8, "memory_gib": 64, "efa": False, "local_nvme_gb": 1900},
    "g7e.4xlarge": {"gpu": "RTX-PRO-6000", "gpu_count": 1, "vcpu": 16, "memory_gib": 128, "efa": False, "local_nvme_gb": 1900},
    "g7e.8xlarge": {"gpu": "RTX-PRO-6000", "gpu_count": 1, "vcpu": 32, "memory_gib": 256, "efa": True, "local_nvme_gb": 1900},
    "g7e.12xlarge": {"gpu": "RTX-PRO-6000", "gpu_count": 2, "vcpu": 48, "memory_gib": 512, "efa": True, "local_nvme_gb": 3800},
    "g7e.24xlarge": {"gpu": "RTX-PRO-6000", "gpu_count": 4, "vcpu": 96, "memory_gib": 1024, "efa": True, "local_nvme_gb": 7600},
    "g7e.48xlarge": {"gpu": "RTX-PRO-6000", "gpu_count": 8, "vcpu": 192, "memory_gib": 2048, "efa": True, "local_nvme_gb": 15200},
    "p4d.24xlarge": {"gpu": "A100-40GB", "gpu_count": 8, "vcpu": 96, "memory_gib": 1152, "efa": True, "local_nvme_gb": 8000},
    "p4de.24xlarge": {"gpu": "A100-80GB", "gpu_count": 8, "vcpu": 96, "memory_gib": 1152, "efa": True, "local_nvme_gb": 8000},
    "p5.4xlarge": {"gpu": "H100", "gpu_count": 1, "vcpu": 16, "memory_gib": 256, "efa": True, "local_nvme_gb": 3800},
    "p5.48xlarge": {"gpu": "H100", "gpu_count": 8, "vcpu": 192, "memory_gib": 2048, "efa": True, "local_nvme_gb": 30400},
    "p5e.48xlarge": {"gpu": "H200", "gpu_count": 8, "vcpu": 192, "memory_gib": 2048, "efa": True, "local_nvme_gb": 30400},
    "p5en.48xlarge": {"gpu": "H200", "gpu_count": 8, "vcpu": 192, "memory_gib": 2048, "efa": True, "local_nvme_gb": 30400},
    "p6-b200.48xlarge": {"gpu": "B200", "gpu_count": 8, "vcpu": 192, "memory_gib": 2048, "efa": True, "local_nvme_gb": 30400},
    "p6-b300.48xlarge": {"gpu": "B300", "gpu_count": 8, "vcpu": 192, "memory_gib": 4096, "efa": True, "local_nvme_gb": 30400},
    "g6f.large": {"gpu": "L4", "gpu_count": 0, "vcpu": 2, "memory_gib": 8, "efa": False, "local_nvme_gb": 100, "fractional": True, "gpu_memory_gib_ec2": 2.79395},
    "g6f.xlarge": {"gpu": "L4", "gpu_count": 0, "vcpu": 4, "memory_gib": 16, "efa": False, "local_nvme_gb": 100, "fractional": True, "gpu_memory_gib_ec2": 2.79395},
    "g6f.2xlarge": {"gpu": "L4", "gpu_count": 0, "vcpu": 8, "memory_gib": 32, "efa": False, "local_nvme_gb": 200, "fractional": True, "gpu_memory_gib_ec2": 5.58789},
    "g6f.4xlarge": {"gpu": "L4", "gpu_count": 0, "vcpu": 16, "memory_gib": 64, "efa": False, "local_nvme_gb": 450, "fractional": True, "gpu_memory_gib_ec2": 11.1758},
    "gr6.4xlarge": {"gpu": "L4", "gpu_count": 1, "vcpu": 16, "memory_gib": 128, "efa": False, "local_nvme_gb": 600},
    "gr6.8xlarge": {"gpu": "L4", "gpu_count": 1, "vcpu": 32, "memory_gib": 256, "efa": True, "local_nvme_gb": 900},
}
