"""The refusals a target raises: a malformed payload, an unusable certificate, a checker that cannot answer."""

from __future__ import annotations

__all__ = ["CertificateError", "CheckerCrash", "Malformed", "MissingExtra"]


class Malformed(ValueError):
    """The payload violates the candidate schema or the contract's limits; str() is the reason."""


class CertificateError(ValueError):
    """An exported certificate file or manifest is unusable (missing, outside the export, not a certificate)."""


class CheckerCrash(RuntimeError):
    """A checker could not answer (crash, timeout, cross-check disagreement); becomes `error`."""


class MissingExtra(RuntimeError):
    """An optional dependency is not installed; str() names the extra that provides it (the CLI exits 2)."""
