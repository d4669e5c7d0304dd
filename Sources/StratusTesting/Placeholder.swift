// The StratusTesting module; see ARCHITECTURE.md.
