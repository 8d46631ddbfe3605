"""tavern.agents"""
