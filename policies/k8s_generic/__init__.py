"""Generic Kubernetes checks from the catalogue's general table (rows G<n>)."""
