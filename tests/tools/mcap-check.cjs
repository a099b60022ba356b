// Read an MCAP file written by `bagscope export --format mcap` with the
// independent TypeScript reader (@mcap/core) and check it against the
// messages expected (JSON lines, one per message: topic, time_ns, data in
// base64, and the connection's type, definition, md5sum, callerid and
// latching, null when absent). Checked: magic, header profile "ros1"; the
// summary (its CRC is verified when the reader opens the file), chunk CRCs
// (verified while reading), the data section CRC against our own CRC-32 of
// the file up to Data End; every channel "ros1" with a "ros1msg" schema named
// after the type holding the definition, callerid, md5sum and latching
// ("true"/"false") in its metadata; every message read back through the
// index (bytes, times) equal to the expected ones, sequences 0..n-1 per
// channel, statistics that agree, and a stream read of the whole file in
// time order. Prints the problems; exit status 1 if any.
// With COMPRESSION ("lz4" or "none"), every chunk must be compressed so.
//   node mcap-check.cjs FILE EXPECTED.jsonl [COMPRESSION]   (NODE_PATH: where @mcap/core and lz4js are)
//   node mcap-check.cjs --batch LIST
// checks each line of LIST (NAME, FILE, EXPECTED.jsonl, COMPRESSION or "",
// tab-separated) in this one process, printing 'ok    NAME' or 'FAIL  NAME'
// and the problems for each.
"use strict";
const fs = require("fs");
const { McapIndexedReader, McapStreamReader } = require("@mcap/core");
const { crc32 } = require("@foxglove/crc");
const lz4 = require("lz4js");

// the file being checked (set by check())
let file, compression, bytes, expected, problems;
const problem = (s) => problems.length < 20 && problems.push(s);
const decompressHandlers = { lz4: (buf, size) => new Uint8Array(lz4.decompress(buf, Number(size))) };
const b64 = (u8) => Buffer.from(u8.buffer, u8.byteOffset, u8.byteLength).toString("base64");
const text = (u8) => Buffer.from(u8.buffer, u8.byteOffset, u8.byteLength).toString("utf8");

async function main() {
  const magic = [0x89, 0x4d, 0x43, 0x41, 0x50, 0x30, 0x0d, 0x0a];
  if (!magic.every((b, i) => bytes[i] === b && bytes[bytes.length - 8 + i] === b)) problem("magic");
  const readable = {
    size: async () => BigInt(bytes.length),
    read: async (offset, size) => bytes.subarray(Number(offset), Number(offset + size)),
  };
  const reader = await McapIndexedReader.Initialize({ readable, decompressHandlers });
  if (reader.header.profile !== "ros1") problem(`profile '${reader.header.profile}'`);
  if (!reader.header.library.startsWith("bagscope ")) problem(`library '${reader.header.library}'`);
  if (reader.footer.summaryCrc === 0) problem("no summary CRC");
  for (const ch of reader.channelsById.values()) {
    const s = reader.schemasById.get(ch.schemaId);
    if (ch.messageEncoding !== "ros1") problem(`channel ${ch.topic}: encoding ${ch.messageEncoding}`);
    if (!s || s.encoding !== "ros1msg") problem(`channel ${ch.topic}: schema encoding ${s && s.encoding}`);
  }

  // every message through the index, in log time order
  const got = [];
  const seqs = new Map();
  let last = -1n;
  for await (const m of reader.readMessages()) {
    const ch = reader.channelsById.get(m.channelId);
    const s = reader.schemasById.get(ch.schemaId);
    if (m.logTime < last) problem("readMessages is not in time order");
    last = m.logTime;
    if (m.publishTime !== m.logTime) problem(`${ch.topic}: publish_time ${m.publishTime} != log_time ${m.logTime}`);
    if (!seqs.has(m.channelId)) seqs.set(m.channelId, []);
    seqs.get(m.channelId).push(m.sequence);
    const md = ch.metadata;
    got.push(JSON.stringify({
      topic: ch.topic, time_ns: m.logTime.toString(), data: b64(m.data), type: s.name, definition: text(s.data),
      md5sum: md.get("md5sum") ?? null, callerid: md.get("callerid") ?? null,
      latching: md.has("latching") ? (md.get("latching") === "true" ? "1" : md.get("latching") === "false" ? "0" : "?") : null,
    }));
  }
  const want = expected.map((e) => JSON.stringify({
    topic: e.topic, time_ns: e.time_ns, data: e.data, type: e.type, definition: e.definition,
    md5sum: e.md5sum, callerid: e.callerid, latching: e.latching,
  }));
  got.sort();
  want.sort();
  if (got.length !== want.length) problem(`${got.length} messages read, ${want.length} expected`);
  for (let i = 0, n = 0; i < Math.min(got.length, want.length) && n < 3; i++)
    if (got[i] !== want[i]) {
      problem(`message differs:\n  got  ${got[i].slice(0, 300)}\n  want ${want[i].slice(0, 300)}`);
      n++;
    }
  for (const [id, s] of seqs) {
    const sorted = [...s].sort((a, b) => a - b);
    if (!sorted.every((v, i) => v === i)) problem(`channel ${id}: sequences are not 0..${s.length - 1}`);
  }

  // statistics and chunk indexes
  const st = reader.statistics;
  if (!st) problem("no statistics");
  else {
    if (st.messageCount !== BigInt(got.length)) problem(`statistics: ${st.messageCount} messages`);
    if (st.chunkCount !== reader.chunkIndexes.length) problem(`statistics: ${st.chunkCount} chunks, ${reader.chunkIndexes.length} indexed`);
    if (st.channelCount !== reader.channelsById.size) problem(`statistics: ${st.channelCount} channels`);
    for (const [id, n] of st.channelMessageCounts)
      if (BigInt((seqs.get(id) || []).length) !== n) problem(`statistics: channel ${id} has ${n} messages`);
    if (got.length > 0) {
      const times = expected.map((e) => BigInt(e.time_ns));
      const min = times.reduce((a, b) => (b < a ? b : a)), max = times.reduce((a, b) => (b > a ? b : a));
      if (st.messageStartTime !== min || st.messageEndTime !== max) problem("statistics: start or end time");
    }
  }
  for (const ci of reader.chunkIndexes) {
    if (ci.messageIndexOffsets.size === 0) problem(`chunk at ${ci.chunkStartOffset} has no message index`);
    if (compression !== undefined && ci.compression !== (compression === "none" ? "" : compression))
      problem(`chunk at ${ci.chunkStartOffset} is '${ci.compression}', not ${compression}`);
  }

  // the data section CRC, and a stream read of the whole file
  if (reader.dataSectionCrc === undefined) problem("no data section CRC");
  else if (crc32(bytes.subarray(0, Number(reader.dataEndOffset))) !== reader.dataSectionCrc) problem("data section CRC");
  const stream = new McapStreamReader({ decompressHandlers });
  stream.append(bytes);
  let count = 0, prev = -1n, rec;
  while ((rec = stream.nextRecord())) {
    if (rec.type !== "Message") continue;
    count++;
    if (rec.logTime < prev) problem("the file's messages are not in time order");
    prev = rec.logTime;
  }
  if (!stream.done()) problem("stream reader did not reach the end");
  if (count !== got.length) problem(`stream read ${count} messages, index ${got.length}`);
}

// The problems of FILE against EXPECTED.jsonl (at most 20).
async function check(f, expectedPath, comp) {
  file = f;
  compression = comp || undefined;
  problems = [];
  try {
    bytes = new Uint8Array(fs.readFileSync(file));
    expected = fs.readFileSync(expectedPath, "utf8").split("\n").filter((l) => l).map((l) => JSON.parse(l));
    await main();
  } catch (e) {
    problem(e.message);
  }
  return problems;
}

async function batch(list) {
  let failed = 0;
  for (const line of fs.readFileSync(list, "utf8").split("\n").filter((l) => l)) {
    const [name, f, expectedPath, comp] = line.split("\t");
    const found = await check(f, expectedPath, comp);
    console.log(`${found.length ? "FAIL" : "ok  "}  ${name}`);
    for (const p of found) console.log(`      mcap-check: ${f}: ${p}`);
    failed += found.length > 0;
  }
  return failed;
}

(async () => {
  const args = process.argv.slice(2);
  if (args[0] === "--batch") {
    process.exit((await batch(args[1])) ? 1 : 0);
  }
  const found = await check(args[0], args[1], args[2]);
  for (const p of found) console.log(`mcap-check: ${file}: ${p}`);
  process.exit(found.length ? 1 : 0);
})();
