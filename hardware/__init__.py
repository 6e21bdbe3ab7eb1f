"""Everything that touches the physical table: sample sources, the panel, the simulator."""
