"""The one base class for every persisted or journaled shape."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Record(BaseModel):
    """A strict record: unknown fields are refused and field docstrings become schema text."""

    model_config = ConfigDict(
        extra="forbid",
        use_attribute_docstrings=True,
        validate_assignment=False,
    )
