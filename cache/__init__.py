"""Answer cache, utterance cache and dedup windows, with memory and Redis backends."""
