"""companion/games."""
