"""Makes tests/face/golden/musetalk15.npz by running MuseTalk 1.5's own code (TMElyralab/MuseTalk, MIT) on a tiny model.

Nothing of MuseTalk is copied into this repository: this script imports it from a checkout given on the command
line, in a scratch folder outside the repository, and saves only the arrays its functions return:

- whisper chunking: `AudioProcessor.get_audio_feature` + `get_whisper_chunk` (musetalk/utils/audio_processor.py) on
  a 0.4 s clip at 20, 25 and 30 fps (the padding follows the fps) and on a 30.9 s clip (two whisper segments);
- the crop box: `get_landmark_and_bbox` (musetalk/utils/preprocessing.py) given the 68 points that our face mesh
  stands for (renderer.neural.prepare.musetalk_points; dwpose and the face detector are stood in by those points),
  then the v1.5 margin of scripts/realtime_inference.py; and `get_crop_box` (musetalk/utils/blending.py), the 1.5x
  blending square;
- latent preparation: the 256 crop cut and resized as realtime_inference.py does, then `VAE.get_latents_for_unet`
  (musetalk/models/vae.py) with the posterior's mode instead of a sample (MuseTalk's inference samples it, its
  training's get_image_pred takes the mode; ours takes the mean, the same thing for a diagonal Gaussian);
- the positional encoding: `PositionalEncoding` (musetalk/models/unet.py) at d_model 384 and the tiny model's 32;
- one UNet step as realtime_inference.py runs it: `datagen` batches, `pe(whisper_batch)`, `unet.model(latents,
  timestep 0, encoder_hidden_states=...)`, `vae.decode_latents`.

The model is tests/face/tinymodel.write_model(portable=True): numpy-seeded weights, the same under any torch, so
the tests rebuild it and compare (its fingerprint is saved too). torchvision (imported by MuseTalk's vae.py for one
Normalize(0.5, 0.5)) does not install against the CPU torch here: a stand-in computes (x - 0.5) / 0.5.

    git clone https://github.com/TMElyralab/MuseTalk /tmp/musetalk_golden/MuseTalk   # (any copy of its code)
    .venv/bin/python tests/face/golden/make_golden.py /tmp/musetalk_golden/MuseTalk [--out tests/face/golden]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import types
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[3]
RATE = 16000
SHORT_S, LONG_S = 0.4, 30.9
FPS_LIST = (20, 25, 30)
LONG_FRAMES = (0, 749, 750, 751, 771)  # at 25 fps: either side of the 30 s segment boundary, and the last
UNET_FRAMES = (0, 5, 9)  # of the short clip at 25 fps


def clip(seconds: float, seed: int) -> np.ndarray:
    """int16 noise under a sawtooth envelope at 16 kHz: exact in any numpy (no transcendental functions)."""
    n = int(seconds * RATE)
    rs = np.random.RandomState(seed)
    env = (np.arange(n) % 4000) / 4000.0
    return np.clip(rs.standard_normal(n) * env * 6000, -32768, 32767).astype(np.int16)


def photos() -> dict[str, np.ndarray]:
    sys.path.insert(0, str(ROOT / "tests" / "renderer"))
    from renderer_photos import astronaut, hopper

    return {p.name: p.image for p in (astronaut(), hopper())}


def points68(jaw: np.ndarray, p29: np.ndarray) -> np.ndarray:
    """A 68-point set for MuseTalk's box: our jaw and 29; the other points (inside the face, so they set none of the
    box's edges) at 29."""
    pts = np.repeat(p29[None], 68, axis=0).astype(np.float32)
    pts[:17] = jaw
    return pts


def _stand_ins(points: dict[str, np.ndarray]) -> None:
    """dwpose (mmpose) and the S3FD face detector, which MuseTalk's preprocessing loads at import, answer with the
    given 68 points and their bounding box; torchvision's Normalize as (x - mean) / std."""
    current: dict[str, np.ndarray] = {}

    class _Result:
        def __init__(self, pts: np.ndarray):
            self.pred_instances = types.SimpleNamespace(keypoints=np.concatenate(
                [np.zeros((1, 23, 2), np.float32), pts[None], np.zeros((1, 133 - 91, 2), np.float32)], axis=1))

    apis = types.ModuleType("mmpose.apis")
    apis.init_model = lambda *a, **k: None
    apis.inference_topdown = lambda model, img: [_Result(current["pts"])]
    structures = types.ModuleType("mmpose.structures")
    structures.merge_data_samples = lambda results: results[0]
    fd = types.ModuleType("face_detection")

    class FaceAlignment:
        def __init__(self, *a, **k):
            pass

        def get_detections_for_batch(self, imgs):
            p = current["pts"]
            return [(int(p[:, 0].min()), int(p[:, 1].min()), int(p[:, 0].max()), int(p[:, 1].max()))]

    fd.FaceAlignment = FaceAlignment
    fd.LandmarksType = types.SimpleNamespace(_2D=0)
    tv = types.ModuleType("torchvision")
    tvt = types.ModuleType("torchvision.transforms")

    class Normalize:
        def __init__(self, mean, std):
            import torch

            self.mean = torch.tensor(mean).view(-1, 1, 1)
            self.std = torch.tensor(std).view(-1, 1, 1)

        def __call__(self, x):
            return (x - self.mean) / self.std

    tvt.Normalize = Normalize
    tv.transforms = tvt
    sys.modules.update({"mmpose": types.ModuleType("mmpose"), "mmpose.apis": apis, "mmpose.structures": structures,
                        "face_detection": fd, "torchvision": tv, "torchvision.transforms": tvt})
    points.setdefault("_current", current)  # type: ignore[arg-type]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("musetalk", type=Path, help="a checkout of TMElyralab/MuseTalk (outside this repository)")
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent)
    args = ap.parse_args()
    mt_root = args.musetalk.resolve()
    if ROOT in mt_root.parents or mt_root == ROOT:
        sys.exit("put the MuseTalk checkout outside this repository")
    sys.path.insert(0, str(ROOT))
    import soundfile
    import torch

    from renderer.landmarks import find_landmarks
    from renderer.neural.prepare import musetalk_points
    from tests.face.tinymodel import fingerprint, write_model

    torch.set_num_threads(1)
    scratch = Path(tempfile.mkdtemp(prefix="musetalk_golden_"))
    model = write_model(scratch / "models", portable=True)
    out: dict[str, np.ndarray] = {"model_fingerprint": np.array(fingerprint(model))}

    # The landmarks of the two photos (ours), as 68 points.
    imgs = photos()
    marks = {}
    for name, img in imgs.items():
        path = scratch / f"{name}.png"
        cv2.imwrite(str(path), img)
        jaw, p29 = musetalk_points(find_landmarks(path, img))
        marks[name] = (path, jaw, p29)

    holder: dict = {}
    _stand_ins(holder)
    current = holder["_current"]
    os.chdir(mt_root)  # MuseTalk's modules name their files relative to its root
    sys.path.insert(0, str(mt_root))
    from diffusers.models.autoencoders.vae import DiagonalGaussianDistribution
    from musetalk.models.unet import PositionalEncoding, UNet
    from musetalk.models.vae import VAE
    from musetalk.utils.audio_processor import AudioProcessor
    from musetalk.utils.blending import get_crop_box
    from musetalk.utils.preprocessing import get_landmark_and_bbox
    from musetalk.utils.utils import datagen
    from transformers import WhisperModel

    # 1. The crop box and the blending square.
    extra_margin = 10  # scripts/realtime_inference.py --extra_margin default (v15)
    for name, (path, jaw, p29) in marks.items():
        current["pts"] = points68(jaw, p29)
        coords, frames = get_landmark_and_bbox([str(path)], 0)
        x1, y1, x2, y2 = coords[0]
        y2 = min(y2 + extra_margin, frames[0].shape[0])  # realtime_inference.py, Avatar.prepare_material (v15)
        box = [int(x1), int(y1), int(x2), int(y2)]
        out[f"{name}_jaw"] = jaw
        out[f"{name}_p29"] = p29
        out[f"{name}_box"] = np.array(box, np.int32)
        out[f"{name}_blend_box"] = np.array(get_crop_box(box, 1.5)[0], np.int32)

    # 2. Whisper chunking.
    processor = AudioProcessor(feature_extractor_path=str(model / "whisper"))
    whisper = WhisperModel.from_pretrained(str(model / "whisper")).eval()
    short, long = clip(SHORT_S, 1), clip(LONG_S, 2)
    out["short_pcm"] = short
    chunks = {}
    for label, pcm in (("short", short), ("long", long)):
        wav = scratch / f"{label}.wav"
        soundfile.write(str(wav), pcm, RATE, subtype="PCM_16")
        feats, length = processor.get_audio_feature(str(wav), weight_dtype=torch.float32)
        for fps in FPS_LIST if label == "short" else (25,):
            with torch.no_grad():
                c = processor.get_whisper_chunk(feats, "cpu", torch.float32, whisper, length, fps=fps,
                                                audio_padding_length_left=2, audio_padding_length_right=2)
            chunks[(label, fps)] = c
            arr = c.numpy()
            out[f"whisper_{label}_{fps}"] = arr if label == "short" else arr[list(LONG_FRAMES)]
    out["long_frames"] = np.array(LONG_FRAMES)
    out["long_count"] = np.array(chunks[("long", 25)].shape[0])

    # 3. Latent preparation (astronaut).
    DiagonalGaussianDistribution.sample = lambda self, generator=None: self.mode()
    vae = VAE(model_path=str(model / "sd-vae"))
    x1, y1, x2, y2 = (int(v) for v in out["astronaut_box"])
    crop = cv2.resize(imgs["astronaut"][y1:y2, x1:x2], (256, 256), interpolation=cv2.INTER_LANCZOS4)
    out["astronaut_crop"] = crop
    latents = vae.get_latents_for_unet(crop)
    out["astronaut_latents"] = latents.detach().numpy()

    # 4. Positional encoding.
    out["pe_384"] = PositionalEncoding(d_model=384).pe[0, :50].numpy()
    out["pe_32"] = PositionalEncoding(d_model=32).pe[0, :30].numpy()

    # 5. One UNet step as realtime_inference.py runs it (fp32 here; it runs fp16 on a GPU).
    cfg = json.loads((model / "musetalkV15" / "musetalk.json").read_text())
    plain = scratch / "musetalk.json"  # UNet2DConditionModel(**config) takes no "_class_name"
    plain.write_text(json.dumps({k: v for k, v in cfg.items() if not k.startswith("_")}))
    unet = UNet(unet_config=str(plain), model_path=str(model / "musetalkV15" / "unet.pth"), device="cpu")
    pe = PositionalEncoding(d_model=32)
    wanted = chunks[("short", 25)][list(UNET_FRAMES)]
    timesteps = torch.tensor([0])
    preds, recon = [], []
    with torch.no_grad():
        for whisper_batch, latent_batch in datagen(wanted, [latents], batch_size=len(UNET_FRAMES)):
            pred = unet.model(latent_batch, timesteps, encoder_hidden_states=pe(whisper_batch)).sample
            preds.append(pred.numpy())
            recon.append(vae.decode_latents(pred))
    out["unet_frames"] = np.array(UNET_FRAMES)
    out["unet_pred"] = np.concatenate(preds)
    out["unet_crop"] = np.concatenate(recon)[0, 96:160, 96:160]  # BGR uint8: the middle of the first frame

    args.out.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(args.out / "musetalk15.npz", **out)
    size = (args.out / "musetalk15.npz").stat().st_size
    print(f"wrote {args.out / 'musetalk15.npz'} ({size / 1024:.0f} KiB): " + ", ".join(
        f"{k} {tuple(v.shape)}" for k, v in out.items()))


if __name__ == "__main__":
    main()
