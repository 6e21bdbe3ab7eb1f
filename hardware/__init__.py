"""hardware."""
