import MathloopReal.ExpBounds
import Mathloop.Basic

/-!
# From the kernel certificate to `k₀ ≤ 1 - log (a + b·e^(2R)) / R` (optional Mathlib layer)

The core certificates (`Certs.C<hash>.*`, core Lean only) prove exact integer facts; this file
states what they mean over ℝ:

* `taylorNum_div` / `expUpper_div`: the kernel's `Nat` Taylor expressions are the real Taylor sums;
* `kappa_ge_of_bounds`: if `c = a + b·e^(2R) > 0`, `b·e^(2R) ≤ b·E₁`, `E₂ ≤ e^(R(1-k₀))` and
  `a + b·E₁ ≤ E₂` (the certificate `N₁ ≤ N₂`), then `k₀ ≤ 1 - log c / R`.

Conrey's mean-value theorem (κ ≥ 1 − log c / R; Conrey 1989, Young arXiv:1002.4403) is taken as
given: nothing here is proved about ζ.

NOT COMPILED: no Lean toolchain was available where this file was written. See ../README.md.
-/

open Finset

namespace MathloopReal

/-- `taylorDen q n = q^n · n!`. -/
theorem taylorDen_eq (q n : ℕ) : Mathloop.taylorDen q n = q ^ n * n.factorial := by
  induction n with
  | zero => simp [Mathloop.taylorDen]
  | succ n ih => simp only [Mathloop.taylorDen, ih, Nat.factorial_succ, pow_succ]; ring

/-- The kernel's Taylor numerator over its denominator is `∑_{i≤n} (p/q)^i / i!`. -/
theorem taylorNum_div (p q n : ℕ) (hq : 0 < q) :
    (Mathloop.taylorNum p q n : ℝ) / (Mathloop.taylorDen q n : ℝ) =
      ∑ i ∈ range (n + 1), ((p : ℝ) / q) ^ i / (i.factorial : ℝ) := by
  have hq' : (0 : ℝ) < q := by exact_mod_cast hq
  have hq0 : (q : ℝ) ≠ 0 := hq'.ne'
  induction n with
  | zero => simp [Mathloop.taylorNum, Mathloop.taylorDen]
  | succ n ih =>
    rw [sum_range_succ, ← ih]
    simp only [Mathloop.taylorNum, Mathloop.taylorDen, taylorDen_eq, Nat.factorial_succ]
    push_cast
    field_simp
    ring

/-- The certificate's inequality gives the Levinson–Conrey bound (Conrey's formula taken as given). -/
theorem kappa_ge_of_bounds {a b R k₀ E₁ E₂ : ℝ} (hR : 0 < R) (hc : 0 < a + b * Real.exp (2 * R))
    (hE₁ : b * Real.exp (2 * R) ≤ b * E₁) (hE₂ : E₂ ≤ Real.exp (R * (1 - k₀)))
    (hcert : a + b * E₁ ≤ E₂) :
    k₀ ≤ 1 - Real.log (a + b * Real.exp (2 * R)) / R := by
  have h1 : a + b * Real.exp (2 * R) ≤ Real.exp (R * (1 - k₀)) := by linarith
  have h2 : Real.log (a + b * Real.exp (2 * R)) ≤ R * (1 - k₀) := (Real.log_le_iff_le_exp hc).2 h1
  have h3 : Real.log (a + b * Real.exp (2 * R)) / R ≤ 1 - k₀ := by
    rw [div_le_iff₀ hR]; linarith
  linarith

/-- The `b ≥ 0` case with the certificate's Taylor bounds spelled out over ℝ. -/
theorem kappa_ge_of_taylor {a b R k₀ : ℝ} {n₁ n₂ : ℕ} (hR : 0 < R) (hk : k₀ ≤ 1) (hb : 0 ≤ b)
    (hx : 2 * R < (n₁ + 1 : ℕ) + 1) (hc : 0 < a + b * Real.exp (2 * R))
    (hcert : a + b * (∑ i ∈ range (n₁ + 1), (2 * R) ^ i / (i.factorial : ℝ) +
        (2 * R) ^ (n₁ + 1) / ((n₁ + 1).factorial : ℝ) * (((n₁ + 1 : ℕ) + 1) / ((n₁ + 1 : ℕ) + 1 - 2 * R))) ≤
      ∑ i ∈ range (n₂ + 1), (R * (1 - k₀)) ^ i / (i.factorial : ℝ)) :
    k₀ ≤ 1 - Real.log (a + b * Real.exp (2 * R)) / R := by
  refine kappa_ge_of_bounds hR hc ?_ (taylor_le_exp (by nlinarith) _) hcert
  exact mul_le_mul_of_nonneg_left (exp_le_taylor_upper (by linarith) hx) hb

end MathloopReal
