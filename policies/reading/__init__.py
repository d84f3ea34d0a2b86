"""How the pack reads what a manifest describes: the serving engines, the model servers and their
flags, Ray clusters, GPU pools and selection, Karpenter NodePools, the request path.

The policy modules (one per policy, grouped by concern in the sibling packages) read manifests
through these modules and never through one another, so no policy group depends on another.
"""
