// The StratusSQLite module; see ARCHITECTURE.md.
