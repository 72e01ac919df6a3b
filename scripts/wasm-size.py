#!/usr/bin/env python3
"""wasm-size.py lists the bytes of a Go js/wasm binary's code section by
package, from the binary's name section, to see what the browser app's size
is made of. Build the app without stripping the names first:

    GOOS=js GOARCH=wasm go build -trimpath -tags nodemo $(scripts/wasm-gcflags.sh) -o /tmp/app.wasm ./wasm
    python3 scripts/wasm-size.py /tmp/app.wasm [N]

It prints the N (default 40) largest packages, uncompressed code bytes; the
data section (type data, strings, embedded files) is one total on stderr.
"""
import collections
import sys


def leb(b, i):
    r = s = 0
    while True:
        x = b[i]
        i += 1
        r |= (x & 0x7F) << s
        s += 7
        if x < 0x80:
            return r, i


def main():
    b = open(sys.argv[1], "rb").read()
    if b[:4] != b"\0asm":
        sys.exit(sys.argv[1] + ": not a WebAssembly binary")
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 40
    i, secs = 8, []
    while i < len(b):
        sid = b[i]
        n, i = leb(b, i + 1)
        secs.append((sid, i, n))
        i += n
    imports, names = 0, {}
    for sid, off, n in secs:
        if sid == 0:
            nl, j = leb(b, off)
            if b[j:j + nl] != b"name":
                continue
            j += nl
            while j < off + n:
                kind = b[j]
                size, j = leb(b, j + 1)
                if kind == 1:
                    cnt, q = leb(b, j)
                    for _ in range(cnt):
                        idx, q = leb(b, q)
                        ln, q = leb(b, q)
                        names[idx] = b[q:q + ln].decode("utf8", "replace")
                        q += ln
                j += size
        elif sid == 2:
            cnt, j = leb(b, off)
            for _ in range(cnt):
                for _ in range(2):
                    ln, j = leb(b, j)
                    j += ln
                if b[j] != 0:
                    sys.exit("an import other than a function")
                _, j = leb(b, j + 1)
                imports += 1
        elif sid == 11:
            print(f"data section: {n} bytes", file=sys.stderr)
    if not names:
        sys.exit(sys.argv[1] + ": no name section (built with -ldflags=-s?)")
    sizes = collections.Counter()
    for sid, off, n in secs:
        if sid != 10:
            continue
        cnt, j = leb(b, off)
        for f in range(cnt):
            size, body = leb(b, j)
            name = names.get(f + imports, "?")
            # Go names functions package.func with the path's dots and
            # slashes as underscores (github.com_owner_repo_pkg.Func).
            parts = name.split(".")
            pkg = parts[0] + "." + parts[1] if parts[0] == "github" and len(parts) > 2 else parts[0]
            sizes[pkg] += size + (body - j)
            j = body + size
    for pkg, size in sizes.most_common(top):
        print(f"{size:9d} {pkg}")


if __name__ == "__main__":
    main()
