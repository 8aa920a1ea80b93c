"""TTS backends: espeak-ng (ctypes), Piper (onnxruntime), Coqui TTS (VITS, XTTS v2) and HTTP voice servers."""
