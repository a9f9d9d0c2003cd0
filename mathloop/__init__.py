"""mathloop: a formal-math exploration agent in which models propose and checkers decide."""

__version__ = "0.1.0"
