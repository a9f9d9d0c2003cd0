"""The furstenberg-sarkozy target (constant 4b): lower bounds from residue sets with no square differences."""
