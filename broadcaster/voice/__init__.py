"""Text to speech backends, text normalization and voice input."""
