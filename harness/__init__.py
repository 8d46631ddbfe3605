"""The measurement harness: probes, replay, sweeps, campaigns, judging and analysis.

It imports the kernel's definitions and never re-defines what a leak, a record or a journal
line is.
"""

__all__: list[str] = []
