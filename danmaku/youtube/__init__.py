"""YouTube live chat connector (Data API v3)."""
