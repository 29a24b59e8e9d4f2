#!/bin/bash
# Install everything vneuron needs from Debian's archive, by package name, and unpack
# the pieces of Debian's kernel packages the tests use into build/. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
B=build

PKGS=(build-essential pkg-config linux-headers-amd64 linux-source-6.1 qemu-system-x86
      busybox-static cpio xz-utils kmod dkms sparse clang llvm libclang-rt-14-dev
      liburing-dev libnl-genl-3-dev libssl-dev libopenblas-dev protobuf-compiler chromium
      flex bison bc libelf-dev libncurses-dev tmux
      openmpi-bin libopenmpi-dev
      python3-dev python3-numpy python3-pytest
      debhelper dh-dkms dh-python lintian)

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "setup: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	log=$(mktemp)
	if ! { apt-get update -q && apt-get install -y -q --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
		cat "$log" >&2
		echo "setup: apt-get failed" >&2
		exit 1
	fi
	rm -f "$log"
fi

# The headers linux-headers-amd64 points at decide the guest kernel version.
hdr=$(ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V | tail -n 1)
[ -n "$hdr" ] || { echo "setup: no /usr/src/linux-headers-*-amd64 found" >&2; exit 1; }
kver=${hdr#/usr/src/linux-headers-}
mkdir -p "$B"
echo "$kver" > "$B/kver.new"
cmp -s "$B/kver.new" "$B/kver" 2>/dev/null || mv "$B/kver.new" "$B/kver"
rm -f "$B/kver.new"

# Guest kernel image and its modules, unpacked without installing.
g="$B/guest/$kver"
if [ ! -e "$g/.done" ]; then
	echo "setup: fetching linux-image-$kver-unsigned for the test guest"
	rm -rf "$g" && mkdir -p "$g/deb"
	if ! (cd "$g/deb" && apt-get download -q "linux-image-$kver-unsigned" >/dev/null 2>&1); then
		apt-get update -q >/dev/null 2>&1 || true
		(cd "$g/deb" && apt-get download -q "linux-image-$kver-unsigned" >/dev/null) || {
			echo "setup: cannot download linux-image-$kver-unsigned" >&2
			exit 1
		}
	fi
	dpkg -x "$g"/deb/*.deb "$g/root"
	rm -rf "$g/deb"
	touch "$g/.done"
fi

# kselftest harness, checkpatch and kernel-doc from Debian's linux-source package.
# .done holds the list extracted: a tree unpacked from a shorter list gets the rest.
k="$B/ksrc"
ksrc_files=('*/tools/testing/selftests/kselftest_harness.h'
	    '*/tools/testing/selftests/kselftest.h'
	    '*/scripts/checkpatch.pl' '*/scripts/spelling.txt'
	    '*/scripts/const_structs.checkpatch'
	    '*/scripts/kernel-doc')
want=$(printf '%s\n' "${ksrc_files[@]}")
if [ "$(cat "$k/.done" 2>/dev/null)" != "$want" ]; then
	echo "setup: unpacking kselftest, checkpatch and kernel-doc from linux-source-6.1"
	# Over the old tree, not after removing it: builds may be reading it meanwhile.
	mkdir -p "$k"
	rm -f "$k/.done"
	src=$(ls /usr/src/linux-source-6.1.tar.xz)
	xz -dc "$src" | tar -x -C "$k" --strip-components=1 --wildcards "${ksrc_files[@]}"
	printf '%s\n' "$want" > "$k/.done"
fi
# The debug guest kernel (KASAN, lockdep, kmemleak...), built once per machine and
# cached outside the clone: about 13 minutes on two cores the first time.
dk=$(tools/debug-kernel/build) || { echo "setup: the debug guest kernel did not build" >&2; exit 1; }
echo "setup: ok (guest kernel $kver; debug guest kernel in $dk)"
