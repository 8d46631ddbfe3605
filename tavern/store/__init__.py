"""tavern.store"""
