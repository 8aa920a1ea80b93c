"""A real RTMP ingest for tests: FFmpeg's own RTMP listener (via PyAV) that remuxes what it receives to a file.

Run as a process: python -m tests.support.rtmp_listen URL OUT.flv — it accepts one publisher, copies every
packet to OUT (flushing as it goes) and exits when the publisher disconnects.
"""

from __future__ import annotations

import sys

import av


def _accept(url: str) -> av.container.InputContainer:
    """Listens until a real publisher arrives (a client that connects and leaves, e.g. a TCP probe, is skipped)."""
    while True:
        try:
            return av.open(url, options={"listen": "1", "timeout": "-1"}, timeout=(120.0, 10.0))
        except (av.FFmpegError, OSError) as exc:
            print(f"connection without a publisher: {exc}", flush=True)


def main(url: str, out_path: str) -> int:
    src = _accept(url)
    dst = av.open(out_path, "w", format="flv")
    mapping = {}
    for stream in src.streams:
        mapping[stream.index] = dst.add_stream_from_template(stream)
    print("publisher connected", flush=True)
    try:
        for packet in src.demux():
            if packet.dts is None:
                continue
            packet.stream = mapping[packet.stream.index]
            dst.mux(packet)
    except (av.FFmpegError, OSError) as exc:
        print(f"input ended: {exc}", flush=True)
    finally:
        dst.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
