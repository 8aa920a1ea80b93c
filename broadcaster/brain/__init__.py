"""Answers: answer cache, knowledge base, LLM backends and the grounding guard."""
