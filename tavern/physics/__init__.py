"""tavern.physics"""
