"""A plug-in whose shipped contract lacks an obligation its own target requires."""
