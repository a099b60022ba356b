// mcap-write.cjs - MCAP files written by npm's @mcap/core (McapWriter) with
// messages serialized by @foxglove/rosmsg-serialization (ros1 profile) or
// @foxglove/rosmsg2-serialization (ros2 profile, CDR), to test bagscope's
// reader against writers we did not write.
//
//   node mcap-write.cjs OUT.mcap [--profile ros1|ros2] [--compression none|lz4|zstd]
//        [--no-chunks] [--no-summary] [--no-message-index] [--no-chunk-index]
//        [--big-endian] [--messages N] [--chunk-size BYTES] [--start NS]
//        [--schema-encoding ENC] > WANT.jsonl
//     writes OUT.mcap and prints, one line per message in log-time order
//     (equal times: channel id, then write order), the values it was given
//     in the shape of `bagscope cat --format json` (int64 as strings).
//   node mcap-write.cjs OUT.jsonl --records [options as above] > WANT.jsonl
//     writes, instead of an MCAP file, the same messages as records for
//     another container's writer (tests/tools/db3-write.py): a line per
//     topic {topic, type, definition}, then one per message in write order
//     {topic, time_ns, data (base64 of the serialized bytes)}.
//   node mcap-write.cjs --read FILE.mcap > GOT.jsonl
//     reads FILE.mcap with @mcap/core's indexed reader and decodes its
//     /sample and /counter messages with the @foxglove deserializers, printing
//     them as the writer prints what it was given (checks bagscope's writer).
//   node mcap-write.cjs --compare WANT.jsonl GOT.jsonl
//     compares bagscope's output with them: exit 1 and one line per problem.
//   node mcap-write.cjs --batch LIST
//     writes many files in one process (a node start costs more than a small
//     file): each line of LIST is `WANT.jsonl OUT.mcap [options]` (no
//     --big-endian: it patches the CDR writer for the whole process).
//   node mcap-write.cjs --compare-batch LIST
//     each line of LIST is `NAME WANT.jsonl GOT.jsonl`: prints `ok NAME`, or
//     `FAIL NAME` and a line per problem; exit 1 when one fails.
//
// lz4 chunks are compressed by lz4js, zstd chunks by Debian's zstd program.
// @foxglove/cdr 3.5 sizes strings by their UTF-16 length; its string writer
// is replaced by one that sizes them in UTF-8 (checked on ASCII first).
"use strict";
const fs = require("fs");
const { execFileSync } = require("child_process");
const assert = require("assert");

const SEP = "================================================================================\n";
const ROS2_SAMPLE =
  "std_msgs/Header header\nbool ok\nbyte by\nchar ch\nint8 i8\nuint8 u8\nint16 i16\nuint16 u16\n" +
  "int32 i32\nuint32 u32\nint64 i64\nuint64 u64\nfloat32 f32\nfloat64 f64\nstring name\n" +
  "string<=8 tag\nuint8[] data\nfloat64[3] vec\nint32[<=4] few\ngeometry_msgs/Point[] points\n" +
  "string[] words\nint32 LIMIT=5\n" +
  SEP + "MSG: std_msgs/Header\nbuiltin_interfaces/Time stamp\nstring frame_id\n" +
  SEP + "MSG: builtin_interfaces/Time\nint32 sec\nuint32 nanosec\n" +
  SEP + "MSG: geometry_msgs/Point\nfloat64 x\nfloat64 y\nfloat64 z\n";
const ROS1_SAMPLE =
  "Header header\nbool ok\nbyte by\nchar ch\nint8 i8\nuint8 u8\nint16 i16\nuint16 u16\n" +
  "int32 i32\nuint32 u32\nint64 i64\nuint64 u64\nfloat32 f32\nfloat64 f64\nstring name\n" +
  "time t\nduration d\nuint8[] data\nfloat64[3] vec\ngeometry_msgs/Point[] points\nstring[] words\n" +
  "int32 LIMIT=5\n" +
  SEP + "MSG: std_msgs/Header\nuint32 seq\ntime stamp\nstring frame_id\n" +
  SEP + "MSG: geometry_msgs/Point\nfloat64 x\nfloat64 y\nfloat64 z\n";

function args(v) {
  const a = { profile: "ros2", compression: "none", chunks: true, summary: true, messageIndex: true,
              chunkIndex: true, bigEndian: false, messages: 40, chunkSize: 2048, start: 1700000000000000000n };
  a.out = v.shift();
  while (v.length) {
    const o = v.shift();
    if (o === "--profile") a.profile = v.shift();
    else if (o === "--compression") a.compression = v.shift();
    else if (o === "--no-chunks") a.chunks = false;
    else if (o === "--no-summary") a.summary = false;
    else if (o === "--no-message-index") a.messageIndex = false;
    else if (o === "--no-chunk-index") a.chunkIndex = false;
    else if (o === "--big-endian") a.bigEndian = true;
    else if (o === "--messages") a.messages = Number(v.shift());
    else if (o === "--chunk-size") a.chunkSize = Number(v.shift());
    else if (o === "--start") a.start = BigInt(v.shift());
    else if (o === "--records") a.records = [];
    else if (o === "--schema-encoding") a.schemaEncoding = v.shift();
    else throw new Error(`unknown option ${o}`);
  }
  return a;
}

let patched = false;
function patchCdr(bigEndian) {
  if (patched) return;
  patched = true;
  const mod = require("@foxglove/cdr/dist/CdrWriter");
  const { EncapsulationKind } = require("@foxglove/cdr");
  const Orig = mod.CdrWriter;
  const enc = new TextEncoder();
  const before = new Orig().string("ab").data;
  Orig.prototype.string = function (value, writeLength = true) {
    const bytes = enc.encode(value);
    if (writeLength) this.uint32(bytes.length + 1);
    this.resizeIfNeeded(bytes.length + 1);
    new Uint8Array(this.buffer, this.offset, bytes.length).set(bytes);
    this.view.setUint8(this.offset + bytes.length, 0);
    this.offset += bytes.length + 1;
    return this;
  };
  assert.deepStrictEqual(new Orig().string("ab").data, before);
  if (bigEndian)
    mod.CdrWriter = class extends Orig {
      constructor(o = {}) { super({ ...o, kind: EncapsulationKind.CDR_BE }); }
    };
}

// Message i's values (ros2 or ros1 shape) and their JSON as bagscope prints them.
function sample(i, ros2, t) {
  const sec = Number(t / 1000000000n), nsec = Number(t % 1000000000n);
  const words = ["", "héllo ☃", "a\"b\\c", "x".repeat(i % 7)].slice(0, i % 5);
  const m = {
    header: ros2 ? { stamp: { sec, nanosec: nsec }, frame_id: `frame${i}` }
                 : { seq: i, stamp: { sec, nsec }, frame_id: `frame${i}` },
    ok: i % 2 === 0, by: ros2 ? (i * 37) % 256 : ((i * 37) % 256) - 128, ch: (i * 11) % 256,
    i8: -(i % 128), u8: (i * 3) % 256, i16: -1000 * (i % 30), u16: 65535 - i, i32: -2147483648 + i,
    u32: 4294967295 - i, i64: -9223372036854775808n + BigInt(i), u64: 18446744073709551615n - BigInt(i),
    f32: i === 3 ? NaN : i / 4, f64: i === 5 ? -Infinity : i * 1.5e-3, name: `name ${i} ✓`,
    data: Uint8Array.from({ length: i % 9 }, (_, k) => (k * 31 + i) % 256), vec: [i, -i, 0.5],
    points: Array.from({ length: i % 3 }, (_, k) => ({ x: k, y: -k * 0.25, z: i })), words,
  };
  if (ros2) {
    m.tag = `t${i % 100}`;
    m.few = [i, i + 1].slice(0, i % 3);
  } else {
    m.t = { sec: sec + 1, nsec: 7 };
    m.d = { sec: -(i % 4), nsec: 999 };
  }
  return m;
}

const num = (x) => (Number.isNaN(x) ? "nan" : x === Infinity ? "inf" : x === -Infinity ? "-inf" : x);

// What `bagscope cat --format json` prints for m: fields in definition order.
function expect(m, ros2) {
  const h = ros2 ? { stamp: { sec: m.header.stamp.sec, nanosec: m.header.stamp.nanosec }, frame_id: m.header.frame_id }
                 : { seq: m.header.seq, stamp: { secs: m.header.stamp.sec, nsecs: m.header.stamp.nsec }, frame_id: m.header.frame_id };
  const o = { header: h, ok: m.ok, by: m.by, ch: m.ch, i8: m.i8, u8: m.u8, i16: m.i16, u16: m.u16, i32: m.i32,
              u32: m.u32, i64: String(m.i64), u64: String(m.u64), f32: num(m.f32), f64: num(m.f64), name: m.name };
  if (ros2) o.tag = m.tag;
  else Object.assign(o, { t: { secs: m.t.sec, nsecs: m.t.nsec }, d: { secs: m.d.sec, nsecs: m.d.nsec } });
  Object.assign(o, { data: Array.from(m.data), vec: m.vec });
  if (ros2) o.few = m.few;
  Object.assign(o, { points: m.points, words: m.words });
  return o;
}

function compressor(kind) {
  if (kind === "none") return undefined;
  if (kind === "lz4") {
    const lz4 = require("lz4js");
    return (d) => ({ compression: "lz4", compressedData: lz4.compress(d) });
  }
  return (d) => ({ compression: "zstd", compressedData: new Uint8Array(execFileSync("zstd", ["-q", "-c", "-3"], { input: d })) });
}

async function write(a) {
  const { McapWriter } = require("@mcap/core");
  const ros2 = a.profile === "ros2";
  patchCdr(a.bigEndian);
  const chunks = [];
  let size = 0;
  const writable = { position: () => BigInt(size), write: async (b) => { chunks.push(Buffer.from(b)); size += b.byteLength; } };
  const w = new McapWriter({
    writable, useChunks: a.chunks, useStatistics: a.summary, useSummaryOffsets: a.summary,
    repeatSchemas: a.summary, repeatChannels: a.summary, useAttachmentIndex: a.summary, useMetadataIndex: a.summary,
    useMessageIndex: a.messageIndex, useChunkIndex: a.summary && a.chunkIndex, chunkSize: a.chunkSize,
    compressChunk: compressor(a.compression),
  });
  await w.start({ profile: a.profile, library: "mcap-write.cjs (@mcap/core)" });
  const text = ros2 ? ROS2_SAMPLE : ROS1_SAMPLE;
  const type = ros2 ? "test_msgs/msg/Sample" : "test_msgs/Sample";
  const { parse } = require("@foxglove/rosmsg");
  const defs = parse(text, { ros2 });
  const writer = ros2 ? new (require("@foxglove/rosmsg2-serialization").MessageWriter)(defs)
                      : new (require("@foxglove/rosmsg-serialization").MessageWriter)(defs);
  const counterDefs = parse("int32 data\n", { ros2 });
  const counterWriter = ros2 ? new (require("@foxglove/rosmsg2-serialization").MessageWriter)(counterDefs)
                             : new (require("@foxglove/rosmsg-serialization").MessageWriter)(counterDefs);
  const enc = ros2 ? { schema: "ros2msg", msg: "cdr" } : { schema: "ros1msg", msg: "ros1" };
  if (a.schemaEncoding) enc.schema = a.schemaEncoding;
  const s1 = await w.registerSchema({ name: type, encoding: enc.schema, data: Buffer.from(text) });
  const s2 = await w.registerSchema({ name: ros2 ? "std_msgs/msg/Int32" : "std_msgs/Int32", encoding: enc.schema,
                                      data: Buffer.from("int32 data\n") });
  const meta = ros2 ? new Map() : new Map([["callerid", "/writer"]]);
  const c1 = await w.registerChannel({ topic: "/sample", schemaId: s1, messageEncoding: enc.msg, metadata: meta });
  const c2 = await w.registerChannel({ topic: "/counter", schemaId: s2, messageEncoding: enc.msg, metadata: meta });
  const want = [];
  const t0 = a.start;
  if (a.records) {
    a.records.push({ topic: "/sample", type, definition: text });
    a.records.push({ topic: "/counter", type: ros2 ? "std_msgs/msg/Int32" : "std_msgs/Int32", definition: "int32 data\n" });
    const add = w.addMessage.bind(w);
    w.addMessage = (m) => {
      a.records.push({ topic: m.channelId === c1 ? "/sample" : "/counter", time_ns: String(m.logTime),
                       data: Buffer.from(m.data).toString("base64") });
      return add(m);
    };
  }
  for (let i = 0; i < a.messages; i++) {
    // some times repeat and go backwards, across channels
    const t = t0 + BigInt(Math.floor(i / 2)) * 10000000n - (i % 7 === 3 ? 5000000n : 0n);
    const m = sample(i, ros2, t);
    await w.addMessage({ channelId: c1, sequence: i, logTime: t, publishTime: t, data: writer.writeMessage(m) });
    want.push({ topic: "/sample", type, time_ns: t, chan: c1, seq: want.length, msg: expect(m, ros2) });
    if (i % 3 === 0) {
      await w.addMessage({ channelId: c2, sequence: i, logTime: t, publishTime: t, data: counterWriter.writeMessage({ data: -i }) });
      want.push({ topic: "/counter", type: ros2 ? "std_msgs/msg/Int32" : "std_msgs/Int32", time_ns: t, chan: c2,
                  seq: want.length, msg: { data: -i } });
    }
  }
  await w.addAttachment({ name: "calib.yaml", logTime: t0, createTime: t0, mediaType: "application/yaml", data: Buffer.from("k: 1\n") });
  await w.addMetadata({ name: "run", metadata: new Map([["site", "lab"]]) });
  await w.end();
  fs.writeFileSync(a.out, a.records ? a.records.map((r) => JSON.stringify(r) + "\n").join("") : Buffer.concat(chunks));
  want.sort((x, y) => (x.time_ns < y.time_ns ? -1 : x.time_ns > y.time_ns ? 1 : x.chan - y.chan || x.seq - y.seq));
  return want.map((m) => JSON.stringify({ topic: m.topic, type: m.type, time_ns: String(m.time_ns), msg: m.msg }) + "\n").join("");
}

// bagscope's JSON with integers of 16 digits or more kept as strings
function parseExact(line) {
  return JSON.parse(line.replace(/([:[,])(-?\d{16,})(?=[,\]}])/g, '$1"$2"'));
}

function same(a, b) {
  if (typeof a === "number" && typeof b === "number")
    return a === b || Math.abs(a - b) <= 1e-6 * Math.max(Math.abs(a), Math.abs(b));
  if (typeof a !== typeof b) return typeof a === "number" && String(a) === b;
  if (a === null || typeof a !== "object") return a === b;
  const ka = Object.keys(a), kb = Object.keys(b);
  return ka.join() === kb.join() && ka.every((k) => same(a[k], b[k]));
}

function problems(wantFile, gotFile) {
  const want = fs.readFileSync(wantFile, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
  const got = fs.readFileSync(gotFile, "utf8").split("\n").filter(Boolean).map(parseExact);
  const bad = [];
  if (want.length !== got.length) bad.push(`${got.length} messages, want ${want.length}`);
  for (let i = 0; i < Math.min(want.length, got.length) && bad.length < 5; i++) {
    const g = { ...got[i], time_ns: String(got[i].time_ns) };
    if (!same(want[i], g)) bad.push(`message ${i}: got ${JSON.stringify(g)}\n  want ${JSON.stringify(want[i])}`);
  }
  return bad;
}

function compare(wantFile, gotFile) {
  const bad = problems(wantFile, gotFile);
  for (const b of bad) console.log(b);
  process.exit(bad.length ? 1 : 0);
}

const lines = (file) => fs.readFileSync(file, "utf8").split("\n").filter(Boolean).map((l) => l.split(/\s+/));

async function batch(list) {
  for (const [want, ...v] of lines(list)) {
    const a = args(v);
    if (a.bigEndian) throw new Error("--big-endian cannot be batched");
    fs.writeFileSync(want, await write(a));
  }
}

function compareBatch(list) {
  let failed = 0;
  for (const [name, want, got] of lines(list)) {
    let bad;
    try { bad = problems(want, got); } catch (e) { bad = [String(e)]; }
    console.log(`${bad.length ? "FAIL" : "ok"} ${name}`);
    for (const b of bad) console.log(`  ${b}`);
    failed += bad.length > 0;
  }
  process.exit(failed ? 1 : 0);
}

// The shape expect() gives, from decoded values (typed arrays as arrays, ROS 1 times as {sec, nsec}).
function plain(v, ros2) {
  if (typeof v === "bigint") return String(v);
  if (typeof v === "number") return num(v);
  if (ArrayBuffer.isView(v)) return Array.from(v, (x) => (typeof x === "bigint" ? String(x) : x));
  if (Array.isArray(v)) return v.map((x) => plain(x, ros2));
  if (v !== null && typeof v === "object") {
    if (!ros2 && "sec" in v && "nsec" in v && Object.keys(v).length === 2) return { secs: v.sec, nsecs: v.nsec };
    const o = {};
    for (const k of Object.keys(v)) o[k] = plain(v[k], ros2);
    return o;
  }
  return v;
}

async function read(file) {
  const { McapIndexedReader } = require("@mcap/core");
  const { parse } = require("@foxglove/rosmsg");
  const lz4 = require("lz4js");
  const buf = fs.readFileSync(file);
  const readable = { size: async () => BigInt(buf.length),
                     read: async (o, n) => buf.subarray(Number(o), Number(o + n)) };
  const reader = await McapIndexedReader.Initialize({ readable, decompressHandlers: {
    lz4: (d, n) => lz4.decompress(d, Number(n)),
    zstd: (d) => new Uint8Array(execFileSync("zstd", ["-q", "-d", "-c"], { input: d })),
  } });
  const ros2 = reader.header.profile === "ros2";
  const decoders = new Map();
  for (const [id, ch] of reader.channelsById) {
    const s = reader.schemasById.get(ch.schemaId);
    const defs = parse(new TextDecoder().decode(s.data), { ros2 });
    const R = ros2 ? require("@foxglove/rosmsg2-serialization").MessageReader
                   : require("@foxglove/rosmsg-serialization").MessageReader;
    decoders.set(id, { topic: ch.topic, type: s.name, reader: new R(defs) });
  }
  for await (const m of reader.readMessages()) {
    const d = decoders.get(m.channelId);
    const msg = plain(d.reader.readMessage(m.data), ros2);
    process.stdout.write(JSON.stringify({ topic: d.topic, type: d.type, time_ns: String(m.logTime), msg }) + "\n");
  }
}

if (process.argv[2] === "--compare") compare(process.argv[3], process.argv[4]);
else if (process.argv[2] === "--read") read(process.argv[3]).catch((e) => { console.error(e); process.exit(1); });
else if (process.argv[2] === "--compare-batch") compareBatch(process.argv[3]);
else if (process.argv[2] === "--batch") batch(process.argv[3]).catch((e) => { console.error(e); process.exit(1); });
else write(args(process.argv.slice(2))).then((t) => process.stdout.write(t)).catch((e) => { console.error(e); process.exit(1); });
