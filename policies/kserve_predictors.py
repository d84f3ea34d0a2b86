"""The predictor kinds of a KServe InferenceService written before ``model``: pure data, read by policies.kube.

kserve/kserve v0.20.0 pkg/apis/serving/v1beta1/predictor.go:39-58 (PredictorSpec ``sklearn``, ``xgboost``,
``tensorflow``, ``pytorch``, ``triton``, ``onnx``, ``huggingface``, ``pmml``, ``lightgbm``, ``paddle``): each is a
PredictorExtensionSpec inlining corev1.Container (predictor.go:122-135), so its resources, env and securityContext are
the kserve-container's, as a ``model``'s are (spent set 77 wbe7/torchrt inferenceservice-full.yaml, a ``triton``
predictor with one GPU).
"""

from __future__ import annotations

from collections.abc import Mapping

KSERVE_FRAMEWORK_PREDICTORS = (
    "sklearn",
    "xgboost",
    "tensorflow",
    "pytorch",
    "triton",
    "onnx",
    "huggingface",
    "pmml",
    "lightgbm",
    "paddle",
)


def framework_specs(podspec: Mapping) -> list[dict]:
    """The framework-keyed predictor specs of a predictor (each a container), in the order above."""
    return [spec for key in KSERVE_FRAMEWORK_PREDICTORS if isinstance(spec := podspec.get(key), dict)]
