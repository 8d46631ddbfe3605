"""tavern.app"""
