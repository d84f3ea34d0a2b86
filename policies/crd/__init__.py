"""What the API server itself refuses in a custom resource: its CRD's CEL validation rules (S26)."""
