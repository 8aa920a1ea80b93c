"""Tiny random models built on the spot for tests and benches: a Piper-shaped ONNX voice (same inputs/outputs)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np


def build_tiny_piper_voice(dir: Path, *, sample_rate: int = 22050, hop: int = 256, espeak_voice: str = "cmn",
                           num_speakers: int = 1) -> Path:
    """Writes voice.onnx + voice.onnx.json with Piper's interface: input int64[1,T], input_lengths int64[1],
    scales float32[3] (+ sid int64[1] when multi-speaker) → output float32[1,1,T*hop].

    Each phoneme id plays `hop` samples of its own tone, scaled by the noise scale (scales[0]).
    """
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    from piper.phoneme_ids import DEFAULT_PHONEME_ID_MAP

    num_symbols = max(i for ids in DEFAULT_PHONEME_ID_MAP.values() for i in ids) + 1
    t = np.arange(hop) / sample_rate
    table = np.stack([0.5 * np.sin(2 * np.pi * (120 + 15 * i) * t) * np.hanning(hop)
                      for i in range(num_symbols)]).astype(np.float32)
    nodes = [
        helper.make_node("Gather", ["table", "input"], ["frames"], axis=0),  # [1, T, hop]
        helper.make_node("Reshape", ["frames", "shape"], ["audio"]),  # [1, 1, T*hop]
        helper.make_node("Gather", ["scales", "zero"], ["noise"], axis=0),
        helper.make_node("Mul", ["audio", "noise"], ["output"]),
    ]
    inputs = [
        helper.make_tensor_value_info("input", TensorProto.INT64, [1, "phonemes"]),
        helper.make_tensor_value_info("input_lengths", TensorProto.INT64, [1]),
        helper.make_tensor_value_info("scales", TensorProto.FLOAT, [3]),
    ]
    if num_speakers > 1:
        inputs.append(helper.make_tensor_value_info("sid", TensorProto.INT64, [1]))
    graph = helper.make_graph(
        nodes, "tiny_piper", inputs,
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 1, "samples"])],
        initializer=[numpy_helper.from_array(table, "table"),
                     numpy_helper.from_array(np.array([1, 1, -1], np.int64), "shape"),
                     numpy_helper.from_array(np.array(0, np.int64), "zero")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    dir.mkdir(parents=True, exist_ok=True)
    path = dir / "voice.onnx"
    onnx.save(model, path)
    config = {
        "audio": {"sample_rate": sample_rate},
        "espeak": {"voice": espeak_voice},
        "phoneme_type": "espeak",
        "num_symbols": num_symbols,
        "num_speakers": num_speakers,
        "inference": {"noise_scale": 0.667, "length_scale": 1.0, "noise_w": 0.8},
        "phoneme_id_map": DEFAULT_PHONEME_ID_MAP,
        "speaker_id_map": {},
        "piper_version": "1.0.0",
    }
    (dir / "voice.onnx.json").write_text(json.dumps(config, ensure_ascii=False))
    return path
