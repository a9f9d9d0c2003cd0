"""A plug-in whose module calls sys.exit at import."""

import sys

sys.exit(3)
