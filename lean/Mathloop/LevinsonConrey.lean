/-
The Levinson–Conrey constant in exact arithmetic (uses Mathloop.Exact).

  c(P, Q, R, θ) = 1 + (1/θ) ∫₀¹∫₀¹ e^(2Rv) (P'(u)Q(v) + θ·P(u)(Q'(v) + R·Q(v)))² du dv.

Expanding the square separates the variables: with the u-integrals I₁ = ∫P'², I₂ = ∫P'P, I₃ = ∫P²
and B = Q' + R·Q, the v-integrand is e^(λv)·g(v) with λ = 2R and
g = I₁·Q² + 2θI₂·Q·B + θ²I₃·B². Integration by parts gives ∫₀¹ v^k e^(λv) dv = α_k e^λ + β_k with
α₀ = 1/λ, β₀ = −1/λ, α_k = 1/λ − (k/λ)α_(k−1), β_k = −(k/λ)β_(k−1); hence c = a + b·e^(2R) with
a = 1 + (Σ g_k β_k)/θ and b = (Σ g_k α_k)/θ. The functions below compute exactly this a and b.
-/
import Mathloop.Exact

namespace Mathloop

noncomputable section

/-- The u-integrated square g(v) = I₁·Q² + 2θI₂·Q·B + θ²I₃·B² with B = Q' + R·Q. -/
def lcIntegrand (P Q : List Frac) (R θ : Frac) : List Frac :=
  padd (pscale (pint01 (pmul (pderiv P) (pderiv P))) (pmul Q Q))
    (padd (pscale (qmul (qmul (qnat (Nat.succ (Nat.succ Nat.zero))) θ) (pint01 (pmul (pderiv P) P)))
            (pmul Q (padd (pderiv Q) (pscale R Q))))
      (pscale (qmul (qmul θ θ) (pint01 (pmul P P)))
        (pmul (padd (pderiv Q) (pscale R Q)) (padd (pderiv Q) (pscale R Q)))))

/-- `alphaSum lam k α g`: the sum of g_j·α_j over the remaining coefficients, α = α_k on entry. -/
def alphaSum (lam : Frac) : Nat → Frac → List Frac → Frac
  | _, _, List.nil => qnat Nat.zero
  | k, α, List.cons c cs =>
    qadd (qmul c α) (alphaSum lam (Nat.succ k) (qsub (qinv lam) (qmul (qdiv (qnat (Nat.succ k)) lam) α)) cs)

/-- `betaSum lam k β g`: the sum of g_j·β_j over the remaining coefficients, β = β_k on entry. -/
def betaSum (lam : Frac) : Nat → Frac → List Frac → Frac
  | _, _, List.nil => qnat Nat.zero
  | k, β, List.cons c cs =>
    qadd (qmul c β) (betaSum lam (Nat.succ k) (qneg (qmul (qdiv (qnat (Nat.succ k)) lam) β)) cs)

/-- λ = 2R. -/
def lcLambda (R : Frac) : Frac := qmul (qnat (Nat.succ (Nat.succ Nat.zero))) R

/-- a in c = a + b·e^(2R). -/
def lcA (P Q : List Frac) (R θ : Frac) : Frac :=
  qadd (qnat (Nat.succ Nat.zero))
    (qdiv (betaSum (lcLambda R) Nat.zero (qneg (qinv (lcLambda R))) (lcIntegrand P Q R θ)) θ)

/-- b in c = a + b·e^(2R). -/
def lcB (P Q : List Frac) (R θ : Frac) : Frac :=
  qdiv (alphaSum (lcLambda R) Nat.zero (qinv (lcLambda R)) (lcIntegrand P Q R θ)) θ

/-- The bound of e^(2R) used on the left side: from above when b ≥ 0, else from below. -/
def lcE1 (b R : Frac) (n : Nat) : Frac :=
  match qle (qnat Nat.zero) b with
  | Bool.true => expUpper (lcLambda R) n
  | Bool.false => taylor (lcLambda R) n

/-- The opposite bound of e^(2R), from which c > 0 follows. -/
def lcE1Other (b R : Frac) (n : Nat) : Frac :=
  match qle (qnat Nat.zero) b with
  | Bool.true => taylor (lcLambda R) n
  | Bool.false => expUpper (lcLambda R) n

/-- x₂ = R·(1 − k₀), the argument of the right side's exponential. -/
def lcX2 (R k0 : Frac) : Frac := qmul R (qsub (qnat (Nat.succ Nat.zero)) k0)

/-- Conrey's admissible range for the mollifier length (1989): θ < 4/7. -/
def conreyThetaSup : Frac := qp 4 7

/-- Levinson's admissible range for the mollifier length (1974): θ < 1/2. -/
def levinsonThetaSup : Frac := qp 1 2

/-- Admissibility from the data: valid fractions, 0 < θ < θsup, R > 0, P(0) = 0, P(1) = 1,
Q(0) = 1 and Q(x) + Q(1 − x) constant. -/
def lcAdmissible (P Q : List Frac) (R θ θsup : Frac) : Bool :=
  band (band (pvalid P) (pvalid Q)) (band (band (qvalid R) (qvalid θ))
    (band (band (qlt (qnat Nat.zero) θ) (qlt θ θsup)) (band (qlt (qnat Nat.zero) R)
      (band (band (qeq (peval P (qnat Nat.zero)) (qnat Nat.zero)) (qeq (peval P (qnat (Nat.succ Nat.zero))) (qnat (Nat.succ Nat.zero))))
        (band (qeq (peval Q (qnat Nat.zero)) (qnat (Nat.succ Nat.zero))) (pconst (padd Q (preflect Q))))))))

/-- The given a and b are the closed form c = a + b·e^(2R) computed from P, Q, R and θ. -/
def lcClosedForm (P Q : List Frac) (R θ a b : Frac) : Bool :=
  band (band (qvalid a) (qvalid b)) (band (qeq (lcA P Q R θ) a) (qeq (lcB P Q R θ) b))

/-- The given E₁ and E₂ are the Taylor enclosures of orders n₁, n₂: E₁ bounds e^(2R) from above
(with 2R < n₁ + 2) when b ≥ 0 and from below otherwise; E₂ is the Taylor sum at R(1 − k₀) ≥ 0. -/
def lcExpBounds (R b k0 : Frac) (n1 n2 : Nat) (E1 E2 : Frac) : Bool :=
  band (band (qvalid k0) (band (qvalid E1) (qvalid E2)))
    (band (qlt (lcLambda R) (qnat (Nat.succ (Nat.succ n1))))
      (band (qle (qnat Nat.zero) (lcX2 R k0))
        (band (qeq E1 (lcE1 b R n1)) (qeq E2 (taylor (lcX2 R k0) n2)))))

/-- c = a + b·e^(2R) is positive: a + b times the opposite Taylor bound of e^(2R) is positive. -/
def lcCPositive (R a b : Frac) (n1 : Nat) : Bool :=
  qlt (qnat Nat.zero) (qadd a (qmul b (lcE1Other b R n1)))

/-- N₁/D = a + b·E₁ and N₂/D = E₂ with D > 0. -/
def lcIdentities (a b E1 E2 : Frac) (D : Nat) (N1 N2 : Int) : Bool :=
  band (Nat.blt Nat.zero D) (band (qeq (Prod.mk N1 D) (qadd a (qmul b E1))) (qeq (Prod.mk N2 D) E2))

end

end Mathloop
