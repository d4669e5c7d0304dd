// The StratusMetrics module; see ARCHITECTURE.md.
