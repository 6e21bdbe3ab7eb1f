"""Benchmarks behind ``dingo-companion bench NAME``; each module exposes ``register(subparsers)``."""
