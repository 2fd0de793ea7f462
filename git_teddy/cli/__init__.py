"""The click layer: parse arguments, call the library, print. No logic lives here."""
