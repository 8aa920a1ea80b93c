"""Helpers shared by tests: real RTMP servers, stream probes, test media, the system programs tests require."""
