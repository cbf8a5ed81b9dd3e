"""Model providers that ship with wolf-eval (registered through the entry point)."""
