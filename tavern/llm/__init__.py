"""tavern.llm"""
