"""Tavern: a rigid multi-agent kernel for roleplay with blind agents.

No model ever learns that a human drives one of the characters. Knowledge boundaries
(whispers, zones, identity, the agency lock, the narrative clock) are enforced in code.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
