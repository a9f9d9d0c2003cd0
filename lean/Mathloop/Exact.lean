/-
Exact arithmetic for mathloop certificates, in the plain style (named functions, no tactics, no
operator symbols), so that the bundled kernel with mathloop's minimal library and a standard Lean
toolchain both accept it. Every function is structurally recursive and computable by the kernel.

Fractions are pairs (numerator, denominator) with a positive denominator, kept in lowest terms by
`norm` (Nat.gcd is evaluated by the kernel with GMP). Polynomials are lists of fractions, lowest
degree first.
-/
namespace Mathloop

noncomputable section

/-- Boolean conjunction (a local copy, so certificates do not depend on a library's name for it). -/
def band : Bool → Bool → Bool
  | Bool.true, b => b
  | Bool.false, _ => Bool.false

/-- Boolean negation. -/
def bnot : Bool → Bool
  | Bool.true => Bool.false
  | Bool.false => Bool.true

/-- Integer equality as a Boolean. -/
def zbeq : Int → Int → Bool
  | Int.ofNat m, Int.ofNat n => Nat.beq m n
  | Int.negSucc m, Int.negSucc n => Nat.beq m n
  | Int.ofNat _, Int.negSucc _ => Bool.false
  | Int.negSucc _, Int.ofNat _ => Bool.false

/-- Integer order a ≤ b as a Boolean. -/
def zble : Int → Int → Bool
  | Int.ofNat m, Int.ofNat n => Nat.ble m n
  | Int.negSucc m, Int.negSucc n => Nat.ble n m
  | Int.ofNat _, Int.negSucc _ => Bool.false
  | Int.negSucc _, Int.ofNat _ => Bool.true

/-- Integer order a < b as a Boolean. -/
def zblt (a b : Int) : Bool := bnot (zble b a)

/-- The integer a / d, for a natural number d that divides a. -/
def zdivNat : Int → Nat → Int
  | Int.ofNat m, d => Int.ofNat (Nat.div m d)
  | Int.negSucc m, d => Int.neg (Int.ofNat (Nat.div (Nat.succ m) d))

/-- The fraction n/d is the pair (n, d); the denominator is positive wherever a claim uses it. -/
abbrev Frac : Type := Prod Int Nat

/-- The non-negative fraction n/d. -/
def qp (n d : Nat) : Frac := Prod.mk (Int.ofNat n) d

/-- The non-positive fraction −n/d. -/
def qn (n d : Nat) : Frac := Prod.mk (Int.neg (Int.ofNat n)) d

/-- The natural number n as a fraction. -/
def qnat (n : Nat) : Frac := Prod.mk (Int.ofNat n) (Nat.succ Nat.zero)

/-- Numerator. -/
def num (x : Frac) : Int := Prod.fst x

/-- Denominator. -/
def den (x : Frac) : Nat := Prod.snd x

/-- x with numerator and denominator divided by g. -/
def divBoth (x : Frac) (g : Nat) : Frac := Prod.mk (zdivNat (num x) g) (Nat.div (den x) g)

/-- x in lowest terms (0/d becomes 0/1). -/
def norm (x : Frac) : Frac := divBoth x (Nat.gcd (Int.natAbs (num x)) (den x))

/-- Sum. -/
def qadd (x y : Frac) : Frac :=
  norm (Prod.mk (Int.add (Int.mul (num x) (Int.ofNat (den y))) (Int.mul (num y) (Int.ofNat (den x))))
    (Nat.mul (den x) (den y)))

/-- Product. -/
def qmul (x y : Frac) : Frac := norm (Prod.mk (Int.mul (num x) (num y)) (Nat.mul (den x) (den y)))

/-- Negation. -/
def qneg (x : Frac) : Frac := Prod.mk (Int.neg (num x)) (den x)

/-- Difference. -/
def qsub (x y : Frac) : Frac := qadd x (qneg y)

/-- Reciprocal (of a non-zero fraction; the sign moves to the numerator). -/
def qinv (x : Frac) : Frac :=
  match num x with
  | Int.ofNat n => Prod.mk (Int.ofNat (den x)) n
  | Int.negSucc n => Prod.mk (Int.neg (Int.ofNat (den x))) (Nat.succ n)

/-- Quotient x / y (y non-zero). -/
def qdiv (x y : Frac) : Frac := qmul x (qinv y)

/-- x = y as rational numbers (cross-multiplied), as a Boolean. -/
def qeq (x y : Frac) : Bool :=
  zbeq (Int.mul (num x) (Int.ofNat (den y))) (Int.mul (num y) (Int.ofNat (den x)))

/-- x ≤ y as rational numbers (positive denominators), as a Boolean. -/
def qle (x y : Frac) : Bool :=
  zble (Int.mul (num x) (Int.ofNat (den y))) (Int.mul (num y) (Int.ofNat (den x)))

/-- x < y as rational numbers (positive denominators), as a Boolean. -/
def qlt (x y : Frac) : Bool := bnot (qle y x)

/-- The fraction is as the data must state it: positive denominator, lowest terms (0 is 0/1). -/
def qvalid (x : Frac) : Bool :=
  band (Nat.blt Nat.zero (den x)) (Nat.beq (Nat.gcd (Int.natAbs (num x)) (den x)) (Nat.succ Nat.zero))

/-- x^n. -/
def qpow (x : Frac) : Nat → Frac
  | Nat.zero => qnat (Nat.succ Nat.zero)
  | Nat.succ n => qmul (qpow x n) x

/-- n!. -/
def fact : Nat → Nat
  | Nat.zero => Nat.succ Nat.zero
  | Nat.succ n => Nat.mul (fact n) (Nat.succ n)

/-- Every fraction of the list is valid data (`qvalid`). -/
def pvalid : List Frac → Bool
  | List.nil => Bool.true
  | List.cons c cs => band (qvalid c) (pvalid cs)

/-- Sum of polynomials. -/
def padd : List Frac → List Frac → List Frac
  | List.nil, q => q
  | List.cons c cs, List.nil => List.cons c cs
  | List.cons c cs, List.cons d ds => List.cons (qadd c d) (padd cs ds)

/-- s times a polynomial. -/
def pscale (s : Frac) : List Frac → List Frac
  | List.nil => List.nil
  | List.cons c cs => List.cons (qmul s c) (pscale s cs)

/-- Product of polynomials. -/
def pmul : List Frac → List Frac → List Frac
  | List.nil, _ => List.nil
  | List.cons c cs, q => padd (pscale c q) (List.cons (qnat Nat.zero) (pmul cs q))

/-- Value at x (Horner). -/
def peval : List Frac → Frac → Frac
  | List.nil, _ => qnat Nat.zero
  | List.cons c cs, x => qadd c (qmul x (peval cs x))

/-- `pderivFrom k p`: the coefficients k·p₀, (k+1)·p₁, … -/
def pderivFrom : Nat → List Frac → List Frac
  | _, List.nil => List.nil
  | k, List.cons c cs => List.cons (qmul (qnat k) c) (pderivFrom (Nat.succ k) cs)

/-- The derivative. -/
def pderiv : List Frac → List Frac
  | List.nil => List.nil
  | List.cons _ cs => pderivFrom (Nat.succ Nat.zero) cs

/-- `pantiFrom k p`: the coefficients p₀/k, p₁/(k+1), … (k ≥ 1). -/
def pantiFrom : Nat → List Frac → List Frac
  | _, List.nil => List.nil
  | k, List.cons c cs => List.cons (qdiv c (qnat k)) (pantiFrom (Nat.succ k) cs)

/-- The antiderivative vanishing at 0. -/
def panti (p : List Frac) : List Frac := List.cons (qnat Nat.zero) (pantiFrom (Nat.succ Nat.zero) p)

/-- `pintFrom k p`: the integral over [0, 1] of the sum of p_i·x^(k+i), i.e. the sum of p_i/(k+i+1). -/
def pintFrom : Nat → List Frac → Frac
  | _, List.nil => qnat Nat.zero
  | k, List.cons c cs => qadd (qdiv c (qnat (Nat.succ k))) (pintFrom (Nat.succ k) cs)

/-- The integral over [0, 1]. -/
def pint01 (p : List Frac) : Frac := pintFrom Nat.zero p

/-- Every coefficient is zero. -/
def pzero : List Frac → Bool
  | List.nil => Bool.true
  | List.cons c cs => band (qeq c (qnat Nat.zero)) (pzero cs)

/-- The polynomial is constant: every coefficient of degree at least one is zero. -/
def pconst : List Frac → Bool
  | List.nil => Bool.true
  | List.cons _ cs => pzero cs

/-- The coefficients of p(1 − x) (Horner in 1 − x). -/
def preflect : List Frac → List Frac
  | List.nil => List.nil
  | List.cons c cs =>
    padd (List.cons c List.nil)
      (pmul (List.cons (qnat (Nat.succ Nat.zero)) (List.cons (qn (Nat.succ Nat.zero) (Nat.succ Nat.zero)) List.nil))
        (preflect cs))

/-- `taylorAux x j v`: Horner's steps v ↦ 1 + (x/i)·v for i = j, j−1, …, 1. -/
def taylorAux (x : Frac) : Nat → Frac → Frac
  | Nat.zero, v => v
  | Nat.succ j, v => taylorAux x j (qadd (qnat (Nat.succ Nat.zero)) (qmul (qdiv x (qnat (Nat.succ j))) v))

/-- The Taylor sum of the exponential at x of order n: the sum of x^k/k! for k = 0, …, n. -/
def taylor (x : Frac) (n : Nat) : Frac := taylorAux x n (qnat (Nat.succ Nat.zero))

/-- The Taylor sum plus the remainder bound x^(n+1)/(n+1)! · (n+2)/(n+2−x); it bounds the
exponential at x from above when 0 ≤ x < n+2 (claims state that condition next to it). -/
def expUpper (x : Frac) (n : Nat) : Frac :=
  qadd (taylor x n)
    (qmul (qdiv (qpow x (Nat.succ n)) (qnat (fact (Nat.succ n))))
      (qdiv (qnat (Nat.succ (Nat.succ n))) (qsub (qnat (Nat.succ (Nat.succ n))) x)))

end

end Mathloop
