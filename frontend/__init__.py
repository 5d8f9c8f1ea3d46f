"""The language: programs, vars, ops, layers, initializers."""
