import { formatNumber } from "../format/money.js";
import { LIMITS, parseWholeNumber, STAR_PRESETS } from "../validate.js";
import type { FlowDef } from "./kit.js";
import { recipientStep, type Step, settle } from "./steps.js";

interface StarsState {
  count?: number;
  recipient?: string;
}

/** Telegram Stars: a preset or a typed amount (50..1,000,000), then the recipient. */
export function createStarsFlow(): FlowDef<StarsState> {
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
  return {
    kind: "stars",
    initial: (): StarsState => ({}),
    steps: () => steps,
    build: (s) => ({ kind: "stars", product: "stars", quantity: s.count, recipient: s.recipient }),
  };
}
