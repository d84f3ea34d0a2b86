"""Pure builders: typed config + capacity plan -> Kubernetes manifests as dicts (no Pulumi imports)."""
