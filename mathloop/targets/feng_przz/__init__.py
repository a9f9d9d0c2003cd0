"""Feng / Pratt–Robles–Zaharescu–Zeindler mollifier family: the exact main term c(P₁..P_K, Q, R, θ).

Research package of issue 22 (docs/przz.md): reproduces PRZZ's printed κ and κ*; not yet a registered target.
"""
