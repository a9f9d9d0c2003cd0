import Mathlib

/-!
# Taylor bounds of `Real.exp` (optional Mathlib layer)

`taylor_le_exp` is Mathlib's `Real.sum_le_exp_of_nonneg`. `exp_le_taylor_upper` is the upper
bound the kernel certificates use: for `0 ≤ x < m + 1`,
`exp x ≤ ∑_{i<m} x^i/i! + x^m/m! · (m+1)/(m+1-x)`
(the tail is at most its first term times a geometric series of ratio `x/(m+1)`); its proof
follows Mathlib's own `Complex.exp_bound'` (partial sums, then `CauSeq.lim_le`).

NOT COMPILED: no Lean toolchain was available where this file was written. See ../README.md.
-/

open Finset

namespace MathloopReal

/-- Lower Taylor bound: `∑_{i<m} x^i/i! ≤ exp x` for `x ≥ 0`. -/
theorem taylor_le_exp {x : ℝ} (hx : 0 ≤ x) (m : ℕ) :
    ∑ i ∈ range m, x ^ i / (i.factorial : ℝ) ≤ Real.exp x :=
  Real.sum_le_exp_of_nonneg hx m

/-- Every partial sum of the exponential series at `0 ≤ x < m + 1` is at most the upper bound. -/
theorem partial_sum_le_taylor_upper {x : ℝ} (hx : 0 ≤ x) {m : ℕ} (hxm : x < m + 1) (j : ℕ) :
    ∑ i ∈ range j, x ^ i / (i.factorial : ℝ) ≤
      ∑ i ∈ range m, x ^ i / (i.factorial : ℝ) + x ^ m / (m.factorial : ℝ) * ((m + 1) / (m + 1 - x)) := by
  have hm1 : (0 : ℝ) < m + 1 := by positivity
  have hgap : (0 : ℝ) < m + 1 - x := by linarith
  set q : ℝ := x / (m + 1) with hq_def
  have hq0 : 0 ≤ q := div_nonneg hx hm1.le
  have hq1 : q < 1 := by rw [hq_def, div_lt_one hm1]; exact hxm
  have htail0 : 0 ≤ x ^ m / (m.factorial : ℝ) * ((m + 1) / (m + 1 - x)) :=
    mul_nonneg (div_nonneg (pow_nonneg hx m) (by positivity)) (div_nonneg hm1.le hgap.le)
  rcases le_or_gt j m with hj | hj
  · have hmono : ∑ i ∈ range j, x ^ i / (i.factorial : ℝ) ≤ ∑ i ∈ range m, x ^ i / (i.factorial : ℝ) :=
      sum_le_sum_of_subset_of_nonneg (range_mono hj) (fun _ _ _ => by positivity)
    linarith
  · obtain ⟨k, rfl⟩ : ∃ k, j = m + k := ⟨j - m, by omega⟩
    rw [sum_range_add]
    have hterm : ∀ i ∈ range k,
        x ^ (m + i) / ((m + i).factorial : ℝ) ≤ x ^ m / (m.factorial : ℝ) * q ^ i := by
      intro i _
      calc x ^ (m + i) / ((m + i).factorial : ℝ)
          ≤ x ^ (m + i) / ((m.factorial : ℝ) * ((m : ℝ) + 1) ^ i) := by
            gcongr
            exact_mod_cast Nat.factorial_mul_pow_le_factorial
        _ = x ^ m / (m.factorial : ℝ) * q ^ i := by
            rw [hq_def, div_pow, pow_add, div_mul_div_comm]
    have hgeom : ∑ i ∈ range k, q ^ i ≤ (m + 1) / (m + 1 - x) := by
      have hsum : (∑ i ∈ range k, q ^ i) * (1 - q) = 1 - q ^ k := geom_sum_mul_neg q k
      have hqk : 0 ≤ q ^ k := pow_nonneg hq0 k
      have hqm : q * (m + 1) = x := by rw [hq_def]; field_simp
      have hprod : (∑ i ∈ range k, q ^ i) * (m + 1 - x) = (m + 1) * (1 - q ^ k) := by
        rw [← hqm, ← hsum]; ring
      rw [le_div_iff₀ hgap, hprod]
      nlinarith
    calc ∑ i ∈ range m, x ^ i / (i.factorial : ℝ) + ∑ i ∈ range k, x ^ (m + i) / ((m + i).factorial : ℝ)
        ≤ ∑ i ∈ range m, x ^ i / (i.factorial : ℝ) + ∑ i ∈ range k, x ^ m / (m.factorial : ℝ) * q ^ i := by
          gcongr with i hi
          exact hterm i hi
      _ = ∑ i ∈ range m, x ^ i / (i.factorial : ℝ) + x ^ m / (m.factorial : ℝ) * ∑ i ∈ range k, q ^ i := by
          rw [mul_sum]
      _ ≤ ∑ i ∈ range m, x ^ i / (i.factorial : ℝ) + x ^ m / (m.factorial : ℝ) * ((m + 1) / (m + 1 - x)) := by
          gcongr

/-- Upper Taylor bound with the geometric remainder, for `0 ≤ x < m + 1`. -/
theorem exp_le_taylor_upper {x : ℝ} (hx : 0 ≤ x) {m : ℕ} (hxm : x < m + 1) :
    Real.exp x ≤
      ∑ i ∈ range m, x ^ i / (i.factorial : ℝ) + x ^ m / (m.factorial : ℝ) * ((m + 1) / (m + 1 - x)) := by
  calc Real.exp x = lim (⟨_, Complex.isCauSeq_re (Complex.exp' x)⟩ : CauSeq ℝ abs) := by
        rw [Real.exp, Complex.exp, ← Complex.cauSeqRe, Complex.lim_re]
    _ ≤ _ := by
        refine CauSeq.lim_le (CauSeq.le_of_exists ⟨0, fun j _ => ?_⟩)
        simp only [Complex.exp', CauSeq.const_apply, Complex.re_sum]
        norm_cast
        exact partial_sum_le_taylor_upper hx hxm j

end MathloopReal
