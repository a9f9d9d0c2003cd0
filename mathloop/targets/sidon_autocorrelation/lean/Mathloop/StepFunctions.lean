/-
Step-function certificates (constants C1a and C1b), in the plain style of Mathloop.Exact (named
functions, no tactics, no operator symbols). Every function is structurally recursive.

The one idea: the coefficients c of a product of two polynomials with natural coefficients a, b
are certified by Kronecker substitution. If every a_i <= ma, every b_j <= mb, and
len(a)·ma·mb < 2^B, then every true coefficient of a·b is < 2^B; if also every stated c_k < 2^B
and pack(a)·pack(b) = pack(c), where pack(x) = Σ x_i 2^(B·i), then c is the coefficient list of
a·b (base-2^B digits are unique), up to trailing zeros. One big multiplication (GMP in the kernel)
replaces n² small ones.
-/
import Mathloop.Exact

namespace Mathloop

noncomputable section

/-- Sum of a list of naturals. -/
def nsum : List Nat → Nat
  | List.nil => Nat.zero
  | List.cons x xs => Nat.add x (nsum xs)

/-- Length of a list of naturals. -/
def nlen : List Nat → Nat
  | List.nil => Nat.zero
  | List.cons _ xs => Nat.succ (nlen xs)

/-- Every entry is <= m. -/
def allLe (m : Nat) : List Nat → Bool
  | List.nil => Bool.true
  | List.cons x xs => band (Nat.ble x m) (allLe m xs)

/-- Every entry is < m. -/
def allLt (m : Nat) : List Nat → Bool
  | List.nil => Bool.true
  | List.cons x xs => band (Nat.blt x m) (allLt m xs)

/-- Some entry equals m. -/
def anyEq (m : Nat) : List Nat → Bool
  | List.nil => Bool.false
  | List.cons x xs => cond (Nat.beq x m) Bool.true (anyEq m xs)

/-- Kronecker packing Σ x_i 2^(B·i). -/
def pack (B : Nat) : List Nat → Nat
  | List.nil => Nat.zero
  | List.cons x xs => Nat.add x (Nat.shiftLeft (pack B xs) B)

/-- xs reversed, followed by acc. -/
def nrevOnto : List Nat → List Nat → List Nat
  | List.nil, acc => acc
  | List.cons x xs, acc => nrevOnto xs (List.cons x acc)

/-- Concatenation. -/
def napp : List Nat → List Nat → List Nat
  | List.nil, ys => ys
  | List.cons x xs, ys => List.cons x (napp xs ys)

/-- The list c − m·x_i (natural subtraction; the claims check m·x_i <= c first). -/
def affineDown (c m : Nat) : List Nat → List Nat
  | List.nil => List.nil
  | List.cons x xs => List.cons (Nat.sub c (Nat.mul m x)) (affineDown c m xs)

/-- c is the coefficient list of a·b (Kronecker substitution at 2^B, bounds ma, mb; see the header). -/
def kronecker (B : Nat) (a b c : List Nat) (ma mb : Nat) : Bool :=
  band (band (allLe ma a) (allLe mb b))
    (band (Nat.blt (Nat.mul (nlen a) (Nat.mul ma mb)) (Nat.pow 2 B))
      (band (allLt (Nat.pow 2 B) c) (Nat.beq (Nat.mul (pack B a) (pack B b)) (pack B c))))

/-- The maximum of the list c is exactly m (every entry <= m, one equals m). -/
def maxIs (m : Nat) (c : List Nat) : Bool := band (allLe m c) (anyEq m c)

/-- For the overlap: b_j = 2A − n·a_{n−1−j}, the complement of the normalised step function
    (f_i = n·a_i/(2A), g = 1 − f), reversed, scaled by 2A. -/
def overlapComplement (n total : Nat) (a : List Nat) : List Nat :=
  affineDown (Nat.mul 2 total) n (nrevOnto a List.nil)

end

end Mathloop
