// The StratusHTTP module; see ARCHITECTURE.md.
