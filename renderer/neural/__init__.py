"""The neural face (MuseTalk-1.5-compatible): loader, audio features, cached preparation, batched inference, avatar.

Importing this package never imports torch or diffusers (the core install has neither); the modules
that run the model import them when called. See docs/face.md.
"""
