"""Everything Lean: refusal scan, bundled kernel and toolchain discovery, rendering, checking, export, attestations."""
