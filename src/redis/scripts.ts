import { readFileSync } from "node:fs";
import type { RedisClient } from "./connect.js";

/**
 * Lua scripts kept as `.lua` files, each with a header naming its KEYS, ARGV and reply. A file
 * named `name-N.lua` takes N keys; a file without `-N` takes a variable number (the caller passes
 * the count first). Each is defined once per client with ioredis' `defineCommand`, which sends
 * EVALSHA and falls back to EVAL when Redis lost its script cache (a restart, a failover).
 */
export type ScriptCall = (...args: (string | number)[]) => Promise<unknown>;

/**
 * Defines the scripts in `dir` (a folder URL, e.g. `new URL("./lua/", import.meta.url)`) and returns
 * them by name. `namespace` keeps commands of different modules apart on a shared client.
 */
export function defineScripts<Name extends string>(
  redis: RedisClient,
  namespace: string,
  dir: URL,
  files: readonly Name[],
): Record<Name, ScriptCall> {
  const calls = {} as Record<Name, ScriptCall>;
  const client = redis as unknown as Record<string, ScriptCall | undefined>;
  for (const file of files) {
    const keys = /-(\d+)$/.exec(file)?.[1];
    const command = `${namespace}_${file.replace(/-\d+$/, "")}`;
    if (typeof client[command] !== "function") {
      const lua = readFileSync(new URL(`${file}.lua`, dir), "utf8");
      redis.defineCommand(command, keys === undefined ? { lua } : { lua, numberOfKeys: Number(keys) });
    }
    calls[file] = (...args) => (client[command] as ScriptCall).apply(redis, args);
  }
  return calls;
}
