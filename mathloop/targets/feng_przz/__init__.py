"""Feng / Pratt–Robles–Zaharescu–Zeindler mollifier family: the main term c(P₁..P_K, Q, R, θ).

Research package (issue 22): see docs/przz.md. Not registered as a target.
"""
