/-
The rational part of a feng-przz certificate (uses Mathloop.Exact).

The main term is c = Σ_k w_k·e^(x_k) with rational w_k and x_k ≥ 0 (mathloop's main_term.py derives the
w_k, x_k from P₁..P_K, Q, R and θ; that derivation is NOT recomputed here). Given the terms as data,
the kernel computes lhs = Σ w_k·E_k with E_k the Taylor upper enclosure of e^(x_k) when w_k ≥ 0 and
the Taylor sum (a lower bound) when w_k < 0, the opposite sum (for c > 0), and the Taylor sum of
e^(R(1 − k₀)); lhs ≤ that sum means c ≤ e^(R(1 − k₀)), i.e. κ = 1 − log(c)/R ≥ k₀, by Taylor's theorem.
-/
import Mathloop.Exact

namespace Mathloop

noncomputable section

/-- PRZZ's (and Conrey's) admissible range for the mollifier length: θ < 4/7. -/
def fpThetaSup : Frac := qp 4 7

/-- w times the enclosure of e^x that bounds w·e^x from above (upper when w ≥ 0, else the Taylor sum). -/
def fpTermHigh (w x : Frac) (n : Nat) : Frac :=
  match qle (qnat Nat.zero) w with
  | Bool.true => qmul w (expUpper x n)
  | Bool.false => qmul w (taylor x n)

/-- w times the enclosure of e^x that bounds w·e^x from below. -/
def fpTermLow (w x : Frac) (n : Nat) : Frac :=
  match qle (qnat Nat.zero) w with
  | Bool.true => qmul w (taylor x n)
  | Bool.false => qmul w (expUpper x n)

/-- Σ w_k·E_k from above, over the three lists (weights, exponents, Taylor orders). -/
def fpHigh : List Frac → List Frac → List Nat → Frac
  | List.cons w ws, List.cons x xs, List.cons n ns => qadd (fpTermHigh w x n) (fpHigh ws xs ns)
  | _, _, _ => qnat Nat.zero

/-- Σ w_k·E_k from below (its positivity proves c > 0). -/
def fpLow : List Frac → List Frac → List Nat → Frac
  | List.cons w ws, List.cons x xs, List.cons n ns => qadd (fpTermLow w x n) (fpLow ws xs ns)
  | _, _, _ => qnat Nat.zero

/-- Every term is valid data with 0 ≤ x < n + 2 (where the Taylor remainder bound applies), and the
three lists have the same length. -/
def fpTermsValid : List Frac → List Frac → List Nat → Bool
  | List.nil, List.nil, List.nil => Bool.true
  | List.cons w ws, List.cons x xs, List.cons n ns =>
    band (band (band (qvalid w) (qvalid x)) (band (qle (qnat Nat.zero) x) (qlt x (qnat (Nat.succ (Nat.succ n))))))
      (fpTermsValid ws xs ns)
  | _, _, _ => Bool.false

/-- Every polynomial of the list vanishes at 0 and is valid data. -/
def fpZeroAtZero : List (List Frac) → Bool
  | List.nil => Bool.true
  | List.cons p ps => band (band (pvalid p) (qeq (peval p (qnat Nat.zero)) (qnat Nat.zero))) (fpZeroAtZero ps)

/-- The side conditions from the data: P_k(0) = 0 for every piece, P₁(1) = 1, Q(0) = 1, Q(x) + Q(1 − x)
constant, R > 0, 0 < θ < θsup. -/
def fpAdmissible (P1 : List Frac) (Ps : List (List Frac)) (Q : List Frac) (R θ θsup : Frac) : Bool :=
  band (band (fpZeroAtZero (List.cons P1 Ps)) (qeq (peval P1 (qnat (Nat.succ Nat.zero))) (qnat (Nat.succ Nat.zero))))
    (band (band (pvalid Q) (band (qeq (peval Q (qnat Nat.zero)) (qnat (Nat.succ Nat.zero))) (pconst (padd Q (preflect Q)))))
      (band (band (qvalid R) (qvalid θ)) (band (qlt (qnat Nat.zero) R) (band (qlt (qnat Nat.zero) θ) (qlt θ θsup)))))

/-- x₂ = R·(1 − k₀), the argument of the right side's exponential. -/
def fpX2 (R k0 : Frac) : Frac := qmul R (qsub (qnat (Nat.succ Nat.zero)) k0)

end

end Mathloop
