#!/bin/bash
# The four one-line mutations issue 27 names, each applied to a scratch worktree of HEAD: each must fail
# tests/face/test_face_golden.py (the golden arrays and the UNet hooks). Run: bash tests/face/golden/mutations.sh
set -euo pipefail
repo=$(git rev-parse --show-toplevel)
py=${PYTHON:-$repo/.venv/bin/python}
tree=$(mktemp -d)/mut
git -C "$repo" worktree add -q --detach "$tree" HEAD
trap 'git -C "$repo" worktree remove --force "$tree"' EXIT
cd "$tree"
golden() { PYTHONPATH="$tree" VA_TEST_WORKERS=0 "$py" -m pytest -q -p no:cacheprovider tests/face/test_face_golden.py 2>&1 | tail -1; }
mutate() {  # name, file, the line's text, its mutation
  git checkout -q -- .
  "$py" - "$2" "$3" "$4" <<'PY'
import sys
path, old, new = sys.argv[1:]
text = open(path).read()
assert text.count(old) == 1, (path, old)
open(path, "w").write(text.replace(old, new))
PY
  echo "$1: $(golden)"
}
echo "unmutated: $(golden)"
mutate "latents swapped" renderer/neural/infer.py \
  "torch.cat([lat[:n], lat[n:]], dim=1)" "torch.cat([lat[n:], lat[:n]], dim=1)"
mutate "a whisper layer dropped" renderer/neural/infer.py \
  "torch.stack(enc.hidden_states, dim=2)" "torch.stack(enc.hidden_states[1:], dim=2)"
mutate "the masked half not set" renderer/neural/infer.py \
  "masked[:, :, CROP // 2 :, :] = 0" "masked[:, :, CROP // 2 :, :] = masked[:, :, CROP // 2 :, :]"
mutate "the box on the nose tip" renderer/neural/prepare.py \
  "return crop_box_68(*musetalk_points(lm), width, height)" \
  "return crop_box_68(musetalk_points(lm)[0], lm.p('nose_tip'), width, height)"
