# These modules raise, exit or sleep when imported: pytest's doctest collection must not import them.
collect_ignore = ["raising.py", "exiting.py", "sleeping.py"]
