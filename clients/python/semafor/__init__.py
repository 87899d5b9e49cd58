"""Semafor client."""
