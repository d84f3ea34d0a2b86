"""Policies over what `python -m policies check` could not read (S26): a bad file is a finding, never silence."""
