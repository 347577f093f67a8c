#!/usr/bin/env python3
"""Write the kernel's BTF (its .BTF section) found inside a kernel image
that is not an ELF file, such as arm64's boot Image (Debian's
/boot/vmlinuz-*-arm64), for `bpftool btf dump file OUT.btf format c`.

Usage: btf-from-image.py IMAGE OUT.btf

IMAGE may be gzip-, xz- or zstd-compressed (by its magic) or plain. The
BTF is found by its header (<linux/btf.h>): magic 0xEB9F, version 1,
flags 0, hdr_len 24, the type section first (type_off 0) and the string
section right after it (str_off == type_len), the string section starting
with its empty string. The kernel links vmlinux's .BTF as one such blob;
the largest candidate that fits in the image is taken, and a second
candidate of more than 1 MiB is an error rather than a guess.
"""
import gzip, lzma, struct, subprocess, sys

BTF_MAGIC = 0xEB9F
HDR = struct.Struct("<HBBIIIII")


def decompress(data):
    if data[:2] == b"\x1f\x8b":
        return gzip.decompress(data)
    if data[:6] == b"\xfd7zXZ\x00":
        return lzma.decompress(data)
    if data[:4] == b"\x28\xb5\x2f\xfd":
        return subprocess.run(["zstd", "-dc"], input=data, stdout=subprocess.PIPE, check=True).stdout
    return data


def candidates(image):
    magic = struct.pack("<H", BTF_MAGIC) + b"\x01\x00"
    at = image.find(magic)
    while at >= 0:
        if at + HDR.size <= len(image):
            _, _, _, hdr_len, type_off, type_len, str_off, str_len = HDR.unpack_from(image, at)
            end = at + hdr_len + str_off + str_len
            if (hdr_len == HDR.size and type_off == 0 and str_off == type_len
                    and type_len > 0 and str_len > 0 and end <= len(image)
                    and image[at + hdr_len + str_off] == 0):
                yield at, end
        at = image.find(magic, at + 1)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[1], "rb") as f:
        image = decompress(f.read())
    found = sorted(candidates(image), key=lambda c: c[1] - c[0], reverse=True)
    if not found:
        sys.exit(f"btf-from-image.py: no BTF header in {sys.argv[1]}")
    big = [c for c in found if c[1] - c[0] > 1 << 20]
    if len(big) > 1:
        sys.exit(f"btf-from-image.py: {len(big)} BTF blobs of more than 1 MiB in {sys.argv[1]}: {big}")
    start, end = found[0]
    with open(sys.argv[2], "wb") as f:
        f.write(image[start:end])
    print(f"{sys.argv[2]}: {end - start} bytes of BTF at offset {start:#x} of {sys.argv[1]}")


if __name__ == "__main__":
    main()
