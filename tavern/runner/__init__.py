"""The turn transaction, undo and compaction."""
