/**
 * Drill 5: delivery webhooks that must be refused or ignored (DESIGN.md, POST /webhooks/reseller):
 * forged signatures → 401, oversize bodies → 413, malformed JSON with a good signature → 400,
 * replays and lies with a good signature → 200 but only a hint (the order is re-read from the
 * reseller). Nothing may change: order states and the customers' chats stay as they were.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { mapLimit, sleep } from "../bench/lib.js";
import { WEBHOOK_SECRET } from "../bench/stack.js";
import { signWebhook } from "../sandbox/reseller/server.js";
import type { ChatUser } from "../sandbox/telegram/index.js";
import {
  buyStarsPatiently,
  emulatorCore,
  finalMessages,
  jobsByType,
  type LogSink,
  type Row,
  readOrder,
  sentTexts,
  settle,
  startDrillStack,
} from "./lib.js";

interface Sent {
  name: string;
  expect: number;
  status: number | string;
}

function webhookBody(customId: string, status: "delivered" | "failed"): string {
  return JSON.stringify({
    event: status,
    custom_id: customId,
    status,
    product: "stars",
    recipient: "someone_else",
    quantity: 50,
    delivered_payload: status === "delivered" ? { tx_hash: `0x${randomBytes(32).toString("hex")}` } : null,
    error_message: status === "failed" ? "forged failure" : null,
    completed_at: new Date().toISOString().replace("Z", ""),
  });
}

export async function webhookDrill(sink: LogSink): Promise<Row[]> {
  const ds = await startDrillStack({ webhooks: true, pollIntervalSeconds: 1 }, sink);
  try {
    const { stack } = ds;
    const url = `http://127.0.0.1:${stack.httpPort}/webhooks/reseller`;
    const core = emulatorCore(stack.emulator);

    // Three delivered orders, then one left pending.
    const buyers = Array.from({ length: 3 }, () => ds.customer());
    const bought = await mapLimit(buyers, 3, async (u) => {
      const p = await buyStarsPatiently(u, { attempts: 2, stepMs: 15_000, deadline: Date.now() + 60_000 });
      if (p.orderId) await u.waitForBotMessage(/Order #\S+ delivered/, 30_000);
      return p.orderId;
    });
    stack.sandbox.pauseDelivery(true);
    const waiting = ds.customer();
    const pendingId = (
      await buyStarsPatiently(waiting, { attempts: 2, stepMs: 15_000, deadline: Date.now() + 60_000 })
    ).orderId;
    const deliveredIds = bought.filter((id): id is string => id !== undefined);
    if (!pendingId || deliveredIds.length === 0)
      throw new Error("could not set up orders for the webhook drill");
    await settle(
      async () => (await readOrder(stack.client, stack.prefix, pendingId))?.state === "pending",
      20_000,
    );
    // The card edits of the pending order (paid → pending) go out first.
    await settle(async () => !(await jobsByType(stack.client, stack.prefix)).get("card"), 15_000);
    await sleep(1_500);

    const customers: ChatUser[] = [...buyers, waiting];
    const orderIds = await stack.client.zrange(`${stack.prefix}idx:all`, 0, -1);
    const snapshot = async () => {
      const orders = new Map<string, string>();
      for (const id of orderIds)
        orders.set(id, (await readOrder(stack.client, stack.prefix, id))?.state ?? "missing");
      const chats = customers.map((u) => {
        const msgs = core.chats.get(u.id)?.messages ?? [];
        return `${msgs.length}/${msgs.reduce((n, m) => n + m.edits, 0)}`;
      });
      return { orders, chats };
    };
    const before = await snapshot();

    const sent: Sent[] = [];
    const post = async (
      name: string,
      expect: number,
      body: string | Buffer,
      signature?: string,
      stream = false,
    ): Promise<void> => {
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (signature !== undefined) headers["x-signature"] = signature;
      let status: number | string;
      try {
        const init: RequestInit & { duplex?: "half" } = { method: "POST", headers };
        if (stream) {
          const bytes = Buffer.from(body);
          init.body = new ReadableStream({
            start(c) {
              for (let i = 0; i < bytes.length; i += 8192) c.enqueue(bytes.subarray(i, i + 8192));
              c.close();
            },
          });
          init.duplex = "half";
        } else init.body = body;
        const res = await fetch(url, init);
        status = res.status;
        await res.body?.cancel().catch(() => {});
      } catch (err) {
        status = `no answer (${(err as Error).message})`;
      }
      sent.push({ name, expect, status });
    };

    const delivered = deliveredIds[0]!;
    const realBody = webhookBody(delivered, "delivered");
    // Forged.
    await post("wrong secret", 401, realBody, signWebhook("not-the-secret", realBody));
    await post("no signature", 401, realBody);
    await post("garbage signature", 401, webhookBody(pendingId, "delivered"), `sha256=${"0".repeat(64)}`);
    await post(
      "signature of another body",
      401,
      webhookBody(pendingId, "delivered"),
      signWebhook(WEBHOOK_SECRET, realBody),
    );
    // Replayed: the sandbox sends the real signed body of an already delivered order again.
    for (const id of deliveredIds) {
      const status = await stack.sandbox.sendWebhook(id);
      sent.push({ name: "replay of a delivered order", expect: 200, status: status ?? "no answer" });
    }
    await Promise.all(
      Array.from({ length: 3 }, async () => {
        const status = await stack.sandbox.sendWebhook(delivered);
        sent.push({ name: "replay (3 at once)", expect: 200, status: status ?? "no answer" });
      }),
    );
    // Lies with a good signature: only a hint, the reseller still says pending.
    const lie = webhookBody(pendingId, "delivered");
    await post("signed 'delivered' for a pending order", 200, lie, signWebhook(WEBHOOK_SECRET, lie));
    const lie2 = webhookBody(pendingId, "failed");
    await post("signed 'failed' for a pending order", 200, lie2, signWebhook(WEBHOOK_SECRET, lie2));
    const unknown = webhookBody(randomUUID(), "delivered");
    await post("signed, unknown custom_id", 200, unknown, signWebhook(WEBHOOK_SECRET, unknown));
    // Oversize.
    const big = JSON.stringify({ custom_id: pendingId, status: "delivered", pad: "x".repeat(70 * 1024) });
    await post("oversize (70 KiB)", 413, big, signWebhook(WEBHOOK_SECRET, big));
    await post("oversize, streamed without length", 413, big, signWebhook(WEBHOOK_SECRET, big), true);
    // Malformed with a good signature.
    const broken = `{"custom_id": "${pendingId}", "status": "deliv`;
    await post("malformed JSON", 400, broken, signWebhook(WEBHOOK_SECRET, broken));
    // Well-formed and signed but naming no order: nothing to re-read, 200 (DESIGN.md).
    const noId = JSON.stringify({ status: "delivered" });
    await post("signed JSON without custom_id", 200, noId, signWebhook(WEBHOOK_SECRET, noId));

    // Hints trigger a re-read; give the engine time for it and a poll or two.
    await sleep(3_000);
    const after = await snapshot();
    const changedOrders = [...before.orders.entries()].filter(([id, s]) => after.orders.get(id) !== s);
    const changedChats = before.chats.filter((c, i) => after.chats[i] !== c).length;

    // The pending order is not harmed: once the reseller delivers, it completes with one message.
    stack.sandbox.pauseDelivery(false);
    await settle(
      async () => (await readOrder(stack.client, stack.prefix, pendingId))?.state === "delivered",
      30_000,
    );
    await settle(() => finalMessages(sentTexts(stack.emulator), waiting.id, pendingId) >= 1, 15_000);
    await sleep(1_000);
    const finals = finalMessages(sentTexts(stack.emulator), waiting.id, pendingId);
    const pendingEnd = (await readOrder(stack.client, stack.prefix, pendingId))?.state;

    const group = (names: RegExp) => sent.filter((s) => names.test(s.name));
    const verdict = (list: Sent[]) => list.every((s) => s.status === s.expect);
    const describe = (list: Sent[]) =>
      list
        .map((s) => `${s.name} → ${s.status}`)
        .filter((v, i, a) => a.indexOf(v) === i)
        .join("; ");
    const forged = group(/secret|signature/);
    const replays = group(/replay|signed/);
    const oversize = group(/oversize/);
    const malformed = group(/malformed/);
    return [
      {
        id: "5a",
        check: "webhooks: forged signatures are refused (401)",
        pass: verdict(forged),
        figure: describe(forged),
      },
      {
        id: "5b",
        check: "webhooks: replays and signed lies are taken only as a hint (200, order re-read)",
        pass: verdict(replays),
        figure: describe(replays),
      },
      {
        id: "5c",
        check: "webhooks: oversize bodies are refused (413)",
        pass: verdict(oversize),
        figure: describe(oversize),
      },
      {
        id: "5d",
        check: "webhooks: malformed JSON with a good signature is refused (400)",
        pass: verdict(malformed),
        figure: describe(malformed),
      },
      {
        id: "5e",
        check: "webhooks: nothing changed (order states, customers' chats)",
        pass: changedOrders.length === 0 && changedChats === 0 && pendingEnd === "delivered" && finals === 1,
        figure:
          `${sent.length} webhooks: ${changedOrders.length}/${before.orders.size} orders changed state` +
          (changedOrders.length
            ? ` (${changedOrders.map(([id, s]) => `${id.slice(0, 8)} ${s}→${after.orders.get(id)}`).join(", ")})`
            : "") +
          `, ${changedChats}/${customers.length} chats changed; the pending order then ${pendingEnd} with ${finals} final message`,
      },
    ];
  } finally {
    await ds.close();
  }
}
