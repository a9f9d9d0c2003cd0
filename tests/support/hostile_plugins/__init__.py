"""Hostile target plug-ins for the registry's should-refuse tests, registered by injection (REGISTRY).

Each module misbehaves at import or claims what is not its own; none may take mathloop down.
"""
