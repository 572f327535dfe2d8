#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Writes the seed corpora under tests/fuzz/corpus/<target>/: small valid inputs of each fuzz
# target's format (fuzz/*_fuzz.cc). Run it again after a format changes; review the diff.
"""Generates tests/fuzz/corpus/ and tests/fuzz/dict/. Frames use abi/packet.h's WireHeader (48 bytes, little
endian) and the IEEE CRC-32 (zlib's), which base/crc32.cc computes."""

import re
import struct
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
CORPUS = ROOT / "tests" / "fuzz" / "corpus"

# abi/packet.h PacketType and abi/rdma.h wire flags.
FIFO, RDMA_WRITE, RDMA_READ_REQUEST, RDMA_COMPLETION = 1, 2, 3, 4
NOTIFY_SENDER, NOTIFY_SINK, TO_FIFO, LAST_PACKET = 0x01, 0x02, 0x04, 0x08


def header(dest_adapter=3, dest_window=1, src_adapter=7, src_window=0, len_bytes=0, ptype=FIFO,
           flags=0, key=0, ulp_word=0, rcxt=0, tid=0, msg_offset=0, pvo=0, crc=0, aux=0):
    return struct.pack("<HHHHHBBIIIIIQII", dest_adapter, dest_window, src_adapter, src_window,
                       len_bytes, ptype, flags, key, ulp_word, rcxt, tid, msg_offset, pvo, crc,
                       aux)


def frame(payload=b"", **fields):
    """A frame with its CRC stamped (computed with the crc field zero)."""
    fields["len_bytes"] = fields.get("len_bytes", len(payload))
    raw = header(**fields) + payload
    crc = zlib.crc32(raw) & 0xFFFFFFFF
    return raw[:40] + struct.pack("<I", crc) + raw[44:]


def write(target, name, data):
    path = CORPUS / target / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def frame_codec():
    write("frame_codec", "fifo_100", frame(bytes(range(100)), ulp_word=0x12345678, key=0xBEEF01))
    write("frame_codec", "rdma_write_header_only",
          frame(ptype=RDMA_WRITE, rcxt=5, tid=9, pvo=0x1234_5678_9ABC, flags=LAST_PACKET))
    write("frame_codec", "completion",
          frame(ptype=RDMA_COMPLETION, rcxt=2, tid=1, msg_offset=4096))


def rdma_rx():
    # fuzz/rdma_rx_fuzz.cc: fix:u8 sel:u8 len:u16 frame. 0x7F applies every fix-up but the
    # drain (aim, key, rCxt, PVO, length, RDMA type, CRC); sel 1 names an idle rCxt of window 1,
    # sel 2 the one awaiting the completion of tid 1. With kFixType, type % 3 picks
    # write (0), read request (1) or completion (2).
    def record(fix, sel, data, action=0):
        # action (the top three bits of len): 1 return frames, 2 close window, 3 recover.
        return struct.pack("<BBH", fix, sel, len(data) | action << 13) + data
    data = bytes(range(256))
    write_packet = header(ptype=0, tid=1, flags=LAST_PACKET | NOTIFY_SENDER | NOTIFY_SINK,
                          pvo=0x100) + data
    write("rdma_rx", "write_one_packet", record(0x7F, 1, write_packet))
    first = header(ptype=0, tid=2, msg_offset=0, pvo=0) + data
    last = header(ptype=0, tid=2, msg_offset=256, pvo=256, flags=LAST_PACKET | NOTIFY_SINK) + data
    write("rdma_rx", "write_two_packets_out_of_order",
          record(0x7F, 1, last) + record(0x7F, 1, first) + record(0xFF, 1, first))
    # A read request: 16 bytes of ReadRequestExt (sink PVO, adapter, window, rCxt).
    ext = struct.pack("<QHHI", 0x2000, 7, 0, 0x55)
    read = header(ptype=1, tid=3, msg_offset=512, pvo=0, flags=NOTIFY_SENDER) + ext
    write("rdma_rx", "read_request", record(0x7F, 1, read))
    write("rdma_rx", "completion", record(0x7F, 2, header(ptype=2, tid=1, msg_offset=100)) +
          record(0x7F, 3, header(ptype=2, tid=1)))
    fifo = frame(bytes(64), dest_window=1, key=0x5EED01)
    write("rdma_rx", "fifo_packet", record(0x00, 1, fifo))
    # The window closes, then the adapter recovers, while a transfer's packets arrive.
    write("rdma_rx", "close_and_recover_under_traffic",
          record(0x7F, 1, first) + record(0x7F, 1, last, action=2) +
          record(0xFF, 1, write_packet, action=3) + record(0x7F, 1, write_packet, action=1))


def ether_frame():
    # fuzz/ether_frame_fuzz.cc: mtu:u16, then the Ethernet frame (hw/dpdk/ether_frame.h).
    def mac(adapter):
        return bytes([0x02, 0x6E, 0x73, 0x00, adapter >> 8, adapter & 0xFF])
    inner = frame(bytes(range(64)), key=0xBEEF01)
    eth = mac(1) + mac(0) + b"\x88\xb5"
    write("ether_frame", "nicsim_frame", struct.pack("<H", 2096) + eth + inner)
    write("ether_frame", "vlan_tagged", struct.pack("<H", 2096) + mac(1) + mac(0) +
          b"\x81\x00\x00\x01\x88\xb5" + inner)
    write("ether_frame", "over_mtu", struct.pack("<H", 60) + eth + inner)


def scenario():
    for name in ("packet_mode", "rdma_write", "fabric_faults"):
        text = (ROOT / "traces" / name / "scenario.toml").read_bytes()
        write("scenario", name + ".toml", text)
    write("scenario", "preset.toml", b'preset = "hps"\nnodes = 4\n[fabric]\nloss = 0.01\n')


def set_flag():
    write("set_flag", "several", b"nodes=4\nfabric.loss=0.1\nfabric.latency=300ns\n"
          b"preset=hps\nfabric.path_down=0,1\n")
    write("set_flag", "faults", b"fabric.paths=2\nfabric.faults=path 1: loss=0.5; link 0/1: "
          b"duplicate=0.1, reorder=0.2, reorder_delay=1us\n")
    write("set_flag", "errors", b"nodes\nnodes=0\nbogus.key=1\n fabric.loss = 2\n")


def trace_diff():
    lines = (ROOT / "traces" / "packet_mode" / "trace.txt").read_bytes().splitlines(True)[:24]
    left = b"".join(lines)
    changed = list(lines)
    changed[17] = changed[17].replace(b"value=", b"value=9")
    write("trace_diff", "same", b"\x03" + left + b"\x00" + left)
    write("trace_diff", "one_line_differs", b"\x03" + left + b"\x00" + b"".join(changed))
    write("trace_diff", "shorter", b"\x05" + left + b"\x00" + b"".join(lines[:10]))


def rank_channel():
    # ulp/mpi/capi/wire.h: Header (u32 call, u32 reserved, u64 bytes, u64 compute_ns) and the
    # arguments of each call, as libnicsim_mpi writes them.
    INIT, FINALIZE, ABORT, COMM_SPLIT, SEND, IRECV, COMPLETE, BCAST = 1, 2, 3, 6, 9, 12, 13, 17
    ALLREDUCE, GATHERV, ALLTOALLV, REDUCE_SCATTER, CREATE_GROUP, OP_RESULT = 19, 20, 23, 24, 27, 102
    WORLD, SUM, DOUBLE, USER_OP = 1, 0, 4, 0xFF

    def msg(call, args=b"", compute_ns=0):
        return struct.pack("<IIQQ", call, 0, len(args), compute_ns) + args

    def blob(data):
        return struct.pack("<Q", len(data)) + data

    def counts(values):
        return struct.pack("<I", len(values)) + b"".join(struct.pack("<Q", v) for v in values)

    def reduction(op, base, element, datatype=0, commutes=1, user_op=0):
        return struct.pack("<BIBQiB", op, user_op, base, element, datatype, commutes)

    data = bytes(range(64))
    write("rank_channel", "pingpong", msg(INIT) +
          msg(SEND, struct.pack("<iiiB", WORLD, 1, 7, 0) + blob(data), compute_ns=1500) +
          msg(IRECV, struct.pack("<iiiQ", WORLD, -1, -1, 4096)) +
          msg(COMPLETE, struct.pack("<BI", 0, 1) + struct.pack("<Q", 1)) + msg(FINALIZE))
    write("rank_channel", "collectives", msg(INIT) +
          msg(BCAST, struct.pack("<iiQ", WORLD, 0, len(data)) + blob(data)) +
          msg(ALLREDUCE, struct.pack("<i", WORLD) + reduction(SUM, DOUBLE, 8) + blob(data)) +
          msg(GATHERV, struct.pack("<ii", WORLD, 0) + blob(data[:16]) + counts([16, 16])) +
          msg(ALLTOALLV, struct.pack("<i", WORLD) + counts([8, 8]) + blob(data[:16]) +
              counts([8, 8])) +
          msg(REDUCE_SCATTER, struct.pack("<i", WORLD) + reduction(SUM, DOUBLE, 8) +
              counts([32, 32]) + blob(data)) + msg(FINALIZE))
    write("rank_channel", "comms_and_user_op", msg(INIT) +
          msg(COMM_SPLIT, struct.pack("<iii", WORLD, 0, 1)) +
          msg(CREATE_GROUP, struct.pack("<iI", WORLD, 2) + struct.pack("<ii", 0, 1)) +
          msg(ALLREDUCE, struct.pack("<i", WORLD) + reduction(USER_OP, 0, 8, 3, 0, 1) +
              blob(data[:8])) +
          msg(OP_RESULT, blob(data[:8])) +
          msg(ABORT, struct.pack("<i", 3) + blob(b"giving up")))


def scenario_dict():
    """libFuzzer dictionary: every parameter name and enum choice in the generated parameter
    table of docs/scenarios.md (ParamDocsTest keeps it equal to `nicsim params --markdown`),
    units and TOML punctuation, for the scenario and set_flag targets."""
    docs = (ROOT / "docs" / "scenarios.md").read_text()
    table = docs[docs.index("<!-- params:begin"):docs.index("<!-- params:end")]
    names, choices = [], set()
    for row in table.splitlines():
        # | `name` | type | `default` | range or choices | description |
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", row)]
        if len(cells) < 6 or not cells[1].startswith("`"):
            continue
        names.append(cells[1].strip("`"))
        if cells[2] == "enum":
            choices.update(c.strip() for c in cells[4].split("\\|"))
    tokens = names + sorted(choices) + [
        "ns", "us", "ms", "s", "ps", "B/s", "KB/s", "MB/s", "GB/s", "Gb/s", "B", "KiB", "MiB",
        "GiB", "KB", "MB", "GB", "=", " = ", "[", "]", "[[", "]]", "{", "}", ",", ".", "\"",
        "'", "#", "\n", "true", "false", "inf", "nan", "-", "+", "0x", "1e309", "path ", "link ",
        "/", ": ", "; ", "loss=", "duplicate=", "reorder=", "corrupt=", "reorder_delay=",
        "name", "description", "preset"]
    lines = ["# SPDX-License-Identifier: Apache-2.0",
             "# libFuzzer dictionary of the scenario and set_flag targets: parameter names, enum",
             "# choices, units and TOML punctuation. Written by tests/fuzz/make_seeds.py."]
    seen = set()
    for token in tokens:
        if token in seen:
            continue
        seen.add(token)
        escaped = token.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\x0A")
        lines.append(f'"{escaped}"')
    path = ROOT / "tests" / "fuzz" / "dict" / "scenario.dict"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    for make in (frame_codec, rdma_rx, ether_frame, scenario, set_flag, trace_diff, rank_channel,
                 scenario_dict):
        make()
