#!/bin/sh
# Screen test: damage is found early. A bag of 16 lz4 chunks whose last
# chunk's data is corrupted (64 bytes a third of the way in): the browser's
# first screen, at row 1, already says the chunk and the messages lost (as
# many as the bag's index data records give that chunk, counted here by
# parsing the file), the timeline marks it at the end of the span (on the
# events row and on both topics' strips), and G
# never says "ready" as if nothing were wrong.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null 2>&1 || { echo "python3 not found: skipped"; exit 77; }
"$tools/write-tool" big "$tmp/big.bag" 4000 3000 lz4 >/dev/null || exit 1
# corrupt the last chunk's data; print the messages its index data records count
lost=$(python3 -c '
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
pos, chunks, counts = b.index(b"\n") + 1, [], {}
while pos + 4 <= len(b):
    hl = struct.unpack_from("<I", b, pos)[0]
    h, fields, i = bytes(b[pos + 4:pos + 4 + hl]), {}, 0
    dl = struct.unpack_from("<I", b, pos + 4 + hl)[0]
    while i < len(h):
        fl = struct.unpack_from("<I", h, i)[0]
        k, _, v = h[i + 4:i + 4 + fl].partition(b"=")
        fields[k], i = v, i + 4 + fl
    if fields.get(b"op") == b"\x05":
        chunks.append((pos + 8 + hl, dl))
    if fields.get(b"op") == b"\x04" and chunks:
        counts[len(chunks)] = counts.get(len(chunks), 0) + struct.unpack("<I", fields[b"count"])[0]
    pos += 8 + hl + dl
data, n = chunks[-1]
assert len(chunks) > 8
for k in range(data + n // 3, data + n // 3 + 64):
    b[k] ^= 0x5A
open(sys.argv[2], "wb").write(b)
print(counts[len(chunks)])' "$tmp/big.bag" "$tmp/bad.bag") || exit 1
start 80 24 "$tmp/bad.bag"
wait_for "opens at row 1" "row 1/4000"
wait_for "the first screen says the chunk and the messages lost ($lost)" "row 1/4000  \\| 1 unreadable chunk, $lost messages lost \\(L: log\\)"
wait_for "the timeline marks the damage at the end of the span, and only there" "^ ▼mark ◆hit ✖bad +✖+$"
wait_for "and on the strips of the topics with messages in the chunk (/a)" "^.\\/a +[^ ✖]+✖+$"
wait_for "(/b)" "^.\\/b +[^ ✖]+✖+$"
keys G
wait_for "G: the last row" "row 4000/4000"
wait_for "its rows say the problem" "lz4 data is corrupt|cannot be decompressed"
check "the status line never says ready" sh -c "! $T capture-pane -p -t main | grep -q ' ready '"
wait_for "and still counts the chunk once" "1 unreadable chunk, $lost messages lost"
keys L
wait_for "the log counts it too" "unreadable so far: 1 chunks?, $lost messages"
keys L q
wait_for "quits" "BROWSER-EXITED 0"
finish
