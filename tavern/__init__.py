"""Tavern: a rigid multi-agent kernel for roleplay with blind agents.

No model ever learns that a human drives one of the characters. Knowledge boundaries
(whispers, zones, identity, the agency lock, the narrative clock) are enforced in code.
"""

import sys

# jsonschema imports rfc3987_syntax whenever it is installed (the Jupyter stack brings it),
# and that module compiles a grammar at import: seconds of CPU in every process and test
# worker. Tavern validates no IRI formats, so the optional import is declined up front.
sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]

__version__ = "0.1.0"

__all__ = ["__version__"]
