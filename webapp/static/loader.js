// loader.js: what the page fetches once for all its workers, so that no
// byte is downloaded twice and a reload downloads nothing that did not
// change:
//   - the app (app.wasm.gz, the smallest download on any host, decompressed
//     here, or app.wasm), compiled once; every worker instantiates the same
//     WebAssembly.Module;
//   - the demo collection (demo.zip: keep), fetched with the app;
//   - the files of the model the page opens on (preload: those the site's
//     models/index.json lists), fetched as soon as the index is read,
//     while the app downloads and compiles;
//   - the files the workers ask for (worker.js's drevalFetch: a model's
//     weights, tokenizer and settings, onnxruntime-web's binary, the demo's
//     precomputed vectors): fetched once, their size and progress shown,
//     hashed once (SHA-256), copied to each worker and transferred to the
//     last;
//   - the files one worker builds for the others (drevalDerive: an ONNX
//     graph exported from a model's weights): the first worker to ask
//     builds it, the others wait for it.
// Everything is kept in Cache Storage: a file is revalidated with the
// server (If-None-Match or If-Modified-Since: a 304 costs no download) and
// read from the cache when unchanged or when the network is down; a built
// file is keyed by what it was built from and by the app's build.
"use strict";

const loader = (() => {
  const CACHE = "dreval-v1";
  const MB = 1024 * 1024;
  let cachePromise = null;
  let modulePromise = null;
  let appTag = ""; // identifies the app's build (its ETag or date and size)
  const files = new Map(); // absolute URL -> {promise, left}
  const built = new Map(); // key -> {state, data, waiters, left}
  // What was loaded, for the status line: bytes downloaded and read from
  // the cache.
  const totals = { downloaded: 0, cached: 0 };
  let onStatus = () => {};

  function cache() {
    if (!cachePromise) {
      cachePromise = (typeof caches !== "undefined" && self.isSecureContext)
        ? caches.open(CACHE).catch(() => null) : Promise.resolve(null);
    }
    return cachePromise;
  }

  const abs = (url) => new URL(url, location.href).href;
  const mb = (n) => (n / MB).toFixed(1) + " MB";

  // read reads a response's body, reporting progress against size (the
  // expected bytes: the index's, else the Content-Length of an unencoded
  // response).
  async function read(resp, size, label) {
    const encoded = resp.headers.get("Content-Encoding");
    const length = Number(resp.headers.get("Content-Length")) || 0;
    const total = size || (encoded ? 0 : length);
    if (!resp.body || !resp.body.getReader) return resp.arrayBuffer();
    if (total > 0) {
      // The browser writes the body straight into one buffer of the
      // expected size (a "byob" reader: no chunk copied on this thread),
      // where the body is a byte stream.
      let reader = null;
      try {
        reader = resp.body.getReader({ mode: "byob" });
      } catch (e) {
        reader = null; // not a byte stream: the chunks below
      }
      if (reader) return readInto(reader, total, label);
    }
    // The chunks go straight into one buffer of the expected size (grown
    // if the body is longer): no second copy of a model's weights.
    const reader = resp.body.getReader();
    let out = new Uint8Array(total || 1 << 16);
    let got = 0, last = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (got + value.length > out.length) {
        const grown = new Uint8Array(Math.max(2 * out.length, got + value.length));
        grown.set(out.subarray(0, got));
        out = grown;
      }
      out.set(value, got);
      got += value.length;
      const now = performance.now();
      if (now - last > 100) {
        last = now;
        onStatus({ label, done: got, total });
      }
    }
    onStatus({ label, done: got, total, finished: true });
    return got === out.length ? out.buffer : out.buffer.slice(0, got);
  }

  // readInto reads a body with a byob reader into a buffer of total
  // bytes, grown if the body is longer, reporting progress as read does.
  async function readInto(reader, total, label) {
    // One byte to spare: a body of the expected length ends with the
    // buffer not full, and is handed on without a copy (transfer).
    let buf = new ArrayBuffer(total + 1);
    let got = 0, last = 0;
    for (;;) {
      if (got === buf.byteLength) {
        // Full: the body is longer than expected.
        const grown = new ArrayBuffer(2 * buf.byteLength);
        new Uint8Array(grown).set(new Uint8Array(buf));
        buf = grown;
      }
      const { done, value } = await reader.read(new Uint8Array(buf, got, buf.byteLength - got));
      if (value) buf = value.buffer; // the read took the buffer over and gives it back
      if (done) break;
      got += value.byteLength;
      const now = performance.now();
      if (now - last > 100) {
        last = now;
        onStatus({ label, done: got, total });
      }
    }
    onStatus({ label, done: got, total, finished: true });
    return buf.transfer ? buf.transfer(got) : buf.slice(0, got);
  }

  // sha256 returns the hex SHA-256 of data by the browser's crypto.subtle
  // (native code, off the page's thread), or "" where there is none
  // (crypto.subtle is only in secure contexts) or it fails.
  async function sha256(data) {
    if (!self.crypto || !crypto.subtle) return "";
    try {
      const d = new Uint8Array(await crypto.subtle.digest("SHA-256", data));
      return Array.from(d, (b) => b.toString(16).padStart(2, "0")).join("");
    } catch (e) {
      return "";
    }
  }

  // fetchCached returns url's body: from Cache Storage when the server
  // says it did not change (or cannot be reached), else downloaded and
  // stored. It answers {data, response headers, from: "cache" or
  // "network"}.
  async function fetchCached(url, size, label) {
    const c = await cache();
    const hit = c ? await c.match(url).catch(() => undefined) : undefined;
    const headers = {};
    if (hit) {
      const etag = hit.headers.get("ETag"), date = hit.headers.get("Last-Modified");
      if (etag) headers["If-None-Match"] = etag;
      else if (date) headers["If-Modified-Since"] = date;
    }
    let resp;
    try {
      resp = await fetch(url, { headers, cache: "no-store" });
    } catch (e) {
      if (hit) return { data: await hit.arrayBuffer(), headers: hit.headers, from: "cache" };
      throw new Error(url + " could not be fetched: " + (e && e.message || e));
    }
    if (resp.status === 304 && hit) {
      const data = await hit.arrayBuffer();
      totals.cached += data.byteLength;
      onStatus({ label, done: data.byteLength, total: data.byteLength, finished: true, cached: true });
      return { data, headers: hit.headers, from: "cache" };
    }
    if (!resp.ok) throw new Error(url + ": " + resp.status + " " + resp.statusText);
    const keep = {};
    for (const h of ["ETag", "Last-Modified", "Content-Type"]) {
      const v = resp.headers.get(h);
      if (v) keep[h] = v;
    }
    if (c && (keep.ETag || keep["Last-Modified"]) && resp.body) {
      // The body streams into the cache as it downloads (a copy of the
      // response, not of the bytes read below: a model's 30 MB copied
      // on the page's thread held up the workers' asks). A full disk or
      // quota only costs the next load a download.
      c.put(url, new Response(resp.clone().body, { headers: keep })).catch(() => {});
    }
    const data = await read(resp, size, label);
    totals.downloaded += data.byteLength;
    return { data, headers: resp.headers, from: "network" };
  }

  // module returns the app compiled, once per page.
  function module() {
    if (!modulePromise) {
      modulePromise = (async () => {
        let got;
        try {
          got = await fetchCached(abs("app.wasm.gz"), 0, "the app");
        } catch (e) {
          got = null;
        }
        let bytes;
        if (got) {
          const head = new Uint8Array(got.data, 0, 4);
          // A host that sends the .gz with Content-Encoding: gzip has had
          // the browser decompress it already.
          bytes = head[0] === 0x1f && head[1] === 0x8b
            ? await new Response(new Blob([got.data]).stream().pipeThrough(new DecompressionStream("gzip"))).arrayBuffer()
            : got.data;
        } else {
          try {
            got = await fetchCached(abs("app.wasm"), 0, "the app");
          } catch (e) {
            throw new Error("cannot load the app: app.wasm.gz and app.wasm are missing (" + e.message + "); run \"make wasm\"");
          }
          bytes = got.data;
        }
        appTag = got.headers.get("ETag") || ((got.headers.get("Last-Modified") || "") + ":" + got.data.byteLength);
        return WebAssembly.compile(bytes);
      })();
    }
    return modulePromise;
  }

  // entry starts fetching key's body for the workers: its promise gives
  // {data}, and sum() the body's SHA-256, hashed here once for every
  // worker that asks for it (the workers get exact copies of these bytes:
  // the digest is theirs), and only then: a served model.onnx (87 MB),
  // which no one checks, took 0.17 s to hash before its workers had it.
  function entry(key, size, label, left) {
    const e = { promise: fetchCached(key, size, label).then((r) => ({ data: r.data })), left, answered: Promise.resolve() };
    let summed = null;
    e.sum = () => summed || (summed = e.promise.then((a) => sha256(a.data)));
    files.set(key, e);
    e.promise.catch(() => files.delete(key));
    return e;
  }

  // file returns url's body for one of poolSize workers as {data, sha256,
  // last} (sha256 "" unless withSum is set): fetched once, dropped from
  // memory once every worker has it (later asks read Cache Storage). last
  // is set for the last worker to ask: its copy may be transferred rather
  // than cloned, since the page keeps nothing of it, and so it is settled
  // after every earlier ask's answer (whose digest, if asked for, may
  // settle later than the body).
  //
  // Not every worker asks for every file (the static model is opened by
  // the first worker alone, a model the server encodes too): a file the
  // other workers have not asked for within DROP_MS of the last ask is
  // dropped all the same.
  const DROP_MS = 30000;
  function file(url, size, label, poolSize, withSum) {
    const key = abs(url);
    asked.add(key);
    const e = files.get(key) || entry(key, size, label || url, poolSize);
    if (e.left === undefined) e.left = poolSize; // preloaded
    const last = --e.left <= 0;
    clearTimeout(e.drop);
    if (last) files.delete(key);
    else if (Number.isFinite(e.left)) e.drop = setTimeout(() => { if (files.get(key) === e) files.delete(key); }, DROP_MS); // keep's stay
    const answer = Promise.all([e.promise, withSum ? e.sum() : "", last ? e.answered : null])
      .then(([a, sum]) => ({ data: a.data, sha256: sum, last }));
    e.answered = Promise.all([e.answered, answer.catch(() => {})]);
    return answer;
  }

  // preload fetches the files the site's model index lists in "preload"
  // (Go decides which: modelfiles.Index.SetPreload, the model the page
  // opens on and its demo vectors) as soon as the index is read, while
  // the app downloads and compiles, so the workers' asks (file) find them
  // downloaded or on the way, each fetched once and dropped once every
  // worker has it. With the float32 static model (31 MB) this waited for
  // the app's compilation, which the download had delayed by 0.5-0.9 s on
  // a loaded 2-core machine; its 15 MB in float16 are sooner in the
  // workers when fetched at once (docs/page.md, the opening lesson).
  const asked = new Set(); // URLs file was asked for
  function preload(indexURL) {
    // The index itself is one of the files the workers ask for (Go reads
    // it to know which models the site serves): fetched once, here.
    const key = abs(indexURL);
    asked.add(key);
    const e = files.get(key) || entry(key, 0, "the model index", undefined);
    const listed = e.promise.then((a) => JSON.parse(new TextDecoder().decode(a.data)));
    listed.then((x) => {
      for (const f of (x && x.preload) || []) {
        const key = abs(f.url);
        if (asked.has(key) || files.has(key)) continue;
        asked.add(key);
        entry(key, f.size, f.label || f.url, undefined);
      }
    }).catch(() => {}); // no index: the workers fetch what they need
  }

  // early returns the {data} of url when the page fetches it
  // unasked (preload's index, keep's files), else null; null too when
  // the fetch fails (the workers then ask, and get the error).
  function early(url) {
    const e = files.get(abs(url));
    return e ? e.promise.then((a) => a, () => null) : Promise.resolve(null);
  }

  // keep starts fetching url now and keeps its body for every worker of
  // every pool (file's asks for it never drop it): the demo collection,
  // which the app fetches instead of embedding it, downloads with the app.
  function keep(url, label) {
    const key = abs(url);
    if (!files.has(key)) entry(key, 0, label, Infinity);
  }

  // derive answers a worker asking for the built file key: {data} when
  // it is built (or in Cache Storage), {build: true} when this worker is
  // to build it (then it calls put).
  async function derive(key, label, poolSize) {
    let e = built.get(key);
    if (!e) {
      e = { state: "checking", data: null, waiters: [], left: poolSize };
      built.set(key, e);
      const c = await cache();
      const hit = c && appTag ? await c.match(derivedURL(key)).catch(() => undefined) : undefined;
      if (hit) {
        e.data = await hit.arrayBuffer();
        e.state = "done";
        totals.cached += e.data.byteLength;
        onStatus({ label, done: e.data.byteLength, total: e.data.byteLength, finished: true, cached: true });
        for (const w of e.waiters) w({ data: e.data });
        e.waiters = [];
      } else {
        e.state = "building";
        onStatus({ label, building: true });
        return { build: true };
      }
    }
    if (e.state === "done") return hand(key, e);
    return new Promise((resolve) => e.waiters.push(resolve)).then((a) => a.build ? a : hand(key, e));
  }

  function hand(key, e) {
    const data = e.data;
    if (--e.left <= 0) built.delete(key);
    return { data };
  }

  function derivedURL(key) {
    return abs("dreval-built/" + encodeURIComponent(key) + "?app=" + encodeURIComponent(appTag));
  }

  // put stores what a worker built for key (data: an ArrayBuffer), or
  // that it failed (each waiting worker then builds it itself).
  function put(key, data, error) {
    const e = built.get(key);
    if (!e) return;
    if (!data) {
      built.delete(key);
      for (const w of e.waiters) w({ build: true });
      return;
    }
    e.data = data;
    e.state = "done";
    e.left--; // the builder has it
    for (const w of e.waiters) w({ data });
    e.waiters = [];
    if (e.left <= 0) built.delete(key);
    cache().then((c) => {
      if (c && appTag) c.put(derivedURL(key), new Response(data)).catch(() => {});
    });
  }

  // ortIndex returns the site's onnxruntime-web (ort/index.json: its
  // version and files), or {why} when it serves none.
  let ortPromise = null;
  function ortIndex() {
    if (!ortPromise) {
      ortPromise = fetch("ort/index.json", { cache: "no-cache" }).then(async (r) => {
        if (!r.ok) return { why: "this site does not serve onnxruntime-web (ort/index.json: " + r.status + " " + r.statusText + ")" };
        const x = await r.json();
        const files = {};
        for (const f of x.files || []) files[f.path] = f.size;
        return { version: x.version || "", files };
      }).catch((e) => ({ why: "this site does not serve onnxruntime-web (" + (e && e.message || e) + ")" }));
    }
    return ortPromise;
  }

  return {
    module, file, keep, preload, early, derive, put, ortIndex, totals, mb,
    set onStatus(f) { onStatus = f; },
  };
})();
