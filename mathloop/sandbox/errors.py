"""Why no sandbox can be made here."""


class SandboxUnavailable(RuntimeError):
    """No program sandbox can be made on this machine; str() names what is missing in one line."""
