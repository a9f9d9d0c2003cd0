"""Target `pair-correlation-rh-ceiling`: a certified upper bound for the class of `pair-correlation-rh`.

Conventions (the same as `pair_correlation.rh_target`): f-hat(alpha) = int f(x) e^{-2 pi i alpha x} dx,
f-check(x) = int f(alpha) e^{2 pi i alpha x} d alpha. A function on the grid hZ, piecewise linear,
even, with nodes k_j = k(j h) and k = 0 beyond A, is k = sum_j k_j Lambda(alpha/h - j) (Lambda the
unit hat), and since (Lambda(./h))-check(x) = h sinc^2(pi h x),

    k-check(x) = h sinc^2(pi h x) P(2 pi h x),   P(theta) = k_0 + 2 sum_{j>=1} k_j cos(j theta),

exactly the formula the RH target uses for r (there with nodes c_j).

The class A (as in the RH contract): r even, r >= 0 on R, r-hat even and integrable, r-hat(alpha) <= 0
for |alpha| >= 1, r(0) = int r-hat > 0; the RH target certifies B(r) = 2 - J(r)/r(0) with
J(r) = r-hat(0) + int_{-1}^{1} |alpha| r-hat(alpha) d alpha.

Weak duality (re-derived here; the issue's claim holds as stated). Let L be rational and k even,
integrable and bounded, with
    (i)   k(alpha) = |alpha| - L for |alpha| <= 1,
    (ii)  k(alpha) >= -L for |alpha| >= 1,
    (iii) 1 + k-check(x) >= 0 for every real x,
where k may also carry point masses w_i (delta_{a_i} + delta_{-a_i}) with a_i >= 1, w_i >= 0 (their
transform adds 2 w_i cos(2 pi a_i x) to k-check; (ii) is about the absolutely continuous part k_pl).
Then J(r) >= L r(0) for every r in A, so B(r) <= 2 - L: every bound of the class is <= ceiling = 2 - L.
Proof. r >= 0 with r-hat integrable gives int r = r-hat(0) (Fejer means, monotone convergence), so
r is in L^1 and r-hat is its continuous Fourier transform. Fubini (r, k_pl in L^1) gives
int r k_pl-check = int r-hat k_pl, and int r 2 w cos(2 pi a x) dx = 2 w r-hat(a) (r-hat even). So
    0 <= int r (1 + k-check) = r-hat(0) + int r-hat k_pl + 2 sum_i w_i r-hat(a_i)          (iii)
and, splitting -L r(0) = int (|alpha| - L) r-hat over [-1, 1] + int -L r-hat over |alpha| > 1, (i),
    J - L r(0) = [r-hat(0) + int r-hat k_pl + 2 sum w_i r-hat(a_i)]
                 + int_{|alpha|>1} (-L - k_pl) r-hat  -  2 sum_i w_i r-hat(a_i).
The bracket is >= 0; (-L - k_pl) <= 0 by (ii) and r-hat <= 0 there, so the integrand is >= 0; and
w_i >= 0, r-hat(a_i) <= 0 (a_i >= 1) give -2 w_i r-hat(a_i) >= 0. Hence J >= L r(0). QED.
The inequality itself is unconditional (Fourier analysis on the class); what it caps is the
RH-conditional bound of Chirre-Goncalves-de Laat, so every output is labelled ASSUMING RH.

Piecewise-linear k on hZ (1/h = N an integer, so alpha = 1 is a node; A/h = M an integer, k_M = 0):
(i) holds iff k_j = j h - L for j <= N (linear interpolation of points on one line); (ii) holds iff
k_j >= -L for j >= N (k is linear between nodes and 0 >= -L beyond A is the last node's condition).
With t = h x (so x = t/h rational iff t is), condition (iii) reads

    f(t) = 1 + h sinc^2(pi t) P(2 pi t) + 2 sum_i w_i cos(2 pi (a_i/h) t) >= 0   for t >= 0 (f even),

the issue's u^2 + h sin^2(u) P(2u) >= 0 with u = pi t, divided by u^2 (which the issue's form needs at
u = 0, where it vanishes). Two exact reductions of the range to [0, T]:
  * tail: |h sinc^2 P| <= h S/(pi t)^2 with S = |k_0| + 2 sum |k_j|, so for 2W = 2 sum w_i < 1 it is
    enough that T^2 (1 - 2W) pi^2 >= h S; we use the rational pi^2 > 986/100 (pi > 3.1415).
  * period (sharper, new here): t^2 f(t) = t^2 a(t) + c(t) with a = 1 + 2 sum w_i cos(2 pi (a_i/h) t)
    and c = h sin^2(pi t) P(2 pi t)/pi^2 both T-periodic, T = lcm of the denominators of a_i/h (T = 1
    without masses or with masses on hZ), and a >= 0. For t in (0, T] and n >= 0,
    (t + nT)^2 a(t) + c(t) >= t^2 a(t) + c(t) = t^2 f(t), so f >= 0 on [0, T] gives f >= 0 everywhere.
    a >= 0 is also necessary for (iii): f(t + nT) -> a(t) as n -> oo.
The lemma puts no bound on W: heavy masses (2W >= 1, e.g. at alpha = 1, 3/2, 2, ..., where the LP
puts them) are allowed once a >= 0 is certified (a >= 1 - 2W > 0 is exact when 2W < 1; otherwise Arb
cells certify a > 0 on [0, T/2], a being even and T-periodic), and then only the period range applies.
The checker uses the smaller of the two ranges, then certifies f > 0 on [0, T] with Arb balls
(`arb_positivity`).
"""
