// vfs.js: an in-memory, read-only file system in the shape of Node's fs
// callbacks, which Go's js/wasm port calls for every file operation. It is
// installed as globalThis.fs before wasm_exec.js (which then keeps it), so
// the Go code opens models and uploaded folders with os.Open, as the
// command line does. Files are added with vfs.put(path, Uint8Array).
"use strict";
(() => {
  const files = new Map(); // absolute path -> Uint8Array
  const dirs = new Set(["/"]);
  const fds = new Map(); // fd -> {path, data|null (directory)}
  let nextFD = 100;
  const S_IFREG = 0o100000, S_IFDIR = 0o040000;

  function norm(p) {
    const parts = [];
    for (const s of String(p).split("/")) {
      if (s === "" || s === ".") continue;
      if (s === "..") parts.pop(); else parts.push(s);
    }
    return "/" + parts.join("/");
  }
  function err(code) {
    const e = new Error(code);
    e.code = code;
    return e;
  }
  function stat(p) {
    p = norm(p);
    const now = Date.now();
    const base = { dev: 1, ino: 0, nlink: 1, uid: 0, gid: 0, rdev: 0, blksize: 4096, atimeMs: now, mtimeMs: now, ctimeMs: now };
    if (files.has(p)) {
      const size = files.get(p).length;
      return Object.assign(base, { mode: S_IFREG | 0o444, size, blocks: Math.ceil(size / 512), isDirectory: () => false });
    }
    if (dirs.has(p)) {
      return Object.assign(base, { mode: S_IFDIR | 0o555, size: 0, blocks: 0, isDirectory: () => true });
    }
    return null;
  }
  const enosys = () => err("ENOSYS");
  let out = "";
  const dec = new TextDecoder("utf-8");

  const vfs = {
    constants: { O_WRONLY: 1, O_RDWR: 2, O_CREAT: 64, O_TRUNC: 512, O_APPEND: 1024, O_EXCL: 128, O_DIRECTORY: 65536 },
    put(path, data) {
      path = norm(path);
      files.set(path, data);
      let d = path;
      while (d !== "/") {
        d = d.slice(0, d.lastIndexOf("/")) || "/";
        dirs.add(d);
      }
    },
    has(path) { return files.has(norm(path)); },
    removeAll(prefix) {
      prefix = norm(prefix);
      for (const p of [...files.keys()]) if (p === prefix || p.startsWith(prefix + "/")) files.delete(p);
      for (const p of [...dirs]) if (p === prefix || p.startsWith(prefix + "/")) dirs.delete(p);
    },
    writeSync(fd, buf) {
      out += dec.decode(buf);
      const nl = out.lastIndexOf("\n");
      if (nl !== -1) { console.log(out.substring(0, nl)); out = out.substring(nl + 1); }
      return buf.length;
    },
    write(fd, buf, offset, length, position, cb) {
      if (fd === 1 || fd === 2) { cb(null, this.writeSync(fd, buf.subarray(offset, offset + length))); return; }
      cb(err("EBADF"));
    },
    open(path, flags, mode, cb) {
      if (flags & (1 | 2 | 64 | 512 | 1024)) { cb(err("EROFS")); return; }
      const p = norm(path);
      if (files.has(p)) { const fd = nextFD++; fds.set(fd, { path: p, data: files.get(p) }); cb(null, fd); return; }
      if (dirs.has(p)) { const fd = nextFD++; fds.set(fd, { path: p, data: null }); cb(null, fd); return; }
      cb(err("ENOENT"));
    },
    close(fd, cb) { fds.delete(fd); cb(null); },
    fstat(fd, cb) {
      const f = fds.get(fd);
      if (!f) { cb(err("EBADF")); return; }
      cb(null, stat(f.path));
    },
    stat(path, cb) { const s = stat(path); s ? cb(null, s) : cb(err("ENOENT")); },
    lstat(path, cb) { this.stat(path, cb); },
    read(fd, buffer, offset, length, position, cb) {
      const f = fds.get(fd);
      if (!f) { cb(err("EBADF")); return; }
      if (!f.data) { cb(err("EISDIR")); return; }
      let pos = position;
      if (pos === null || pos === undefined) pos = f.pos || 0;
      const n = Math.max(0, Math.min(length, f.data.length - pos));
      buffer.set(f.data.subarray(pos, pos + n), offset);
      if (position === null || position === undefined) f.pos = pos + n;
      cb(null, n);
    },
    readdir(path, cb) {
      const p = norm(path);
      if (!dirs.has(p)) { cb(err("ENOENT")); return; }
      const prefix = p === "/" ? "/" : p + "/";
      const names = new Set();
      for (const k of [...files.keys(), ...dirs]) {
        if (k !== p && k.startsWith(prefix)) names.add(k.slice(prefix.length).split("/")[0]);
      }
      cb(null, [...names].sort());
    },
    fsync(fd, cb) { cb(null); },
  };
  for (const name of ["chmod", "chown", "fchmod", "fchown", "ftruncate", "lchown", "link", "mkdir", "readlink", "rename", "rmdir", "symlink", "truncate", "unlink", "utimes"]) {
    vfs[name] = (...args) => args[args.length - 1](err("EROFS"));
  }
  globalThis.fs = vfs;
  globalThis.vfs = vfs;
})();
