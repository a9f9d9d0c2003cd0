"""Proposers: the embedded local search, OpenAI-compatible endpoints, replay files."""

from mathloop.propose.base import Context, Head, Proposal, Proposer, Rejection, StopSession, payload_sha

__all__ = ["Context", "Head", "Proposal", "Proposer", "Rejection", "StopSession", "payload_sha"]
