"""`python -m mathloop`."""

from mathloop.cli.app import main

main()
