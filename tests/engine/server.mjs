// A small llama.cpp-style HTTP server around node-llama-cpp, for numaplan's tests.
//
//   node server.mjs --model FILE --listen HOST:PORT [--threads N] [--ctx N] [--mlock]
//   node server.mjs --model FILE --host HOST --port PORT ...
//
// --host and --port are llama.cpp's llama-server's own options, so that a unit written for
// llama-server (the README's worked example) runs this server as it is.
//
// --mlock locks the model's mapping in memory (node-llama-cpp's useMlock, llama.cpp's --mlock).
//
// GET /health      200 {"status":"ok"} once the model is loaded, 503 before
// POST /completion {"prompt": "...", "n_predict": N} -> {"content": "...", "tokens_predicted": N}
//
// PORT 0 picks a free port; the ready line on stderr tells which.
//
//   node server.mjs --check
//
// only loads llama.cpp's CPU binary, says which, and exits (install.sh's smoke test).

import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import { parseArgs } from "node:util";
import { getLlama, LlamaCompletion } from "node-llama-cpp";

const MAX_BODY = 1 << 20;
const USAGE =
    "usage: node server.mjs --model FILE [--listen HOST:PORT | --host HOST --port PORT] [--threads N] [--ctx N] [--mlock] | --check";

function log(msg) {
    process.stderr.write(`engine: ${msg}\n`);
}

function die(msg) {
    log(`error: ${msg} (${USAGE})`);
    process.exit(2);
}

function options() {
    let values;
    try {
        ({ values } = parseArgs({
            options: {
                model: { type: "string" },
                listen: { type: "string" },
                host: { type: "string" },
                port: { type: "string" },
                threads: { type: "string" },
                ctx: { type: "string", default: "256" },
                mlock: { type: "boolean", default: false },
                check: { type: "boolean", default: false },
                help: { type: "boolean", default: false },
            },
        }));
    } catch (e) {
        die(e.message);
    }
    if (values.help) {
        process.stdout.write(`${USAGE}\n`);
        process.exit(0);
    }
    if (values.check) return { check: true, threads: os.availableParallelism() };
    if (!values.model) die("--model FILE is required");
    if (values.listen !== undefined && (values.host !== undefined || values.port !== undefined))
        die("--listen, or --host and --port, not both");
    const listen = values.listen ?? `${values.host ?? "127.0.0.1"}:${values.port ?? "8080"}`;
    const m = /^(.*):(\d+)$/.exec(listen);
    if (!m) die(`--listen wants HOST:PORT, got '${listen}'`);
    const int = (name, s, min, max = 1 << 20) => {
        const n = Number(s);
        if (!/^\d+$/.test(s) || n < min || n > max) die(`--${name} wants an integer from ${min} to ${max}, got '${s}'`);
        return n;
    };
    return {
        model: values.model,
        host: m[1].replace(/^\[(.*)\]$/, "$1"),
        port: int("listen port", m[2], 0, 65535),
        // availableParallelism honours the CPU affinity mask, i.e. the cores numaplan granted.
        threads: values.threads === undefined ? os.availableParallelism() : int("threads", values.threads, 1),
        ctx: int("ctx", values.ctx, 16),
        mlock: values.mlock,
    };
}

function checkModel(file) {
    try {
        fs.closeSync(fs.openSync(file, "r"));
        if (!fs.statSync(file).isFile()) throw new Error("not a regular file");
    } catch (e) {
        log(`error: cannot open model ${file}: ${e.message}`);
        process.exit(1);
    }
}

// Which CPU variant of ggml llama.cpp picked for this processor (e.g. haswell), as mapped.
function cpuVariant() {
    try {
        return /libggml-cpu-([\w-]+)\.so/.exec(fs.readFileSync("/proc/self/maps", "utf8"))?.[1] ?? "unknown";
    } catch {
        return "unknown";
    }
}

class HttpError extends Error {
    constructor(code, message) {
        super(message);
        this.code = code;
    }
}

function send(res, code, body) {
    const data = JSON.stringify(body) + "\n";
    res.writeHead(code, {
        "Content-Type": "application/json",
        "Content-Length": Buffer.byteLength(data),
        Connection: "close",
    });
    res.end(data);
}

function readJson(req) {
    return new Promise((resolve, reject) => {
        const chunks = [];
        let size = 0;
        req.on("data", (c) => {
            size += c.length;
            if (size > MAX_BODY) {
                reject(new HttpError(413, "request body too large"));
                req.destroy();
            } else {
                chunks.push(c);
            }
        });
        req.on("end", () => {
            try {
                resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")));
            } catch {
                reject(new HttpError(400, "body is not valid JSON"));
            }
        });
        req.on("error", reject);
    });
}

const opt = options();

// CPU only, prebuilt binaries only: the test machines cannot fetch or build llama.cpp.
function loadLlama() {
    return getLlama({
        gpu: false,
        build: "never",
        skipDownload: true,
        progressLogs: false,
        maxThreads: opt.threads,
        logger: (level, message) => log(`llama.cpp ${level}: ${message.trimEnd()}`),
    });
}

if (opt.check) {
    const llama = await loadLlama();
    log(`check: llama.cpp ${llama.buildType} binary loaded, gpu=${llama.gpu}, cpu=${cpuVariant()}`);
    await llama.dispose();
    process.exit(0);
}

const engine = { llama: null, model: null, sequence: null, ready: false };
// One context sequence serves one completion at a time; later requests queue here.
let queue = Promise.resolve();

async function complete(body) {
    if (typeof body !== "object" || body === null || typeof body.prompt !== "string")
        throw new HttpError(400, "'prompt' must be a string");
    const nPredict = body.n_predict ?? 16;
    if (!Number.isInteger(nPredict) || nPredict < 1 || nPredict >= opt.ctx)
        throw new HttpError(400, `'n_predict' must be an integer from 1 to ${opt.ctx - 1}`);
    const nPrompt = engine.model.tokenize(body.prompt).length + 1; // + BOS
    if (nPrompt + nPredict > opt.ctx)
        throw new HttpError(400, `prompt (${nPrompt} tokens) plus n_predict exceeds the context of ${opt.ctx}`);

    const run = async () => {
        await engine.sequence.clearHistory();
        const completion = new LlamaCompletion({ contextSequence: engine.sequence });
        let predicted = 0;
        const t0 = performance.now();
        try {
            const content = await completion.generateCompletion(body.prompt, {
                maxTokens: nPredict,
                onToken: (tokens) => { predicted += tokens.length; },
            });
            return {
                content,
                tokens_predicted: predicted,
                tokens_evaluated: nPrompt,
                stop: true,
                timings: { total_ms: Math.round(performance.now() - t0) },
            };
        } finally {
            completion.dispose({ disposeSequence: false });
        }
    };
    const result = queue.then(run);
    queue = result.catch(() => {});
    return result;
}

async function handle(req, res) {
    const path = new URL(req.url, "http://localhost").pathname;
    if (path === "/health") {
        if (req.method !== "GET" && req.method !== "HEAD") throw new HttpError(405, "use GET");
        if (!engine.ready) return send(res, 503, { status: "loading" });
        return send(res, 200, { status: "ok" });
    }
    if (path === "/completion") {
        if (req.method !== "POST") throw new HttpError(405, "use POST");
        const body = await readJson(req);
        if (!engine.ready) throw new HttpError(503, "model is loading");
        return send(res, 200, await complete(body));
    }
    throw new HttpError(404, `no route ${path}`);
}

const server = http.createServer((req, res) => {
    handle(req, res).catch((e) => {
        const code = e instanceof HttpError ? e.code : 500;
        if (code === 500) log(`request failed: ${e.stack ?? e}`);
        if (!res.headersSent) send(res, code, { error: { code, message: e.message } });
        else res.destroy();
    });
});

async function shutdown(signal) {
    log(`${signal}: stopping`);
    server.close();
    server.closeAllConnections();
    // Generation in flight must not block the exit for long.
    const timer = setTimeout(() => process.exit(0), 2000);
    timer.unref();
    try {
        await engine.llama?.dispose();
    } catch (e) {
        log(`dispose failed: ${e.message}`);
    }
    process.exit(0);
}
process.on("SIGTERM", () => shutdown("SIGTERM"));
process.on("SIGINT", () => shutdown("SIGINT"));

checkModel(opt.model);
server.on("error", (e) => {
    log(`error: cannot listen on ${opt.host}:${opt.port}: ${e.message}`);
    process.exit(1);
});
await new Promise((resolve) => server.listen(opt.port, opt.host, resolve));
const addr = server.address();
const listen = `${addr.family === "IPv6" ? `[${addr.address}]` : addr.address}:${addr.port}`;
log(`loading model=${opt.model} listen=${listen} pid=${process.pid}`);

try {
    const t0 = performance.now();
    engine.llama = await loadLlama();
    // mmap maps the file's page cache into the process, which numaplan verifies.
    engine.model = await engine.llama.loadModel({ modelPath: opt.model, gpuLayers: 0, useMmap: true, useMlock: opt.mlock });
    const context = await engine.model.createContext({ contextSize: opt.ctx, threads: opt.threads, sequences: 1 });
    engine.sequence = context.getSequence();
    engine.ready = true;
    log(`ready listen=${listen} pid=${process.pid} threads=${opt.threads} ctx=${opt.ctx} ` +
        `mmap=${engine.model.useMmap} cpu=${cpuVariant()} load_ms=${Math.round(performance.now() - t0)} mlock=${opt.mlock}`);
} catch (e) {
    log(`error: loading ${opt.model} failed: ${e.message}`);
    process.exit(1);
}
