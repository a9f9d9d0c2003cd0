"""Contracts: the fixed obligation graph of a target, parsed and validated from TOML (nothing above this layer).

Loading a target's contract by name, or a user file checked by its target, is `mathloop.targets.load_contract`.
"""

from mathloop.contract.load import parse_contract, read_contract_file
from mathloop.contract.model import BoundSpec, Contract, ContractError, Obligation
from mathloop.contract.rules import Floor, Required

__all__ = ["BoundSpec", "Contract", "ContractError", "Floor", "Obligation", "Required", "parse_contract",
           "read_contract_file"]


def __getattr__(name: str):
    if name in ("load_contract", "load_file"):  # moved up a layer: say where, rather than a bare AttributeError
        raise AttributeError(f"mathloop.contract.{name} moved to mathloop.targets.{name} (contract/ only parses TOML)")
    raise AttributeError(f"module 'mathloop.contract' has no attribute {name!r}")
