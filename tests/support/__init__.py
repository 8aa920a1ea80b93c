"""Helpers shared by tests: real RTMP servers, stream probes, test media."""
