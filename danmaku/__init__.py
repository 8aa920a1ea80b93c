"""Platform connectors and the platform-neutral Event model."""
