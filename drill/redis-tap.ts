/**
 * A TCP relay between the bot and its Redis that can stop the bot's writes at an exact point: armed
 * with a marker (bytes the bot will send, e.g. `yookassa:<paymentId>` in the write that records a
 * payment), it either drops the chunk carrying the marker or lets it through, and from then on
 * forwards nothing the bot sends, so whatever the bot meant to write next never reaches Redis. The
 * drill then SIGKILLs the bot: Redis holds exactly the state a crash at that point leaves.
 * Answers from Redis always pass. A relay on 127.0.0.1 only.
 */
import net from "node:net";

export interface TapArm {
  /** Bytes (as text) whose appearance in the bot's traffic freezes it. */
  marker: string;
  /** true: the chunk carrying the marker reaches Redis (the write happens), then nothing more does. */
  forwardMarked: boolean;
}

export interface RedisTap {
  /** redis://127.0.0.1:<port>: the REDIS_URL to give the bot. */
  url: string;
  /** Freezes the bot's traffic at the marker; resolves when it was seen. */
  arm(arm: TapArm): Promise<void>;
  /** Freezes the bot's traffic now: nothing it sends from here on reaches Redis. */
  freeze(): void;
  /** Clears a pending arm and a freeze: new connections pass everything (for the restarted bot). */
  reset(): void;
  close(): Promise<void>;
}

/** Keeps this much of the previous chunk so a marker split across two chunks is still seen. */
const CARRY = 256;

export async function startRedisTap(target: { host: string; port: number }): Promise<RedisTap> {
  let armed: (TapArm & { seen: () => void }) | undefined;
  let frozen = false;
  const sockets = new Set<net.Socket>();

  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    sockets.add(client);
    sockets.add(upstream);
    let tail = "";
    // A connection opened while frozen belongs to the process about to be killed: it gets nothing through.
    let blocked = frozen;
    client.on("data", (chunk: Buffer) => {
      if (blocked || frozen) {
        blocked = true;
        return;
      }
      const text = chunk.toString("latin1");
      const arm = armed;
      if (arm && (tail + text).includes(arm.marker)) {
        frozen = true;
        blocked = true;
        armed = undefined;
        if (arm.forwardMarked) upstream.write(chunk);
        arm.seen();
        return;
      }
      tail = (tail + text).slice(-CARRY);
      upstream.write(chunk);
    });
    upstream.on("data", (chunk: Buffer) => {
      if (!client.destroyed) client.write(chunk);
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on("error", end);
    upstream.on("error", end);
    client.on("close", end);
    upstream.on("close", end);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `redis://127.0.0.1:${port}`,
    arm(arm) {
      return new Promise<void>((resolve) => {
        armed = { ...arm, seen: resolve };
      });
    },
    freeze() {
      frozen = true;
    },
    reset() {
      armed = undefined;
      frozen = false;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
