"""Write broadcaster/brain/models/questions-e5.npz: the bundled model's query vectors of the background questions
(broadcaster/brain/data/questions_zh.txt) that brain/hubs.py measures facts against. Run after editing the file."""

from __future__ import annotations

import numpy as np

from broadcaster.brain import hubs
from broadcaster.brain.embed import BundledE5, Embeddings


def main() -> int:
    emb = Embeddings(BundledE5(), room="build")
    if not emb.load_sync():
        print(f"the bundled model did not load: {emb.reason}")
        return 1
    vecs = emb.query_sync(hubs.questions())
    if vecs is None:
        print("embedding failed")
        return 1
    np.savez_compressed(hubs.VECTORS, vectors=vecs.astype(np.float16), model_id=np.array(emb.model_id),
                        digest=np.array(hubs.questions_digest()))
    print(f"wrote {hubs.VECTORS} ({len(vecs)} questions, {emb.model_id})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
