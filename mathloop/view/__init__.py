"""Pictures of a lineage: the obligation graph as a self-contained page or figure, and bound-history plots."""
