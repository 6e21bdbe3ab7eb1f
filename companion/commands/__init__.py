"""Subcommands of ``dingo-companion``; each module exposes ``register(subparsers)``."""
