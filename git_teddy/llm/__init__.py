"""Model providers: one call from a system prompt and a conversation to a completion."""
