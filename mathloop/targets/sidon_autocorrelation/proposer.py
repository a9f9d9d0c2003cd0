"""Local proposer for `sidon-autocorrelation`: smoothed-max gradient descent on the heights, refined.

Method (the literature's gradient route, cf. Matolcsi–Vinuesa's iterated local improvement): the
heights are a = x² (so a >= 0), the objective is the soft maximum (log-sum-exp with inverse
temperature β) of r_k = 2n·c_k/(Σa)², minimised with Adam while β grows geometrically, so the
smooth problem approaches the true max. Each stage doubles n by repeating every step (the value is
unchanged by the refinement), giving the optimiser new freedom. Every CHECKPOINT iterations the true
float value is measured and an improvement is yielded. The schedule counts iterations only.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mathloop.targets.sidon_autocorrelation.step_proposer import Improvements, StepProposer, integer_heights

# (steps n, Adam iterations) per stage; measured ~10k it/s at n <= 200 and ~1.3k it/s at n = 400-800.
STAGES = ((50, 60_000), (100, 80_000), (200, 100_000), (400, 60_000), (800, 40_000))
BETA = (10.0, 1.0e4)      # inverse temperature, geometric over each stage
LR = (0.02, 1.0e-4)       # Adam step: linear decay from LR[0] to LR[1]
# After the stages, polishing rounds at the last n repeat until the session's deadline: sharper
# temperatures and smaller steps from the best point (a bounded-length generator would leave the
# rest of a session idle).
POLISH = (40_000, (1.0e3, 1.0e5), (2.0e-3, 1.0e-5))
CHECKPOINT = 500
FFT_FROM = 300            # direct convolution below this n, FFT above


def fftconvolve(x: np.ndarray, y: np.ndarray, mode: str = "full") -> np.ndarray:
    """Return the convolution of x and y through numpy's real FFT ("full", or "valid" for len(x) >= len(y)).

    (scipy.signal would do the same but costs seconds to import.)
    """
    size = len(x) + len(y) - 1
    m = 1 << (size - 1).bit_length()
    full = np.fft.irfft(np.fft.rfft(x, m) * np.fft.rfft(y, m), m)[:size]
    if mode == "valid":
        return full[len(y) - 1:len(x)]
    return full


def float_value(a: np.ndarray) -> float:
    """Return 2n·max(a*a)/(Σa)² in floats (a pre-screen; the checker's value is exact)."""
    c = fftconvolve(a, a) if len(a) >= FFT_FROM else np.convolve(a, a)
    return float(2 * len(a) * c.max() / a.sum() ** 2)


def _gradient(x: np.ndarray, beta: float) -> np.ndarray:
    """Return d softmax_β(r)/dx for a = x², r_k = 2n·c_k/S² (S = Σa)."""
    n = len(x)
    a = x * x
    S = a.sum()
    big = n >= FFT_FROM
    c = fftconvolve(a, a) if big else np.convolve(a, a)
    r = 2 * n * c / (S * S)
    p = np.exp(beta * (r - r.max()))
    p /= p.sum()
    corr = fftconvolve(p, a[::-1], mode="valid") if big else np.correlate(p, a, mode="valid")
    g = 4 * n / (S * S) * corr - 2 * float(p @ r) / S
    return g * 2 * x


def optimise(seed: int, stages: tuple[tuple[int, int], ...] = STAGES, polish: bool = True) -> Improvements:
    """Yield (value, heights) each time the best float value improves (None at other checkpoints);
    deterministic for a seed.

    With `polish`, the generator never ends (the caller's deadline stops it).
    """
    rng = np.random.default_rng(seed)
    x = np.sqrt(1.0 + 0.1 * rng.random(stages[0][0]))
    best = [float("inf"), x.copy()]
    rounds = [(n, iters, BETA, LR) for n, iters in stages]
    for stage, (n, iters, beta_range, lr_range) in enumerate(rounds):
        if stage:
            bx = best[1]
            x = np.repeat(bx, n // len(bx)) if n % len(bx) == 0 else np.interp(
                np.linspace(0, 1, n), np.linspace(0, 1, len(bx)), bx)
        yield from _adam(x, iters, beta_range, lr_range, best)
        if polish and stage == len(rounds) - 1:
            rounds.append((n, POLISH[0], POLISH[1], POLISH[2]))


def _adam(x: np.ndarray, iters: int, beta_range: tuple[float, float], lr_range: tuple[float, float],
          best: list) -> Improvements:
    """Run Adam on x, updating best = [value, x]; yield every improvement at a checkpoint, else None."""
    m = np.zeros_like(x)
    v = np.zeros_like(x)
    for it in range(1, iters + 1):
        frac = it / iters
        beta = beta_range[0] * (beta_range[1] / beta_range[0]) ** frac
        g = _gradient(x, beta)
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        lr = lr_range[0] * (1 - frac) + lr_range[1]
        x = x - lr * (m / (1 - 0.9 ** it)) / (np.sqrt(v / (1 - 0.999 ** it)) + 1e-12)
        if it % CHECKPOINT == 0:
            val = float_value(x * x)
            if val < best[0]:
                best[0], best[1] = val, x.copy()
                yield val, x * x
            else:
                yield None


class SidonProposer(StepProposer):
    """The embedded C1a optimiser (see the module docstring)."""

    def __init__(self, target: Any, seed: int) -> None:
        super().__init__(target, seed, optimise, integer_heights, float_value)
