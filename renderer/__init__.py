"""Avatars, the lip-sync track from audio, idle motion and overlays."""
