/-
Step-function certificates at scale: the checks of Mathloop.StepFunctions over data held as a
binary tree of chunks, in the same plain style (named functions, no tactics, no operator symbols;
every function that walks a tree is one `NTree.rec` whose leaf case is the list function of
Mathloop.StepFunctions; tkronecker, tmaxIs and toverlapComplement combine them as their list
counterparts combine the list functions).

The one idea: a tree t stands for the list flat(t), where flat(leaf xs) = xs and
flat(node l r) = flat(l) ++ flat(r), and every function f below equals its list counterpart applied
to flat(t), because each splits over ++:
  tlen, tsum: length and sum are additive;
  tallLe, tallLt, tanyEq: "every entry" is a conjunction, "some entry" a disjunction, of the halves;
  tpack: pack B (xs ++ ys) = pack B xs + 2^(B·len xs)·pack B ys (the digits of ys start at
    position len xs), i.e. Nat.add (tpack l) (Nat.shiftLeft (tpack r) (Nat.mul B (tlen l)));
  trev: reverse (xs ++ ys) = reverse ys ++ reverse xs (swap the halves, reverse each leaf);
  taffineDown: a map commutes with ++.
Hence tkronecker B a b c ma mb = kronecker B (flat a) (flat b) (flat c) ma mb, and the Kronecker
argument of Mathloop.StepFunctions applies word for word: every a_i <= ma, every b_j <= mb,
len(a)·ma·mb < 2^B, every c_k < 2^B and pack(a)·pack(b) = pack(c) make c the coefficient list of a·b.

Why trees: a list fold that is not a tail call (pack, sum, length) makes the kernel recurse once per
entry, which overflows its stack beyond a few thousand entries, and Horner's pack shifts a growing
number n times (O(n²) bit operations). Over a balanced tree of chunks the recursion is no deeper
than one chunk plus the tree's height, and the packing costs O(n log n).
-/
import Mathloop.StepFunctions

set_option genCtorIdx false

namespace Mathloop

/-- A binary tree of lists of naturals; it stands for the concatenation of its leaves, left to right. -/
inductive NTree : Type where
  | leaf (xs : List Nat) : NTree
  | node (l r : NTree) : NTree

noncomputable section

/-- Length of flat(t). -/
def tlen (t : NTree) : Nat := NTree.rec (fun xs => nlen xs) (fun _ _ l r => Nat.add l r) t

/-- Sum of flat(t). -/
def tsum (t : NTree) : Nat := NTree.rec (fun xs => nsum xs) (fun _ _ l r => Nat.add l r) t

/-- Every entry of flat(t) is <= m. -/
def tallLe (m : Nat) (t : NTree) : Bool := NTree.rec (fun xs => allLe m xs) (fun _ _ l r => band l r) t

/-- Every entry of flat(t) is < m. -/
def tallLt (m : Nat) (t : NTree) : Bool := NTree.rec (fun xs => allLt m xs) (fun _ _ l r => band l r) t

/-- Some entry of flat(t) equals m. -/
def tanyEq (m : Nat) (t : NTree) : Bool :=
  NTree.rec (fun xs => anyEq m xs) (fun _ _ l r => cond l Bool.true r) t

/-- Kronecker packing of flat(t), Σ x_i 2^(B·i): the right half's digits start after the left half's. -/
def tpack (B : Nat) (t : NTree) : Nat :=
  NTree.rec (fun xs => pack B xs) (fun l _ pl pr => Nat.add pl (Nat.shiftLeft pr (Nat.mul B (tlen l)))) t

/-- A tree whose flat list is flat(t) reversed. -/
def trev (t : NTree) : NTree :=
  NTree.rec (fun xs => NTree.leaf (nrevOnto xs List.nil)) (fun _ _ l r => NTree.node r l) t

/-- A tree whose flat list is c − m·x_i for the entries x_i of flat(t) (natural subtraction). -/
def taffineDown (c m : Nat) (t : NTree) : NTree :=
  NTree.rec (fun xs => NTree.leaf (affineDown c m xs)) (fun _ _ l r => NTree.node l r) t

/-- flat(c) is the coefficient list of flat(a)·flat(b): `kronecker` over trees (see the header). -/
def tkronecker (B : Nat) (a b c : NTree) (ma mb : Nat) : Bool :=
  band (band (tallLe ma a) (tallLe mb b))
    (band (Nat.blt (Nat.mul (tlen a) (Nat.mul ma mb)) (Nat.pow 2 B))
      (band (tallLt (Nat.pow 2 B) c) (Nat.beq (Nat.mul (tpack B a) (tpack B b)) (tpack B c))))

/-- The maximum of flat(c) is exactly m (every entry <= m, one equals m). -/
def tmaxIs (m : Nat) (c : NTree) : Bool := band (tallLe m c) (tanyEq m c)

/-- `overlapComplement` over a tree: b_j = 2A − n·a_{n−1−j}, the complement of the normalised step
    function, reversed, scaled by 2A. -/
def toverlapComplement (n total : Nat) (a : NTree) : NTree := taffineDown (Nat.mul 2 total) n (trev a)

end

end Mathloop
