"""firmware_bridge."""
