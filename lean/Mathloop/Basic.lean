/-!
# Mathloop support library (core Lean only)

Small computable definitions that the rendered certificates evaluate in the kernel
(`decide +kernel`). Everything is over `Nat` and `Int` and structurally recursive, so the
kernel reduces it directly; `Nat` arithmetic on literals is GMP-accelerated in the kernel.

Nothing here mentions ζ, `Real` or `exp`: these are exact integer facts. What they mean
for the exponential function is stated and proved in the optional Mathlib layer
(`lean/mathlib`).
-/

namespace Mathloop

/-- `taylorNum p q n` is the numerator of the Taylor sum `∑_{k=0}^{n} (p/q)^k / k!`
over the denominator `taylorDen q n = q^n * n!`.
Recurrence: `T(n+1) = T(n) * q * (n+1) + p^(n+1)`. -/
def taylorNum (p q : Nat) : Nat → Nat
  | 0 => 1
  | n + 1 => taylorNum p q n * (q * (n + 1)) + p ^ (n + 1)

/-- `taylorDen q n = q^n * n!`, the denominator of `taylorNum p q n`. -/
def taylorDen (q : Nat) : Nat → Nat
  | 0 => 1
  | n + 1 => taylorDen q n * (q * (n + 1))

/-- Numerator of the Taylor upper bound
`∑_{k≤n} x^k/k! + x^(n+1)/(n+1)! * (n+2)/(n+2-x)` at `x = p/q`, over `expUpperDen p q n`.
It bounds `exp x` from above when `0 ≤ x < n+2`, i.e. when `p < (n+2)*q`
(`Nat` subtraction truncates, so certificates always state that side condition too). -/
def expUpperNum (p q n : Nat) : Nat :=
  taylorNum p q n * (q * (n + 1)) * ((n + 2) * q - p) + p ^ (n + 1) * ((n + 2) * q)

/-- Denominator of `expUpperNum p q n`: `q^(n+1) * (n+1)! * ((n+2)*q - p)`. -/
def expUpperDen (p q n : Nat) : Nat :=
  taylorDen q (n + 1) * ((n + 2) * q - p)

namespace Poly

/-- Polynomials are coefficient lists over `Int`, lowest degree first. Value at `x` (Horner). -/
def eval : List Int → Int → Int
  | [], _ => 0
  | c :: cs, x => c + x * eval cs x

/-- Coefficient-wise sum of two polynomials. -/
def add : List Int → List Int → List Int
  | [], q => q
  | c :: cs, [] => c :: cs
  | c :: cs, d :: ds => (c + d) :: add cs ds

/-- Coefficients of `(1 - x) * p(x)`. -/
def mulOneSubX (p : List Int) : List Int :=
  add p (0 :: p.map (fun c => -c))

/-- Coefficients of `p(1 - x)` (Horner in `1 - x`). -/
def reflect : List Int → List Int
  | [] => []
  | c :: cs => add [c] (mulOneSubX (reflect cs))

/-- `true` iff every coefficient of degree `≥ 1` is zero, i.e. the polynomial is constant. -/
def isConst : List Int → Bool
  | [] => true
  | _ :: cs => cs.all (fun c => c == 0)

/-- Coefficients of `p * q`. -/
def mul : List Int → List Int → List Int
  | [], _ => []
  | c :: cs, q => add (q.map (fun d => c * d)) (0 :: mul cs q)

/-- `c · p`. -/
def scale (c : Int) (p : List Int) : List Int :=
  p.map (fun d => c * d)

/-- `derivFrom k p = [k·p[0], (k+1)·p[1], ...]`: the derivative of `∑ p[i]·x^(k+i)`, shifted down by `x^(k-1)`. -/
def derivFrom : Nat → List Int → List Int
  | _, [] => []
  | k, c :: cs => ((k : Int) * c) :: derivFrom (k + 1) cs

/-- Coefficients of the derivative `p'`. -/
def deriv : List Int → List Int
  | [] => []
  | _ :: cs => derivFrom 1 cs

/-- `true` iff every odd-degree coefficient is zero (an even polynomial). -/
def oddVanish : List Int → Bool
  | [] => true
  | [_] => true
  | _ :: d :: cs => d == 0 && oddVanish cs

end Poly

/-- `momentDen n = 2^n·(n+1)`: for even `n`, `∫_{-1/2}^{1/2} x^n dx = 1 / momentDen n`;
odd moments vanish. -/
def momentDen (n : Nat) : Nat := 2 ^ n * (n + 1)

/-- `true` iff `momentDen n ∣ D` for the `k` degrees `n, n+1, ..., n+k-1`. -/
def dividesMoments (D : Nat) : Nat → Nat → Bool
  | _, 0 => true
  | n, k + 1 => D % momentDen n == 0 && dividesMoments D (n + 1) k

/-- `integralScaled D n p = D · ∫_{-1/2}^{1/2} ∑ p[i]·x^(n+i) dx` when every `momentDen` of the
degrees involved divides `D` (checked separately with `dividesMoments`). -/
def integralScaled (D : Nat) : Nat → List Int → Int
  | _, [] => 0
  | n, c :: cs => (if n % 2 = 0 then c * ((D / momentDen n : Nat) : Int) else 0) + integralScaled D (n + 1) cs

end Mathloop
