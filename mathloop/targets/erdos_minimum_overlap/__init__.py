"""Target `erdos-minimum-overlap`: exact upper bounds on the Erdős minimum overlap constant C1b."""
