"""Policies over what `python -m policies check` could not read (S27): a bad file is a finding, never silence."""
