import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import type { RedisClient } from "./connect.js";

/**
 * Lua scripts kept as `.lua` files, each with a header naming its KEYS, ARGV and reply. A file
 * named `name-N.lua` takes N keys; a file without `-N` takes a variable number (the caller passes
 * the count first). A call sends EVALSHA, and EVAL when Redis does not have the script (a
 * restart, a failover, a node of a cluster that never ran it), which loads it again.
 *
 * The scripts are not ioredis `defineCommand`s: ioredis copies every defined command onto each
 * pipeline it makes, and with auto-pipelining it makes one for every batch of commands. With the
 * project's scripts defined that way, each batch cost about 15 µs and 4 KB more (a batch is often
 * a single command outside a rush).
 */
export type ScriptCall = (...args: (string | number)[]) => Promise<unknown>;

interface Source {
  lua: string;
  sha: string;
}

/** Each script file's text and digest, read once per process. */
const sources = new Map<string, Source>();
/** Scripts each client has asked Redis to load (once per client and script). */
const loaded = new WeakMap<RedisClient, Set<string>>();

function sourceOf(url: URL): Source {
  let source = sources.get(url.href);
  if (!source) {
    const lua = readFileSync(url, "utf8");
    source = { lua, sha: createHash("sha1").update(lua).digest("hex") };
    sources.set(url.href, source);
  }
  return source;
}

const isNoScript = (err: unknown) => err instanceof Error && err.message.startsWith("NOSCRIPT");

/**
 * The scripts in `dir` (a folder URL, e.g. `new URL("./lua/", import.meta.url)`) by name, as calls
 * on `redis`. Each is loaded into Redis in the background as it is defined, so that its first call
 * is an EVALSHA too.
 */
export function defineScripts<Name extends string>(
  redis: RedisClient,
  dir: URL,
  files: readonly Name[],
): Record<Name, ScriptCall> {
  const calls = {} as Record<Name, ScriptCall>;
  let asked = loaded.get(redis);
  if (!asked) {
    asked = new Set();
    loaded.set(redis, asked);
  }
  for (const file of files) {
    const keys = /-(\d+)$/.exec(file)?.[1];
    const { lua, sha } = sourceOf(new URL(`${file}.lua`, dir));
    if (!asked.has(sha)) {
      asked.add(sha);
      // Only saves the first call's NOSCRIPT; a failure here changes nothing.
      redis.script("LOAD", lua).catch(() => asked.delete(sha));
    }
    const head: number[] = keys === undefined ? [] : [Number(keys)];
    calls[file] = async (...args) => {
      // The key count first: the file's, or the caller's for a script of any number of keys.
      const argv = [...head, ...args] as [number, ...(string | number)[]];
      try {
        return await redis.evalsha(sha, ...argv);
      } catch (err) {
        if (!isNoScript(err)) throw err;
        return redis.eval(lua, ...argv);
      }
    };
  }
  return calls;
}
