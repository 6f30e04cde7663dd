import type { FlowContext, FlowConversation } from "../context.js";
import { formatNumber } from "../format/money.js";
import { LIMITS, parseWholeNumber, STAR_PRESETS } from "../validate.js";
import { type FlowArgs, type FlowDeps, FlowRun } from "./kit.js";
import { recipientStep, type Step, settle } from "./steps.js";

export const STARS_FLOW = "stars";

interface StarsState {
  count?: number;
  recipient?: string;
}

/** Telegram Stars: a preset or a typed amount (50..1,000,000), then the recipient. */
export function createStarsFlow(deps: FlowDeps) {
  const amount: Step<StarsState> = {
    id: "amount",
    fields: ["quantity"],
    async run(f, state) {
      const a = await f.ask<number>({
        text: f.t("ask-stars-amount", { min: LIMITS.stars.min, max: LIMITS.stars.max }),
        choices: STAR_PRESETS.map((n) => ({ label: `${formatNumber(n, f.locale)} ⭐`, value: n })),
        columns: 3,
        parse: (text) => parseWholeNumber(text, LIMITS.stars.min, LIMITS.stars.max),
      });
      return settle(a, (v) => {
        state.count = v;
      });
    },
  };
  const steps = [amount, recipientStep<StarsState>()];
  return async function stars(conversation: FlowConversation, ctx: FlowContext, args: FlowArgs) {
    const f = new FlowRun(conversation, ctx, deps, args.locale, "stars");
    await f.run<StarsState>(
      {},
      () => steps,
      (s) => ({ kind: "stars", product: "stars", quantity: s.count, recipient: s.recipient }),
    );
  };
}
