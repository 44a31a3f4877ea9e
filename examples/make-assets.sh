#!/usr/bin/env bash
# Generates the examples' media into examples/assets/ (git-ignored) with ffmpeg's test
# sources, so that no file of anyone else's is needed: a 5 s 1280x720 test clip with a tone,
# a 6 s music track, three 1280x720 photos and a 256x256 logo with transparency.
# ffmpeg comes with `make run` (scripts/install-deps.sh). Files already there are kept.
set -euo pipefail
dir="$(cd "$(dirname "$0")" && pwd)/assets"
mkdir -p "$dir"
command -v ffmpeg >/dev/null 2>&1 || { echo "make-assets: ffmpeg is missing (apt-get install ffmpeg; make run installs it)" >&2; exit 1; }
gen() { # file ffmpeg-arguments...
	local out="$dir/$1"
	shift
	[ -s "$out" ] && return 0
	ffmpeg -nostdin -v error -y "$@" "$out.tmp.${out##*.}"
	mv "$out.tmp.${out##*.}" "$out"
}
# clip.mp4: testsrc2 (moving patterns and a frame counter) with a 440 Hz tone, H.264 + AAC
gen clip.mp4 -f lavfi -i "testsrc2=s=1280x720:r=30:d=5" -f lavfi -i "sine=f=440:d=5" \
	-c:v libx264 -preset veryfast -crf 28 -pix_fmt yuv420p -c:a aac -b:a 64k -shortest -movflags +faststart
# music.m4a: a 6 s arpeggio (C, E, G, C, one note each 0.5 s) fading out, AAC
gen music.m4a -f lavfi \
	-i "aevalsrc=0.25*sin(2*PI*t*261.63*pow(2\,floor(mod(t*2\,4))*4/12-eq(floor(mod(t*2\,4))\,3)/3)):s=44100:d=6" \
	-af "afade=t=out:st=4:d=2" -c:a aac -b:a 96k
# photos: three stills, JPEG
gen photo1.jpg -f lavfi -i "gradients=s=1280x720:c0=0x203060:c1=0xd07030:x0=0:y0=0:x1=1279:y1=719:nb_colors=2:seed=1" -frames:v 1 -q:v 4
gen photo2.jpg -f lavfi -i "mandelbrot=s=1280x720:rate=1" -frames:v 1 -q:v 4
gen photo3.jpg -f lavfi -i "smptehdbars=s=1280x720" -frames:v 1 -q:v 4
# logo.png: an orange disc with a white ring on a transparent square, RGBA
gen logo.png -f lavfi -i "color=c=black:s=256x256,format=rgba" -frames:v 1 \
	-vf "geq=r='if(lt(hypot(X-128\,Y-128)\,96)\,240\,255)':g='if(lt(hypot(X-128\,Y-128)\,96)\,120\,255)':b='if(lt(hypot(X-128\,Y-128)\,96)\,32\,255)':a='if(lt(hypot(X-128\,Y-128)\,120)\,255\,0)'"
ls -l "$dir"
