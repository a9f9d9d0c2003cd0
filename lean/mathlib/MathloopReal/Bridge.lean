import MathloopReal.Kappa

/-!
# Bridge: a commit's kernel claims ⟹ `k₀ ≤ 1 - log (a + b·e^(2R)) / R` over ℝ

`kappa_of_kernel_claims` takes the integer facts that a rendered Levinson–Conrey certificate
proves in core Lean (the `claim_*` of `Certs.C<hash>.Statement`, case `b ≥ 0`, i.e. the
`exp_bound_side` claim `0 ≤ b_num`) and concludes the real inequality. Instantiate it for a
commit with that commit's theorems, e.g.

```
open Certs.C<hash> in
example := MathloopReal.kappa_of_kernel_claims parameters_admissible exp_arguments exp_bound_side
  exp_values c_positive certificate_identities kappa_certificate
```

NOT COMPILED: no Lean toolchain was available where this file was written. See ../README.md.
-/

open Finset

namespace MathloopReal

theorem taylorDen_pos {q : ℕ} (hq : 0 < q) (n : ℕ) : (0 : ℝ) < Mathloop.taylorDen q n := by
  rw [taylorDen_eq]; push_cast
  exact mul_pos (pow_pos (by exact_mod_cast hq) n) (by exact_mod_cast Nat.factorial_pos n)

theorem expUpperDen_cast (p q n : ℕ) (h : p < (n + 2) * q) :
    (Mathloop.expUpperDen p q n : ℝ) =
      (q : ℝ) ^ (n + 1) * ((n + 1).factorial : ℝ) * (((n : ℝ) + 2) * q - p) := by
  unfold Mathloop.expUpperDen
  push_cast [Nat.cast_sub h.le, taylorDen_eq]
  ring

theorem expUpperNum_cast (p q n : ℕ) (h : p < (n + 2) * q) :
    (Mathloop.expUpperNum p q n : ℝ) =
      (Mathloop.taylorNum p q n : ℝ) * ((q : ℝ) * ((n : ℝ) + 1)) * (((n : ℝ) + 2) * q - p) +
        (p : ℝ) ^ (n + 1) * (((n : ℝ) + 2) * q) := by
  unfold Mathloop.expUpperNum
  push_cast [Nat.cast_sub h.le]
  ring

/-- The kernel's upper-bound fraction is the real Taylor sum plus the geometric remainder. -/
theorem expUpper_div (p q n : ℕ) (hq : 0 < q) (h : p < (n + 2) * q) :
    (Mathloop.expUpperNum p q n : ℝ) / (Mathloop.expUpperDen p q n : ℝ) =
      ∑ i ∈ range (n + 1), ((p : ℝ) / q) ^ i / (i.factorial : ℝ) +
        ((p : ℝ) / q) ^ (n + 1) / ((n + 1).factorial : ℝ) *
          ((((n + 1 : ℕ) : ℝ) + 1) / (((n + 1 : ℕ) : ℝ) + 1 - (p : ℝ) / q)) := by
  have hq' : (0 : ℝ) < q := by exact_mod_cast hq
  have hgap : (0 : ℝ) < ((n : ℝ) + 2) * q - p := by
    have : ((p : ℕ) : ℝ) < (((n + 2) * q : ℕ) : ℝ) := by exact_mod_cast h
    push_cast at this; linarith
  have hD : (0 : ℝ) < Mathloop.taylorDen q n := taylorDen_pos hq n
  have hpq : (p : ℝ) / q < (n : ℝ) + 2 := by
    rw [div_lt_iff₀ hq']
    have : ((p : ℕ) : ℝ) < (((n + 2) * q : ℕ) : ℝ) := by exact_mod_cast h
    push_cast at this; linarith
  have hgap' : (0 : ℝ) < ((n + 1 : ℕ) : ℝ) + 1 - (p : ℝ) / q := by push_cast; linarith
  have hq0 := hq'.ne'
  have hgap0 := hgap.ne'
  have hgap0' := hgap'.ne'
  have hD0 := hD.ne'
  rw [← taylorNum_div p q n hq, expUpperNum_cast p q n h, expUpperDen_cast p q n h, taylorDen_eq]
  push_cast
  field_simp
  ring

/-- Levinson–Conrey (case b ≥ 0) from the kernel claims of a rendered certificate. Conrey's
mean-value theorem is taken as given; this is a statement about the explicit real numbers only. -/
theorem kappa_of_kernel_claims
    {thN thD RN RD x1N x1D n1 x2N x2D n2 E1N E1D E2N E2D aD bD k0D D : ℕ} {aN bN k0N N1 N2 : ℤ}
    (hpar : 0 < thN ∧ 0 < thD ∧ 7 * thN < 4 * thD ∧ 0 < RN ∧ 0 < RD)
    (hargs : 0 < x1D ∧ 0 < x2D ∧ 0 < k0D ∧ 0 < aD ∧ 0 < bD ∧ x1N * RD = 2 * RN * x1D ∧
      x1N < (n1 + 2) * x1D ∧
      (x2N : ℤ) * ((RD : ℤ) * (k0D : ℤ)) = (RN : ℤ) * ((k0D : ℤ) - k0N) * (x2D : ℤ))
    (hside : 0 ≤ bN)
    (hvals : 0 < E1D ∧ 0 < E2D ∧
      E1N * Mathloop.expUpperDen x1N x1D n1 = Mathloop.expUpperNum x1N x1D n1 * E1D ∧
      E2N * Mathloop.taylorDen x2D n2 = Mathloop.taylorNum x2N x2D n2 * E2D)
    (hcpos : 0 < (aN * (bD : ℤ) * (Mathloop.taylorDen x1D n1 : ℤ) +
      bN * (aD : ℤ) * (Mathloop.taylorNum x1N x1D n1 : ℤ)))
    (hid : 0 < D ∧ N1 * ((aD : ℤ) * (bD : ℤ) * (E1D : ℤ)) =
        (aN * (bD : ℤ) * (E1D : ℤ) + bN * (aD : ℤ) * (E1N : ℤ)) * (D : ℤ) ∧
      N2 * (E2D : ℤ) = (E2N : ℤ) * (D : ℤ))
    (hk : N1 ≤ N2) :
    ((k0N : ℝ) / k0D) ≤
      1 - Real.log ((aN : ℝ) / aD + (bN : ℝ) / bD * Real.exp (2 * ((RN : ℝ) / RD))) / ((RN : ℝ) / RD) := by
  obtain ⟨-, -, -, hRN, hRD⟩ := hpar
  obtain ⟨hx1D, hx2D, hk0D, haD, hbD, hx1, hx1lt, hx2⟩ := hargs
  obtain ⟨hE1D, hE2D, hE1, hE2⟩ := hvals
  obtain ⟨hD, hN1, hN2⟩ := hid
  -- positivity of the denominators over ℝ
  have rRD : (0 : ℝ) < RD := by exact_mod_cast hRD
  have rRN : (0 : ℝ) < RN := by exact_mod_cast hRN
  have rx1D : (0 : ℝ) < x1D := by exact_mod_cast hx1D
  have rx2D : (0 : ℝ) < x2D := by exact_mod_cast hx2D
  have rk0D : (0 : ℝ) < k0D := by exact_mod_cast hk0D
  have raD : (0 : ℝ) < aD := by exact_mod_cast haD
  have rbD : (0 : ℝ) < bD := by exact_mod_cast hbD
  have rE1D : (0 : ℝ) < E1D := by exact_mod_cast hE1D
  have rE2D : (0 : ℝ) < E2D := by exact_mod_cast hE2D
  have rD : (0 : ℝ) < D := by exact_mod_cast hD
  set R : ℝ := (RN : ℝ) / RD with hR_def
  set a : ℝ := (aN : ℝ) / aD with ha_def
  set b : ℝ := (bN : ℝ) / bD with hb_def
  set k₀ : ℝ := (k0N : ℝ) / k0D with hk_def
  set E₁ : ℝ := (E1N : ℝ) / E1D with hE1_def
  set E₂ : ℝ := (E2N : ℝ) / E2D with hE2_def
  have hRpos : 0 < R := div_pos rRN rRD
  have hb0 : 0 ≤ b := by
    have : (0 : ℝ) ≤ bN := by exact_mod_cast hside
    exact div_nonneg this rbD.le
  -- nonzero denominators, for field_simp
  have nRD := rRD.ne'
  have nx1D := rx1D.ne'
  have nx2D := rx2D.ne'
  have nk0D := rk0D.ne'
  have naD := raD.ne'
  have nbD := rbD.ne'
  have nE1D := rE1D.ne'
  have nE2D := rE2D.ne'
  have nD := rD.ne'
  -- x₁ = 2R and x₂ = R(1 - k₀)
  have hx1r : (x1N : ℝ) / x1D = 2 * R := by
    have : ((x1N * RD : ℕ) : ℝ) = ((2 * RN * x1D : ℕ) : ℝ) := by exact_mod_cast hx1
    push_cast at this
    rw [hR_def]; field_simp; linarith
  have hx2r : (x2N : ℝ) / x2D = R * (1 - k₀) := by
    have : ((x2N : ℤ) : ℝ) * (((RD : ℤ) : ℝ) * ((k0D : ℤ) : ℝ)) =
        ((RN : ℤ) : ℝ) * (((k0D : ℤ) : ℝ) - (k0N : ℝ)) * ((x2D : ℤ) : ℝ) := by exact_mod_cast hx2
    push_cast at this
    rw [hR_def, hk_def]; field_simp; linarith
  -- the stored bounds are the Taylor expressions, hence bounds of the exponentials
  have hE1r : E₁ = (Mathloop.expUpperNum x1N x1D n1 : ℝ) / (Mathloop.expUpperDen x1N x1D n1 : ℝ) := by
    have hU : (0 : ℝ) < Mathloop.expUpperDen x1N x1D n1 := by
      rw [expUpperDen_cast _ _ _ hx1lt]
      have : ((x1N : ℕ) : ℝ) < (((n1 + 2) * x1D : ℕ) : ℝ) := by exact_mod_cast hx1lt
      push_cast at this
      have hg : (0 : ℝ) < ((n1 : ℝ) + 2) * x1D - x1N := by linarith
      exact mul_pos (mul_pos (pow_pos rx1D _) (by exact_mod_cast Nat.factorial_pos _)) hg
    have : ((E1N * Mathloop.expUpperDen x1N x1D n1 : ℕ) : ℝ) = ((Mathloop.expUpperNum x1N x1D n1 * E1D : ℕ) : ℝ) := by
      exact_mod_cast hE1
    push_cast at this
    rw [hE1_def, div_eq_div_iff rE1D.ne' hU.ne']; linarith
  have hE2r : E₂ = (Mathloop.taylorNum x2N x2D n2 : ℝ) / (Mathloop.taylorDen x2D n2 : ℝ) := by
    have hT : (0 : ℝ) < Mathloop.taylorDen x2D n2 := taylorDen_pos hx2D n2
    have : ((E2N * Mathloop.taylorDen x2D n2 : ℕ) : ℝ) = ((Mathloop.taylorNum x2N x2D n2 * E2D : ℕ) : ℝ) := by
      exact_mod_cast hE2
    push_cast at this
    rw [hE2_def, div_eq_div_iff rE2D.ne' hT.ne']; linarith
  have hexp1 : Real.exp (2 * R) ≤ E₁ := by
    rw [hE1r, expUpper_div _ _ _ hx1D hx1lt, hx1r]
    have hlt : 2 * R < ((n1 + 1 : ℕ) : ℝ) + 1 := by
      have : ((x1N : ℕ) : ℝ) < (((n1 + 2) * x1D : ℕ) : ℝ) := by exact_mod_cast hx1lt
      push_cast at this
      rw [← hx1r, div_lt_iff₀ rx1D]; push_cast; linarith
    exact exp_le_taylor_upper (by linarith) hlt
  have hexp2 : E₂ ≤ Real.exp (R * (1 - k₀)) := by
    rw [hE2r, taylorNum_div _ _ _ hx2D, hx2r]
    have : 0 ≤ R * (1 - k₀) := by rw [← hx2r]; positivity
    exact taylor_le_exp this _
  -- the certificate: a + b·E₁ = N₁/D ≤ N₂/D = E₂
  have hcert : a + b * E₁ ≤ E₂ := by
    have h1 : ((N1 : ℝ)) * ((aD : ℝ) * bD * E1D) = ((aN : ℝ) * bD * E1D + (bN : ℝ) * aD * E1N) * D := by
      exact_mod_cast hN1
    have h2 : (N2 : ℝ) * E2D = (E2N : ℝ) * D := by exact_mod_cast hN2
    have h3 : (N1 : ℝ) ≤ N2 := by exact_mod_cast hk
    have hl : a + b * E₁ = (N1 : ℝ) / D := by
      rw [ha_def, hb_def, hE1_def, eq_div_iff rD.ne']; field_simp; linarith
    have hr : E₂ = (N2 : ℝ) / D := by
      rw [hE2_def, eq_div_iff rD.ne']; field_simp; linarith
    rw [hl, hr]; exact div_le_div_of_nonneg_right h3 rD.le
  -- c > 0 from the lower Taylor bound of e^(2R)
  have hc : 0 < a + b * Real.exp (2 * R) := by
    have hT : (0 : ℝ) < Mathloop.taylorDen x1D n1 := taylorDen_pos hx1D n1
    have hS : (Mathloop.taylorNum x1N x1D n1 : ℝ) / Mathloop.taylorDen x1D n1 ≤ Real.exp (2 * R) := by
      rw [taylorNum_div _ _ _ hx1D, hx1r]; exact taylor_le_exp (by linarith) _
    have hpos : (0 : ℝ) < a + b * ((Mathloop.taylorNum x1N x1D n1 : ℝ) / Mathloop.taylorDen x1D n1) := by
      have : (0 : ℝ) < (aN : ℝ) * bD * Mathloop.taylorDen x1D n1 + (bN : ℝ) * aD * Mathloop.taylorNum x1N x1D n1 := by
        exact_mod_cast hcpos
      have e : a + b * ((Mathloop.taylorNum x1N x1D n1 : ℝ) / Mathloop.taylorDen x1D n1) =
          ((aN : ℝ) * bD * Mathloop.taylorDen x1D n1 + (bN : ℝ) * aD * Mathloop.taylorNum x1N x1D n1) /
            ((aD : ℝ) * bD * Mathloop.taylorDen x1D n1) := by
        rw [ha_def, hb_def]; field_simp; ring
      rw [e]; exact div_pos this (mul_pos (mul_pos raD rbD) hT)
    nlinarith [mul_le_mul_of_nonneg_left hS hb0]
  exact kappa_ge_of_bounds hRpos hc (mul_le_mul_of_nonneg_left hexp1 hb0) hexp2 hcert

end MathloopReal
