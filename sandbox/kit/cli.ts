/**
 * The command line of a sandbox: reads its environment (a .env file in the working directory
 * when present; real variables win), starts it, prints where it listens and how to point the bot
 * at it, and stops it on SIGINT/SIGTERM (a second signal exits at once).
 */

/** Reads variables: trimmed, an empty one counts as unset; every bad one adds a line to `errors`. */
export function envReader(env: NodeJS.ProcessEnv) {
  const errors: string[] = [];
  const val = (name: string) => {
    const v = env[name]?.trim();
    return v === undefined || v === "" ? undefined : v;
  };
  const num = (name: string, def: number, min: number, max: number, int: boolean) => {
    const v = val(name);
    if (v === undefined) return def;
    const n = Number(v);
    if (!Number.isFinite(n) || n < min || n > max || (int && !Number.isInteger(n))) {
      errors.push(`${name} must be ${int ? "a whole number" : "a number"} from ${min} to ${max}, got "${v}"`);
      return def;
    }
    return n;
  };
  /** A port to listen on; 0 is a free port. */
  const port = (name: string, def: number) => num(name, def, 0, 65535, true);
  /** An http(s) URL, or undefined when unset. */
  const url = (name: string) => {
    const v = val(name);
    if (v !== undefined && !/^https?:\/\//i.test(v))
      errors.push(`${name} must be an http(s) URL, got "${v}"`);
    else if (v !== undefined && !URL.canParse(v)) errors.push(`${name} is not a valid URL`);
    return v;
  };
  return { errors, val, num, port, url };
}

interface Listening {
  url: string;
  close(): Promise<void>;
}

export interface SandboxCli<P extends { opts: { host?: string; port?: number } }, S extends Listening> {
  /** e.g. "YooKassa sandbox", the start of every line it prints. */
  name: string;
  parseEnv(env: NodeJS.ProcessEnv): P | { errors: string[] };
  start(parsed: P): Promise<S>;
  /** Lines printed under "<name> listening on <url>": the variables to give the bot, and settings. */
  describe(sandbox: S, parsed: P): string[];
}

export async function runSandboxCli<
  P extends { opts: { host?: string; port?: number } },
  S extends Listening,
>(cli: SandboxCli<P, S>): Promise<void> {
  const { name } = cli;
  try {
    process.loadEnvFile();
  } catch {
    // No .env file: the environment alone configures the sandbox.
  }
  const parsed = cli.parseEnv(process.env);
  if ("errors" in parsed) {
    console.error(`${name}: bad configuration:\n  ${parsed.errors.join("\n  ")}`);
    process.exit(1);
  }
  let sandbox: S;
  try {
    sandbox = await cli.start(parsed);
  } catch (error) {
    const { host, port } = parsed.opts;
    console.error(`${name}: cannot listen on ${host}:${port}: ${(error as Error).message}`);
    process.exit(1);
  }
  console.log(`${name} listening on ${sandbox.url}`);
  for (const line of cli.describe(sandbox, parsed)) console.log(line);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) process.exit(1);
    stopping = true;
    console.log(`${name}: ${signal}, stopping`);
    sandbox.close().then(
      () => {
        console.log(`${name} stopped`);
        process.exit(0);
      },
      (error: unknown) => {
        console.error(`${name}: error while stopping: ${(error as Error).message}`);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
}
