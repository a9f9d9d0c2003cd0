"""A plug-in whose module sleeps at import (MATHLOOP_TEST_PLUGIN_SLEEP_S seconds, default 3)."""

import os
import time

time.sleep(float(os.environ.get("MATHLOOP_TEST_PLUGIN_SLEEP_S", "3")))

from tests.support.toy_target import ToyTarget  # noqa: E402


class Sleeper(ToyTarget):
    name = "sleeper"
