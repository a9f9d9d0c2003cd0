/-
Finite checks for lower bounds on discrepancy, in the plain style (named functions, no tactics, no operator
symbols), evaluated by the kernel.

An integer matrix B is given by its columns (lists of integers, one entry per row). For a sign vector x the row
sums are Bx = Σ_j x_j·(column j). `dscAll d s cols` walks every choice of signs for the remaining columns, adding
each column to the partial row sums s or subtracting it, and requires that at the end some row sum has absolute
value at least d. Starting from the first column added with sign +1 covers every x up to the global sign
(B(−x) = −Bx), so `dscAtLeast d cols` says min over x in {±1}^n of max_i |(Bx)_i| ≥ d.
-/
import Mathloop.Exact

namespace Mathloop

noncomputable section

/-- The row sums s with the column added (`neg` false) or subtracted (`neg` true). -/
def dscAdd (neg : Bool) : List Int → List Int → List Int
  | List.cons a s, List.cons c cs =>
    List.cons (cond neg (Int.sub a c) (Int.add a c)) (dscAdd neg s cs)
  | _, _ => List.nil

/-- Some entry of the list has absolute value at least d. -/
def dscHit (d : Nat) : List Int → Bool
  | List.nil => Bool.false
  | List.cons a s =>
    match zble (Int.ofNat d) a with
    | Bool.true => Bool.true
    | Bool.false =>
      match zble a (Int.neg (Int.ofNat d)) with
      | Bool.true => Bool.true
      | Bool.false => dscHit d s

/-- Every choice of signs for the remaining columns leaves some row sum of absolute value at least d. -/
def dscAll (d : Nat) : List Int → List (List Int) → Bool
  | s, List.nil => dscHit d s
  | s, List.cons c cs => band (dscAll d (dscAdd Bool.false s c) cs) (dscAll d (dscAdd Bool.true s c) cs)

/-- The list of n zeros. -/
def dscZeros : Nat → List Int
  | Nat.zero => List.nil
  | Nat.succ n => List.cons (Int.ofNat Nat.zero) (dscZeros n)

/-- min over sign vectors x of max_i |(Bx)_i| ≥ d, for the n×n matrix B given by its n columns. -/
def dscAtLeast (d n : Nat) : List (List Int) → Bool
  | List.nil => Bool.false
  | List.cons c cs => dscAll d (dscAdd Bool.false (dscZeros n) c) cs

/-- The number of entries of a list of columns. -/
def dscCount : List (List Int) → Nat
  | List.nil => Nat.zero
  | List.cons _ cs => Nat.succ (dscCount cs)

/-- The column has n entries, each of absolute value at most D. -/
def dscColumn : Nat → Nat → List Int → Bool
  | Nat.zero, _, List.nil => Bool.true
  | Nat.succ k, D, List.cons a s =>
    band (band (zble (Int.neg (Int.ofNat D)) a) (zble a (Int.ofNat D))) (dscColumn k D s)
  | _, _, _ => Bool.false

/-- Every column has n entries, each of absolute value at most D (so A = B/D has entries in [−1, 1]). -/
def dscShape (n D : Nat) : List (List Int) → Bool
  | List.nil => Bool.true
  | List.cons c cs => band (dscColumn n D c) (dscShape n D cs)

end

end Mathloop
