/-
The Montgomery–Taylor functional of an even polynomial g on [−1/2, 1/2], in exact arithmetic
(uses Mathloop.Exact).

For g(x) = Σ a_k x^(2k), C = ∫g and H the antiderivative of g vanishing at 0,
  M(g) = 1/2 + (∫g² − 2∫H²)/C²  and  B(g) = 2 − M(g),
where every integral is a polynomial moment: ∫ x^n over [−1/2, 1/2] is 0 for odd n and
1/(2^n (n+1)) for even n.
-/
import Mathloop.Exact

namespace Mathloop

noncomputable section

/-- The coefficients in x of Σ a_k x^(2k) (the even coefficients interleaved with zeros). -/
def evenToX : List Frac → List Frac
  | List.nil => List.nil
  | List.cons c List.nil => List.cons c List.nil
  | List.cons c (List.cons d ds) => List.cons c (List.cons (qnat Nat.zero) (evenToX (List.cons d ds)))

/-- `isEven n`: n is even, by recursion. -/
def isEven : Nat → Bool
  | Nat.zero => Bool.true
  | Nat.succ n => bnot (isEven n)

/-- The moment: the integral of x^n over [−1/2, 1/2]. -/
def moment (n : Nat) : Frac :=
  match isEven n with
  | Bool.true => qinv (qmul (qpow (qnat (Nat.succ (Nat.succ Nat.zero))) n) (qnat (Nat.succ n)))
  | Bool.false => qnat Nat.zero

/-- `pintHalfFrom k p`: the integral over [−1/2, 1/2] of the sum of p_i·x^(k+i). -/
def pintHalfFrom : Nat → List Frac → Frac
  | _, List.nil => qnat Nat.zero
  | k, List.cons c cs => qadd (qmul c (moment k)) (pintHalfFrom (Nat.succ k) cs)

/-- The integral over [−1/2, 1/2]. -/
def pintHalf (p : List Frac) : Frac := pintHalfFrom Nat.zero p

/-- C(g) = ∫g for g given by its even coefficients. -/
def pcC (a : List Frac) : Frac := pintHalf (evenToX a)

/-- ∫g². -/
def pcIntG2 (a : List Frac) : Frac := pintHalf (pmul (evenToX a) (evenToX a))

/-- ∫H², H the antiderivative of g vanishing at 0. -/
def pcIntH2 (a : List Frac) : Frac := pintHalf (pmul (panti (evenToX a)) (panti (evenToX a)))

/-- M(g) = 1/2 + (∫g² − 2∫H²)/C². -/
def pcM (a : List Frac) : Frac :=
  qadd (qp (Nat.succ Nat.zero) (Nat.succ (Nat.succ Nat.zero)))
    (qdiv (qsub (pcIntG2 a) (qmul (qnat (Nat.succ (Nat.succ Nat.zero))) (pcIntH2 a))) (qmul (pcC a) (pcC a)))

/-- B(g) = 2 − M(g). -/
def pcB (a : List Frac) : Frac := qsub (qnat (Nat.succ (Nat.succ Nat.zero))) (pcM a)

/-- The stated C, ∫g², ∫H², M and B are those of g, and C ≠ 0. -/
def pcFunctional (a : List Frac) (C G2 H2 M B : Frac) : Bool :=
  band (band (pvalid a) (band (band (qvalid C) (qvalid G2)) (band (qvalid H2) (band (qvalid M) (qvalid B)))))
    (band (bnot (qeq C (qnat Nat.zero)))
      (band (band (qeq (pcC a) C) (qeq (pcIntG2 a) G2))
        (band (qeq (pcIntH2 a) H2) (band (qeq (pcM a) M) (qeq (pcB a) B)))))

end

end Mathloop
