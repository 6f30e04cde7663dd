import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { waitForPing } from "../../sandbox/demo/redis.js";
import { freePort } from "../../sandbox/demo/util.js";

/**
 * Real Redis topologies on loopback, started with the installed `redis-server`: a primary with one
 * replica watched by three Sentinels, and a three-node Cluster. Every process is a child of the
 * caller and is killed by `stop()`; the files live in one temporary directory removed with them.
 */

export interface Node {
  port: number;
  child: ChildProcess;
}

export interface SentinelSet {
  primary: Node;
  replica: Node;
  sentinels: Node[];
  name: string;
  /** `host:port,…` of the Sentinels, as REDIS_SENTINELS takes it. */
  sentinelList: string;
  /** The port of the primary the Sentinels name now. */
  currentPrimaryPort(): Promise<number>;
  stop(): Promise<void>;
}

export interface ClusterSet {
  nodes: Node[];
  /** `host:port,…` of the nodes, as REDIS_CLUSTER_NODES takes it. */
  nodeList: string;
  stop(): Promise<void>;
}

export function hasRedisTools(): boolean {
  const server = spawnSync("redis-server", ["--version"], { stdio: "ignore" });
  const cli = spawnSync("redis-cli", ["--version"], { stdio: "ignore" });
  return server.status === 0 && cli.status === 0;
}

const BASE = [
  "--bind",
  "127.0.0.1",
  "--save",
  "",
  "--appendonly",
  "no",
  "--daemonize",
  "no",
  "--loglevel",
  "warning",
];

function spawnServer(args: string[]): ChildProcess {
  return spawn("redis-server", args, { stdio: "ignore" });
}

async function killAll(nodes: Node[]): Promise<void> {
  await Promise.all(
    nodes.map(
      ({ child }) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once("exit", () => resolve());
          child.kill("SIGKILL");
        }),
    ),
  );
}

async function until<T>(what: string, deadlineMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const end = Date.now() + deadlineMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > end) throw new Error(`${what} did not happen in time${last ? `: ${String(last)}` : ""}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function client(port: number): Redis {
  const c = new Redis({
    port,
    host: "127.0.0.1",
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  c.on("error", () => {});
  return c;
}

async function ask<T>(port: number, fn: (c: Redis) => Promise<T>): Promise<T> {
  const c = client(port);
  try {
    await c.connect();
    return await fn(c);
  } finally {
    c.disconnect();
  }
}

/**
 * A primary, one replica of it and three Sentinels (quorum 2) that fail over within about two
 * seconds of the primary's death. Resolves once the Sentinels know the replica and each other.
 */
export async function startSentinelSet(opts: { downAfterMs?: number } = {}): Promise<SentinelSet> {
  const dir = mkdtempSync(join(tmpdir(), "shopbot-sentinel-"));
  const name = "mymaster";
  const started: Node[] = [];
  try {
    const primaryPort = await freePort();
    const primary = {
      port: primaryPort,
      child: spawnServer(["--port", String(primaryPort), "--dir", dir, ...BASE]),
    };
    started.push(primary);
    await waitForPing(`redis://127.0.0.1:${primaryPort}`, primary.child, 10_000);
    const replicaPort = await freePort();
    const replica = {
      port: replicaPort,
      child: spawnServer([
        "--port",
        String(replicaPort),
        "--dir",
        dir,
        "--replicaof",
        "127.0.0.1",
        String(primaryPort),
        ...BASE,
      ]),
    };
    started.push(replica);
    await waitForPing(`redis://127.0.0.1:${replicaPort}`, replica.child, 10_000);
    await until("replica in sync", 10_000, () =>
      ask(replicaPort, async (c) =>
        (await c.info("replication")).includes("master_link_status:up") ? true : undefined,
      ),
    );
    const sentinels: Node[] = [];
    for (let i = 0; i < 3; i++) {
      const port = await freePort();
      const file = join(dir, `sentinel-${i}.conf`);
      writeFileSync(
        file,
        [
          `port ${port}`,
          "bind 127.0.0.1",
          `dir ${dir}`,
          `sentinel monitor ${name} 127.0.0.1 ${primaryPort} 2`,
          `sentinel down-after-milliseconds ${name} ${opts.downAfterMs ?? 1000}`,
          `sentinel failover-timeout ${name} 5000`,
          `sentinel parallel-syncs ${name} 1`,
          "",
        ].join("\n"),
      );
      const node = { port, child: spawn("redis-server", [file, "--sentinel"], { stdio: "ignore" }) };
      started.push(node);
      sentinels.push(node);
    }
    for (const s of sentinels) {
      await waitForPing(`redis://127.0.0.1:${s.port}`, s.child, 10_000);
    }
    // A failover needs a majority of Sentinels that know the replica and one another.
    await until("sentinels ready", 20_000, async () => {
      for (const s of sentinels) {
        const ok = await ask(s.port, async (c) => {
          const others = (await c.call("SENTINEL", "SENTINELS", name)) as unknown[];
          const replicas = (await c.call("SENTINEL", "REPLICAS", name)) as string[][];
          return others.length === 2 && replicas.length === 1;
        });
        if (!ok) return undefined;
      }
      return true;
    });
    const sentinelList = sentinels.map((s) => `127.0.0.1:${s.port}`).join(",");
    return {
      primary,
      replica,
      sentinels,
      name,
      sentinelList,
      currentPrimaryPort: () =>
        ask(sentinels[0]!.port, async (c) => {
          const [, port] = (await c.call("SENTINEL", "GET-MASTER-ADDR-BY-NAME", name)) as [string, string];
          return Number(port);
        }),
      async stop() {
        await killAll(started);
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await killAll(started);
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

/** Three Cluster primaries (no replicas) made into one Cluster with `redis-cli --cluster create`. */
export async function startClusterSet(): Promise<ClusterSet> {
  const dir = mkdtempSync(join(tmpdir(), "shopbot-cluster-"));
  const nodes: Node[] = [];
  try {
    for (let i = 0; i < 3; i++) {
      const port = await freePort();
      // The bus port is chosen too: its default (port + 10,000) may fall among ports in use.
      const busPort = await freePort();
      const child = spawnServer([
        "--port",
        String(port),
        "--dir",
        dir,
        "--cluster-enabled",
        "yes",
        "--cluster-port",
        String(busPort),
        "--cluster-config-file",
        join(dir, `nodes-${port}.conf`),
        "--cluster-node-timeout",
        "2000",
        ...BASE,
      ]);
      nodes.push({ port, child });
      await waitForPing(`redis://127.0.0.1:${port}`, child, 10_000);
    }
    const nodeList = nodes.map((n) => `127.0.0.1:${n.port}`);
    const made = spawnSync(
      "redis-cli",
      ["--cluster", "create", ...nodeList, "--cluster-replicas", "0", "--cluster-yes"],
      { encoding: "utf8", timeout: 30_000 },
    );
    if (made.status !== 0) throw new Error(`redis-cli --cluster create failed: ${made.stdout}${made.stderr}`);
    await until("cluster state ok", 20_000, async () => {
      for (const n of nodes) {
        const info = await ask(n.port, (c) => c.cluster("INFO") as Promise<string>);
        if (!info.includes("cluster_state:ok")) return undefined;
      }
      return true;
    });
    return {
      nodes,
      nodeList: nodeList.join(","),
      async stop() {
        await killAll(nodes);
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await killAll(nodes);
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}
