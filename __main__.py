"""Pulumi entry point: `pulumi up` runs this file; `python -m stacks plan` runs it offline."""

from components.program import main

main()
