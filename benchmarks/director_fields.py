"""Director answers with every field required vs only `director.REQUIRED_FIELDS`, live.

    python -m benchmarks.director_fields JOURNAL [JOURNAL ...] [--calls 12] [--seed 11]

Replays the Director prompts journaled by live sessions against the embedded `llama-server`,
each twice with the same seed: once under the schema as it was up to stop 14 (every field
required), once under today's (`blocking`, `scene`, `mood_updates`, `zone_moves` and
`link_updates` optional). Prints, per prompt and in total, the tokens written, the wall time,
whether the answer is valid under its schema, and how many events it proposes: leaving fields
optional is worth it only if it saves time without costing the beat its events. Needs
`tavern model install`; not a timed test.
"""

from __future__ import annotations

import asyncio

from benchmarks._journaled import calls_from_arguments
from benchmarks.compact_json import Variants, run
from tavern.agents import director

ALL_REQUIRED = {**director.OUTPUT_SCHEMA, "required": list(director.OUTPUT_SCHEMA["properties"])}
"""The Director's schema with every field required, as it was up to stop 14."""
VARIANTS: Variants = {
    "all required": (False, ALL_REQUIRED),
    "schema": (False, director.OUTPUT_SCHEMA),
}


def main() -> None:
    """Parse arguments and run."""
    calls, seed = calls_from_arguments("director_fields", __doc__ or "", "director")
    asyncio.run(run(calls, seed, VARIANTS))


if __name__ == "__main__":
    main()
