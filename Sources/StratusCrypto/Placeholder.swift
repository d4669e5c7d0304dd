// The StratusCrypto module; see ARCHITECTURE.md.
