/-
mathloop's own prelude for the bundled Lean 4 kernel (trusted code: keep it tiny and reviewed).

Written for mathloop from the standard mathematical definitions (it is not a copy of Lean's
library). It is compiled to `Init.olean`, so every ordinary file's implicit `import Init` loads it.
There are no tactics and no operator syntax here: certificates are written in a plain style
(named functions, `Eq (Nat.ble a b) true`, proofs by `rfl`) that standard Lean accepts as well.

TRUST: the Lean kernel replaces Nat.add, Nat.sub, Nat.mul, Nat.div, Nat.mod, Nat.gcd, Nat.beq,
Nat.ble, Nat.pow, Nat.land, Nat.lor, Nat.xor, Nat.shiftLeft, Nat.shiftRight and Nat.log2 applied
to literals by GMP arithmetic BY NAME. Each of them is defined below with its standard meaning
(structural recursion, or recursion on an explicit fuel argument that is always large enough),
and mathloop's tests check, through the kernel, that the accelerated function agrees with a
non-accelerated copy of the definition on a grid of inputs. The prelude declares no axioms.
-/
prelude
set_option genCtorIdx false

universe u v w

noncomputable section

/-- The code generator names these two types; no definition or proof uses them. -/
inductive lcErased : Type
inductive lcAny : Type

inductive PUnit : Sort (max 1 u) where
  | unit : PUnit

abbrev Unit : Type := PUnit.{1}

abbrev Unit.unit : Unit := PUnit.unit

def id {α : Sort u} (a : α) : α := a

inductive True : Prop where
  | intro : True

inductive False : Prop

inductive Eq {α : Sort u} : α → α → Prop where
  | refl (a : α) : Eq a a

theorem rfl {α : Sort u} {a : α} : Eq a a := Eq.refl a

def Eq.ndrec.{u1, u2} {α : Sort u2} {a : α} {motive : α → Sort u1} (m : motive a) {b : α} (h : Eq a b) :
    motive b :=
  h.rec m

def cast {α β : Sort u} (h : Eq α β) (a : α) : β :=
  h.rec a

inductive HEq : {α : Sort u} → α → {β : Sort u} → β → Prop where
  | refl (a : α) : HEq a a

theorem eq_of_heq {α : Sort u} {a a' : α} (h : HEq a a') : Eq a a' :=
  have : (α β : Sort u) → (a : α) → (b : β) → HEq a b → (h : Eq α β) → Eq (cast h a) b :=
    fun _ _ _ _ h₁ => h₁.rec (fun (_ : Eq _ _) => rfl)
  this α α a a' h rfl

theorem heq_of_eq {α : Sort u} {a a' : α} (h : Eq a a') : HEq a a' :=
  h.rec (HEq.refl a)

structure PProd (α : Sort u) (β : Sort v) where
  fst : α
  snd : β

structure Prod (α : Type u) (β : Type v) where
  fst : α
  snd : β

structure And (a b : Prop) : Prop where
  intro ::
  left : a
  right : b

inductive Bool : Type where
  | false : Bool
  | true : Bool

export Bool (false true)

/-- `cond c x y` is `x` when `c` is true, else `y`. -/
def cond {α : Sort u} : Bool → α → α → α
  | true, x, _ => x
  | false, _, y => y

/-- Boolean conjunction. -/
def and : Bool → Bool → Bool
  | true, y => y
  | false, _ => false

/-- Boolean disjunction. -/
def or : Bool → Bool → Bool
  | true, _ => true
  | false, y => y

/-- Boolean negation. -/
def not : Bool → Bool
  | true => false
  | false => true

/-- Exclusive or (Boolean inequality). -/
def Bool.xor : Bool → Bool → Bool
  | true, false => true
  | false, true => true
  | true, true => false
  | false, false => false

inductive Nat where
  | zero : Nat
  | succ (n : Nat) : Nat

class OfNat (α : Type u) (_ : Nat) where
  ofNat : α

instance instOfNatNat (n : Nat) : OfNat Nat n where
  ofNat := n

namespace Nat

/-- Predecessor (0 ↦ 0). -/
def pred : Nat → Nat
  | zero => zero
  | succ a => a

/-- Addition, by recursion on the second argument. -/
protected def add : Nat → Nat → Nat
  | n, zero => n
  | n, succ m => succ (Nat.add n m)

/-- Truncated subtraction (n - m = 0 when m ≥ n). -/
protected def sub : Nat → Nat → Nat
  | n, zero => n
  | n, succ m => pred (Nat.sub n m)

/-- Multiplication, by recursion on the second argument. -/
protected def mul : Nat → Nat → Nat
  | _, zero => zero
  | n, succ m => Nat.add (Nat.mul n m) n

/-- Power m ^ n, by recursion on the exponent. -/
protected def pow (m : Nat) : Nat → Nat
  | zero => succ zero
  | succ n => Nat.mul (Nat.pow m n) m

/-- Boolean equality. -/
def beq : Nat → Nat → Bool
  | zero, zero => true
  | zero, succ _ => false
  | succ _, zero => false
  | succ n, succ m => beq n m

/-- Boolean n ≤ m. -/
def ble : Nat → Nat → Bool
  | zero, _ => true
  | succ _, zero => false
  | succ n, succ m => ble n m

/-- Boolean n < m, i.e. n + 1 ≤ m. -/
def blt (n m : Nat) : Bool := ble (succ n) m

/-- `divFuel f x y`: floor(x / y) (0 when y = 0) when f > x: while 0 < y ≤ x, subtract y and count. -/
def divFuel : Nat → Nat → Nat → Nat
  | zero, _, _ => zero
  | succ f, x, y => cond (and (ble 1 y) (ble y x)) (succ (divFuel f (Nat.sub x y) y)) zero

/-- Division rounding down; x / 0 = 0. -/
protected def div (x y : Nat) : Nat := divFuel (succ x) x y

/-- `modFuel f x y`: x mod y (x when y = 0) when f > x: while 0 < y ≤ x, subtract y. -/
def modFuel : Nat → Nat → Nat → Nat
  | zero, x, _ => x
  | succ f, x, y => cond (and (ble 1 y) (ble y x)) (modFuel f (Nat.sub x y) y) x

/-- Remainder; x % 0 = x. -/
protected def mod (x y : Nat) : Nat := modFuel (succ x) x y

/-- `gcdFuel f x y`: Euclid's algorithm gcd(0, y) = y, gcd(x+1, y) = gcd(y mod (x+1), x+1), f > x steps. -/
def gcdFuel : Nat → Nat → Nat → Nat
  | zero, _, y => y
  | succ _, zero, y => y
  | succ f, succ x, y => gcdFuel f (Nat.mod y (succ x)) (succ x)

/-- Greatest common divisor; gcd 0 y = y. -/
def gcd (x y : Nat) : Nat := gcdFuel (succ x) x y

/-- `log2Fuel f n`: floor(log₂ n) (0 for n < 2) when f ≥ n: halve while n ≥ 2. -/
def log2Fuel : Nat → Nat → Nat
  | zero, _ => zero
  | succ f, n => cond (ble 2 n) (succ (log2Fuel f (Nat.div n 2))) zero

/-- Floor of the base-2 logarithm; log2 0 = 0. -/
def log2 (n : Nat) : Nat := log2Fuel n n

/-- m · 2^n. -/
def shiftLeft : Nat → Nat → Nat
  | m, zero => m
  | m, succ n => shiftLeft (Nat.mul 2 m) n

/-- floor(m / 2^n). -/
def shiftRight : Nat → Nat → Nat
  | m, zero => m
  | m, succ n => Nat.div (shiftRight m n) 2

/-- `2·r + (1 if b)`: appends the bit b below r. -/
def bitCons (b : Bool) (r : Nat) : Nat := cond b (succ (Nat.add r r)) (Nat.add r r)

/-- `bitwiseFuel f k n m`: f applied bit by bit (the shorter number padded with zeros), k > n steps. -/
def bitwiseFuel (f : Bool → Bool → Bool) : Nat → Nat → Nat → Nat
  | zero, _, _ => zero
  | succ k, n, m =>
    cond (beq n 0) (cond (f false true) m 0)
      (cond (beq m 0) (cond (f true false) n 0)
        (bitCons (f (beq (Nat.mod n 2) 1) (beq (Nat.mod m 2) 1)) (bitwiseFuel f k (Nat.div n 2) (Nat.div m 2))))

/-- Bitwise operation `f` on the binary digits of n and m. -/
def bitwise (f : Bool → Bool → Bool) (n m : Nat) : Nat := bitwiseFuel f (succ n) n m

/-- Bitwise and. -/
def land (n m : Nat) : Nat := bitwise and n m

/-- Bitwise or. -/
def lor (n m : Nat) : Nat := bitwise or n m

/-- Bitwise exclusive or. -/
def xor (n m : Nat) : Nat := bitwise Bool.xor n m

end Nat

inductive Int : Type where
  | ofNat : Nat → Int
  | negSucc : Nat → Int

instance instOfNat (n : Nat) : OfNat Int n where
  ofNat := Int.ofNat n

namespace Int

/-- −n as an integer. -/
def negOfNat : Nat → Int
  | Nat.zero => ofNat Nat.zero
  | Nat.succ m => negSucc m

/-- Negation. -/
protected def neg : Int → Int
  | ofNat n => negOfNat n
  | negSucc n => ofNat (Nat.succ n)

/-- m − n for natural numbers, as an integer. -/
def subNatNat (m n : Nat) : Int :=
  match Nat.sub n m with
  | Nat.zero => ofNat (Nat.sub m n)
  | Nat.succ k => negSucc k

/-- Addition. -/
protected def add : Int → Int → Int
  | ofNat m, ofNat n => ofNat (Nat.add m n)
  | ofNat m, negSucc n => subNatNat m (Nat.succ n)
  | negSucc m, ofNat n => subNatNat n (Nat.succ m)
  | negSucc m, negSucc n => negSucc (Nat.succ (Nat.add m n))

/-- Multiplication. -/
protected def mul : Int → Int → Int
  | ofNat m, ofNat n => ofNat (Nat.mul m n)
  | ofNat m, negSucc n => negOfNat (Nat.mul m (Nat.succ n))
  | negSucc m, ofNat n => negOfNat (Nat.mul (Nat.succ m) n)
  | negSucc m, negSucc n => ofNat (Nat.mul (Nat.succ m) (Nat.succ n))

/-- Subtraction m − n = m + (−n). -/
protected def sub (m n : Int) : Int := Int.add m (Int.neg n)

/-- Absolute value, as a natural number. -/
def natAbs : Int → Nat
  | ofNat m => m
  | negSucc m => Nat.succ m

end Int

inductive List (α : Type u) where
  | nil : List α
  | cons (head : α) (tail : List α) : List α

end
