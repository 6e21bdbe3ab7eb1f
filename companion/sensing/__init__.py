"""companion/sensing."""
