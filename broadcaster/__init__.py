"""The daemon: config, rooms, director, brain, voice, stage, output, admin, metrics, CLI."""
