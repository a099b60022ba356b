#!/bin/sh
# make check entry: `bagscope frames` over made/images.bag (written by the
# real rosbag writer, see make-images.py): every encoding's PNG read back with
# PIL (python3-pil) has the mode of its depth and the pattern's pixels (bgr
# reordered, bayer demosaiced to the colour sampled, yuv by BT.601, 16-bit
# exact in both byte orders, float stretched to 16 bits with NaN 0); a png
# CompressedImage is copied byte for byte and a jpeg decodes as PIL decodes
# it; --every and --start/--end pick frames; damaged frames get one warning
# line each and are skipped; a topic without images is refused (exit 2).
B=${BAGSCOPE:-src/bagscope}
BAG=$(dirname "$0")/../data/fixtures/made/images.bag
PY=$(cd "$(dirname "$0")/../tools" && pwd)/pyref.py   # /usr/bin/python3, with rosbag imported once
fail=0
"$PY" "$(dirname "$0")/../tools/has-modules.py" rosbag PIL 2>/dev/null || { echo "frames.sh: needs python3-rosbag and python3-pil"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for t in rgb8 bgr8 rgba8 bgra8 mono8 8UC1 8UC3 mono16 mono16_be 16UC1 16UC1_be 32FC1 32FC1_be \
	bayer_rggb bayer_bggr bayer_gbrg bayer_grbg yuv422 jpeg png; do
	"$B" frames --topic "/cam/$t" -o "$tmp/$t" "$BAG" > "$tmp/out" 2> "$tmp/err" ||
		{ echo "FAIL frames /cam/$t: exit $?"; cat "$tmp/err"; fail=1; }
	[ -s "$tmp/err" ] && { echo "FAIL frames /cam/$t: stderr"; cat "$tmp/err"; fail=1; }
done
"$PY" - "$tmp" "$BAG" <<'PYEOF' || fail=1
import io, os, sys, math, struct, rosbag
from PIL import Image
tmp, bagpath = sys.argv[1], sys.argv[2]
W, H = 16, 8
def pat(x, y, c): return (x * 40 + y * 71 + c * 19 + 3) & 255
bad = 0
def check(cond, what):
    global bad
    if not cond:
        print('FAIL', what); bad = 1
def frames(topic):
    d = os.path.join(tmp, topic)
    return [os.path.join(d, f) for f in sorted(os.listdir(d))]
msgs = {}
for topic, m, t in rosbag.Bag(bagpath).read_messages():
    msgs.setdefault(topic[5:] if topic.startswith('/cam/') else topic, []).append((m, t.to_nsec()))
for enc, mode, order in [('rgb8', 'RGB', (0, 1, 2)), ('bgr8', 'RGB', (2, 1, 0)), ('8UC3', 'RGB', (2, 1, 0)),
                         ('rgba8', 'RGBA', (0, 1, 2, 3)), ('bgra8', 'RGBA', (2, 1, 0, 3)),
                         ('mono8', 'L', (0,)), ('8UC1', 'L', (0,))]:
    files = frames(enc)
    check([os.path.basename(f) for f in files] == ['%d.png' % t for _, t in msgs[enc]], enc + ' file names')
    for k, f in enumerate(files):
        im = Image.open(f)
        check(im.mode == mode and im.size == (W, H), '%s mode %s %s' % (enc, im.mode, im.size))
        for y in range(H):
            for x in range(W):
                px = im.getpixel((x, y))
                px = px if isinstance(px, tuple) else (px,)
                want = tuple((pat(x, y, c) + k) & 255 for c in order)
                if px != want:
                    check(False, '%s frame %d pixel %d,%d: %s != %s' % (enc, k, x, y, px, want)); break
for t in ('mono16', 'mono16_be', '16UC1', '16UC1_be'):
    im = Image.open(frames(t)[0])
    check(im.mode in ('I;16', 'I;16B', 'I'), t + ' mode ' + im.mode)
    check(all(im.getpixel((x, y)) == 1000 + x * 3000 + y * 17 for y in range(H) for x in range(W)), t + ' samples')
for t in ('32FC1', '32FC1_be'):
    im = Image.open(frames(t)[0])
    check(im.mode in ('I;16', 'I;16B', 'I'), t + ' mode ' + im.mode)
    lo, hi = 0.5, 0.5 + (H * W - 1) * 0.25
    for y in range(H):
        for x in range(W):
            v = 0 if (x, y) == (3, 0) else round((0.5 + (y * W + x) * 0.25 - lo) / (hi - lo) * 65535)
            if im.getpixel((x, y)) != v:
                check(False, '%s %d,%d: %d != %d' % (t, x, y, im.getpixel((x, y)), v)); break
for p in ('rggb', 'bggr', 'gbrg', 'grbg'):
    im = Image.open(frames('bayer_' + p)[0])
    check(im.mode == 'RGB' and all(im.getpixel((x, y)) == (200, 100, 50) for y in range(H) for x in range(W)),
          'bayer_' + p)
im = Image.open(frames('yuv422')[0])
check(all(im.getpixel((x, y)) == ((200, 49, 100) if x % 2 == 0 else (228, 77, 128)) for y in range(H) for x in range(W)),
      'yuv422 %s' % (im.getpixel((0, 0)),))
png = open(frames('png')[0], 'rb').read()
check(png == bytes(msgs['png'][0][0].data), 'png copied as is')
got = Image.open(frames('jpeg')[0])
ref = Image.open(io.BytesIO(bytes(msgs['jpeg'][0][0].data))).convert('RGB')
check(got.mode == 'RGB' and max(abs(a - b) for p, q in zip(got.getdata(), ref.getdata()) for a, b in zip(p, q)) <= 2,
      'jpeg as PIL decodes it')
sys.exit(bad)
PYEOF

# --every and a window
"$B" frames --topic /cam/rgb8 --every 2 -o "$tmp/every" "$BAG" > "$tmp/out" || fail=1
[ "$(ls "$tmp/every" | tr '\n' ' ')" = "1500000001000000000.png 1500000003000000000.png " ] ||
	{ echo "FAIL --every 2: $(ls "$tmp/every")"; fail=1; }
grep -q '^2 frames written to ' "$tmp/out" || { echo "FAIL --every summary"; cat "$tmp/out"; fail=1; }
"$B" frames --topic /cam/rgb8 --start +1.5 --end 1500000002.5 -o "$tmp/win" "$BAG" > /dev/null || fail=1
[ "$(ls "$tmp/win")" = "1500000002000000000.png" ] || { echo "FAIL window: $(ls "$tmp/win")"; fail=1; }

# damaged frames: one warning each, skipped, exit 0
"$B" frames --topic /cam/bad -o "$tmp/bad" "$BAG" > "$tmp/out" 2> "$tmp/err" || { echo "FAIL bad: exit $?"; fail=1; }
[ "$(ls "$tmp/bad" | wc -l)" -eq 2 ] && [ "$(wc -l < "$tmp/err")" -eq 2 ] &&
	grep -q 'warning: /cam/bad at 1500000002.000000000: skipped: data holds 414 bytes, height 8 x step 53 needs 424' "$tmp/err" &&
	grep -q "warning: /cam/bad at 1500000003.000000000: skipped: unknown image encoding 'rgb9'" "$tmp/err" &&
	grep -q '^2 frames written to .*, 2 skipped$' "$tmp/out" || { echo "FAIL damaged"; cat "$tmp/err" "$tmp/out"; fail=1; }
"$B" frames --topic /cam/badjpeg -o "$tmp/badjpeg" "$BAG" > "$tmp/out" 2> "$tmp/err" || fail=1
[ "$(ls "$tmp/badjpeg" | wc -l)" -eq 2 ] && grep -q 'skipped: corrupt jpeg' "$tmp/err" ||
	{ echo "FAIL corrupt jpeg"; cat "$tmp/err"; fail=1; }

# refused
"$B" frames --topic /wave -o "$tmp/no" "$BAG" 2> "$tmp/err"; rc=$?
[ $rc -eq 2 ] && [ "$(cat "$tmp/err")" = "bagscope: frames: /wave carries no sensor_msgs/Image or CompressedImage" ] &&
	[ ! -e "$tmp/no" ] || { echo "FAIL not an image topic: $rc"; cat "$tmp/err"; fail=1; }
"$B" frames --topic /nope -o "$tmp/no" "$BAG" 2>/dev/null; [ $? -eq 2 ] || { echo "FAIL unknown topic"; fail=1; }
"$B" frames -o "$tmp/no" "$BAG" 2>/dev/null; [ $? -eq 2 ] || { echo "FAIL no --topic"; fail=1; }
"$B" frames --topic /cam/rgb8 --every 0 -o "$tmp/no" "$BAG" 2>/dev/null; [ $? -eq 2 ] || { echo "FAIL --every 0"; fail=1; }
[ $fail -eq 0 ] && echo "frames.sh: all passed"
exit $fail
