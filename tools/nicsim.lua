-- SPDX-License-Identifier: Apache-2.0
-- Wireshark/tshark dissector for nicsim fabric frames: the abi/packet.h WireHeader (48 bytes,
-- little endian) and its payload, as written by `nicsim run --pcap FILE` (link type USER0, 147).
--
-- Usage:
--   nicsim run --pcap run.pcapng
--   tshark -r run.pcapng -X lua_script:tools/nicsim.lua
--   tshark -r run.pcapng -X lua_script:tools/nicsim.lua -T fields \
--       -e frame.time_relative -e nicsim.src_adapter -e nicsim.dest_adapter -e nicsim.len_bytes
--   wireshark -X lua_script:tools/nicsim.lua run.pcapng   (or copy into the personal plugins dir)
-- Display filters: nicsim.dest_adapter == 1, nicsim.type == 1, nicsim.truncated, ...

local kHeaderBytes = 48

local nicsim = Proto("nicsim", "nicsim fabric frame")

-- abi::PacketType; anything at or above kFirstUnknown is dropped by the receiver.
local packet_types = { [0] = "Invalid", [1] = "Fifo", [2] = "RdmaWrite", [3] = "RdmaReadRequest",
                       [4] = "RdmaCompletion" }

local f = nicsim.fields
f.dest_adapter = ProtoField.uint16("nicsim.dest_adapter", "Destination adapter", base.DEC)
f.dest_window = ProtoField.uint16("nicsim.dest_window", "Destination window", base.DEC)
f.src_adapter = ProtoField.uint16("nicsim.src_adapter", "Source adapter", base.DEC)
f.src_window = ProtoField.uint16("nicsim.src_window", "Source window", base.DEC)
f.len_bytes = ProtoField.uint16("nicsim.len_bytes", "Payload length (header)", base.DEC)
f.type = ProtoField.uint8("nicsim.type", "Type", base.DEC, packet_types)
f.flags = ProtoField.uint8("nicsim.flags", "Flags", base.HEX)
f.protection_key = ProtoField.uint32("nicsim.protection_key", "Protection key", base.HEX)
f.ulp_word = ProtoField.uint32("nicsim.ulp_word", "ULP word", base.DEC)
f.rcxt_id = ProtoField.uint32("nicsim.rcxt_id", "RDMA context id", base.DEC)
f.tid = ProtoField.uint32("nicsim.tid", "Transaction id", base.DEC)
f.msg_offset = ProtoField.uint32("nicsim.msg_offset", "Message offset", base.DEC)
f.pvo = ProtoField.uint64("nicsim.pvo", "Protocol virtual offset", base.HEX)
f.crc = ProtoField.uint32("nicsim.crc", "CRC-32", base.HEX)
f.aux = ProtoField.uint32("nicsim.aux", "Completion rCxt", base.HEX)
f.payload_len = ProtoField.uint32("nicsim.payload_len", "Payload length (captured)", base.DEC)
f.payload = ProtoField.bytes("nicsim.payload", "Payload")
f.truncated = ProtoField.bool("nicsim.truncated", "Shorter than the wire header")
f.crc_good = ProtoField.bool("nicsim.crc_good", "CRC-32 matches")

local ef_short = ProtoExpert.new("nicsim.short", "Frame shorter than the 48-byte wire header",
                                 expert.group.MALFORMED, expert.severity.ERROR)
local ef_len = ProtoExpert.new("nicsim.len_mismatch", "len_bytes does not match the payload",
                               expert.group.MALFORMED, expert.severity.WARN)
local ef_crc = ProtoExpert.new("nicsim.bad_crc", "CRC-32 mismatch (corrupted on the fabric)",
                               expert.group.CHECKSUM, expert.severity.ERROR)
local ef_type = ProtoExpert.new("nicsim.unknown_type", "Unknown packet type (dropped)",
                                expert.group.MALFORMED, expert.severity.WARN)
nicsim.experts = { ef_short, ef_len, ef_crc, ef_type }

-- CRC-32 as base/crc32.h computes it (IEEE 802.3, reflected, zlib's), over the header with
-- its crc field zeroed and then the payload. Needs a bit library: bit32 (Lua 5.2) or bit.
local bitlib = bit32 or bit
local crc_table = nil
if bitlib ~= nil then
  crc_table = {}
  for i = 0, 255 do
    local c = i
    for _ = 1, 8 do
      if bitlib.band(c, 1) ~= 0 then
        c = bitlib.bxor(0xEDB88320, bitlib.rshift(c, 1))
      else
        c = bitlib.rshift(c, 1)
      end
    end
    crc_table[i] = c
  end
end

local function frame_crc(tvb)
  local bytes = tvb:bytes()
  local crc = 0xFFFFFFFF
  for i = 0, bytes:len() - 1 do
    local b = (i >= 40 and i < 44) and 0 or bytes:get_index(i)
    crc = bitlib.bxor(crc_table[bitlib.band(bitlib.bxor(crc, b), 0xFF)], bitlib.rshift(crc, 8))
  end
  return bitlib.bnot(crc)
end

function nicsim.dissector(tvb, pinfo, tree)
  pinfo.cols.protocol = "nicsim"
  local n = tvb:len()
  local root = tree:add(nicsim, tvb(), "nicsim fabric frame")
  if n < kHeaderBytes then
    root:add(f.truncated, true):set_generated()
    root:add_proto_expert_info(ef_short)
    pinfo.cols.info = string.format("malformed: %d bytes", n)
    return n
  end
  -- Field offsets follow abi/packet.h WireHeader exactly (static_assert size 48).
  root:add_le(f.dest_adapter, tvb(0, 2))
  root:add_le(f.dest_window, tvb(2, 2))
  root:add_le(f.src_adapter, tvb(4, 2))
  root:add_le(f.src_window, tvb(6, 2))
  local len_item = root:add_le(f.len_bytes, tvb(8, 2))
  local type_item = root:add_le(f.type, tvb(10, 1))
  root:add_le(f.flags, tvb(11, 1))
  root:add_le(f.protection_key, tvb(12, 4))
  root:add_le(f.ulp_word, tvb(16, 4))
  root:add_le(f.rcxt_id, tvb(20, 4))
  root:add_le(f.tid, tvb(24, 4))
  root:add_le(f.msg_offset, tvb(28, 4))
  root:add_le(f.pvo, tvb(32, 8))
  local crc_item = root:add_le(f.crc, tvb(40, 4))
  if crc_table ~= nil then
    -- Compare through xor: the bit library's results may be signed or unsigned.
    local good = bitlib.bxor(frame_crc(tvb), tvb(40, 4):le_uint()) == 0
    crc_item:add(f.crc_good, good):set_generated()
    if not good then crc_item:add_proto_expert_info(ef_crc) end
  end
  root:add_le(f.aux, tvb(44, 4))
  local payload_len = n - kHeaderBytes
  root:add(f.payload_len, payload_len):set_generated()
  if payload_len > 0 then root:add(f.payload, tvb(kHeaderBytes)) end

  local len_bytes = tvb(8, 2):le_uint()
  local type = tvb(10, 1):uint()
  if len_bytes ~= payload_len then len_item:add_proto_expert_info(ef_len) end
  if packet_types[type] == nil or type == 0 then type_item:add_proto_expert_info(ef_type) end

  local src = string.format("%d:%d", tvb(4, 2):le_uint(), tvb(6, 2):le_uint())
  local dst = string.format("%d:%d", tvb(0, 2):le_uint(), tvb(2, 2):le_uint())
  pinfo.cols.src = src
  pinfo.cols.dst = dst
  pinfo.cols.info = string.format("%s %s -> %s len=%d ulp=%d", packet_types[type] or
                                  ("type " .. type), src, dst, len_bytes, tvb(16, 4):le_uint())
  root:append_text(string.format(", %s -> %s, %d payload bytes", src, dst, payload_len))
  return n
end

-- DLT 147 (LINKTYPE_USER0) maps to the wiretap encapsulation USER0. Wireshark 3.x/4.x name it
-- wtap_encaps.USER0; older releases only had wtap.USER0.
local encaps = wtap_encaps or wtap
DissectorTable.get("wtap_encap"):add(encaps.USER0, nicsim)
