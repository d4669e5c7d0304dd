// The StratusWire module; see ARCHITECTURE.md.
