/-
Finite checks for Ruzsa's construction of square-difference-free sets, in the plain style (named functions, no
tactics, no operator symbols), evaluated by the kernel.

For a modulus m and a list R of residues: every residue is below m, no two entries are equal, m is squarefree (no
p with 2 ≤ p and p·p ≤ m divides m twice), and for every x < m and all entries r ≠ s of R, x·x mod m differs from
(r + m − s) mod m, i.e. no difference of two distinct residues is a square mod m.
-/
import Mathloop.Exact

namespace Mathloop

noncomputable section

/-- Every entry of the list is below m. -/
def sdBelow (m : Nat) : List Nat → Bool
  | List.nil => Bool.true
  | List.cons r rs => band (Nat.blt r m) (sdBelow m rs)

/-- The entry r differs from every entry of the list. -/
def sdFresh (r : Nat) : List Nat → Bool
  | List.nil => Bool.true
  | List.cons s ss => band (bnot (Nat.beq r s)) (sdFresh r ss)

/-- No two entries of the list are equal. -/
def sdDistinct : List Nat → Bool
  | List.nil => Bool.true
  | List.cons r rs => band (sdFresh r rs) (sdDistinct rs)

/-- The number of entries. -/
def sdLength : List Nat → Nat
  | List.nil => Nat.zero
  | List.cons _ rs => Nat.succ (sdLength rs)

/-- No p among p, p + 1, ..., p + fuel − 1 with p·p ≤ m has p·p dividing m. -/
def sdNoSquareFactor (m : Nat) : Nat → Nat → Bool
  | Nat.zero, _ => Bool.true
  | Nat.succ fuel, p =>
    match Nat.ble (Nat.mul p p) m with
    | Bool.false => Bool.true
    | Bool.true => band (bnot (Nat.beq (Nat.mod m (Nat.mul p p)) Nat.zero)) (sdNoSquareFactor m fuel (Nat.succ p))

/-- m is squarefree: no p ≥ 2 with p·p dividing m (p·p ≤ m suffices, and p < m bounds the search). -/
def sdSquarefree (m : Nat) : Bool := sdNoSquareFactor m m 2

/-- The value v (a square mod m) is not (r − s) mod m for any entry s ≠ r of the list. -/
def sdMissRow (m v r : Nat) : List Nat → Bool
  | List.nil => Bool.true
  | List.cons s ss =>
    band (cond (Nat.beq r s) Bool.true (bnot (Nat.beq v (Nat.mod (Nat.sub (Nat.add r m) s) m)))) (sdMissRow m v r ss)

/-- The value v is not the difference mod m of two distinct entries. -/
def sdMiss (m v : Nat) (all : List Nat) : List Nat → Bool
  | List.nil => Bool.true
  | List.cons r rs => band (sdMissRow m v r all) (sdMiss m v all rs)

/-- For x = 0, ..., fuel − 1: x·x mod m is not the difference of two distinct entries. -/
def sdSquaresMiss (m : Nat) (R : List Nat) : Nat → Bool
  | Nat.zero => Bool.true
  | Nat.succ x => band (sdMiss m (Nat.mod (Nat.mul x x) m) R R) (sdSquaresMiss m R x)

/-- acc · b^e by binary exponentiation: `fuel` halvings suffice for e < 2^fuel (the kernel and the elaborator
multiply with GMP; `Nat.pow` with an exponent above `exponentiation.threshold` is not evaluated by the elaborator). -/
def sdPowAux : Nat → Nat → Nat → Nat → Nat
  | Nat.zero, acc, _, _ => acc
  | Nat.succ fuel, acc, b, e =>
    match Nat.beq e Nat.zero with
    | Bool.true => acc
    | Bool.false =>
      sdPowAux fuel (cond (Nat.beq (Nat.mod e 2) 1) (Nat.mul acc b) acc) (Nat.mul b b) (Nat.div e 2)

/-- b^e (for e < 2^64). -/
def sdPow (b e : Nat) : Nat := sdPowAux 64 1 b e

/-- No difference of two distinct entries of R is a square mod m (every square is x·x mod m for some x < m). -/
def sdNoSquareDifference (m : Nat) (R : List Nat) : Bool := sdSquaresMiss m R m

end

end Mathloop
