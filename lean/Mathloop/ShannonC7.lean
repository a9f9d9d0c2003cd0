/-
Finite checks for independent sets of the strong powers C7^⊠n of the 7-cycle, in the plain style
(named functions, no tactics, no operator symbols), evaluated by the kernel.

A vertex of C7^⊠n (an n-tuple over Z/7) is coded as a natural number below 7^n whose n base-7 digits
are its coordinates. Two vertices v, w are equal or adjacent iff w − v ∈ {−1, 0, 1}^n (mod 7), iff
their unit cubes v + {0, 1}^n and w + {0, 1}^n (mod 7) meet: if w − v = d, take a = max(d, 0) and
b = max(−d, 0), so v + a = w + b; conversely v + a = w + b gives w − v = a − b. So a list of codes
below 7^n is an independent set with no repeated vertex iff the cubes of its entries are pairwise
disjoint. The check walks the list once, keeping the union of the cubes seen so far as one bit mask
over the 7^n codes (bit c for code c), and requires each new cube to miss it: whole-number bit
operations, which the kernel evaluates with GMP.
-/
import Mathloop.Exact

namespace Mathloop

noncomputable section

/-- For each code c of the list, the codes 7c + d and 7c + e (one more, lower digit). -/
def c7Spread (d e : Nat) : List Nat → List Nat
  | List.nil => List.nil
  | List.cons c cs =>
    List.cons (Nat.add (Nat.mul c 7) d) (List.cons (Nat.add (Nat.mul c 7) e) (c7Spread d e cs))

/-- The 2^k codes of the cube v + {0, 1}^k on the lowest k base-7 digits of v (each digit x becomes
x or x + 1 mod 7). -/
def c7CubeCodes : Nat → Nat → List Nat
  | Nat.zero, _ => List.cons Nat.zero List.nil
  | Nat.succ k, v => c7Spread (Nat.mod v 7) (Nat.mod (Nat.succ (Nat.mod v 7)) 7) (c7CubeCodes k (Nat.div v 7))

/-- The bit mask with bit c set for every code c of the list. -/
def c7Bits : List Nat → Nat
  | List.nil => Nat.zero
  | List.cons c cs => Nat.lor (Nat.shiftLeft 1 c) (c7Bits cs)

/-- The bit mask of the cube of v in C7^⊠n. -/
def c7CubeMask (n v : Nat) : Nat := c7Bits (c7CubeCodes n v)

/-- Each entry's cube misses `seen` and the cubes of the entries before it. -/
def c7Disjoint (n : Nat) : Nat → List Nat → Bool
  | _, List.nil => Bool.true
  | seen, List.cons v vs =>
    band (Nat.beq (Nat.land seen (c7CubeMask n v)) Nat.zero) (c7Disjoint n (Nat.lor seen (c7CubeMask n v)) vs)

/-- No two entries at different positions are equal or adjacent: an independent set of C7^⊠n. -/
def c7Independent (n : Nat) (codes : List Nat) : Bool := c7Disjoint n Nat.zero codes

/-- Every entry is the code of a vertex of C7^⊠n (below 7^n). -/
def c7Codes (n : Nat) : List Nat → Bool
  | List.nil => Bool.true
  | List.cons v vs => band (Nat.blt v (Nat.pow 7 n)) (c7Codes n vs)

/-- The number of entries. -/
def c7Length : List Nat → Nat
  | List.nil => Nat.zero
  | List.cons _ vs => Nat.succ (c7Length vs)

end

end Mathloop
