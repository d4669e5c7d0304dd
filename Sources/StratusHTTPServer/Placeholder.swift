// The StratusHTTPServer module; see ARCHITECTURE.md.
