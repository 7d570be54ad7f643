"""Benchmarks of the solver: winnability rates, speed, memory, and comparisons with peer solvers."""
