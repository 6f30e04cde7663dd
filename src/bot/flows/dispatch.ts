import { randomInt } from "node:crypto";
import type { Middleware } from "grammy";
import type { ProductKind } from "../../config.js";
import type { BotContext } from "../context.js";
import { activeFlow, answersFlow, FLOWS_VERSION, type FlowRecord } from "./flow-state.js";
import { type FlowDef, type FlowDeps, FlowRun } from "./kit.js";

/**
 * The product flows: `control` puts {@link FlowControl} on every update's context (register it
 * right after the session), `run` hands the flow in progress the updates that answer it — a
 * button of the question on screen, or a message — and passes every other update on.
 */
export function productFlows(defs: readonly FlowDef<unknown>[], deps: FlowDeps) {
  const byKind = new Map<ProductKind, FlowDef<unknown>>(defs.map((d) => [d.kind, d]));

  const control: Middleware<BotContext> = (ctx, next) => {
    ctx.flows = {
      async enter(kind, locale) {
        const def = byKind.get(kind);
        if (!def) throw new Error(`no flow for ${kind}`);
        const rec: FlowRecord = {
          kind,
          v: FLOWS_VERSION,
          at: Date.now(),
          locale,
          step: 0,
          state: def.initial(),
          waits: 0,
          // Numbered from a random start, so a button left from an earlier flow is not taken as an answer.
          nonce: randomInt(1_000_000),
        };
        ctx.session.flow = undefined;
        await new FlowRun(ctx, rec, def, deps).start();
      },
      left: false,
      aside: false,
      leave() {
        if (ctx.chatId === undefined || ctx.session.flow === undefined) return;
        if (activeFlow(ctx.session) !== undefined) this.left = true;
        ctx.session.flow = undefined;
      },
    };
    return next();
  };

  const run: Middleware<BotContext> = async (ctx, next) => {
    if (ctx.chatId === undefined || ctx.flows.aside) return next();
    const stored = activeFlow(ctx.session);
    if (!stored) return next();
    const query = ctx.callbackQuery;
    if (query) {
      // Buttons of other questions, cards and menus are handled outside the flow.
      if (query.data === undefined || !answersFlow(stored, query.data)) return next();
    } else if (!ctx.message || ctx.message.successful_payment) return next();
    const def = byKind.get(stored.kind);
    if (!def) {
      ctx.session.flow = undefined;
      return next();
    }
    // The record changes in a copy: an update that fails leaves the stored one as it was.
    await new FlowRun(ctx, structuredClone(stored), def, deps).resume();
  };

  return { control, run };
}
