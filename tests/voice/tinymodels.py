"""Tiny random models built on the spot for tests and benches: a Piper-shaped ONNX voice (same inputs/outputs)."""

from __future__ import annotations

import importlib
import json
import os
from pathlib import Path
from typing import Any

import numpy as np


def require(module: str) -> Any:
    """Imports an optional ML dependency for a test module: skips without it, but fails when CI=true."""
    try:
        return importlib.import_module(module)
    except ImportError:
        if os.environ.get("CI") == "true":
            raise
        import pytest

        pytest.skip(f"{module} is not installed (pip install -e '.[ml]')", allow_module_level=True)


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


def build_tiny_vits(dir: Path, *, sample_rate: int = 16000, speakers: list[str] | None = None) -> Path:
    """A random 1.3M-parameter Coqui VITS (characters, English) saved as config.json + model_file.pth."""
    import torch
    from TTS.config.shared_configs import BaseAudioConfig
    from TTS.tts.configs.shared_configs import CharactersConfig
    from TTS.tts.configs.vits_config import VitsArgs, VitsConfig
    from TTS.tts.models.vits import Vits

    torch.manual_seed(0)
    args = VitsArgs(
        hidden_channels=16, hidden_channels_ffn_text_encoder=32, num_heads_text_encoder=2, num_layers_text_encoder=1,
        num_layers_flow=1, num_layers_posterior_encoder=1, resblock_kernel_sizes_decoder=[3],
        resblock_dilation_sizes_decoder=[[1, 3, 5]], upsample_rates_decoder=[8, 8, 4],
        upsample_initial_channel_decoder=32, upsample_kernel_sizes_decoder=[16, 16, 8], init_discriminator=False,
        spec_segment_size=8, use_speaker_embedding=bool(speakers), use_sdp=False,
        speaker_embedding_channels=16,
    )
    cfg = VitsConfig(
        model_args=args,
        audio=BaseAudioConfig(sample_rate=sample_rate, hop_length=256, win_length=1024, fft_size=1024, num_mels=80),
        use_phonemes=False, text_cleaner="basic_cleaners", test_sentences=[],
        characters=CharactersConfig(characters_class="TTS.tts.utils.text.characters.Graphemes", pad="_", eos="~",
                                    bos="^", blank="#", characters="abcdefghijklmnopqrstuvwxyz",
                                    punctuations="!,.? "),
        use_speaker_embedding=bool(speakers),
    )
    dir.mkdir(parents=True, exist_ok=True)
    if speakers:
        import json as _json

        (dir / "speakers.json").write_text(_json.dumps({s: i for i, s in enumerate(speakers)}))
        cfg.speakers_file = str(dir / "speakers.json")
        cfg.model_args.speakers_file = str(dir / "speakers.json")
    model = Vits(cfg)
    torch.save({"model": model.state_dict()}, dir / "model_file.pth")
    cfg.save_json(str(dir / "config.json"))
    return dir


def build_tiny_xtts(dir: Path) -> Path:
    """A random tiny XTTS v2 (1-layer 32-wide GPT, real speaker encoder + HiFi decoder shapes) with a BPE
    vocab.json trained on the spot, saved as config.json + model.pth + vocab.json like a released XTTS dir."""
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    from TTS.tts.configs.xtts_config import XttsConfig
    from TTS.tts.layers.xtts.tokenizer import VoiceBpeTokenizer
    from TTS.tts.models.xtts import Xtts, XttsArgs

    torch.manual_seed(0)
    dir.mkdir(parents=True, exist_ok=True)
    tok = Tokenizer(models.BPE(unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    trainer = trainers.BpeTrainer(vocab_size=300, special_tokens=["[STOP]", "[UNK]", "[SPACE]", "[START]", "[zh-cn]", "[en]"])
    corpus = ["hello world this is a test", "ni3 hao3 huan1 ying2 lai2 dao4 zhi2 bo1 jian1",
              "welcome to the live room thanks for the gift"] * 20
    tok.train_from_iterator(corpus, trainer)
    tok.save(str(dir / "vocab.json"))
    args = XttsArgs(gpt_layers=1, gpt_n_model_channels=32, gpt_n_heads=2, gpt_num_audio_tokens=66,
                    gpt_start_audio_token=64, gpt_stop_audio_token=65, gpt_max_audio_tokens=16,
                    gpt_max_text_tokens=100, gpt_max_prompt_tokens=20, decoder_input_dim=32,
                    tokenizer_file=str(dir / "vocab.json"))
    cfg = XttsConfig(model_args=args)
    cfg.languages = ["en", "zh-cn"]
    model = Xtts(cfg)
    model.tokenizer = VoiceBpeTokenizer(vocab_file=str(dir / "vocab.json"))
    model.init_models()
    torch.save({"model": model.state_dict()}, dir / "model.pth")
    cfg.save_json(str(dir / "config.json"))
    return dir


WHISPER_LANGS = ["en", "zh", "de", "es", "ru", "ko", "fr", "ja"]


def build_tiny_whisper(dir: Path, *, seed: int = 0) -> Path:
    """A random tiny Whisper (1+1 layers, d_model 64) with a byte-level BPE tokenizer trained on the spot and
    Whisper's special tokens, converted by ctranslate2 (copy_files=["tokenizer.json"]) into `dir/ct2`."""
    import ctranslate2
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import (
        GenerationConfig,
        PreTrainedTokenizerFast,
        WhisperConfig,
        WhisperForConditionalGeneration,
    )

    torch.manual_seed(seed)
    hf = dir / "hf"
    hf.mkdir(parents=True, exist_ok=True)
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    corpus = ["hello world, welcome to the live room", "你好，欢迎来到直播间，今天的价格是一百九十九元",
              "thanks for the gift, how much is this", "主播你好，这个多少钱，有优惠吗"] * 50
    tok.train_from_iterator(corpus, trainers.BpeTrainer(vocab_size=400, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    specials = (["<|endoftext|>", "<|startoftranscript|>"] + [f"<|{lang}|>" for lang in WHISPER_LANGS]
                + ["<|translate|>", "<|transcribe|>", "<|startoflm|>", "<|startofprev|>", "<|nospeech|>",
                   "<|notimestamps|>"] + [f"<|{i * 0.02:.2f}|>" for i in range(1501)])
    tok.add_special_tokens(specials)
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="<|endoftext|>", bos_token="<|endoftext|>",
                                   eos_token="<|endoftext|>", pad_token="<|endoftext|>",
                                   additional_special_tokens=specials[1:])
    fast.save_pretrained(hf)
    ids = {t: fast.convert_tokens_to_ids(t) for t in specials[:16]}
    eot, sot = ids["<|endoftext|>"], ids["<|startoftranscript|>"]
    cfg = WhisperConfig(
        vocab_size=len(fast), num_mel_bins=80, d_model=64, encoder_layers=1, decoder_layers=1,
        encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=128, decoder_ffn_dim=128,
        max_source_positions=1500, max_target_positions=448, decoder_start_token_id=sot, eos_token_id=eot,
        pad_token_id=eot, bos_token_id=eot, suppress_tokens=[], begin_suppress_tokens=[eot],
    )
    model = WhisperForConditionalGeneration(cfg)
    with torch.no_grad():
        # Special tokens (end of text, timestamps) get zero logits, so the random decoder emits text tokens
        # until max_new_tokens: transcripts are never empty. Output embeddings are tied to these.
        model.model.decoder.embed_tokens.weight[eot:] = 0.0
        model.proj_out.weight[eot:] = 0.0
    model.generation_config = GenerationConfig(
        decoder_start_token_id=sot, eos_token_id=eot, pad_token_id=eot, bos_token_id=eot,
        suppress_tokens=[], begin_suppress_tokens=[eot], no_timestamps_token_id=ids["<|notimestamps|>"],
        lang_to_id={f"<|{lang}|>": ids[f"<|{lang}|>"] for lang in WHISPER_LANGS},
        task_to_id={"transcribe": ids["<|transcribe|>"], "translate": ids["<|translate|>"]},
        is_multilingual=True, max_length=448,
    )
    model.save_pretrained(hf)
    out = dir / "ct2"
    ctranslate2.converters.TransformersConverter(str(hf), copy_files=["tokenizer.json"]).convert(str(out), force=True)
    return out
