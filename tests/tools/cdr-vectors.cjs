// cdr-vectors.cjs - CDR test vectors written by npm's
// @foxglove/rosmsg2-serialization (MessageWriter over @foxglove/cdr), for
// tests/unit/test-cdr.c. Prints a C header: for each case the ros2msg
// definition, the message bytes (little- and big-endian) and the values the
// writer was given as a token stream in definition order:
//   {  }  message begin/end     [N  ]  array of N begin/end
//   T F bool    decimal integers    fXXXXXXXX float32 bits    dXXXXXXXXXXXXXXXX float64 bits
//   sHEX string bytes (UTF-8)
// Each case's bytes are read back with @foxglove's MessageReader and must
// give the values again. Two fixes to @foxglove/cdr 3.5's writer, both
// checked: strings are sized by their UTF-8 length (3.5 sizes them by UTF-16
// length, cutting non-ASCII strings short), and for the big-endian cases the
// writer is constructed with kind CDR_BE.
//   NODE_PATH=... node tests/tools/cdr-vectors.cjs > tests/unit/cdr-vectors.h
"use strict";
const { parse } = require("@foxglove/rosmsg");
const { MessageWriter, MessageReader } = require("@foxglove/rosmsg2-serialization");
const cdrWriterModule = require("@foxglove/cdr/dist/CdrWriter");
const { EncapsulationKind } = require("@foxglove/cdr");
const assert = require("assert");

const OrigWriter = cdrWriterModule.CdrWriter;
const enc = new TextEncoder();
const asciiBefore = new OrigWriter().string("ab").data;
OrigWriter.prototype.string = function (value, writeLength = true) {
  const bytes = enc.encode(value);
  if (writeLength) this.uint32(bytes.length + 1);
  this.resizeIfNeeded(bytes.length + 1);
  new Uint8Array(this.buffer, this.offset, bytes.length).set(bytes);
  this.view.setUint8(this.offset + bytes.length, 0);
  this.offset += bytes.length + 1;
  return this;
};
assert.deepStrictEqual(new OrigWriter().string("ab").data, asciiBefore);
let bigEndian = false;
cdrWriterModule.CdrWriter = class extends OrigWriter {
  constructor(o = {}) { super({ ...o, kind: bigEndian ? EncapsulationKind.CDR_BE : EncapsulationKind.CDR_LE }); }
};

const SEP = "================================================================================\n";
const cases = [];

cases.push({
  name: "primitives",
  type: "test_msgs/msg/Primitives",
  text:
    "# every primitive, with a constant and defaults\n" +
    "int32 LIMIT=5\nstring GREETING=hi there\n" +
    "bool b\nbyte by\nchar ch\nint8 i8\nuint8 u8\nint16 i16\nuint16 u16\nint32 i32\nuint32 u32\n" +
    "int64 i64\nuint64 u64\nfloat32 f32\nfloat64 f64\nstring s\nstring<=10 bs\nint16 d 7\nstring ds \"x y\"\n" +
    "bool b2\nfloat64 f64b\n",
  msgs: [
    { b: true, by: 255, ch: 200, i8: -128, u8: 255, i16: -32768, u16: 65535, i32: -2147483648, u32: 4294967295,
      i64: -9223372036854775808n, u64: 18446744073709551615n, f32: 1.5, f64: -0.1, s: "héllo ☃ 𝄞", bs: "", d: 7,
      ds: "x y", b2: false, f64b: Infinity },
    { b: false, by: 0, ch: 65, i8: 127, u8: 0, i16: 32767, u16: 0, i32: 2147483647, u32: 0,
      i64: 9223372036854775807n, u64: 0n, f32: NaN, f64: NaN, s: "", bs: "ten chars!", d: -1,
      ds: "", b2: true, f64b: -Infinity },
  ],
});

cases.push({
  name: "arrays",
  type: "test_msgs/msg/Arrays",
  text:
    "uint8 pre\nuint8[3] u8f\nint16[] i16v\nfloat64[<=4] f64b\nstring[2] sf\nstring<=5[] sv\nbool[] bv\n" +
    "uint64[] u64v\nbyte[] byv\nchar[2] chf\nint8[] i8v\nuint16[2] u16f\nint32[<=3] i32b\nuint32[] u32v\n" +
    "int64[2] i64f\nfloat32[] f32v\nuint8 post\n",
  msgs: [
    { pre: 1, u8f: [1, 2, 3], i16v: [-1, 2, -3], f64b: [0.5, -2.25], sf: ["a", "bcd"], sv: ["", "xy", "é"],
      bv: [true, false, true], u64v: [1n, 18446744073709551615n], byv: [0, 128, 255], chf: [97, 98],
      i8v: [-1], u16f: [1, 65535], i32b: [], u32v: [7], i64f: [-5n, 5n], f32v: [0.25, -1e10], post: 9 },
    { pre: 0, u8f: [0, 0, 0], i16v: [], f64b: [], sf: ["", ""], sv: [], bv: [], u64v: [], byv: [], chf: [0, 0],
      i8v: [], u16f: [0, 0], i32b: [1, 2, 3], u32v: [], i64f: [0n, 0n], f32v: [], post: 255 },
  ],
});

cases.push({
  name: "nested",
  type: "test_msgs/msg/Nested",
  text:
    "uint8 a\nbuiltin_interfaces/Time stamp\nTagged p\ngeometry_msgs/msg/Point[] pts\nEmpty e\n" +
    "Empty[2] es\ngeometry_msgs/Point[2] pf\nint8 tail\nstd_msgs/Header header\n" +
    SEP + "MSG: builtin_interfaces/Time\nint32 sec\nuint32 nanosec\n" +
    SEP + "MSG: test_msgs/Tagged\nuint8 tag\nfloat64 x\n" +
    SEP + "MSG: geometry_msgs/Point\nfloat64 x\nfloat64 y\nfloat64 z\n" +
    SEP + "MSG: test_msgs/Empty\n# nothing\nint32 ONLY_A_CONSTANT=1\n" +
    SEP + "MSG: std_msgs/Header\nbuiltin_interfaces/Time stamp\nstring frame_id\n",
  msgs: [
    { a: 3, stamp: { sec: -1, nanosec: 999999999 }, p: { tag: 1, x: 2.5 },
      pts: [{ x: 1, y: 2, z: 3 }, { x: -1, y: -2, z: -3 }], e: {}, es: [{}, {}],
      pf: [{ x: 0, y: 0, z: 1 }, { x: 1e300, y: 0, z: 0 }], tail: -7,
      header: { stamp: { sec: 1700000000, nanosec: 5 }, frame_id: "base_link" } },
  ],
});

function tokens(defs, defName, value, out) {
  const def = defs.get(defName);
  out.push("{");
  for (const f of def.definitions) {
    if (f.isConstant) continue;
    const one = (v) => {
      if (f.isComplex) return tokens(defs, f.type, v, out);
      out.push(leaf(f.type, v));
    };
    if (f.isArray) {
      const arr = Array.from(value[f.name]);
      out.push("[" + arr.length);
      arr.forEach(one);
      out.push("]");
    } else {
      one(value[f.name]);
    }
  }
  out.push("}");
}

function leaf(type, v) {
  const dv = new DataView(new ArrayBuffer(8));
  switch (type) {
    case "bool": return v ? "T" : "F";
    // @foxglove/rosmsg makes builtin_interfaces/Time and Duration primitives; to us they are messages
    case "time": case "duration": return `{ ${v.sec} ${v.nanosec} }`;
    case "float32": dv.setFloat32(0, v); return "f" + dv.getUint32(0).toString(16).padStart(8, "0");
    case "float64": dv.setFloat64(0, v); return "d" + dv.getBigUint64(0).toString(16).padStart(16, "0");
    case "string": return "s" + Buffer.from(enc.encode(v)).toString("hex");
    default: return String(v);
  }
}

const cStr = (s) => JSON.stringify(s).replace(/\?/g, "\\?");
const lines = ["/* Written by tests/tools/cdr-vectors.cjs with @foxglove/rosmsg2-serialization; do not edit. */", ""];
const table = [];
let n = 0;
for (const c of cases) {
  // @foxglove/rosmsg resolves pkg/Name only; the C side reads the text as given
  const defs = parse(c.text.replace(/\/msg\//g, "/"), { ros2: true });
  const named = new Map(defs.map((d, i) => [i === 0 ? c.type : d.name, d]));
  const writer = new MessageWriter(defs);
  const reader = new MessageReader(defs);
  c.msgs.forEach((m, mi) => {
    const out = [];
    tokens(named, c.type, m, out);
    const want = out.join(" ");
    for (const be of [false, true]) {
      bigEndian = be;
      const bytes = writer.writeMessage(m);
      assert.strictEqual(bytes[1], be ? 0 : 1);
      const back = [];
      tokens(named, c.type, reader.readMessage(bytes), back);
      assert.strictEqual(back.join(" "), want, `${c.name}[${mi}] ${be ? "BE" : "LE"} does not read back`);
      lines.push(`static const uint8_t cdr_bytes_${n}[] = {${Array.from(bytes).join(",")}};`);
      table.push(`\t{ ${cStr(c.name + "[" + mi + "] " + (be ? "BE" : "LE"))}, ${cStr(c.type)}, ${cStr(c.text)},\n` +
                 `\t  cdr_bytes_${n}, sizeof cdr_bytes_${n}, ${cStr(want)} },`);
      n++;
    }
  });
}
lines.push("", "static const struct cdr_vector {", "\tconst char *name, *type, *text;",
           "\tconst uint8_t *bytes;", "\tsize_t len;", "\tconst char *want;", "} cdr_vectors[] = {", ...table, "};");
console.log(lines.join("\n"));
