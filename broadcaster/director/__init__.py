"""Triage of chat, moderation, the talk track and the line queue."""
