"""Checks on the objects the controllers create from ours (components/derive): what the API server
does to KServe's predictor Deployment, and what its progress deadline means for a slow-starting model."""
